//! The balance lab: one scene played many times from the same table by the ruleset's own
//! policy (`lab_turn`/`lab_outcome`, see `sandbox::lab`), under the ruleset alone and with house
//! rules, side by side.
//!
//! Guarantees:
//! - **Deterministic for a seed.** Run `i` of a side always gets the same dice (from the seed
//!   and `i`), whichever worker plays it and however the runs are split into rounds; the
//!   outcomes are merged in run order, so the same seed gives the same answer on any machine.
//! - **Followed and stopped.** The runs go in rounds, the sides taking turns, so both sides
//!   grow together; after each round the progress so far is handed on, and a stop asked for
//!   between rounds ends the lab there with what was played (both sides within a round of
//!   each other).
//! - **A run cut off is told.** A run the policy did not bring to an end within
//!   [`MAX_TURNS`] turns counts as `unfinished` on its side, and the progress carries the cap,
//!   so every front end can warn that those runs say nothing about winning.
//! - **Nothing is kept.** Each side's rules are loaded in sandbox workers of their own; the
//!   campaign's table is copied, never written, and its worker is never borrowed, so the table
//!   plays on while a lab runs. [`Job`] runs a lab on a thread of its own for the app.

use crate::rules::Rules;

use houserule_core::action::ActError;
use houserule_core::plugin::{HouseRule, PluginSource};
use houserule_core::table::Table;
use houserule_core::Limits;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Most runs a lab may play on each side.
pub const MAX_TIMES: u64 = 100_000;
pub use crate::sandbox::{MAX_TURNS, UNFINISHED};

/// Summary statistics of one key of many results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Summary {
    /// true/false results: how many were true, and the rate.
    Flag { yes: u64, rate: f64 },
    /// Numbers: range, mean and how often each (rounded) value came up.
    Number { min: f64, max: f64, mean: f64, histogram: Vec<(i64, u64)> },
    /// Anything else: how often each value came up.
    Text { counts: Vec<(String, u64)> },
}

/// Summarises each key of the results (a result that is not a map counts as key "result").
pub fn summarise(results: &[Value]) -> IndexMap<String, Summary> {
    let mut columns: IndexMap<String, Vec<&Value>> = IndexMap::new();
    for r in results {
        match r {
            Value::Object(m) => {
                for (k, v) in m {
                    columns.entry(k.clone()).or_default().push(v);
                }
            }
            other => columns.entry("result".into()).or_default().push(other),
        }
    }
    columns
        .into_iter()
        .map(|(k, vals)| {
            let n = vals.len() as f64;
            let s = if vals.iter().all(|v| v.is_boolean()) {
                let yes = vals.iter().filter(|v| v.as_bool() == Some(true)).count() as u64;
                Summary::Flag { yes, rate: yes as f64 / n }
            } else if vals.iter().all(|v| v.is_number()) {
                let xs: Vec<f64> = vals.iter().filter_map(|v| v.as_f64()).collect();
                let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
                for x in &xs {
                    *hist.entry(x.round() as i64).or_default() += 1;
                }
                Summary::Number {
                    min: xs.iter().copied().fold(f64::INFINITY, f64::min),
                    max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    mean: xs.iter().sum::<f64>() / n,
                    histogram: hist.into_iter().collect(),
                }
            } else {
                let mut counts: BTreeMap<String, u64> = BTreeMap::new();
                for v in &vals {
                    *counts.entry(houserule_core::render::value(v)).or_default() += 1;
                }
                Summary::Text { counts: counts.into_iter().collect() }
            };
            (k, s)
        })
        .collect()
}

/// What one side of a lab is played with: rules and the table every run starts from.
#[derive(Clone)]
pub struct Setup {
    /// The house-rule files in force (none: the ruleset alone).
    pub house_rules: Vec<String>,
    pub source: PluginSource,
    pub house: Vec<HouseRule>,
    pub limits: Limits,
    pub table: Table,
}

/// One side of a lab comparison, as played so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LabSide {
    /// The house-rule files in force (none: the ruleset alone).
    pub house_rules: Vec<String>,
    /// Runs played so far.
    pub runs: u64,
    /// How often the scene was won, with a 95% confidence interval (Wilson's).
    pub win_rate: f64,
    pub win_interval: (f64, f64),
    /// Runs cut off at the turn cap ([`LabProgress::turn_cap`]) before the scene ended: they
    /// count as not won, but say nothing about winning.
    pub unfinished: u64,
    /// Every key of the outcomes summed up (`turns` as a histogram, …).
    pub outcomes: IndexMap<String, Summary>,
}

impl LabSide {
    /// The side summed up from its outcomes so far.
    pub fn of(house_rules: &[String], outcomes: &[Value]) -> LabSide {
        let runs = outcomes.len() as u64;
        let won = outcomes.iter().filter(|o| o["won"] == Value::Bool(true)).count() as u64;
        let unfinished = outcomes.iter().filter(|o| o[UNFINISHED] == Value::Bool(true)).count() as u64;
        let rate = if runs == 0 { 0.0 } else { won as f64 / runs as f64 };
        LabSide {
            house_rules: house_rules.to_vec(),
            runs,
            win_rate: rate,
            win_interval: if runs == 0 { (0.0, 1.0) } else { houserule_core::dice::odds::wilson(rate, runs) },
            unfinished,
            outcomes: summarise(outcomes),
        }
    }
}

