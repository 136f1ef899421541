//! The balance lab's runs, inside the sandbox worker: one whole scene played from a table by
//! the ruleset's own policy, with dice from the seed.
//!
//! A ruleset that supports the lab defines `lab_turn(t)` and `lab_outcome(t)`. Each turn the
//! worker asks `lab_turn` (as the GM, with no dice) what everyone does now — a list of moves
//! `#{action, as, params}`, or `()` when the scene is over — and takes each move as an action
//! like any other: parameters checked by the engine, the action's own rules and hooks run, its
//! changes applied to the run's table. A move may carry a `tally` (a map of numbers: what the
//! policy spent, say), added up over the run, and may be only a tally, with no action. At the
//! end `lab_outcome` sums the run up as a map (`won`, `turns` …), and the run's tally joins it
//! (the outcome's own keys first). A move the rules refuse ends the run with the refusal, so a
//! policy that breaks the rules is reported, never quietly skipped. A run still going after
//! [`MAX_TURNS`] turns is cut off and marked `unfinished: true` (the engine's key: every other
//! run says `false`), so the lab can count and report it rather than pass it off as a loss.

use houserule_core::action::{self, ActError, Call};
use houserule_core::dice::Forced;
use houserule_core::manifest::Manifest;
use houserule_core::plugin::Plugin;
use houserule_core::table::Table;
use houserule_core::tx::{DiceSupply, Tx};
use houserule_core::{Limits, Role};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Most turns one run may take before it is cut off as unfinished.
pub const MAX_TURNS: u64 = 200;
/// The outcome key that says whether a run was cut off at [`MAX_TURNS`].
pub const UNFINISHED: &str = "unfinished";

/// Calls a lab function of the rules as the GM, with no dice; returns what it returned.
fn ask(
    plugin: &Plugin,
    manifest: &Arc<Manifest>,
    limits: &Limits,
    table: &Table,
    function: &str,
    guard: &dyn Fn(Result<action::Staged, ActError>) -> Result<action::Staged, ActError>,
) -> Result<Value, ActError> {
    let tx = Tx::new(table.clone(), manifest.clone(), Role::Gm, None, DiceSupply::Forced(Forced::new([])))
        .with_caps(limits.caps.clone());
    let staged = guard(action::run(plugin, tx, &[Call { function: function.into(), args: vec![] }]))?;
    Ok(staged.result)
}

/// Plays one run from `start` (its roll counter already set) and sums it up.
pub fn play(
    plugin: &Plugin,
    limits: &Limits,
    start: Table,
    seed: [u8; 32],
    arm: &dyn Fn(),
    guard: &dyn Fn(Result<action::Staged, ActError>) -> Result<action::Staged, ActError>,
) -> Result<Value, ActError> {
    let manifest = plugin.manifest.clone();
    let mut table = start;
    let mut turns = 0;
    let mut tally = Map::new();
    loop {
        arm();
        let moves = ask(plugin, &manifest, limits, &table, "lab_turn", guard)?;
        let moves = match moves {
            Value::Null if turns == 0 => {
                return Err(ActError::Rejected(
                    "the lab's policy found no scene to play on this table: set the scene up first (the \
                     ruleset's own rules, on the Rules tab, say how)"
                        .into(),
                ))
            }
            Value::Null => break,
            Value::Array(m) => m,
            other => {
                return Err(ActError::Rejected(format!(
                    "the lab's policy answered {other} for a turn, not a list of moves or nothing"
                )))
            }
        };
        turns += 1;
        if turns > MAX_TURNS {
            break;
        }
        for m in moves {
            if let Some(counts) = m.get("tally") {
                count(&mut tally, counts)?;
                if m.get("action").is_none() {
                    continue;
                }
            }
            let action =
                m["action"].as_str().ok_or_else(|| ActError::Rejected(format!("a lab move names no action: {m}")))?;
            let role = Role::parse(m["as"].as_str().unwrap_or("gm")).map_err(|e| ActError::Rejected(e.to_string()))?;
            let raw = m["params"].as_object().cloned().unwrap_or_else(Map::new);
            let params = action::check(&manifest, &table, &role, action, &raw)?;
            let calls = action::calls(&manifest, action, &params)?;
            let dice = DiceSupply::Seeded { seed, entropy: None };
            let tx = action::begin(&manifest, &table, &role, action, &params, dice, limits)?;
            arm();
            table = guard(action::run(plugin, tx, &calls))?.tx.table;
        }
    }
    arm();
    let mut outcome = ask(plugin, &manifest, limits, &table, "lab_outcome", guard)?;
    if let Value::Object(m) = &mut outcome {
        m.insert(UNFINISHED.into(), json!(turns > MAX_TURNS));
        for (k, v) in tally {
            m.entry(k).or_insert(v);
        }
    }
    Ok(outcome)
}

/// Adds a move's `tally` (a map of numbers) to the run's.
fn count(tally: &mut Map<String, Value>, counts: &Value) -> Result<(), ActError> {
    let counts = counts
        .as_object()
        .ok_or_else(|| ActError::Rejected(format!("a lab move's tally must be a map of numbers, not {counts}")))?;
    for (k, v) in counts {
        let n =
            v.as_f64().ok_or_else(|| ActError::Rejected(format!("a lab move's tally '{k}' is {v}, not a number")))?;
        let sum = tally.get(k).and_then(Value::as_f64).unwrap_or(0.0) + n;
        tally.insert(k.clone(), if sum.fract() == 0.0 { json!(sum as i64) } else { json!(sum) });
    }
    Ok(())
}
