//! Running rule scenarios (`tests/*.toml`, the format is [`houserule_core::scenario`]).
//!
//! Each scenario plays an in-memory campaign on the plugin: every step runs, and every failed
//! expectation is reported with its step. Scenarios with the same house rules share one
//! sandbox worker ([`Runner`]), so a plugin's whole suite compiles its rules only once per set.

use crate::campaign::{Campaign, CampaignError, NewCampaign, SceneOp};
use crate::request::ActRequest;
use crate::rules::Rules;
use houserule_core::event::Body;
use houserule_core::plugin::{digest_files, PluginSource};
use houserule_core::scenario::{Scenario, Step};
use houserule_core::table::Change;
use houserule_core::view::LogEntry;
use houserule_core::{Limits, Role};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// One failed expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Unmet {
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
    pub failures: Vec<Unmet>,
}

/// Runs scenarios of one plugin, loading each set of house rules once.
pub struct Runner {
    source: PluginSource,
    limits: Limits,
    loaded: HashMap<String, Arc<Rules>>,
}

impl Runner {
    pub fn new(source: PluginSource, limits: Limits) -> Runner {
        Runner { source, limits, loaded: HashMap::new() }
    }

    /// A new in-memory campaign for the scenario (its settings, seed and house rules).
    fn campaign(&mut self, scenario: &Scenario) -> Result<Campaign, CampaignError> {
        let key = digest_files(scenario.loaded_house_rules.iter().map(|h| (h.name.as_str(), h.source.as_str())));
        let rules = match self.loaded.get(&key) {
            Some(r) => r.clone(),
            None => {
                let r = Rules::load(&self.source, &scenario.loaded_house_rules, &self.limits)?;
                self.loaded.insert(key, r.clone());
                r
            }
        };
        let new = NewCampaign {
            name: scenario.name.clone(),
            ruleset: &self.source,
            settings: scenario.settings.clone(),
            seed: Some(scenario.seed.unwrap_or(1)),
            limits: self.limits.clone(),
            house_rules: scenario.loaded_house_rules.clone(),
        };
        Campaign::create_with(None, new, rules)
    }

    /// Creates a campaign and takes the scenario's actions, ignoring its expectations: a table
    /// set up for `houserule simulate`. Fails at the first action that fails.
    pub fn prepare(&mut self, scenario: &Scenario) -> Result<Campaign, SetupError> {
        let mut campaign = self.campaign(scenario).map_err(|e| SetupError { step: 0, message: e.to_string() })?;
        play(&mut campaign, scenario)?;
        Ok(campaign)
    }

    /// Runs a scenario. Every step runs; all failures are reported.
    pub fn run(&mut self, file: &str, scenario: &Scenario) -> ScenarioReport {
        let mut report = ScenarioReport {
            file: file.into(),
            name: scenario.name.clone(),
            ok: true,
            steps: scenario.steps.len(),
            failures: vec![],
        };
        let mut campaign = match self.campaign(scenario) {
            Ok(c) => c,
            Err(e) => {
                report.ok = false;
                report.failures.push(Unmet { step: 0, message: format!("the campaign could not be created: {e}") });
                return report;
            }
        };
        for (i, step) in scenario.steps.iter().enumerate() {
            run_step(&mut campaign, i + 1, step, &mut report.failures);
        }
        report.ok = report.failures.is_empty();
        report
    }
}

/// A scenario that could not set up a table: the step (0: creating the campaign) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("set-up step {step}: {message}")]
pub struct SetupError {
    pub step: usize,
    pub message: String,
}

/// Takes a scenario's actions in a campaign, ignoring its expectations; stops at the first
/// action that fails.
pub fn play(campaign: &mut Campaign, scenario: &Scenario) -> Result<(), SetupError> {
    for (i, step) in scenario.steps.iter().enumerate() {
        let fail = |message: String| SetupError { step: i + 1, message };
        let role = Role::parse(step.role.as_deref().unwrap_or("gm")).map_err(|e| fail(e.to_string()))?;
        if let Some(done) = take(campaign, &role, step) {
            done.map_err(|(what, e)| fail(format!("{what}: {e}")))?;
        }
    }
    Ok(())
}

/// What a step did: what it was (for messages), the action's result and its log entry.
type Taken = (String, Value, LogEntry);

/// Takes a step's action, scene operation or move, if it has one.
fn take(campaign: &mut Campaign, role: &Role, step: &Step) -> Option<Result<Taken, (String, String)>> {
    if let Some(action) = &step.act {
        let what = format!("{action} as {role}");
        let request = ActRequest::new(action, &step.params).with_dice(step.dice.clone());
        return Some(
            campaign.act(role, &request).map(|o| (what.clone(), o.result, o.event)).map_err(|e| (what, e.to_string())),
        );
    }
    if let Some(op) = &step.scene {
        let what = format!("scene {} as {role}", op.get("op").and_then(Value::as_str).unwrap_or("?"));
        let done = serde_json::from_value::<SceneOp>(op.clone())
            .map_err(|e| e.to_string())
            .and_then(|op| campaign.scene(role, op).map_err(|e| e.to_string()));
        return Some(done.map(|e| (what.clone(), Value::Null, e)).map_err(|e| (what, e)));
    }
    let m = step.move_token.as_ref()?;
    let what = format!("move {} as {role}", m.token);
    let done = campaign.move_token_with(role, &m.token, m.path.clone(), step.dice.clone(), None, None);
    Some(done.map(|e| (what.clone(), Value::Null, e)).map_err(|e| (what, e.to_string())))
}

