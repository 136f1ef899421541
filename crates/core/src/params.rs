//! Typed action parameters: their declaration, validation, and the choices a form may offer.
//!
//! Every action parameter is declared in the manifest with a [`ParamSpec`]. [`validate`] turns
//! the raw values a user typed (CLI strings or JSON from the UI) into normalised JSON — entity
//! names resolved to ids, trait names to their canonical spelling, numbers checked against their
//! range — before any script runs. An error names the parameter (`attack[2]`, `active.skill`).
//! Every text given is held to the one rule for text ([`crate::text`]) before anything else:
//! one line, without control characters, unless the parameter is long text.
//!
//! A parameter may apply only to some choices of another ([`OnlyWhen`]): while its condition
//! does not hold it is as if left out (its default, or nothing, and never required), and a
//! value given for it is refused, naming the choice that rules it out.

use crate::table::Table;
use crate::visibility::Role;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod values;

/// Longest text a parameter accepts unless its spec says otherwise.
pub const DEFAULT_MAX_TEXT: usize = 2000;
/// Most items in a list or map parameter unless its spec says otherwise.
pub const DEFAULT_MAX_ITEMS: usize = 100;
/// A text parameter allowed more characters than this is long text: a form shows it as a text
/// area, and it may hold line breaks and tabs. Every other text a parameter takes is one line.
pub const LONG_TEXT: usize = 200;

/// The type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    Int,
    Bool,
    Text,
    /// One of `options`.
    Choice,
    /// A dice expression such as `2d6+1`.
    Dice,
    /// An entity on the table, optionally of `kind`.
    Entity,
    /// A player's name: one who plays at this table (forms offer them), or someone new. A name
    /// that differs from a known player's only in capitals is refused as a likely typo.
    Player,
    /// A trait of the entity named by the parameter `entity` (optionally of `category`).
    Trait,
    /// A token pool: `name` or `entity.name`.
    Pool,
    /// A list of `of`.
    List,
    /// A map from names to `of`.
    Map,
    /// A group of named `fields`.
    Record,
}

/// The item type of a list or map: a bare type name, or a full spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ItemSpec {
    Type(ParamType),
    Spec(Box<ParamSpec>),
}

/// A declared parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    #[serde(rename = "type")]
    pub ty: ParamType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// May be left out; scripts then see `()` (or `default`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// For `entity`: the entity kind required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// For `entity`: any of these kinds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
    /// The rule a refusal of this parameter names, such as "TRAITS" or "MAD".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// For `trait`: the parameter (or record field) that names the entity owning the trait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// For `trait`: only traits of this category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// For `list` and `map`: the item type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub of: Option<ItemSpec>,
    /// For `record`: the fields.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub fields: IndexMap<String, ParamSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_len: Option<usize>,
    /// A secret value: in the log, only the GM and the player who gave it see it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// Secret (as `secret`) only while another parameter beside it holds one of some values: a
    /// field's name, say, secret while the field is set for the GM alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_when: Option<OnlyWhen>,
    /// Applies only while another parameter beside it holds one of some values (a form shows
    /// it only then; otherwise it is as if left out, and a value given for it is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_when: Option<OnlyWhen>,
}

/// The condition of a parameter that belongs to some choices only: it applies while the
/// parameter `param` beside it (a choice, or a yes/no) holds one of `is`, and `param` itself
/// applies. `is` holds options of the choice as the manifest spells them, or `true`/`false`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnlyWhen {
    /// The parameter beside this one whose value decides.
    pub param: String,
    /// The values of `param` this parameter is for.
    pub is: Vec<Value>,
}

impl ParamSpec {
    /// Whether the value given for this parameter, beside the others of `params`, is secret.
    pub fn is_secret(&self, params: &Map<String, Value>) -> bool {
        self.secret
            || self.secret_when.as_ref().is_some_and(|c| c.holds_for(params.get(&c.param).unwrap_or(&Value::Null)))
    }
}

