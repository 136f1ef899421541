//! Rule scenarios: a plugin's tests as data (`tests/*.toml`).
//!
//! A scenario creates an in-memory campaign on the plugin (with settings and a seed), then runs
//! steps in order. A step may take an action (as a role, with parameters and forced dice) and
//! check what a user would notice: the action's result, lines of narration, a refusal and its
//! message, values in the GM's or a player's view, and what a player must not see in their view
//! or log. [`run`] reports every failed expectation with its step.
//!
//! ```toml
//! name = "Goblin barbecue, round one"
//! seed = 1
//! settings = { mad = 7 }
//!
//! [[step]]
//! act = "challenge_roll"
//! as = "player:ann"
//! params = { character = "Gandolf", attack = ["Fireball", "Hellfire"] }
//! dice = [4, 5, 2]
//! says = ["CR 6 → 5"]
//! result = { attack = 1 }
//! expect = { "entities.goblins.fields.cr" = 5 }
//! hidden_from = { "player:bob" = ["pool:black_bowl", "param:stones"] }
//! ```
//!
//! `house_rules = ["../../../examples/house-rules/cheaper-affliction.rhai"]` layers house-rule
//! scripts (paths relative to the scenario file) over the ruleset for that scenario.

use crate::campaign::{Campaign, NewCampaign};
use crate::event::Body;
use crate::plugin::{HouseRule, PluginSource};
use crate::sandbox::Limits;
use crate::view::LogEntry;
use crate::visibility::Role;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::Path;

/// A scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Seed for generated dice (steps without `dice`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Setting overrides for the campaign.
    #[serde(default)]
    pub settings: IndexMap<String, Value>,
    /// House-rule scripts layered over the ruleset, as paths relative to the scenario file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub house_rules: Vec<String>,
    /// The house rules read from `house_rules`.
    #[serde(skip)]
    #[schemars(skip)]
    pub loaded_house_rules: Vec<HouseRule>,
    #[serde(default, rename = "step")]
    pub steps: Vec<Step>,
}

/// One step: an optional action and the checks after it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The action to take; a step without one only checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<String>,
    /// `gm` (default) or `player:NAME`.
    #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default)]
    pub params: Map<String, Value>,
    /// Forced dice faces, used in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice: Option<Vec<i64>>,
    /// The action must fail with a message containing this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Keys of the action's result that must have these values.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub result: Map<String, Value>,
    /// Text each of which must appear in the action's narration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub says: Vec<String>,
    /// Dotted paths into the GM's view and the values they must have.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub expect: IndexMap<String, Value>,
    /// Per role, dotted paths into that role's view and their values.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub expect_as: IndexMap<String, IndexMap<String, Value>>,
    /// Per role, what that role must not see in its view or in this step's log entry:
    /// `pool:REF` (a pool's count), `param:NAME` (an action parameter), `field:ENTITY.FIELD`,
    /// `var:NAME`, `trait:ENTITY.NAME`, `roll:LABEL`, `say:TEXT`. A logged removal is not a value.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub hidden_from: IndexMap<String, Vec<String>>,
}

/// A scenario file that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ScenarioError {
    pub file: String,
    pub message: String,
}

impl Scenario {
    pub fn parse(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
        toml::from_str(text).map_err(|e: toml::de::Error| {
            let place = e.span().map(|s| crate::manifest::line_col(text, s.start)).map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default();
            ScenarioError { file: format!("{file}{place}"), message: e.message().trim().to_string() }
        })
    }

    /// Reads the house-rule files the scenario names, relative to `dir`.
    pub fn load_house_rules(&mut self, dir: &Path, file: &str) -> Result<(), ScenarioError> {
        self.loaded_house_rules.clear();
        for rel in &self.house_rules {
            let path = dir.join(rel);
            let source = std::fs::read_to_string(&path).map_err(|e| ScenarioError { file: file.to_string(), message: format!("house rule {rel}: {e}") })?;
            let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| rel.clone());
            self.loaded_house_rules.push(HouseRule { name, source });
        }
        Ok(())
    }

    /// Reads every `tests/*.toml` of a plugin folder, in name order.
    pub fn load_dir(plugin_dir: &Path) -> Result<Vec<(String, Scenario)>, ScenarioError> {
        let dir = plugin_dir.join("tests");
        let mut out = Vec::new();
        let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(out) };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "toml")).collect();
        paths.sort();
        for p in paths {
            let name = format!("tests/{}", p.file_name().unwrap_or_default().to_string_lossy());
            let text = std::fs::read_to_string(&p).map_err(|e| ScenarioError { file: name.clone(), message: e.to_string() })?;
            let mut scenario = Scenario::parse(&name, &text)?;
            scenario.load_house_rules(p.parent().unwrap_or(Path::new(".")), &name)?;
            out.push((name.clone(), scenario));
        }
        Ok(out)
    }
}

