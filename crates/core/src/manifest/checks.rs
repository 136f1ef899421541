//! What [`Manifest::parse`] checks once a manifest is read: a table of checks, one per part of
//! the manifest, each refusing with the dotted path of the field that is wrong. The first check
//! that fails is the one reported.

use super::{is_identifier, Initial, Manifest, Permit, PoolSpec, SettingType, API_VERSION};
use crate::dice::dialect::{self, Dialect};
use crate::params::{ParamSpec, ParamType};
use indexmap::IndexMap;

/// A field that is wrong, and why: (dotted path, message).
pub(super) type Refusal = (String, String);

type Check = fn(&Manifest) -> Result<(), Refusal>;

fn refuse(field: impl Into<String>, message: impl Into<String>) -> Result<(), Refusal> {
    Err((field.into(), message.into()))
}

/// Every check, in the order they are made.
const CHECKS: &[Check] = &[
    identity,
    quotes,
    hand_rolls,
    dice_dialect,
    api,
    scripts,
    settings,
    pools,
    actions,
    turn_controls,
    action_params,
    hooks,
    moments,
    scene,
];

/// Runs every check; the first refusal is the manifest's.
pub(super) fn validate(m: &Manifest) -> Result<(), Refusal> {
    CHECKS.iter().try_for_each(|check| check(m))
}

/// An id, a name and a version.
fn identity(m: &Manifest) -> Result<(), Refusal> {
    let id_chars = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_';
    if m.id.is_empty() || !m.id.chars().all(id_chars) {
        return refuse("id", format!("'{}' is not an id: use lowercase letters, digits, '-' and '_'", m.id));
    }
    if m.name.trim().is_empty() {
        return refuse("name", "must not be empty");
    }
    if m.version.trim().is_empty() {
        return refuse("version", "must not be empty");
    }
    Ok(())
}

/// Every text that quotes a rule function has whole braces.
fn quotes(m: &Manifest) -> Result<(), Refusal> {
    for (field, text) in m.quoting_texts() {
        crate::quote::names(text).map_err(|e| (field, e.to_string()))?;
    }
    Ok(())
}

/// What an action rolls by hand is said in a few words.
fn hand_rolls(m: &Manifest) -> Result<(), Refusal> {
    for (name, rolls) in m.actions.iter().filter_map(|(n, a)| a.rolls.as_ref().map(|r| (n, r))) {
        if rolls.trim().is_empty() || rolls.chars().count() > 60 {
            return refuse(
                format!("actions.{name}.rolls"),
                "say in a few words what is rolled by hand (e.g. \"a d6 per trait\")",
            );
        }
    }
    Ok(())
}

/// A declared dice dialect setting is the one every ruleset has, with another default at most.
fn dice_dialect(m: &Manifest) -> Result<(), Refusal> {
    let Some(spec) = m.settings.get(dialect::SETTING) else { return Ok(()) };
    let known = spec.ty == SettingType::Choice
        && spec.options.iter().all(|o| Dialect::from_name(o).is_some())
        && spec.default.as_str().and_then(Dialect::from_name).is_some();
    if known {
        return Ok(());
    }
    refuse(
        format!("settings.{}", dialect::SETTING),
        "the dice dialect is a choice among houserule and roll20 (every ruleset has it; declare it only to \
         change its default)",
    )
}

/// The plugin API this engine implements.
fn api(m: &Manifest) -> Result<(), Refusal> {
    if m.api == API_VERSION {
        return Ok(());
    }
    refuse("api", format!("this engine implements plugin API {API_VERSION}, the plugin asks for {}", m.api))
}

/// The entry and the other scripts are `.rhai` files of the plugin folder itself.
fn scripts(m: &Manifest) -> Result<(), Refusal> {
    for (i, script) in std::iter::once(&m.entry).chain(m.scripts.iter()).enumerate() {
        let field = if i == 0 { "entry".to_string() } else { format!("scripts[{i}]") };
        if !script.ends_with(".rhai") || script.contains(['/', '\\']) || script.starts_with('.') {
            return refuse(field, format!("'{script}' must be a .rhai file in the plugin folder itself"));
        }
        if std::iter::once(&m.entry).chain(m.scripts.iter()).take(i).any(|s| s == script) {
            return refuse(field, format!("'{script}' is listed twice: each script is merged once"));
        }
    }
    Ok(())
}