impl OnlyWhen {
    /// Whether `value` (normalised, `null` when left out) is one this condition is for.
    pub fn holds_for(&self, value: &Value) -> bool {
        self.is.iter().any(|v| match (v, value) {
            (Value::String(a), Value::String(b)) => a.eq_ignore_ascii_case(b),
            _ => v == value,
        })
    }

    /// The values as a person reads them: "invoke trope or nick of time", "yes".
    pub fn said(&self) -> String {
        let words: Vec<String> = self
            .is
            .iter()
            .map(|v| match v {
                Value::Bool(true) => "yes".to_string(),
                Value::Bool(false) => "no".to_string(),
                Value::String(s) => s.replace('_', " "),
                other => other.to_string(),
            })
            .collect();
        match words.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => words.join(""),
        }
    }
}

impl ParamSpec {
    pub fn of_type(ty: ParamType) -> ParamSpec {
        ParamSpec {
            ty,
            label: None,
            help: None,
            optional: false,
            default: None,
            min: None,
            max: None,
            options: vec![],
            kind: None,
            kinds: vec![],
            rule: None,
            entity: None,
            category: None,
            of: None,
            fields: IndexMap::new(),
            min_items: None,
            max_items: None,
            max_len: None,
            secret: false,
            only_when: None,
            secret_when: None,
        }
    }

    /// Whether a value of this parameter (or of its items) may run over several lines: long
    /// text only (see [`LONG_TEXT`]). No text a parameter takes holds any other control
    /// character ([`crate::text`]).
    pub fn lines(&self) -> crate::text::Lines {
        match self.ty {
            ParamType::Text if self.max_len.is_some_and(|m| m > LONG_TEXT) => crate::text::Lines::Several,
            ParamType::List | ParamType::Map => self.item().map_or(crate::text::Lines::One, |i| i.lines()),
            _ => crate::text::Lines::One,
        }
    }

    /// The spec of one item of a list or map. A bare type name borrows `kind`, `entity`,
    /// `category`, `options`, `min` and `max` from the outer spec.
    pub fn item(&self) -> Option<ParamSpec> {
        match self.of.as_ref()? {
            ItemSpec::Spec(s) => Some((**s).clone()),
            ItemSpec::Type(ty) => Some(ParamSpec {
                min: self.min,
                max: self.max,
                options: self.options.clone(),
                kind: self.kind.clone(),
                kinds: self.kinds.clone(),
                rule: self.rule.clone(),
                entity: self.entity.clone(),
                category: self.category.clone(),
                max_len: self.max_len,
                ..ParamSpec::of_type(*ty)
            }),
        }
    }
}

/// A parameter that failed validation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ParamError {
    pub param: String,
    pub message: String,
    /// The rule the parameter's spec names, if any.
    pub rule: Option<String>,
}

impl ParamError {
    fn describe(&self) -> String {
        match &self.rule {
            Some(rule) => format!("{rule}: {} (parameter '{}')", self.message, self.param),
            None => format!("parameter '{}': {}", self.param, self.message),
        }
    }
}

fn err(param: &str, message: impl Into<String>) -> ParamError {
    ParamError { param: param.to_string(), message: message.into(), rule: None }
}

/// Validates raw values against declared parameters and returns the normalised values.
pub fn validate(
    specs: &IndexMap<String, ParamSpec>,
    raw: &Map<String, Value>,
    table: &Table,
    role: &Role,
) -> Result<Map<String, Value>, ParamError> {
    values::object(specs, raw, table, role, "")
}

/// Whether `value` would be accepted for `spec` — as a manifest's `default` must be — as far as
/// can be told without a table (a name of an entity, a trait, a pool or a player must be text).
pub fn check_default(spec: &ParamSpec, value: &Value) -> Result<(), ParamError> {
    values::default_fits(spec, value, "default")
}

