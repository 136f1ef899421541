//! Taking an action: who may, with which parameters, and running it as one transaction.
//!
//! [`check`] finds the action, checks that the role may take it and validates the parameters
//! — before any script runs, in the process that holds the campaign. [`begin`] opens the
//! transaction with the parameters recorded; [`run`] calls the `before_action` hook and the
//! action's function on a [`Plugin`] (inside the sandbox worker) and returns a [`Staged`]
//! transaction, or an [`ActError`] — in which case nothing was changed anywhere.

use crate::dice::DiceError;
use crate::engine::Limits;
use crate::error::{ErrorCode, ErrorReport};
use crate::manifest::{ActionSpec, Manifest, Permit};
use crate::params::{self, ParamError};
use crate::plugin::Plugin;
use crate::script_api::to_dynamic;
use crate::script_error::{ScriptError, ScriptErrorKind};
use crate::table::Table;
use crate::tx::{DiceSupply, Tx, TxError};
use crate::visibility::Role;
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
    /// The script failed (a bug in the rules).
    #[error("{0}")]
    Script(ScriptError),
    /// A sandbox limit stopped the script, at its place.
    #[error("{0}")]
    Limit(ScriptError),
    #[error("dice: {0}")]
    Dice(DiceError),
    /// What the script produced did not pass the checks of the process that commits it.
    #[error("{0}")]
    Rejected(String),
    /// The sandbox worker failed or the operating system's limits stopped it.
    #[error("{0}")]
    Sandbox(String),
    /// The event could not be written.
    #[error("storage: {0}")]
    Storage(String),
    /// This copy of a campaign cannot be played.
    #[error("{0}")]
    Unplayable(String),
}

impl ActError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ActError::UnknownAction { .. } => ErrorCode::UnknownAction,
            ActError::Forbidden { .. } => ErrorCode::Forbidden,
            ActError::Param(_) => ErrorCode::BadParam,
            ActError::Refused(_) => ErrorCode::Refused,
            ActError::Script(_) => ErrorCode::ScriptError,
            ActError::Limit(_) | ActError::Rejected(_) => ErrorCode::ScriptLimit,
            ActError::Dice(_) => ErrorCode::Dice,
            ActError::Sandbox(_) => ErrorCode::Sandbox,
            ActError::Storage(_) => ErrorCode::Storage,
            ActError::Unplayable(_) => ErrorCode::PlayerCopy,
        }
    }

    pub fn report(&self) -> ErrorReport {
        let mut r = ErrorReport::new(self.code(), self.to_string());
        match self {
            ActError::Param(p) => r.param = Some(p.param.clone()),
            ActError::Refused(s) | ActError::Script(s) | ActError::Limit(s) => r.script = Some(Box::new(s.clone())),
            _ => {}
        }
        r
    }

    /// A script failure, by its kind.
    pub fn from_script(e: ScriptError) -> ActError {
        match e.kind {
            ScriptErrorKind::Refused => ActError::Refused(e),
            ScriptErrorKind::Limit => ActError::Limit(e),
            ScriptErrorKind::Syntax | ScriptErrorKind::Runtime => ActError::Script(e),
        }
    }

    /// A refusal by the transaction outside any script.
    pub fn from_tx(e: TxError) -> ActError {
        match e {
            TxError::Dice(d) => ActError::Dice(d),
            TxError::Limit(cap) => ActError::Rejected(format!("over the limit: {cap}")),
            other => ActError::Rejected(other.to_string()),
        }
    }
}

/// One script function to call, with its arguments after the table handle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub function: String,
    pub args: Vec<Value>,
}

/// A transaction ready to commit.
pub struct Staged {
    pub tx: Tx,
    pub result: Value,
    pub log: Vec<String>,
}

/// Whether `role` may take the action with these (validated) parameters.
pub fn permitted(
    spec: &ActionSpec,
    name: &str,
    role: &Role,
    params: Option<&Map<String, Value>>,
    table: &Table,
) -> Result<(), ActError> {
    let label = spec.label.clone().unwrap_or_else(|| name.replace('_', " "));
    let forbidden = |reason: String| Err(ActError::Forbidden { reason });
    let player = match role {
        Role::Gm if spec.who.contains(&Permit::Gm) => return Ok(()),
        Role::Gm => return forbidden(format!("\"{label}\" is taken by players, not the GM")),
        Role::Player(p) => p,
        Role::Public => return forbidden("only the GM and players act; the public watches".into()),
    };
    if spec.who.contains(&Permit::Player) {
        return Ok(());
    }
    if !spec.who.contains(&Permit::Owner) {
        return forbidden(format!("only the GM may take \"{label}\""));
    }
    let Some(params) = params else { return Ok(()) };
    let op = spec.owner_param.as_deref().unwrap_or_default();
    let Some(id) = params.get(op).and_then(Value::as_str) else { return Ok(()) };
    let entity = table.entity(id).map_err(|e| ActError::Forbidden { reason: e.to_string() })?;
    if entity.owner.as_deref() == Some(player.as_str()) {
        Ok(())
    } else {
        forbidden(match &entity.owner {
            Some(o) => {
                format!("only {o}, who plays {}, or the GM may take \"{label}\" for {}", entity.name, entity.name)
            }
            None => format!("{} belongs to no player: only the GM may take \"{label}\" for it", entity.name),
        })
    }
}