/// Each setting: an identifier, options for a choice, a range that holds its default.
fn settings(m: &Manifest) -> Result<(), Refusal> {
    for (name, s) in &m.settings {
        let f = format!("settings.{name}");
        if !is_identifier(name) {
            return refuse(f, "setting names are identifiers (letters, digits, _)");
        }
        if s.ty == SettingType::Choice && s.options.is_empty() {
            return refuse(format!("{f}.options"), "a choice setting needs options");
        }
        setting_fields(&f, s)?;
        s.check(&s.default).map_err(|m| (format!("{f}.default"), m.to_string()))?;
    }
    Ok(())
}

/// A setting's range is for an int, its options for a choice, each option once.
fn setting_fields(f: &str, s: &super::SettingSpec) -> Result<(), Refusal> {
    for (field, given) in [("min", s.min.is_some()), ("max", s.max.is_some())] {
        if given && s.ty != SettingType::Int {
            return refuse(format!("{f}.{field}"), format!("only an int setting has a {field}"));
        }
    }
    if !s.options.is_empty() && s.ty != SettingType::Choice {
        return refuse(format!("{f}.options"), "only a choice setting has options");
    }
    if let Some((i, o)) =
        s.options.iter().enumerate().find(|(i, o)| s.options[..*i].iter().any(|e| e.eq_ignore_ascii_case(o)))
    {
        return refuse(format!("{f}.options"), format!("option {} '{o}' is listed twice", i + 1));
    }
    match (s.min, s.max) {
        (Some(min), Some(max)) if min > max => refuse(format!("{f}.min"), format!("min {min} is above max {max}")),
        _ => Ok(()),
    }
}

/// Every pool, the table's and each kind's.
fn pools(m: &Manifest) -> Result<(), Refusal> {
    for (name, p) in &m.pools {
        pool(m, &format!("pools.{name}"), p)?;
    }
    for (kind, k) in &m.kinds {
        for (name, p) in &k.pools {
            pool(m, &format!("kinds.{kind}.pools.{name}"), p)?;
        }
    }
    Ok(())
}

/// One pool: settings it reads are int settings, its cap is not below its floor, and what it
/// starts with fits it.
fn pool(m: &Manifest, f: &str, p: &PoolSpec) -> Result<(), Refusal> {
    int_setting(m, &format!("{f}.cap_setting"), &p.cap_setting)?;
    int_setting(m, &format!("{f}.initial_setting"), &p.initial_setting)?;
    if p.cap.is_some() && p.cap_setting.is_some() {
        return refuse(format!("{f}.cap_setting"), "give cap or cap_setting (the cap from a setting), not both");
    }
    if p.initial_setting.is_some() && matches!(p.initial, Initial::PerKind(_)) {
        let message = "initial_setting sets one count; counts per kind come from initial alone";
        return refuse(format!("{f}.initial_setting"), message);
    }
    if let Some(k) = p.kinds.iter().enumerate().find(|(i, k)| p.kinds[..*i].contains(k)).map(|(_, k)| k) {
        return refuse(format!("{f}.kinds"), format!("'{k}' is listed twice"));
    }
    if let Some(cap) = p.cap.filter(|cap| *cap < p.floor) {
        return refuse(format!("{f}.cap"), format!("cap {cap} is below floor {}", p.floor));
    }
    if let Initial::PerKind(counts) = &p.initial {
        if let Some(k) = counts.keys().find(|k| !p.kinds.contains(k)) {
            return refuse(format!("{f}.initial.{k}"), format!("'{k}' is not one of the pool's kinds"));
        }
    }
    let built = p.build(&m.settings_with(&IndexMap::new()));
    built.check(f, &built.counts).map_err(|e| (format!("{f}.initial"), e.to_string()))
}