/// Takes one step's action and checks its expectations.
fn run_step(campaign: &mut Campaign, n: usize, step: &Step, failures: &mut Vec<Unmet>) {
    let mut fail = |message: String| failures.push(Unmet { step: n, message });
    let role = match Role::parse(step.role.as_deref().unwrap_or("gm")) {
        Ok(r) => r,
        Err(e) => {
            fail(e.to_string());
            return;
        }
    };
    let mut what = "check".to_string();
    let mut entry: Option<LogEntry> = None;
    match (take(campaign, &role, step), &step.refused) {
        (None, _) => {}
        (Some(Ok((w, result, event))), None) => {
            what = w;
            check_result(&result, &step.result, &mut |m| fail(format!("{what}: {m}")));
            entry = Some(event);
        }
        (Some(Ok((w, ..))), Some(expected)) => {
            fail(format!("{w}: expected a refusal mentioning \"{expected}\", but it succeeded"))
        }
        (Some(Err((_, e))), Some(expected)) if e.to_lowercase().contains(&expected.to_lowercase()) => {}
        (Some(Err((w, e))), Some(expected)) => {
            fail(format!("{w}: expected a refusal mentioning \"{expected}\", got: {e}"))
        }
        (Some(Err((w, e))), None) => fail(format!("{w}: {e}")),
    }
    if let Some(action) = &step.odds {
        match (campaign.odds(&role, action, &step.params), &step.refused) {
            (Ok(o), None) => {
                let got: Vec<f64> = o.lines.iter().map(|l| l.chance.or(l.mean).unwrap_or(f64::NAN)).collect();
                let near = got.len() == step.chances.len()
                    && got.iter().zip(&step.chances).all(|(g, want)| (g - want).abs() < 5e-4);
                if !near || o.refused.is_some() {
                    let why = o.refused.map(|r| format!(" (refused: {r})")).unwrap_or_default();
                    fail(format!("odds of {action}: expected chances {:?}, got {got:?}{why}", step.chances));
                }
            }
            (Ok(o), Some(expected)) => match o.refused {
                Some(r) if r.to_lowercase().contains(&expected.to_lowercase()) => {}
                other => fail(format!("odds of {action}: expected a refusal mentioning \"{expected}\", got {other:?}")),
            },
            (Err(e), _) => fail(format!("odds of {action}: {e}")),
        }
    }
    if let Some(e) = &entry {
        let gm_entry = campaign.log(&Role::Gm, e.seq).ok().and_then(|l| l.into_iter().next());
        let lines: Vec<String> = gm_entry
            .iter()
            .flat_map(|e| e.items.iter())
            .filter_map(|i| match i.body() {
                Some(Body::Say { text }) => Some(text.clone()),
                _ => None,
            })
            .collect();
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
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
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
                Some(Body::Change { change: Change::Pool { pool: p, after, .. } }) if p.to_string() == name => {
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
                Some(Body::Change { change: Change::Field { entity, field, value: Some(v), .. } })
                    if entity == e && field == f =>
                {
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
                Some(Body::Change { change: Change::Var { name: n, value: Some(v), .. } }) if n == name => {
                    Some(format!("the log shows {v}"))
                }
                _ => None,
            })
        }
        "trait" => {
            let (e, t) = name.split_once('.')?;
            let in_view = lookup(view, &format!("entities.{e}.traits")).and_then(Value::as_array).is_some_and(|a| {
                a.iter().any(|x| x.get("name").and_then(Value::as_str).is_some_and(|n| n.eq_ignore_ascii_case(t)))
            });
            if in_view {
                return Some("the view lists it".into());
            }
            items.iter().find_map(|i| match i.body() {
                Some(Body::Change { change: Change::Trait { entity, value } })
                    if entity == e && value.name.eq_ignore_ascii_case(t) =>
                {
                    Some("the log shows it".into())
                }
                _ => None,
            })
        }
        "roll" => items.iter().find_map(|i| match i.body() {
            Some(Body::Roll { roll }) if roll.label.as_deref() == Some(name) => {
                Some(format!("the log shows {}", roll.summary()))
            }
            _ => None,
        }),
        "say" => items.iter().find_map(|i| match i.body() {
            Some(Body::Say { text }) if text.contains(name) => Some(format!("the log says \"{text}\"")),
            _ => None,
        }),
        "text" => {
            let log = log.map(|l| serde_json::to_string(l).expect("log entries serialise")).unwrap_or_default();
            if view.to_string().contains(name) {
                return Some(format!("the view holds \"{name}\""));
            }
            log.contains(name).then(|| format!("the log entry holds \"{name}\""))
        }
        _ => Some(format!(
            "'{thing}' is not something a scenario can check (use pool:, param:, field:, var:, trait:, roll:, say: \
             or text:)"
        )),
    }
}
