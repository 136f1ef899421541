//! Taking an action: who may, with which parameters, and running it as one transaction.
//!
//! [`stage`] checks the action exists, that the role may take it, and the parameters, before
//! any script runs; then it runs the `before_action` hook and the action's function in one
//! sandboxed call over a working copy of the table. The result is a [`Staged`] transaction the
//! caller commits, or an [`ActError`] — in which case nothing was changed anywhere.

use crate::dice::DiceError;
use crate::host::to_dynamic;
use crate::manifest::{ActionSpec, Permit};
use crate::params::{self, ParamError};
use crate::plugin::{Plugin, PluginError};
use crate::script_error::{ScriptError, ScriptErrorKind};
use crate::table::Table;
use crate::tx::{DiceSupply, Tx};
use crate::visibility::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Why an action was not taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ActError {
    #[error("{ruleset} has no action '{action}' (actions: {})", known.join(", "))]
    UnknownAction { ruleset: String, action: String, known: Vec<String> },
    #[error("{reason}")]
    Forbidden { reason: String },
    #[error("{0}")]
    Param(#[from] ParamError),
    /// The rules refused the action; the message names the rule.
    #[error("refused: {}", .0.message)]
    Refused(ScriptError),
    /// The script failed (a bug, or a sandbox limit).
    #[error("{0}")]
    Script(ScriptError),
    #[error("dice: {0}")]
    Dice(DiceError),
    #[error("{0}")]
    Engine(String),
}

/// One serialisable error for callers that show errors to users: a stable `code` to branch
/// on, the message, and the script position when there is one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorReport {
    /// `unknown_action`, `forbidden`, `bad_param`, `refused`, `script_error`, `dice`, `engine`,
    /// or (from the campaign) `storage`, `invalid_plugin`, `bad_file`.
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<ScriptError>,
    /// Problems with their places (a house rule or a plugin that does not load).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<crate::plugin::Diagnostic>,
}

impl ErrorReport {
    /// An error with a code and a message only.
    pub fn new(code: &str, message: impl Into<String>) -> ErrorReport {
        ErrorReport { code: code.into(), message: message.into(), param: None, script: None, diagnostics: vec![] }
    }
}

impl ActError {
    pub fn report(&self) -> ErrorReport {
        let (code, param, script) = match self {
            ActError::UnknownAction { .. } => ("unknown_action", None, None),
            ActError::Forbidden { .. } => ("forbidden", None, None),
            ActError::Param(p) => ("bad_param", Some(p.param.clone()), None),
            ActError::Refused(s) => ("refused", None, Some(s.clone())),
            ActError::Script(s) => ("script_error", None, Some(s.clone())),
            ActError::Dice(_) => ("dice", None, None),
            ActError::Engine(_) => ("engine", None, None),
        };
        ErrorReport { code: code.into(), message: self.to_string(), param, script, diagnostics: vec![] }
    }
}

impl From<PluginError> for ActError {
    fn from(e: PluginError) -> Self {
        ActError::Engine(e.to_string())
    }
}

/// A transaction ready to commit.
pub struct Staged {
    pub tx: Tx,
    pub result: Value,
    pub log: Vec<String>,
}

/// Whether `role` may take the action with these (validated) parameters.
pub fn permitted(spec: &ActionSpec, name: &str, role: &Role, params: Option<&Map<String, Value>>, table: &Table) -> Result<(), String> {
    let label = spec.label.clone().unwrap_or_else(|| name.replace('_', " "));
    let player = match role {
        Role::Gm if spec.who.contains(&Permit::Gm) => return Ok(()),
        Role::Gm => return Err(format!("\"{label}\" is taken by players, not the GM")),
        Role::Player(p) => p,
        Role::Public => return Err("only the GM and players act; the public watches".into()),
    };
    if spec.who.contains(&Permit::Player) {
        return Ok(());
    }
    if !spec.who.contains(&Permit::Owner) {
        return Err(format!("only the GM may take \"{label}\""));
    }
    let Some(params) = params else { return Ok(()) };
    let op = spec.owner_param.as_deref().unwrap_or_default();
    let Some(id) = params.get(op).and_then(Value::as_str) else { return Ok(()) };
    let entity = table.entity(id).map_err(|e| e.to_string())?;
    if entity.owner.as_deref() == Some(player.as_str()) {
        Ok(())
    } else {
        Err(match &entity.owner {
            Some(o) => format!("only {o}, who plays {}, or the GM may take \"{label}\" for {}", entity.name, entity.name),
            None => format!("{} belongs to no player: only the GM may take \"{label}\" for it", entity.name),
        })
    }
}