/// What a form may offer for one parameter, given the table and who is asking.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum Choices {
    /// Pick one of these values.
    Options { values: Vec<String> },
    /// Pick an entity: id and display name.
    Entities { values: Vec<EntityChoice> },
    /// Pick a player who plays here, or name a new one.
    Players { values: Vec<String> },
    /// Pick a trait of the entity chosen in `entity`: trait names per entity id.
    Traits { entity: String, by_entity: IndexMap<String, Vec<String>> },
}

/// An entity a form may offer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntityChoice {
    pub id: String,
    pub name: String,
}

/// Why typed `NAME=VALUE` pairs could not be read; each names the pair.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairError {
    #[error("'{0}': expected NAME=VALUE")]
    NoEquals(String),
    #[error("'{name}': the value looks like JSON but is not: {problem}")]
    NotJson { name: String, problem: String },
    #[error("'{0}' is given twice")]
    Twice(String),
}

/// `NAME=VALUE` pairs as typed (a command line, a chat message) as raw parameter values. A
/// value that looks like JSON (`[…]`, `{…}`) is read as JSON; everything else stays text for
/// [`validate`] to check against the manifest. The error names the pair.
pub fn typed_pairs<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<Map<String, Value>, PairError> {
    let mut out = Map::new();
    for pair in pairs {
        let (k, v) = pair.split_once('=').ok_or_else(|| PairError::NoEquals(pair.to_string()))?;
        let v = v.trim();
        let value = if (v.starts_with('[') && v.ends_with(']')) || (v.starts_with('{') && v.ends_with('}')) {
            serde_json::from_str(v).map_err(|e| PairError::NotJson { name: k.to_string(), problem: e.to_string() })?
        } else {
            Value::String(v.to_string())
        };
        if out.insert(k.trim().to_string(), value).is_some() {
            return Err(PairError::Twice(k.to_string()));
        }
    }
    Ok(out)
}

/// The players who play at this table: the owners of its entities, in name order.
pub fn players(table: &Table) -> Vec<String> {
    let mut names: Vec<String> = table.entities.values().filter_map(|e| e.owner.clone()).collect();
    names.sort();
    names.dedup();
    names
}

/// The choices for `spec` (or its items), if the type has a closed set of values.
pub fn choices(spec: &ParamSpec, table: &Table, role: &Role, owned_only: bool) -> Option<Choices> {
    let spec = match spec.ty {
        ParamType::List | ParamType::Map => spec.item()?,
        _ => spec.clone(),
    };
    match spec.ty {
        ParamType::Choice => Some(Choices::Options { values: spec.options.clone() }),
        ParamType::Player => Some(Choices::Players { values: players(table) }),
        ParamType::Entity => Some(Choices::Entities { values: entity_choices(&spec, table, role, owned_only) }),
        ParamType::Pool => Some(Choices::Options { values: pool_choices(table, role) }),
        ParamType::Trait => {
            let entity = spec.entity.clone()?;
            Some(Choices::Traits { entity, by_entity: trait_choices(&spec, table, role) })
        }
        _ => None,
    }
}

/// The entities of the kinds `spec` asks for that `role` sees (and, `owned_only`, plays).
fn entity_choices(spec: &ParamSpec, table: &Table, role: &Role, owned_only: bool) -> Vec<EntityChoice> {
    table
        .entities
        .values()
        .filter(|e| spec.kind.as_ref().is_none_or(|k| &e.kind == k))
        .filter(|e| spec.kinds.is_empty() || spec.kinds.contains(&e.kind))
        .filter(|e| role.sees(e.visibility, e.owner.as_deref()))
        .filter(|e| !owned_only || role.is_gm() || e.owner.as_deref() == role.player())
        .map(|e| EntityChoice { id: e.id.clone(), name: e.name.clone() })
        .collect()
}

