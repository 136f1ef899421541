//! The plugin manifest, `plugin.toml`.
//!
//! It declares what a ruleset is (id, name, version, API version, entry script), what a GM may
//! set (typed settings with defaults), what lives on the table (entity kinds with their fields
//! and pools, table pools), what can be done (actions with typed parameters and who may take
//! them) and where the engine calls in (hooks). [`Manifest::parse`] refuses a manifest that
//! does not fit, with the file, line and the dotted field path that is wrong.

use crate::dice::dialect::{self, Dialect};
use crate::params::ParamSpec;
use crate::pool::{Pool, DEFAULT_KIND};
use crate::visibility::Visibility;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod checks;
mod conditions;
mod param_checks;

/// The plugin API version this engine implements.
pub const API_VERSION: u32 = 1;

/// A parsed and validated `plugin.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Lowercase id: letters, digits, `-` and `_`.
    pub id: String,
    pub name: String,
    pub version: String,
    /// The plugin API version the ruleset was written for.
    pub api: u32,
    /// The entry script, in the plugin folder.
    pub entry: String,
    /// More scripts, merged after the entry in this order. Every function in them can be
    /// replaced by a house rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scripts: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default)]
    pub settings: IndexMap<String, SettingSpec>,
    #[serde(default)]
    pub kinds: IndexMap<String, KindSpec>,
    /// The table's own variables (`t.set_var`), declared for their labels, or as bookkeeping.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub vars: IndexMap<String, FieldSpec>,
    #[serde(default)]
    pub pools: IndexMap<String, PoolSpec>,
    #[serde(default)]
    pub actions: IndexMap<String, ActionSpec>,
    #[serde(default)]
    pub hooks: Hooks,
    /// The grid a new scene gets, and how the rules measure distance on it.
    #[serde(default, skip_serializing_if = "SceneDefaults::is_default")]
    pub scene: SceneDefaults,
}

/// A ruleset's `[scene]` table: the grid a new scene starts with (the GM may change it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SceneDefaults {
    /// `square` or `hex`.
    #[serde(default)]
    pub grid: crate::scene::grid::GridKind,
    /// On a square grid: `chebyshev` (every diagonal 1), `alternate` (1-2-1) or `euclid`.
    #[serde(default)]
    pub measure: crate::scene::grid::Measure,
    /// The unit one cell stands for (`inch`, `area`, `ft`).
    #[serde(default = "default_unit")]
    pub unit: String,
    /// How many of the unit one cell is.
    #[serde(default = "default_per_cell")]
    pub per_cell: f64,
}

fn default_unit() -> String {
    "ft".into()
}

fn default_per_cell() -> f64 {
    5.0
}

impl Default for SceneDefaults {
    fn default() -> SceneDefaults {
        SceneDefaults { grid: Default::default(), measure: Default::default(), unit: default_unit(), per_cell: 5.0 }
    }
}

impl SceneDefaults {
    fn is_default(&self) -> bool {
        *self == SceneDefaults::default()
    }

    /// The grid a new scene starts with.
    pub fn grid(&self) -> crate::scene::grid::Grid {
        let unit = crate::scene::grid::Unit { name: self.unit.clone(), per_cell: self.per_cell };
        crate::scene::grid::Grid { kind: self.grid, measure: self.measure, unit, ..Default::default() }
    }
}

/// The type of a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SettingType {
    Int,
    Bool,
    Text,
    Choice,
}

/// A setting a GM can change when creating a campaign (and house rules can override).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingSpec {
    #[serde(rename = "type")]
    pub ty: SettingType,
    pub default: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

impl SettingSpec {
    /// Checks a value (JSON, or text from `--set KEY=VALUE`) and returns it normalised.
    pub fn check(&self, value: &Value) -> Result<Value, SettingError> {
        self.check_text(value).map_err(SettingError)
    }