/// A setting a pool reads its numbers from is an int setting of this plugin.
fn int_setting(m: &Manifest, field: &str, name: &Option<String>) -> Result<(), Refusal> {
    match name {
        Some(n) if m.settings.get(n).map(|s| s.ty) != Some(SettingType::Int) => {
            refuse(field, format!("'{n}' is not an int setting of this plugin"))
        }
        _ => Ok(()),
    }
}

/// Each action: an identifier someone may take, calling functions by their names, with the
/// entity parameter `owner` needs.
fn actions(m: &Manifest) -> Result<(), Refusal> {
    for (name, a) in &m.actions {
        let f = format!("actions.{name}");
        if !is_identifier(name) {
            return refuse(f, "action names are identifiers (letters, digits, _)");
        }
        if a.who.is_empty() {
            return refuse(format!("{f}.who"), "nobody may take this action");
        }
        if a.who.iter().enumerate().any(|(i, w)| a.who[..i].contains(w)) {
            return refuse(format!("{f}.who"), "someone is listed twice");
        }
        for (field, fun) in [("function", &a.function), ("odds", &a.odds)] {
            if let Some(fun) = fun.as_ref().filter(|fun| !is_identifier(fun)) {
                return refuse(format!("{f}.{field}"), format!("'{fun}' is not a function name"));
            }
        }
        if a.who.contains(&Permit::Owner) && a.owner_param.is_none() {
            let message = "'owner' in who needs owner_param: the entity parameter whose owner may act";
            return refuse(format!("{f}.owner_param"), message);
        }
        if let Some(op) = a.owner_param.as_ref().filter(|op| a.params.get(*op).map(|p| p.ty) != Some(ParamType::Entity))
        {
            return refuse(format!("{f}.owner_param"), format!("'{op}' is not an entity parameter of this action"));
        }
        if let Some(op) = a.owner_param.as_ref().filter(|op| a.params.get(*op).is_some_and(|p| p.only_when.is_some())) {
            let message = "the entity whose owner may act always applies: it takes no only_when";
            return refuse(format!("{f}.params.{op}.only_when"), message);
        }
    }
    Ok(())
}

/// Each turn control is one action's: the tracker's button says which action it takes.
fn turn_controls(m: &Manifest) -> Result<(), Refusal> {
    let tagged: Vec<_> = m.actions.iter().filter_map(|(name, a)| a.turn.map(|t| (name, t))).collect();
    for (i, (name, control)) in tagged.iter().enumerate() {
        if let Some((first, _)) = tagged[..i].iter().find(|(_, c)| c == control) {
            let message = format!("actions.{first} is already the tracker's '{}' control", control.name());
            return refuse(format!("actions.{name}.turn"), message);
        }
    }
    Ok(())
}

/// Every action's parameters.
fn action_params(m: &Manifest) -> Result<(), Refusal> {
    m.actions.iter().try_for_each(|(name, a)| params(m, &format!("actions.{name}.params"), &a.params))
}

/// A group of parameters (an action's, or a record's fields).
fn params(m: &Manifest, prefix: &str, group: &IndexMap<String, ParamSpec>) -> Result<(), Refusal> {
    for (name, p) in group {
        let f = format!("{prefix}.{name}");
        if !is_identifier(name) {
            return refuse(f, "parameter names are identifiers (letters, digits, _)");
        }
        param(m, &f, p, group)?;
    }
    super::conditions::check(prefix, group)
}