/// Checks who may act, then the parameters. For an owner's action, the owning entity is checked
/// first, so a player acting for someone else's character hears that, not a parameter error.
fn checked_params(spec: &ActionSpec, action: &str, role: &Role, raw: &Map<String, Value>, table: &Table) -> Result<Map<String, Value>, ActError> {
    permitted(spec, action, role, None, table).map_err(|reason| ActError::Forbidden { reason })?;
    if let Some(op) = spec.owner_param.as_ref().filter(|_| !role.is_gm()) {
        if let (Some(op_spec), Some(v)) = (spec.params.get(op), raw.get(op)) {
            let one: indexmap::IndexMap<String, params::ParamSpec> = [(op.clone(), op_spec.clone())].into_iter().collect();
            let only: Map<String, Value> = [(op.clone(), v.clone())].into_iter().collect();
            if let Ok(owner) = params::validate(&one, &only, table, role) {
                permitted(spec, action, role, Some(&owner), table).map_err(|reason| ActError::Forbidden { reason })?;
            }
        }
    }
    let params = params::validate(&spec.params, raw, table, role)?;
    permitted(spec, action, role, Some(&params), table).map_err(|reason| ActError::Forbidden { reason })?;
    Ok(params)
}

/// Validates and runs an action over a copy of `table`.
pub fn stage(plugin: &Plugin, table: &Table, role: &Role, action: &str, raw: &Map<String, Value>, dice: DiceSupply) -> Result<Staged, ActError> {
    let manifest = &plugin.manifest;
    let spec = manifest.actions.get(action).ok_or_else(|| ActError::UnknownAction {
        ruleset: manifest.name.clone(),
        action: action.to_string(),
        known: manifest.actions.keys().cloned().collect(),
    })?;
    let params = checked_params(spec, action, role, raw, table)?;

    let mut tx = Tx::new(table.clone(), manifest.clone(), role.clone(), Some(action.to_string()), dice);
    for (name, value) in &params {
        let secret = spec.params.get(name).is_some_and(|p| p.secret);
        tx.record_param(name, value.clone(), secret);
    }
    let p = to_dynamic(&Value::Object(params));
    let mut calls = Vec::new();
    if let Some(hook) = &manifest.hooks.before_action {
        calls.push((hook.clone(), vec![action.to_string().into(), p.clone()]));
    }
    calls.push((spec.function_name(action).to_string(), vec![p]));
    run(plugin, tx, calls)
}

/// Spacing of roll counters between simulated runs, so their dice never overlap.
pub const SIMULATION_STRIDE: u64 = 1 << 20;

/// Runs an action `n` times from the same table, each time with its own generated dice
/// (counters `i * SIMULATION_STRIDE` onwards from `seed`), and returns each run's result.
/// Nothing is committed. Used to check a ruleset's statistics and to try a house rule.
pub fn simulate(plugin: &Plugin, table: &Table, role: &Role, action: &str, raw: &Map<String, Value>, seed: [u8; 32], n: u64) -> Result<Vec<Value>, ActError> {
    let manifest = &plugin.manifest;
    let spec = manifest.actions.get(action).ok_or_else(|| ActError::UnknownAction {
        ruleset: manifest.name.clone(),
        action: action.to_string(),
        known: manifest.actions.keys().cloned().collect(),
    })?;
    let params = checked_params(spec, action, role, raw, table)?;
    let p = to_dynamic(&Value::Object(params));
    let mut calls = Vec::new();
    if let Some(hook) = &manifest.hooks.before_action {
        calls.push((hook.clone(), vec![action.to_string().into(), p.clone()]));
    }
    calls.push((spec.function_name(action).to_string(), vec![p]));
    let runs = plugin.call_repeated(
        n,
        |i| {
            let mut t = table.clone();
            t.next_roll = i * SIMULATION_STRIDE;
            Tx::new(t, manifest.clone(), role.clone(), Some(action.to_string()), DiceSupply::Seeded(seed))
        },
        calls,
    )?;
    runs.into_iter()
        .map(|r| match r {
            Ok(v) => Ok(v),
            Err(e) if e.kind == ScriptErrorKind::Refused => Err(ActError::Refused(e)),
            Err(e) => Err(ActError::Script(e)),
        })
        .collect()
}

/// Runs the setup hook (if any) in a transaction that already holds the new campaign's
/// settings and pools.
pub fn stage_setup(plugin: &Plugin, tx: Tx) -> Result<Staged, ActError> {
    let calls = match &plugin.manifest.hooks.setup {
        Some(f) => vec![(f.clone(), vec![])],
        None => vec![],
    };
    run(plugin, tx, calls)
}

fn run(plugin: &Plugin, tx: Tx, calls: Vec<(String, Vec<rhai::Dynamic>)>) -> Result<Staged, ActError> {
    if calls.is_empty() {
        return Ok(Staged { tx, result: Value::Null, log: vec![] });
    }
    let out = plugin.call(tx, calls)?;
    if let Some(e) = &out.tx.dice_error {
        return Err(ActError::Dice(e.clone()));
    }
    let result = match out.result {
        Ok(v) => v,
        Err(e) if e.kind == ScriptErrorKind::Refused => return Err(ActError::Refused(e)),
        Err(e) => return Err(ActError::Script(e)),
    };
    out.tx.finish_dice().map_err(ActError::Dice)?;
    let mut tx = out.tx;
    if !result.is_null() {
        tx.record_result(result.clone());
    }
    Ok(Staged { tx, result, log: out.log })
}