    fn check_text(&self, value: &Value) -> Result<Value, String> {
        match self.ty {
            SettingType::Int => {
                let n = match value {
                    Value::Number(n) => n.as_i64(),
                    Value::String(s) => s.trim().parse::<i64>().ok(),
                    _ => None,
                }
                .ok_or_else(|| format!("expected a whole number, got {value}"))?;
                if let Some(min) = self.min.filter(|m| n < *m) {
                    return Err(format!("{n} is below the minimum of {min}"));
                }
                if let Some(max) = self.max.filter(|m| n > *m) {
                    return Err(format!("{n} is above the maximum of {max}"));
                }
                Ok(Value::from(n))
            }
            SettingType::Bool => match value {
                Value::Bool(b) => Ok(Value::Bool(*b)),
                Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                    "true" | "yes" | "on" | "1" => Ok(Value::Bool(true)),
                    "false" | "no" | "off" | "0" => Ok(Value::Bool(false)),
                    _ => Err(format!("'{s}' is not true or false")),
                },
                _ => Err(format!("expected true or false, got {value}")),
            },
            SettingType::Text => match value {
                Value::String(s) if s.chars().count() <= 500 => Ok(Value::String(s.clone())),
                Value::String(_) => Err("is longer than 500 characters".into()),
                _ => Err(format!("expected text, got {value}")),
            },
            SettingType::Choice => {
                let s = value.as_str().ok_or_else(|| format!("expected one of {}", self.options.join(", ")))?;
                self.options
                    .iter()
                    .find(|o| o.eq_ignore_ascii_case(s.trim()))
                    .map(|o| Value::String(o.clone()))
                    .ok_or_else(|| format!("'{s}' is not one of {}", self.options.join(", ")))
            }
        }
    }
}

/// The dice dialect setting every ruleset carries (`docs/dice.md`, "Dialects").
pub fn dialect_setting() -> SettingSpec {
    SettingSpec {
        ty: SettingType::Choice,
        default: Value::String(Dialect::Houserule.name().into()),
        label: Some("Dice dialect".into()),
        help: Some(
            "How dice forms that Roll20 and Foundry read differently are read: houserule (as Foundry: cs counts \
             successes, r rerolls once) or roll20 (cs marks criticals, r rerolls again, 10d10>=8 counts successes)."
                .into(),
        ),
        min: None,
        max: None,
        options: Dialect::ALL.iter().map(|d| d.name().to_string()).collect(),
    }
}

/// A setting's value that does not fit, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SettingError(pub String);

/// An entity kind the ruleset puts on the table.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KindSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Default visibility of entities of this kind.
    #[serde(default)]
    pub visibility: Visibility,
    /// Declared fields, with their visibility (undeclared fields are public).
    #[serde(default)]
    pub fields: IndexMap<String, FieldSpec>,
    /// Pools every entity of this kind gets.
    #[serde(default)]
    pub pools: IndexMap<String, PoolSpec>,
}

/// A declared field.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The rules' own bookkeeping (a serial number, the last roll's context): kept on the table
    /// for the scripts, never shown at the table.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bookkeeping: bool,
}

/// Initial counts of a pool: a total for a single-kind pool, or counts per kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Initial {
    Total(i64),
    PerKind(IndexMap<String, i64>),
}

impl Default for Initial {
    fn default() -> Self {
        Initial::Total(0)
    }
}

/// A declared pool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PoolSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default)]
    pub initial: Initial,
    /// Take the initial total from this int setting instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_setting: Option<String>,
    /// Token kinds; none means one kind, `token`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
    #[serde(default)]
    pub floor: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<i64>,
    /// Take the cap from this int setting instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_setting: Option<String>,
    #[serde(default)]
    pub visibility: Visibility,
}