/// One parameter, by its type; `siblings` are the parameters beside it.
fn param(m: &Manifest, f: &str, p: &ParamSpec, siblings: &IndexMap<String, ParamSpec>) -> Result<(), Refusal> {
    super::param_checks::check(f, p)?;
    match p.ty {
        ParamType::Choice if p.options.is_empty() => refuse(format!("{f}.options"), "a choice needs options"),
        ParamType::List | ParamType::Map => {
            let needs = format!("a {:?} parameter needs 'of'", p.ty).to_lowercase();
            let item = p.item().ok_or_else(|| (format!("{f}.of"), needs))?;
            if item.only_when.is_some() {
                let message = "an item has nothing beside it to depend on: put the condition on the list itself";
                return refuse(format!("{f}.of.only_when"), message);
            }
            param(m, &format!("{f}.of"), &item, siblings)
        }
        ParamType::Record if p.fields.is_empty() => refuse(format!("{f}.fields"), "a record needs fields"),
        ParamType::Record => params(m, &format!("{f}.fields"), &p.fields),
        ParamType::Entity => entity_kinds(m, f, p),
        ParamType::Trait => match &p.entity {
            Some(e) if siblings.get(e).map(|s| s.ty) != Some(ParamType::Entity) => {
                refuse(format!("{f}.entity"), format!("'{e}' is not an entity parameter next to this one"))
            }
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The kinds an entity parameter asks for are kinds of this plugin.
fn entity_kinds(m: &Manifest, f: &str, p: &ParamSpec) -> Result<(), Refusal> {
    let named = p.kind.iter().map(|k| ("kind", k)).chain(p.kinds.iter().map(|k| ("kinds", k)));
    for (field, k) in named {
        if !m.kinds.contains_key(k) {
            return refuse(format!("{f}.{field}"), format!("'{k}' is not an entity kind of this plugin"));
        }
    }
    Ok(())
}

/// The engine's hooks name functions.
fn hooks(m: &Manifest) -> Result<(), Refusal> {
    for (hook, fun, _) in m.hooks.functions() {
        if !is_identifier(fun) {
            return refuse(format!("hooks.{hook}"), format!("'{fun}' is not a function name"));
        }
    }
    Ok(())
}

/// The moments name functions (or families of them), each once.
fn moments(m: &Manifest) -> Result<(), Refusal> {
    for (i, moment) in m.hooks.moments.iter().enumerate() {
        if !is_identifier(moment.strip_suffix('*').unwrap_or(moment)) {
            return refuse("hooks.moments", format!("'{moment}' is not a function name (or a name ending in *)"));
        }
        if m.hooks.moments[..i].contains(moment) {
            return refuse("hooks.moments", format!("'{moment}' is listed twice"));
        }
    }
    Ok(())
}

/// The `[scene]` unit is a name and a positive amount per cell within the scene caps.
fn scene(m: &Manifest) -> Result<(), Refusal> {
    let s = &m.scene;
    if !(s.per_cell.is_finite() && s.per_cell > 0.0 && s.per_cell <= crate::scene::grid::MAX_PER_CELL) {
        let max = crate::scene::grid::MAX_PER_CELL;
        return refuse(
            "scene.per_cell",
            format!("{} is not an amount per cell (more than 0, at most {max})", s.per_cell),
        );
    }
    if s.unit.trim().is_empty() || crate::text::check(&s.unit, crate::text::Lines::One).is_err() {
        return refuse("scene.unit", "a unit is a name on one line (inch, area, ft)");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Manifest;

    const BASE: &str = r#"
id = "lies"
name = "Lies"
version = "1"
api = 1
entry = "rules.rhai"

[settings.level]
type = "int"
default = 2

[kinds.character]

[pools.bag]
kinds = ["white", "black"]
initial = { white = 1 }

[actions.a]
who = ["gm"]
"#;

    /// The field a manifest with `extra` appended is refused at.
    fn refused_at(extra: &str) -> String {
        match Manifest::parse("plugin.toml", &format!("{BASE}{extra}\n")) {
            Ok(_) => panic!("a manifest that lies is refused:\n{extra}"),
            Err(e) => e.field,
        }
    }

    #[test]
    fn the_base_manifest_tells_the_truth() {
        Manifest::parse("plugin.toml", BASE).unwrap();
        let honest = "params.n = { type = \"int\", min = 1, max = 3, default = 2 }\n\
                      params.who = { type = \"list\", of = \"choice\", options = [\"x\", \"y\"], max_items = 2, default = [\"x\"] }\n\
                      params.c = { type = \"entity\", kind = \"character\", default = \"hero\" }\n\
                      params.t = { type = \"list\", of = \"trait\", entity = \"c\", category = \"skill\" }\n\
                      params.r = { type = \"record\", fields = { k = { type = \"int\", default = 1 } }, default = \"k:2\" }";
        Manifest::parse("plugin.toml", &format!("{BASE}{honest}\n")).unwrap();
    }

    #[test]
    fn a_parameter_that_contradicts_itself_is_refused_at_its_field() {
        let p = "actions.a.params.p";
        for (lie, field) in [
            (r#"type = "int", default = "many""#, "default"),
            (r#"type = "int", min = 1, max = 3, default = 7"#, "default"),
            (r#"type = "int", min = 5, max = 1"#, "min"),
            (r#"type = "bool", default = 3"#, "default"),
            (r#"type = "choice", options = ["a", "b"], default = "c""#, "default"),
            (r#"type = "choice", options = ["a", "A"]"#, "options"),
            (r#"type = "text", max_len = 3, default = "too long""#, "default"),
            (r#"type = "text", max_len = 0"#, "max_len"),
            (r#"type = "dice", default = "2d""#, "default"),
            (r#"type = "entity", default = 3"#, "default"),
            (r#"type = "list", of = "int", min_items = 3, max_items = 1"#, "min_items"),
            (r#"type = "list", of = "int", max_items = 1, default = [1, 2]"#, "default"),
            (r#"type = "list", of = "int", max = 2, default = [1, 5]"#, "default"),
            (r#"type = "map", of = "int", default = { a = "x" }"#, "default"),
            (r#"type = "record", fields = { k = { type = "int" } }, default = { q = 1 }"#, "default"),
            (r#"type = "int", options = ["a"]"#, "options"),
            (r#"type = "text", min = 1"#, "min"),
            (r#"type = "text", kind = "character""#, "kind"),
            (r#"type = "int", entity = "c""#, "entity"),
            (r#"type = "int", category = "skill""#, "category"),
            (r#"type = "int", of = "int""#, "of"),
            (r#"type = "int", fields = { k = { type = "int" } }"#, "fields"),
            (r#"type = "int", min_items = 1"#, "min_items"),
            (r#"type = "int", max_len = 5"#, "max_len"),
            (r#"type = "entity", kind = "character", kinds = ["character"]"#, "kinds"),
            (r#"type = "list", of = { type = "int" }, max = 3"#, "max"),
        ] {
            assert_eq!(refused_at(&format!("params.p = {{ {lie} }}")), format!("{p}.{field}"), "{lie}");
        }
        let nested = "params.r = { type = \"record\", fields = { k = { type = \"int\", min = 4, max = 2 } } }";
        assert_eq!(refused_at(nested), "actions.a.params.r.fields.k.min");
    }

    #[test]
    fn settings_pools_scripts_and_actions_that_contradict_themselves_are_refused() {
        for (lie, field) in [
            ("[settings.x]\ntype = \"int\"\ndefault = 1\noptions = [\"a\"]", "settings.x.options"),
            ("[settings.x]\ntype = \"text\"\ndefault = \"a\"\nmin = 1", "settings.x.min"),
            ("[settings.x]\ntype = \"choice\"\ndefault = \"a\"\noptions = [\"a\", \"a\"]", "settings.x.options"),
            ("[pools.p]\ncap = 3\ncap_setting = \"level\"", "pools.p.cap_setting"),
            (
                "[pools.p]\nkinds = [\"w\", \"b\"]\ninitial = { w = 1 }\ninitial_setting = \"level\"",
                "pools.p.initial_setting",
            ),
            ("[pools.p]\nkinds = [\"w\", \"w\"]", "pools.p.kinds"),
            ("[actions.b]\nwho = [\"gm\", \"gm\"]", "actions.b.who"),
            ("[actions.b]\nturn = \"next\"\n[actions.c]\nturn = \"next\"", "actions.c.turn"),
        ] {
            assert_eq!(refused_at(lie), field, "{lie}");
        }
        let twice =
            BASE.replace("entry = \"rules.rhai\"", "entry = \"rules.rhai\"\nscripts = [\"more.rhai\", \"rules.rhai\"]");
        assert_eq!(Manifest::parse("plugin.toml", &twice).unwrap_err().field, "scripts[2]");
    }
}