/// One failed expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    /// 1-based step number (0: creating the campaign).
    pub step: usize,
    pub message: String,
}

/// The outcome of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioReport {
    pub file: String,
    pub name: String,
    pub ok: bool,
    pub steps: usize,
    pub failures: Vec<Failure>,
}

/// Creates a campaign and takes the scenario's actions, ignoring its expectations: a table
/// set up for `houserule simulate`. Fails at the first action that fails.
pub fn prepare(scenario: &Scenario, source: &PluginSource, limits: &Limits) -> Result<Campaign, String> {
    let new = NewCampaign {
        name: scenario.name.clone(),
        ruleset: source,
        settings: scenario.settings.clone(),
        seed: Some(scenario.seed.unwrap_or(1)),
        limits: limits.clone(),
        house_rules: scenario.loaded_house_rules.clone(),
    };
    let mut campaign = Campaign::create(None, new).map_err(|e| e.to_string())?;
    for (i, step) in scenario.steps.iter().enumerate() {
        let Some(action) = &step.act else { continue };
        let role = Role::parse(step.role.as_deref().unwrap_or("gm"))?;
        campaign.act(&role, action, &step.params, step.dice.clone()).map_err(|e| format!("set-up step {}: {action}: {e}", i + 1))?;
    }
    Ok(campaign)
}

/// Runs a scenario against a plugin. Every step runs; all failures are reported.
pub fn run(file: &str, scenario: &Scenario, source: &PluginSource, limits: &Limits) -> ScenarioReport {
    let mut report = ScenarioReport { file: file.into(), name: scenario.name.clone(), ok: true, steps: scenario.steps.len(), failures: vec![] };
    let new = NewCampaign {
        name: scenario.name.clone(),
        ruleset: source,
        settings: scenario.settings.clone(),
        seed: Some(scenario.seed.unwrap_or(1)),
        limits: limits.clone(),
        house_rules: scenario.loaded_house_rules.clone(),
    };
    let mut campaign = match Campaign::create(None, new) {
        Ok(c) => c,
        Err(e) => {
            report.ok = false;
            report.failures.push(Failure { step: 0, message: format!("the campaign could not be created: {e}") });
            return report;
        }
    };
    for (i, step) in scenario.steps.iter().enumerate() {
        let n = i + 1;
        let mut fail = |message: String| report.failures.push(Failure { step: n, message });
        let role = match Role::parse(step.role.as_deref().unwrap_or("gm")) {
            Ok(r) => r,
            Err(e) => {
                fail(e);
                continue;
            }
        };
        let what = step.act.as_deref().map(|a| format!("{a} as {role}")).unwrap_or_else(|| "check".into());
        let mut entry: Option<LogEntry> = None;
        if let Some(action) = &step.act {
            match (campaign.act(&role, action, &step.params, step.dice.clone()), &step.refused) {
                (Ok(out), None) => {
                    check_result(&out.result, &step.result, &mut |m| fail(format!("{what}: {m}")));
                    entry = Some(out.event);
                }
                (Ok(_), Some(expected)) => fail(format!("{what}: expected a refusal mentioning \"{expected}\", but the action succeeded")),
                (Err(e), Some(expected)) if e.to_string().to_lowercase().contains(&expected.to_lowercase()) => {}
                (Err(e), Some(expected)) => fail(format!("{what}: expected a refusal mentioning \"{expected}\", got: {e}")),
                (Err(e), None) => fail(format!("{what}: {e}")),
            }
        }
        if let Some(e) = &entry {
            let gm_entry = campaign.log(&Role::Gm, e.seq).ok().and_then(|l| l.into_iter().next());
            let lines: Vec<String> = gm_entry.iter().flat_map(|e| e.items.iter()).filter_map(|i| match i.body() {
                Some(Body::Say { text }) => Some(text.clone()),
                _ => None,
            }).collect();
            for s in &step.says {
                if !lines.iter().any(|l| l.contains(s.as_str())) {
                    fail(format!("{what}: expected narration containing \"{s}\"; the narration was: {}", quoted(&lines)));
                }
            }
        }
        let gm_view = serde_json::to_value(campaign.view(&Role::Gm)).expect("views serialise");
        for (path, expected) in &step.expect {
            check_path(&gm_view, path, expected, &mut |m| fail(format!("{what}: {m}")));
        }
        for (r, paths) in &step.expect_as {
            let Ok(viewer) = Role::parse(r) else {
                fail(format!("'{r}' is not a role"));
                continue;
            };
            let view = serde_json::to_value(campaign.view(&viewer)).expect("views serialise");
            for (path, expected) in paths {
                check_path(&view, path, expected, &mut |m| fail(format!("{what}: as {viewer}: {m}")));
            }
        }
        for (r, things) in &step.hidden_from {
            let Ok(viewer) = Role::parse(r) else {
                fail(format!("'{r}' is not a role"));
                continue;
            };
            let view = serde_json::to_value(campaign.view(&viewer)).expect("views serialise");
            let log = entry.as_ref().and_then(|e| campaign.log(&viewer, e.seq).ok()).and_then(|l| l.into_iter().next());
            for thing in things {
                if let Some(m) = seen(thing, &view, log.as_ref()) {
                    fail(format!("{what}: {viewer} can see {thing}: {m}"));
                }
            }
        }
    }
    report.ok = report.failures.is_empty();
    report
}