impl PoolSpec {
    /// The pool this spec creates under the given settings.
    pub fn build(&self, settings: &IndexMap<String, Value>) -> Pool {
        let setting = |name: &Option<String>| name.as_ref().and_then(|s| settings.get(s)).and_then(Value::as_i64);
        let kinds: Vec<String> =
            if self.kinds.is_empty() { vec![DEFAULT_KIND.to_string()] } else { self.kinds.clone() };
        let mut counts: IndexMap<String, i64> = kinds.iter().map(|k| (k.clone(), 0)).collect();
        match (&self.initial, setting(&self.initial_setting)) {
            (_, Some(n)) => counts[0] = n,
            (Initial::Total(n), None) => counts[0] = *n,
            (Initial::PerKind(m), None) => {
                for (k, v) in m {
                    counts.insert(k.clone(), *v);
                }
            }
        }
        Pool {
            label: self.label.clone(),
            counts,
            floor: self.floor,
            cap: setting(&self.cap_setting).or(self.cap),
            visibility: self.visibility,
        }
    }
}

/// Who may take an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Permit {
    /// The GM.
    Gm,
    /// Any player.
    Player,
    /// The player who owns the entity in the action's `owner_param`.
    Owner,
}

/// A declared action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// A heading to group actions under in a form list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default = "gm_only")]
    pub who: Vec<Permit>,
    /// The entity parameter whose owner may act under `owner`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_param: Option<String>,
    /// The script function to call; defaults to the action name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// A script function `(t, p)` that says, without rolling, what the action is about to roll
    /// and what it needs (see [`crate::chance`]): the form shows the chance of success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub odds: Option<String>,
    /// The dice a person rolls by hand for this action, as players would say it ("a d6 per
    /// trait", "4dF"): its form offers to type them in. Absent, the action rolls nothing a
    /// person could roll (or nothing at all), and its form has no field for dice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolls: Option<String>,
    #[serde(default)]
    pub params: IndexMap<String, ParamSpec>,
    /// Why this action cannot be undone (it told players something that cannot be untold, say);
    /// absent, the GM may undo it like any other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_undoable: Option<String>,
    /// What this action does to the turn order, if it is one of the tracker's controls: the
    /// turn tracker beside the table offers it as a button (its form stays in the list too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<TurnControl>,
}

/// The controls a turn tracker offers, each taken by an action the ruleset names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnControl {
    /// Starts an encounter (rolls or deals the order).
    Start,
    /// Ends the turn of whoever has it; the next in order takes it.
    Next,
    /// Holds (delays) the current turn.
    Hold,
    /// Ends the round.
    Round,
    /// Ends the encounter.
    End,
}

impl TurnControl {
    /// The control's name as a manifest writes it.
    pub fn name(self) -> &'static str {
        match self {
            TurnControl::Start => "start",
            TurnControl::Next => "next",
            TurnControl::Hold => "hold",
            TurnControl::Round => "round",
            TurnControl::End => "end",
        }
    }
}

fn gm_only() -> Vec<Permit> {
    vec![Permit::Gm]
}

impl ActionSpec {
    pub fn function_name<'a>(&'a self, action: &'a str) -> &'a str {
        self.function.as_deref().unwrap_or(action)
    }
}

/// Script functions the engine calls at fixed points.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hooks {
    /// `fn(t)` when a campaign is created, after settings and pools are in place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<String>,
    /// `fn(t, action, params)` before every action; throw to refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_action: Option<String>,
    /// `fn(t, roll)` after every roll a script makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_roll: Option<String>,
    /// `fn(t, round)` when a round ends: a script's `t.end_round()`, or the turn tracker
    /// passing the turn after everyone has acted. `round` is the table's new round counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_end: Option<String>,
    /// `fn(t, id)` when it becomes a participant's turn in the turn tracker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_start: Option<String>,
    /// `fn(t, id)` when a participant's turn in the turn tracker ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_end: Option<String>,
    /// `fn(t, m)` after a token moves by a `move` call (not a script's `t.move_token`), in the same
    /// transaction: `m` is the move (`token`, `entity`, `path`, `length`, `straight`); throw to
    /// refuse it, and nothing is committed.
    #[serde(default, rename = "move", skip_serializing_if = "Option::is_none")]
    pub on_move: Option<String>,
    /// Moments of play the ruleset's own scripts call a function at (a turn starting, a
    /// challenge ending …), for house rules to hook into: each the name of a function the
    /// ruleset defines and calls (usually with an empty body), or a name ending in `*` for a
    /// family the ruleset calls by name (`knack_*`: a function for every Knack).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moments: Vec<String>,
}