/// The table's pools, then the pools of every entity `role` sees.
fn pool_choices(table: &Table, role: &Role) -> Vec<String> {
    let of_entities = table
        .entities
        .values()
        .filter(|e| role.sees(e.visibility, e.owner.as_deref()))
        .flat_map(|e| e.pools.keys().map(move |p| format!("{}.{p}", e.id)));
    table.pools.keys().cloned().chain(of_entities).collect()
}

/// The traits (of the category `spec` asks for) `role` sees, by entity id.
fn trait_choices(spec: &ParamSpec, table: &Table, role: &Role) -> IndexMap<String, Vec<String>> {
    let of_category =
        |t: &&crate::traits::Trait| spec.category.as_ref().is_none_or(|c| t.category.as_deref() == Some(c.as_str()));
    table
        .entities
        .values()
        .filter(|e| role.sees(e.visibility, e.owner.as_deref()))
        .filter(|e| !e.traits.is_empty())
        .map(|e| {
            let seen = |t: &&crate::traits::Trait| role.sees(e.visibility.stricter(t.visibility), e.owner.as_deref());
            let names = e.traits.iter().filter(of_category).filter(seen).map(|t| t.name.clone()).collect();
            (e.id.clone(), names)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::Entity;
    use crate::table::Change;
    use crate::traits::Trait;
    use crate::visibility::Visibility;
    use serde_json::json;

    fn table() -> Table {
        let mut t = Table::default();
        let mut e = Entity {
            id: "gandolf".into(),
            kind: "character".into(),
            name: "Gandolf".into(),
            owner: Some("ann".into()),
            visibility: Visibility::Public,
            fields: IndexMap::new(),
            traits: vec![Trait::named("Magic!"), Trait::named("Fireball")],
            pools: IndexMap::new(),
            portrait: None,
        };
        t.apply(&Change::Create { entity: e.clone() }).unwrap();
        e.id = "goblins".into();
        e.name = "Goblins".into();
        e.kind = "challenge".into();
        e.owner = None;
        t.apply(&Change::Create { entity: e }).unwrap();
        t
    }

    fn specs(toml_text: &str) -> IndexMap<String, ParamSpec> {
        toml::from_str(toml_text).unwrap()
    }

    #[test]
    fn validates_and_normalises() {
        let s = specs(
            r#"
            character = { type = "entity", kind = "character" }
            attack = { type = "list", of = "trait", entity = "character", max_items = 7 }
            mode = { type = "choice", options = ["normal", "berserk", "fortress"], default = "normal" }
            bonus = { type = "int", min = 0, max = 3, optional = true }
            "#,
        );
        let raw = json!({"character": "GANDOLF", "attack": "magic!, fireball"});
        let v = validate(&s, raw.as_object().unwrap(), &table(), &Role::Gm).unwrap();
        assert_eq!(v["character"], json!("gandolf"));
        assert_eq!(v["attack"], json!(["Magic!", "Fireball"]));
        assert_eq!(v["mode"], json!("normal"));
        assert_eq!(v["bonus"], Value::Null);
    }

    #[test]
    fn errors_name_the_parameter() {
        let s = specs(
            r#"
            character = { type = "entity", kind = "character" }
            attack = { type = "list", of = "trait", entity = "character" }
            n = { type = "int", max = 7 }
            "#,
        );
        let t = table();
        let e = validate(
            &s,
            json!({"character": "gandolf", "attack": "Magic!,Levitate", "n": 1}).as_object().unwrap(),
            &t,
            &Role::Gm,
        )
        .unwrap_err();
        assert_eq!(e.param, "attack[2]");
        assert!(e.message.contains("no trait \"Levitate\""), "{e}");
        let e = validate(&s, json!({"character": "goblins", "attack": "", "n": 1}).as_object().unwrap(), &t, &Role::Gm)
            .unwrap_err();
        assert!(e.message.contains("is a challenge, not a character"), "{e}");
        let e = validate(&s, json!({"character": "gandolf", "attack": "", "n": 8}).as_object().unwrap(), &t, &Role::Gm)
            .unwrap_err();
        assert_eq!(e.to_string(), "parameter 'n': 8 is above the maximum of 7");
        let ruled = specs(
            r#"character = { type = "entity" }
            attack = { type = "list", of = "trait", entity = "character", rule = "TRAITS" }
            target = { type = "entity", kinds = ["challenge", "objective"] }"#,
        );
        let e = validate(
            &ruled,
            json!({"character": "gandolf", "attack": "Levitate", "target": "goblins"}).as_object().unwrap(),
            &t,
            &Role::Gm,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "TRAITS: Gandolf has no trait \"Levitate\" (parameter 'attack[1]')",
            "a refusal names the rule"
        );
        let e = validate(
            &ruled,
            json!({"character": "gandolf", "attack": "", "target": "gandolf"}).as_object().unwrap(),
            &t,
            &Role::Gm,
        )
        .unwrap_err();
        assert!(e.message.contains("not one of: challenge, objective"), "{e}");
        let e = validate(
            &s,
            json!({"character": "gandolf", "attack": "", "n": 1, "x": 2}).as_object().unwrap(),
            &t,
            &Role::Gm,
        )
        .unwrap_err();
        assert!(e.message.contains("unknown parameter"), "{e}");
        let e = validate(&s, json!({"attack": "", "n": 1}).as_object().unwrap(), &t, &Role::Gm).unwrap_err();
        assert_eq!(e.to_string(), "parameter 'character': is required");
    }

    #[test]
    fn maps_and_records_take_the_short_form() {
        let s = specs(
            r#"
            skills = { type = "map", of = { type = "int", min = 1, max = 5 } }
            active = { type = "record", fields = { character = { type = "entity" }, skill = { type = "text" } } }
            "#,
        );
        let v = validate(
            &s,
            json!({"skills": "stealth:3, tech:5", "active": "character:gandolf,skill:Tech"}).as_object().unwrap(),
            &table(),
            &Role::Gm,
        )
        .unwrap();
        assert_eq!(v["skills"], json!({"stealth": 3, "tech": 5}));
        assert_eq!(v["active"], json!({"character": "gandolf", "skill": "Tech"}));
        let e = validate(
            &s,
            json!({"skills": "stealth:6", "active": "character:gandolf,skill:x"}).as_object().unwrap(),
            &table(),
            &Role::Gm,
        )
        .unwrap_err();
        assert_eq!(e.param, "skills.stealth");
    }

    #[test]
    fn text_holds_no_control_character_and_only_long_text_runs_over_lines() {
        let s = specs(
            r#"
            name = { type = "text", max_len = 80 }
            story = { type = "text", max_len = 2000, optional = true }
            tags = { type = "map", of = "int", optional = true }
            "#,
        );
        let t = table();
        let given = |v: Value| validate(&s, v.as_object().unwrap(), &t, &Role::Gm);
        assert!(given(json!({"name": "Bob", "story": "one\ntwo\tthree"})).is_ok(), "long text keeps its lines");
        for (raw, param) in [
            (json!({"name": "Bob\n#9 roll by gm"}), "name"),
            (json!({"name": "Bob\u{1b}]0;owned\u{7}"}), "name"),
            (json!({"name": "Bob", "story": "a\u{1b}[2J"}), "story"),
            (json!({"name": "Bob", "story": "evil\u{202e}"}), "story"),
            (json!({"name": "Bob", "tags": {"a\u{7}": 1}}), "tags"),
        ] {
            let e = given(raw.clone()).unwrap_err();
            assert_eq!(e.param, param, "{raw}: {e}");
            assert!(e.message.contains("U+00") || e.message.contains("U+202E"), "{raw}: {e}");
        }
    }

    /// The Hero Point form of the issue: the fields each use takes, and a charge's own.
    fn hero_point() -> IndexMap<String, ParamSpec> {
        specs(
            r#"
            character = { type = "entity", kind = "character" }
            use = { type = "choice", options = ["devils_luck", "invoke_trope", "nick_of_time"] }
            target = { type = "text", label = "Who gets the point", only_when = { param = "use", is = ["nick_of_time"] } }
            attack = { type = "int", min = 0, max = 10, default = 0, only_when = { param = "use", is = ["invoke_trope"] } }
            trope = { type = "text", only_when = { param = "use", is = ["invoke_trope"] } }
            charge = { type = "bool", default = false }
            bonus = { type = "choice", options = ["damage", "push_pull"], default = "push_pull", only_when = { param = "charge", is = [true] } }
            direction = { type = "choice", options = ["push", "pull"], only_when = { param = "bonus", is = ["push_pull"] } }
            "#,
        )
    }

    fn hero(raw: Value) -> Result<Map<String, Value>, ParamError> {
        validate(&hero_point(), raw.as_object().unwrap(), &table(), &Role::Gm)
    }

    #[test]
    fn a_field_for_another_choice_is_not_required_and_is_left_out() {
        let v = hero(json!({"character": "gandolf", "use": "devils_luck"})).unwrap();
        assert_eq!(v["target"], Value::Null, "the target is not asked for Devil's Luck");
        assert_eq!(v["trope"], Value::Null);
        assert_eq!(v["attack"], json!(0), "a field that does not apply is as if left out: its default");
        assert_eq!(v["bonus"], json!("push_pull"));
        assert_eq!(v["direction"], Value::Null, "its condition's own field does not apply: neither does it");
        let e = hero(json!({"character": "gandolf", "use": "invoke_trope"})).unwrap_err();
        assert_eq!(e.to_string(), "parameter 'trope': is required", "a field for the choice made is required");
        let v = hero(json!({"character": "gandolf", "use": "INVOKE_TROPE", "trope": "The Chosen One", "attack": "2"}))
            .unwrap();
        assert_eq!(
            (v["use"].clone(), v["attack"].clone()),
            (json!("invoke_trope"), json!(2)),
            "choices read without capitals"
        );
        let e = hero(json!({"character": "gandolf", "use": "devils_luck", "charge": true})).unwrap_err();
        assert_eq!(e.param, "direction", "a charge with a push asks where to: {e}");
    }

    #[test]
    fn a_value_given_for_a_field_of_another_choice_is_refused_by_the_engine() {
        let e = hero(json!({"character": "gandolf", "use": "devils_luck", "trope": "The Chosen One"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 'trope': only goes with Use: invoke trope (Use is devils luck); leave it out"
        );
        let e =
            hero(json!({"character": "gandolf", "use": "invoke_trope", "trope": "x", "target": "ann"})).unwrap_err();
        assert_eq!(e.param, "target");
        let e = hero(json!({"character": "gandolf", "use": "devils_luck", "direction": "pull"})).unwrap_err();
        assert_eq!(e.to_string(), "parameter 'direction': only goes with Bonus: push pull, which does not apply here");
        let e = hero(json!({"character": "gandolf", "use": "devils_luck", "bonus": "damage"})).unwrap_err();
        assert!(e.message.contains("(Charge is no)"), "{e}");
        let blank =
            hero(json!({"character": "gandolf", "use": "devils_luck", "trope": " ", "target": null, "bonus": ""}));
        assert!(blank.is_ok(), "a blank field is not a value given: {blank:?}");
    }

    #[test]
    fn choices_follow_the_table_and_the_viewer() {
        let s = specs(r#"character = { type = "entity", kind = "character" }"#);
        let t = table();
        let c = choices(&s["character"], &t, &Role::Player("bob".into()), true).unwrap();
        assert_eq!(c, Choices::Entities { values: vec![] }, "bob owns no character");
        let c = choices(&s["character"], &t, &Role::Player("ann".into()), true).unwrap();
        assert!(matches!(c, Choices::Entities { values } if values.len() == 1));
    }
}