/// Rules that cannot play the balance lab: they do not say how everyone plays a turn and how a
/// scene ends (`lab_turn(t)`, `lab_outcome(t)`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{ruleset}{with} cannot play the balance lab: its rules do not say how everyone plays a turn and how a scene \
     ends on its own"
)]
pub struct NoPolicy {
    pub ruleset: String,
    /// ` (with FILES)` when house rules are in force.
    pub with: String,
}

/// Whether `rules` (with the house-rule files `house_rules` in force) can play the lab.
pub fn has_policy(rules: &Rules, house_rules: &[String]) -> Result<(), NoPolicy> {
    if rules.has_function("lab_turn", 1) && rules.has_function("lab_outcome", 1) {
        return Ok(());
    }
    let with = if house_rules.is_empty() { String::new() } else { format!(" (with {})", house_rules.join(", ")) };
    Err(NoPolicy { ruleset: rules.manifest.name.clone(), with })
}

/// Runs per side in one round: enough to keep a worker per core busy, few enough to report
/// progress and heed a stop about every fraction of a second.
fn round_size(times: u64) -> u64 {
    (times / 20).clamp(100, 1_000)
}

/// Plays `times` runs of every side from `seed`, in rounds; after each round hands on every
/// side's outcomes so far; stops between rounds once `stop` is set. Answers each side's
/// outcomes in run order.
pub fn play(
    setups: &[Setup],
    seed: [u8; 32],
    times: u64,
    stop: &AtomicBool,
    mut progress: impl FnMut(&[Vec<Value>]),
) -> Result<Vec<Vec<Value>>, ActError> {
    let mut played: Vec<Vec<Value>> = setups.iter().map(|_| Vec::with_capacity(times as usize)).collect();
    let rules: Vec<Arc<Rules>> = setups
        .iter()
        .map(|s| Rules::load(&s.source, &s.house, &s.limits).map_err(|e| ActError::Rejected(e.to_string())))
        .collect::<Result<_, _>>()?;
    for (r, s) in rules.iter().zip(setups) {
        has_policy(r, &s.house_rules).map_err(|e| ActError::Rejected(e.to_string()))?;
    }
    let step = round_size(times);
    let mut first = 0;
    while first < times && !stop.load(Ordering::Relaxed) {
        let n = step.min(times - first);
        for ((r, s), out) in rules.iter().zip(setups).zip(played.iter_mut()) {
            r.lab(&s.table, seed, first, n, |batch| out.extend(batch))?;
        }
        first += n;
        progress(&played);
    }
    Ok(played)
}

/// Where a lab in the background stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LabProgress {
    /// Runs asked for on each side.
    pub times: u64,
    pub seed: u64,
    /// The event the table was copied at.
    pub from_event: u64,
    /// Running, done, stopped (by the GM), or failed (with the reason).
    pub state: LabState,
    /// The ruleset alone first, then with the campaign's house rules (if it has any).
    pub sides: Vec<LabSide>,
    /// Most turns a run may take; a run still going then is cut off (see [`LabSide::unfinished`]).
    pub turn_cap: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LabState {
    Running,
    Done,
    Stopped,
    Failed { message: String },
}

/// A lab played on a thread of its own: followed with [`Job::progress`], ended with [`Job::stop`].
pub struct Job {
    progress: Arc<Mutex<LabProgress>>,
    stop: Arc<AtomicBool>,
}

impl Job {
    /// Starts playing `setups` on a new thread.
    pub fn start(setups: Vec<Setup>, seed: u64, times: u64, from_event: u64) -> Job {
        let progress = Arc::new(Mutex::new(LabProgress {
            times,
            seed,
            from_event,
            state: LabState::Running,
            sides: setups.iter().map(|s| LabSide::of(&s.house_rules, &[])).collect(),
            turn_cap: MAX_TURNS,
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopping) = (progress.clone(), stop.clone());
        std::thread::spawn(move || {
            let names: Vec<Vec<String>> = setups.iter().map(|s| s.house_rules.clone()).collect();
            let update = |played: &[Vec<Value>]| {
                let sides = names.iter().zip(played).map(|(n, o)| LabSide::of(n, o)).collect();
                shared.lock().unwrap_or_else(|p| p.into_inner()).sides = sides;
            };
            let result = play(&setups, houserule_core::dice::seed_from_number(seed), times, &stopping, update);
            let mut p = shared.lock().unwrap_or_else(|p| p.into_inner());
            p.state = match result {
                Err(e) => LabState::Failed { message: e.to_string() },
                Ok(_) if stopping.load(Ordering::Relaxed) && p.sides.iter().any(|s| s.runs < times) => {
                    LabState::Stopped
                }
                Ok(_) => LabState::Done,
            };
        });
        Job { progress, stop }
    }

    pub fn progress(&self) -> LabProgress {
        self.progress.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn running(&self) -> bool {
        self.progress().state == LabState::Running
    }

    /// Asks the lab to stop after the round it is playing.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        self.stop();
    }
}