impl Hooks {
    /// (hook, function, arity) for each hook that is set.
    pub fn functions(&self) -> Vec<(&'static str, &str, usize)> {
        let mut out = Vec::new();
        if let Some(f) = &self.setup {
            out.push(("setup", f.as_str(), 1));
        }
        if let Some(f) = &self.before_action {
            out.push(("before_action", f.as_str(), 3));
        }
        if let Some(f) = &self.after_roll {
            out.push(("after_roll", f.as_str(), 2));
        }
        if let Some(f) = &self.round_end {
            out.push(("round_end", f.as_str(), 2));
        }
        if let Some(f) = &self.turn_start {
            out.push(("turn_start", f.as_str(), 2));
        }
        if let Some(f) = &self.turn_end {
            out.push(("turn_end", f.as_str(), 2));
        }
        if let Some(f) = &self.on_move {
            out.push(("move", f.as_str(), 2));
        }
        out
    }

    /// The hook a function of this name is, if it is one: the engine's hook it is set for
    /// (`round_end`), or the moment it matches (`on_turn_start`, `knack_*`).
    pub fn hook_of(&self, function: &str) -> Option<String> {
        if let Some((hook, ..)) = self.functions().into_iter().find(|(_, f, _)| *f == function) {
            return Some(hook.to_string());
        }
        self.moments.iter().find(|m| moment_matches(m, function)).cloned()
    }
}

/// Whether `function` is the moment `moment` names (a name, or a family `prefix*`).
pub fn moment_matches(moment: &str, function: &str) -> bool {
    match moment.strip_suffix('*') {
        Some(prefix) => function.starts_with(prefix) && function.len() > prefix.len(),
        None => moment == function,
    }
}

/// A manifest that cannot be used, with where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ManifestError {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Dotted path of the field, such as `actions.trait_check.params.traits.of`.
    pub field: String,
    pub message: String,
}

impl ManifestError {
    fn describe(&self) -> String {
        let mut s = self.file.clone();
        if let Some(l) = self.line {
            s.push_str(&format!(":{l}"));
            if let Some(c) = self.column {
                s.push_str(&format!(":{c}"));
            }
        }
        if !self.field.is_empty() {
            s.push_str(&format!(": {}", self.field));
        }
        format!("{s}: {}", self.message)
    }
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
    (line, col)
}

pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Manifest {
    /// Parses and validates a manifest. `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Manifest, ManifestError> {
        let de = toml::Deserializer::new(text);
        let mut manifest: Manifest = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let (line, column) = match inner.span() {
                Some(span) => {
                    let (l, c) = line_col(text, span.start);
                    (Some(l), Some(c))
                }
                None => (None, None),
            };
            ManifestError {
                file: file.to_string(),
                line,
                column,
                field: if path == "." { String::new() } else { path },
                message: inner.message().trim().to_string(),
            }
        })?;
        checks::validate(&manifest).map_err(|(field, message)| {
            // Point at the line where the field's last key appears, when it can be found.
            let key = field.rsplit('.').next().unwrap_or(&field);
            let line = text.lines().position(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("{key} "))
                    || l.starts_with(&format!("{key}="))
                    || l.contains(&format!(".{key}]"))
                    || l.contains(&format!("[{key}]"))
            });
            ManifestError { file: file.to_string(), line: line.map(|l| l + 1), column: None, field, message }
        })?;
        // Every campaign can pick how dice expressions are read (docs/dice.md, "Dialects").
        manifest.settings.entry(dialect::SETTING.to_string()).or_insert_with(dialect_setting);
        Ok(manifest)
    }

    /// The settings in force: defaults overridden by `overrides` (already checked).
    pub fn settings_with(&self, overrides: &IndexMap<String, Value>) -> IndexMap<String, Value> {
        self.settings
            .iter()
            .map(|(k, s)| (k.clone(), overrides.get(k).cloned().unwrap_or_else(|| s.default.clone())))
            .collect()
    }

    /// Checks `KEY=VALUE` style overrides and returns them normalised.
    pub fn check_settings(&self, overrides: &IndexMap<String, Value>) -> Result<IndexMap<String, Value>, SettingError> {
        let mut out = IndexMap::new();
        for (k, v) in overrides {
            let spec = self.settings.get(k).ok_or_else(|| {
                let known: Vec<&str> = self.settings.keys().map(String::as_str).collect();
                SettingError(format!(
                    "{} has no setting '{k}' (its settings are: {})",
                    self.name,
                    if known.is_empty() { "none".into() } else { known.join(", ") }
                ))
            })?;
            out.insert(k.clone(), spec.check(v).map_err(|m| SettingError(format!("setting '{k}': {m}")))?);
        }
        Ok(out)
    }

    /// All script functions the manifest refers to: (where, function, arity).
    pub fn referenced_functions(&self) -> Vec<(String, String, usize)> {
        let mut out: Vec<(String, String, usize)> = self
            .actions
            .iter()
            .map(|(name, a)| (format!("actions.{name}"), a.function_name(name).to_string(), 2))
            .collect();
        for (name, a) in &self.actions {
            if let Some(f) = &a.odds {
                out.push((format!("actions.{name}.odds"), f.clone(), 2));
            }
        }
        for (hook, f, arity) in self.hooks.functions() {
            out.push((format!("hooks.{hook}"), f.to_string(), arity));
        }
        out.extend(self.quoted().into_iter().map(|(field, name)| (field, name, 0)));
        out
    }

    /// The manifest with every text that quotes filled in from `quotes`, as the table shows it.
    pub fn filled(&self, quotes: &crate::quote::Quotes) -> Manifest {
        let mut m = self.clone();
        let fill = |t: &mut Option<String>| {
            if let Some(text) = t.as_mut() {
                *text = crate::quote::fill(text, quotes);
            }
        };
        for a in m.actions.values_mut() {
            fill(&mut a.label);
            fill(&mut a.help);
            for p in a.params.values_mut() {
                fill(&mut p.label);
                fill(&mut p.help);
            }
        }
        for k in m.kinds.values_mut() {
            for f in k.fields.values_mut() {
                fill(&mut f.label);
                fill(&mut f.help);
            }
        }
        m
    }

    /// Every text of the manifest that may quote (see [`crate::quote`]), with where it is (`actions.NAME.help`, …).
    pub fn quoting_texts(&self) -> Vec<(String, &str)> {
        let mut out: Vec<(String, &str)> = Vec::new();
        for (name, a) in &self.actions {
            out.extend(a.label.as_deref().map(|t| (format!("actions.{name}.label"), t)));
            out.extend(a.help.as_deref().map(|t| (format!("actions.{name}.help"), t)));
            for (p, spec) in &a.params {
                out.extend(spec.label.as_deref().map(|t| (format!("actions.{name}.params.{p}.label"), t)));
                out.extend(spec.help.as_deref().map(|t| (format!("actions.{name}.params.{p}.help"), t)));
            }
        }
        for (kind, k) in &self.kinds {
            for (f, spec) in &k.fields {
                out.extend(spec.label.as_deref().map(|t| (format!("kinds.{kind}.fields.{f}.label"), t)));
                out.extend(spec.help.as_deref().map(|t| (format!("kinds.{kind}.fields.{f}.help"), t)));
            }
        }
        out
    }

    /// The rule functions its texts quote (see [`crate::quote`]), each with the first text
    /// that quotes it. Texts with broken braces quote nothing (validation refuses them).
    pub fn quoted(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for (field, text) in self.quoting_texts() {
            for name in crate::quote::names(text).unwrap_or_default() {
                if !out.iter().any(|(_, n)| n == &name) {
                    out.push((field.clone(), name));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
id = "demo"
name = "Demo"
version = "1.0.0"
api = 1
entry = "rules.rhai"

[settings.mad]
type = "int"
default = 7
min = 1
max = 20

[kinds.character]
pools.hero = { cap = 1, initial = 1 }

[pools.momentum]
cap_setting = "mad"

[actions.check]
who = ["gm", "owner"]
owner_param = "character"
params.character = { type = "entity", kind = "character" }
params.traits = { type = "list", of = "trait", entity = "character" }
"#;

    #[test]
    fn a_good_manifest_parses_in_order() {
        let m = Manifest::parse("plugin.toml", GOOD).unwrap();
        assert_eq!(m.actions["check"].params.keys().collect::<Vec<_>>(), vec!["character", "traits"]);
        let pool = m.pools["momentum"].build(&m.settings_with(&IndexMap::new()));
        assert_eq!(pool.cap, Some(7), "the cap comes from the setting");
    }

    #[test]
    fn every_ruleset_carries_the_dice_dialect_setting() {
        let m = Manifest::parse("plugin.toml", GOOD).unwrap();
        let spec = &m.settings[dialect::SETTING];
        assert_eq!(spec.default, Value::String("houserule".into()), "Houserule's own dialect is the default");
        assert_eq!(spec.check(&Value::String("ROLL20".into())).unwrap(), Value::String("roll20".into()));
        assert!(spec.check(&Value::String("foundry".into())).is_err(), "an unknown dialect is refused");
        let own = GOOD.to_string()
            + "\n[settings.dice_dialect]\ntype = \"choice\"\ndefault = \"roll20\"\n"
            + "options = [\"houserule\", \"roll20\"]\n";
        let m = Manifest::parse("plugin.toml", &own).unwrap();
        assert_eq!(
            m.settings[dialect::SETTING].default,
            Value::String("roll20".into()),
            "a ruleset may change the default"
        );
        let bad = own.replace("\"roll20\"]", "\"foundry\"]");
        assert_eq!(Manifest::parse("plugin.toml", &bad).unwrap_err().field, "settings.dice_dialect");
    }

    #[test]
    fn type_errors_name_line_and_field() {
        let text = GOOD.replace(r#"type = "int""#, r#"type = "integer""#);
        let e = Manifest::parse("plugin.toml", &text).unwrap_err();
        assert_eq!(e.field, "settings.mad.type");
        assert_eq!(e.line, Some(9));
        assert!(e.to_string().starts_with("plugin.toml:9:"), "{e}");
    }

    #[test]
    fn semantic_errors_name_the_field() {
        let e =
            Manifest::parse("plugin.toml", &GOOD.replace("entity = \"character\"", "entity = \"hero\"")).unwrap_err();
        assert_eq!(e.field, "actions.check.params.traits.of.entity");
        let e = Manifest::parse("plugin.toml", &GOOD.replace("api = 1", "api = 9")).unwrap_err();
        assert_eq!(e.field, "api");
        let e = Manifest::parse("plugin.toml", &GOOD.replace("rules.rhai", "../evil.rhai")).unwrap_err();
        assert_eq!(e.field, "entry");
        let e = Manifest::parse("plugin.toml", &GOOD.replace("owner_param = \"character\"\n", "")).unwrap_err();
        assert_eq!(e.field, "actions.check.owner_param");
        let e = Manifest::parse("plugin.toml", &GOOD.replace("default = 7", "default = 70")).unwrap_err();
        assert_eq!(e.field, "settings.mad.default");
        let e = Manifest::parse("plugin.toml", &format!("{GOOD}\nsurprise = 1\n")).unwrap_err();
        assert!(e.message.contains("unknown field `surprise`"), "{e}");
    }
}