fn quoted(lines: &[String]) -> String {
    if lines.is_empty() {
        "(none)".into()
    } else {
        lines.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(", ")
    }
}

fn check_result(actual: &Value, expected: &Map<String, Value>, fail: &mut dyn FnMut(String)) {
    for (k, v) in expected {
        let got = actual.get(k).unwrap_or(&Value::Null);
        if !same(got, v) {
            fail(format!("result.{k}: expected {v}, got {got}"));
        }
    }
}

/// Numbers compare by value (a TOML 2 equals a JSON 2.0).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// The value at a dotted path (`entities.gandolf.fields.mad`, `entities.x.traits.0.name`).
pub fn lookup<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut v = root;
    for seg in path.split('.') {
        v = match v {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

fn check_path(view: &Value, path: &str, expected: &Value, fail: &mut dyn FnMut(String)) {
    match lookup(view, path) {
        Some(v) if same(v, expected) => {}
        Some(v) => fail(format!("{path}: expected {expected}, got {v}")),
        None => fail(format!("{path}: expected {expected}, but there is no such value")),
    }
}

/// Whether `thing` is visible in a view or log entry; returns how, if so.
fn seen(thing: &str, view: &Value, log: Option<&LogEntry>) -> Option<String> {
    let (kind, name) = thing.split_once(':').unwrap_or(("", thing));
    let items = log.map(|l| l.items.as_slice()).unwrap_or_default();
    match kind {
        "pool" => {
            let (entity, pool) = match name.rsplit_once('.') {
                Some((e, p)) => (Some(e), p),
                None => (None, name),
            };
            let path = match entity {
                Some(e) => format!("entities.{e}.pools.{pool}.count"),
                None => format!("pools.{pool}.count"),
            };
            if let Some(v) = lookup(view, &path).filter(|v| !v.is_null()) {
                return Some(format!("its count {v} is in the view"));
            }
            items.iter().find_map(|i| match i.body() {
                Some(Body::Change { change: crate::table::Change::Pool { pool: p, after, .. } }) if p.to_string() == name => {
                    Some(format!("the log shows it changed to {}", after.values().sum::<i64>()))
                }
                _ => None,
            })
        }
        "param" => items.iter().find_map(|i| match i.body() {
            Some(Body::Param { name: n, value }) if n == name => Some(format!("the log shows it as {value}")),
            _ => None,
        }),
        "field" => {
            let (e, f) = name.split_once('.')?;
            if let Some(v) = lookup(view, &format!("entities.{e}.fields.{f}")) {
                return Some(format!("the view shows {v}"));
            }
            items.iter().find_map(|i| match i.body() {
                Some(Body::Change { change: crate::table::Change::Field { entity, field, value: Some(v), .. } }) if entity == e && field == f => {
                    Some(format!("the log shows {v}"))
                }
                _ => None,
            })
        }
        "var" => {
            if let Some(v) = lookup(view, &format!("vars.{name}")) {
                return Some(format!("the view shows {v}"));
            }
            items.iter().find_map(|i| match i.body() {
                Some(Body::Change { change: crate::table::Change::Var { name: n, value: Some(v), .. } }) if n == name => {
                    Some(format!("the log shows {v}"))
                }
                _ => None,
            })
        }
        "trait" => {
            let (e, t) = name.split_once('.')?;
            let in_view = lookup(view, &format!("entities.{e}.traits"))
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|x| x.get("name").and_then(Value::as_str).is_some_and(|n| n.eq_ignore_ascii_case(t))));
            if in_view {
                return Some("the view lists it".into());
            }
            items.iter().find_map(|i| match i.body() {
                Some(Body::Change { change: crate::table::Change::Trait { entity, value } }) if entity == e && value.name.eq_ignore_ascii_case(t) => {
                    Some("the log shows it".into())
                }
                _ => None,
            })
        }
        "roll" => items.iter().find_map(|i| match i.body() {
            Some(Body::Roll { roll }) if roll.label.as_deref() == Some(name) => Some(format!("the log shows {}", roll.summary())),
            _ => None,
        }),
        "say" => items.iter().find_map(|i| match i.body() {
            Some(Body::Say { text }) if text.contains(name) => Some(format!("the log says \"{text}\"")),
            _ => None,
        }),
        _ => Some(format!("'{thing}' is not something a scenario can check (use pool:, param:, field:, var:, trait:, roll: or say:)")),
    }
}