/// The action's spec, or the error naming the actions there are.
pub fn spec<'a>(manifest: &'a Manifest, action: &str) -> Result<&'a ActionSpec, ActError> {
    manifest.actions.get(action).ok_or_else(|| ActError::UnknownAction {
        ruleset: manifest.name.clone(),
        action: action.to_string(),
        known: manifest.actions.keys().cloned().collect(),
    })
}

/// Checks who may act, then the parameters, and returns them validated. For an owner's
/// action, the owning entity is checked first, so a player acting for someone else's character
/// hears that, not a parameter error.
pub fn check(
    manifest: &Manifest,
    table: &Table,
    role: &Role,
    action: &str,
    raw: &Map<String, Value>,
) -> Result<Map<String, Value>, ActError> {
    let spec = spec(manifest, action)?;
    permitted(spec, action, role, None, table)?;
    if let Some(op) = spec.owner_param.as_ref().filter(|_| !role.is_gm()) {
        if let (Some(op_spec), Some(v)) = (spec.params.get(op), raw.get(op)) {
            let one: indexmap::IndexMap<String, params::ParamSpec> =
                [(op.clone(), op_spec.clone())].into_iter().collect();
            let only: Map<String, Value> = [(op.clone(), v.clone())].into_iter().collect();
            if let Ok(owner) = params::validate(&one, &only, table, role) {
                permitted(spec, action, role, Some(&owner), table)?;
            }
        }
    }
    let params = params::validate(&spec.params, raw, table, role)?;
    permitted(spec, action, role, Some(&params), table)?;
    Ok(params)
}

/// The script calls an action makes: the `before_action` hook, then the action's function.
pub fn calls(manifest: &Manifest, action: &str, params: &Map<String, Value>) -> Result<Vec<Call>, ActError> {
    let spec = spec(manifest, action)?;
    let p = Value::Object(params.clone());
    let mut calls = Vec::new();
    if let Some(hook) = &manifest.hooks.before_action {
        calls.push(Call { function: hook.clone(), args: vec![Value::String(action.to_string()), p.clone()] });
    }
    calls.push(Call { function: spec.function_name(action).to_string(), args: vec![p] });
    Ok(calls)
}

/// The script call made when a campaign is created, if the rules have a setup hook.
pub fn setup_calls(manifest: &Manifest) -> Vec<Call> {
    manifest.hooks.setup.iter().map(|f| Call { function: f.clone(), args: vec![] }).collect()
}

/// Opens the transaction of an action over a copy of `table`, with its validated parameters
/// recorded (a secret one only for the GM and its author).
pub fn begin(
    manifest: &std::sync::Arc<Manifest>,
    table: &Table,
    role: &Role,
    action: &str,
    params: &Map<String, Value>,
    dice: DiceSupply,
    limits: &Limits,
) -> Result<Tx, ActError> {
    let spec = spec(manifest, action)?;
    let mut tx = Tx::new(table.clone(), manifest.clone(), role.clone(), Some(action.to_string()), dice)
        .with_caps(limits.caps.clone());
    for (name, value) in params {
        let secret = spec.params.get(name).is_some_and(|p| p.is_secret(params));
        tx.record_param(name, value.clone(), secret).map_err(ActError::from_tx)?;
    }
    Ok(tx)
}

/// Runs `calls` on a plugin in `tx` (on this thread) and records what the last one returned.
pub fn run(plugin: &Plugin, tx: Tx, calls: &[Call]) -> Result<Staged, ActError> {
    if calls.is_empty() {
        return Ok(Staged { tx, result: Value::Null, log: vec![] });
    }
    let calls = calls.iter().map(|c| (c.function.clone(), c.args.iter().map(to_dynamic).collect())).collect();
    let out = plugin.call(tx, calls);
    if let Some(e) = &out.tx.dice_error {
        return Err(ActError::Dice(e.clone()));
    }
    let result = out.result.map_err(ActError::from_script)?;
    out.tx.finish_dice().map_err(ActError::Dice)?;
    let mut tx = out.tx;
    if !result.is_null() {
        tx.record_result(result.clone()).map_err(ActError::from_tx)?;
    }
    Ok(Staged { tx, result, log: out.log })
}

/// Spacing of roll counters between simulated runs, so their dice never overlap.
pub const SIMULATION_STRIDE: u64 = 1 << 20;

/// The table a simulated run `i` starts from: `table` with its roll counter moved on, so each
/// run has its own dice from the seed.
pub fn simulation_table(table: &Table, i: u64) -> Table {
    let mut t = table.clone();
    t.next_roll = i * SIMULATION_STRIDE;
    t
}
