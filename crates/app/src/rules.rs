//! The rules in force, as the process that holds a campaign sees them: their sources, their
//! manifest, what loading them found — and the sandbox worker that compiled them and runs them.
//!
//! [`Rules::load`] parses the manifest here (no script is involved) and has a fresh worker
//! compile and check everything; nothing else about the scripts is known to this process.
//! [`Rules::begin`] and [`Loading::finish`] are the same in two steps, so that opening a file
//! folds its table while the worker compiles.
//! [`Rules::stage`] sends a transaction to the worker: the base table only when the worker does
//! not hold it already (it keeps the table its last transaction produced, which serves as the
//! next base only once this process says it committed that transaction: [`Rules::committed`];
//! a transaction staged and not committed — refused, overtaken by another writer, or a form's
//! odds — is never built on). A worker that failed is replaced on the next call, with the same
//! rules.

use crate::sandbox::protocol::{Base, Failure, Reply, Request, Simulation};
use crate::sandbox::{Probe, SandboxError, TableId, Worker};
use houserule_core::action::{ActError, Call};
use houserule_core::event::Item;
use houserule_core::manifest::Manifest;
use houserule_core::plugin::{manifest_of, HouseFunction, HouseRule, PluginError, PluginSource, RulesInfo};
use houserule_core::table::Table;
use houserule_core::tx::DiceSupply;
use houserule_core::{ErrorCode, Limits, Role};
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};

/// Why rules could not be loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RulesError {
    /// The rules have problems, each with its place.
    #[error("{0}")]
    Invalid(#[from] PluginError),
    /// The sandbox failed while loading them (a limit, most likely: the message says which).
    #[error("{0}")]
    Sandbox(#[from] SandboxError),
}

impl RulesError {
    pub fn code(&self) -> ErrorCode {
        match self {
            RulesError::Invalid(_) => ErrorCode::InvalidPlugin,
            RulesError::Sandbox(_) => ErrorCode::Sandbox,
        }
    }
}

/// What a staged transaction produced in the worker.
pub struct StagedReply {
    pub items: Vec<Item>,
    pub result: Value,
    pub log: Vec<String>,
}

/// The worker, and which tables it holds.
struct Slot {
    worker: Option<Worker>,
    current: Option<TableId>,
    pending: Option<TableId>,
}

/// Loaded rules with their worker.
pub struct Rules {
    pub manifest: Arc<Manifest>,
    pub source: PluginSource,
    pub house: Vec<HouseRule>,
    pub info: RulesInfo,
    pub limits: Limits,
    slot: Mutex<Slot>,
}

impl std::fmt::Debug for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rules").field("ruleset", &self.manifest.id).field("house", &self.house.len()).finish()
    }
}

fn sandbox_act(e: SandboxError) -> ActError {
    ActError::Sandbox(e.to_string())
}

/// A failure in the scripts, as an action's error.
fn failed(f: Failure) -> ActError {
    match f {
        Failure::Script(s) => ActError::from_script(s),
        Failure::Dice(d) => ActError::Dice(d),
        Failure::Other(m) => ActError::Rejected(m),
    }
}

/// The worker's quoted values are shown to everyone: only names the manifest quotes, each a
/// short value on one line (the worker is not trusted to have checked).
fn checked_quotes(info: &RulesInfo, source: &PluginSource) -> Result<(), SandboxError> {
    let quoted: Vec<String> =
        manifest_of(source).map(|m| m.quoted().into_iter().map(|(_, n)| n).collect()).unwrap_or_default();
    for (name, value) in &info.quotes {
        if !quoted.contains(name) || houserule_core::quote::show(&serde_json::Value::String(value.clone())).is_err() {
            return Err(SandboxError::Stopped(format!(
                "the sandbox worker sent back a quoted value it may not ({name})"
            )));
        }
    }
    Ok(())
}

/// Rules sent to a worker to compile ([`Rules::begin`]), not yet known to have loaded.
pub struct Loading {
    source: PluginSource,
    house: Vec<HouseRule>,
    limits: Limits,
    worker: Result<Worker, SandboxError>,
}

impl Loading {
    /// Waits for the worker's word on the rules: loaded (with what they define) or their
    /// problems. The manifest is parsed here meanwhile (no script is involved).
    pub fn finish(self) -> Result<Arc<Rules>, RulesError> {
        let manifest = manifest_of(&self.source)?;
        let mut worker = self.worker?;
        let info = loaded(&mut worker, &self.source)?;
        Ok(Arc::new(Rules {
            manifest: Arc::new(manifest),
            source: self.source,
            house: self.house,
            info,
            limits: self.limits,
            slot: Mutex::new(Slot { worker: Some(worker), current: None, pending: None }),
        }))
    }
}

/// The worker's answer to a load.
fn loaded(worker: &mut Worker, source: &PluginSource) -> Result<RulesInfo, RulesError> {
    match worker.loaded()? {
        Reply::Loaded(info) => {
            checked_quotes(&info, source)?;
            Ok(info)
        }
        Reply::Invalid(e) => Err(RulesError::Invalid(e)),
        other => Err(unexpected(&other).into()),
    }
}

fn unexpected(reply: &Reply) -> SandboxError {
    let what = match reply {
        Reply::Loaded(_) => "loaded",
        Reply::Invalid(_) => "invalid",
        Reply::Staged { .. } => "staged",
        Reply::Failed(_) => "failed",
        Reply::NeedTable => "need table",
        Reply::Simulated { .. } => "simulated",
        Reply::Probed(_) => "probed",
    };
    SandboxError::Stopped(format!("the sandbox worker answered out of turn ({what})"))
}

/// Fewest simulated actions worth a worker of their own (starting one costs a few milliseconds).
const RUNS_PER_WORKER: u64 = 2_000;
/// Fewest lab runs (whole scenes) worth a worker of their own.
const LAB_RUNS_PER_WORKER: u64 = 50;

/// How many workers share `runs` simulated runs: one per core (or `HOUSERULE_SIMULATION_WORKERS`),
/// each with enough to do.
fn simulation_workers(runs: u64, per_worker: u64) -> u64 {
    let cores = std::env::var("HOUSERULE_SIMULATION_WORKERS")
        .ok()
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u64));
    cores.min(runs / per_worker).clamp(1, 64)
}

/// `runs` split into `n` consecutive shares `(first, count)`, as even as can be.
fn shares(runs: u64, n: u64) -> Vec<(u64, u64)> {
    let (each, extra) = (runs / n, runs % n);
    let mut first = 0;
    (0..n)
        .map(|i| {
            let count = each + u64::from(i < extra);
            let share = (first, count);
            first += count;
            share
        })
        .collect()
}

impl Rules {
    /// Compiles and checks rules in a new sandbox worker.
    pub fn load(source: &PluginSource, house: &[HouseRule], limits: &Limits) -> Result<Arc<Rules>, RulesError> {
        Self::begin(Worker::start(limits), source, house, limits).finish()
    }

    /// Sends the rules to `worker` (started by the caller, perhaps while it read the file) to
    /// compile and check, and returns at once: the caller does its own work while they compile,
    /// then waits with [`Loading::finish`]. Nothing comes of the rules until then.
    pub fn begin(
        worker: Result<Worker, SandboxError>,
        source: &PluginSource,
        house: &[HouseRule],
        limits: &Limits,
    ) -> Loading {
        let request =
            Request::Load { ruleset: source.clone(), house: house.to_vec(), limits: Box::new(limits.clone()) };
        let worker = worker.and_then(|mut w| w.send(&request).map(|()| w));
        Loading { source: source.clone(), house: house.to_vec(), limits: limits.clone(), worker }
    }

    fn start(source: &PluginSource, house: &[HouseRule], limits: &Limits) -> Result<(Worker, RulesInfo), RulesError> {
        let loading = Self::begin(Worker::start(limits), source, house, limits);
        let mut worker = loading.worker?;
        let info = loaded(&mut worker, source)?;
        Ok((worker, info))
    }

    /// The functions the house rules define.
    pub fn house_functions(&self) -> &[HouseFunction] {
        &self.info.house_functions
    }

    /// Whether the merged rules define a function with this name and arity.
    pub fn has_function(&self, name: &str, arity: usize) -> bool {
        self.info.functions.contains(&(name.to_string(), arity))
    }

    /// The worker, started again (with these rules) if the last one failed.
    fn worker<'a>(&self, slot: &'a mut Slot) -> Result<&'a mut Worker, SandboxError> {
        if slot.worker.is_none() {
            let (worker, _) = Self::start(&self.source, &self.house, &self.limits).map_err(|e| match e {
                RulesError::Sandbox(s) => s,
                RulesError::Invalid(p) => {
                    SandboxError::Stopped(format!("the rules no longer load in a new sandbox worker: {p}"))
                }
            })?;
            *slot = Slot { worker: Some(worker), current: None, pending: None };
        }
        Ok(slot.worker.as_mut().expect("started above"))
    }

    /// Runs `calls` in a transaction over `table` (the campaign's table `id`) in the worker:
    /// an action with its validated parameters, or with `action` none the setup of a new
    /// campaign. Nothing is committed here.
    pub fn stage(
        &self,
        id: TableId,
        table: &Table,
        role: &Role,
        action: Option<(&str, &Map<String, Value>)>,
        calls: &[Call],
        dice: &DiceSupply,
    ) -> Result<StagedReply, ActError> {
        self.stage_on(id, table, false, role, action, calls, dice)
    }

    /// As [`Rules::stage`], over `table` sent whole whatever the worker holds: a table that is
    /// the campaign's table `id` with changes made here already (a token moved before its hook).
    pub fn stage_over(
        &self,
        id: TableId,
        table: &Table,
        role: &Role,
        calls: &[Call],
        dice: &DiceSupply,
    ) -> Result<StagedReply, ActError> {
        self.stage_on(id, table, true, role, None, calls, dice)
    }

    #[allow(clippy::too_many_arguments)]
    fn stage_on(
        &self,
        id: TableId,
        table: &Table,
        send: bool,
        role: &Role,
        action: Option<(&str, &Map<String, Value>)>,
        calls: &[Call],
        dice: &DiceSupply,
    ) -> Result<StagedReply, ActError> {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        let mut given = send || !(slot.current == Some(id) || slot.pending == Some(id));
        loop {
            let base = if given { Base::Given(id, Box::new(table.clone())) } else { Base::Known(id) };
            let request = Request::Stage {
                base,
                role: role.clone(),
                action: action.map(|(a, p)| (a.to_string(), p.clone())),
                calls: calls.to_vec(),
                dice: dice.clone(),
            };
            let reply = self.worker(&mut slot).and_then(|w| w.ask(&request));
            let reply = match reply {
                Ok(r) => r,
                Err(e) => {
                    slot.worker = None;
                    return Err(sandbox_act(e));
                }
            };
            match reply {
                Reply::NeedTable if !given => given = true,
                Reply::Staged { items, result, log } => {
                    slot.current = Some(id);
                    slot.pending = None;
                    return Ok(StagedReply { items, result, log });
                }
                Reply::Failed(f) => {
                    slot.current = Some(id);
                    slot.pending = None;
                    return Err(failed(f));
                }
                other => {
                    slot.worker = None;
                    return Err(sandbox_act(unexpected(&other)));
                }
            }
        }
    }

    /// Says the transaction last staged over table `from` was committed as the next event:
    /// the worker's table after it is that event's table, and the next stage builds on it.
    pub fn committed(&self, from: TableId) {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        if slot.current == Some(from) {
            slot.pending = Some(from.next());
        }
    }

    /// Runs an action `runs` times from `table` with dice from `seed` (run `i` at counter
    /// `i · stride`), handing each batch of results to `each`, in run order. The runs are
    /// shared between a worker per core (this one, and fresh ones with the same rules for the
    /// others); since each run's dice depend only on its number, the results are the same
    /// however many cores share them.
    pub fn simulate(&self, simulation: &Simulation, runs: u64, each: impl FnMut(Vec<Value>)) -> Result<(), ActError> {
        let request =
            |first: u64, runs: u64| Request::Simulate { simulation: Box::new(simulation.clone()), first, runs };
        self.shared_runs(runs, RUNS_PER_WORKER, &request, each)
    }

    /// Plays whole scenes `from`, `from + 1` … (`runs` of them) from `table` by the ruleset's
    /// lab policy (see `sandbox::lab`), run `i` with dice from `seed` and `i`, shared between a worker per core like
    /// [`Rules::simulate`]; hands on each run's outcome in run order.
    pub fn lab(
        &self,
        table: &Table,
        seed: [u8; 32],
        from: u64,
        runs: u64,
        each: impl FnMut(Vec<Value>),
    ) -> Result<(), ActError> {
        let request =
            |first: u64, runs: u64| Request::Lab { table: Box::new(table.clone()), seed, first: from + first, runs };
        self.shared_runs(runs, LAB_RUNS_PER_WORKER, &request, each)
    }

    /// Runs `runs` numbered runs, `request(first, count)` for each share, on a worker per core.
    fn shared_runs(
        &self,
        runs: u64,
        per_worker: u64,
        request: &(dyn Fn(u64, u64) -> Request + Sync),
        mut each: impl FnMut(Vec<Value>),
    ) -> Result<(), ActError> {
        let shares = shares(runs, simulation_workers(runs, per_worker));
        std::thread::scope(|scope| {
            // The other shares, each on a worker of its own, collected whole.
            let others: Vec<_> = shares[1..]
                .iter()
                .map(|&(first, n)| {
                    let request = request(first, n);
                    scope.spawn(move || -> Result<Vec<Value>, ActError> {
                        let (mut worker, _) = Self::start(&self.source, &self.house, &self.limits)
                            .map_err(|e| ActError::Sandbox(e.to_string()))?;
                        let mut out = Vec::with_capacity(n as usize);
                        Self::simulated(&mut worker, &request, |batch| out.extend(batch))?;
                        Ok(out)
                    })
                })
                .collect();
            // The first share on this worker, handed on as it comes.
            let (first, n) = shares[0];
            {
                let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
                let worker = self.worker(&mut slot).map_err(sandbox_act)?;
                if let Err(e) = Self::simulated(worker, &request(first, n), &mut each) {
                    slot.worker = None;
                    return Err(e);
                }
            }
            for other in others {
                each(other.join().map_err(|_| ActError::Sandbox("a simulation thread stopped".into()))??);
            }
            Ok(())
        })
    }

    /// Sends one simulation request to `worker` and hands on its batches until the last.
    fn simulated(worker: &mut Worker, request: &Request, mut each: impl FnMut(Vec<Value>)) -> Result<(), ActError> {
        worker.send(request).map_err(sandbox_act)?;
        loop {
            match worker.reply().map_err(sandbox_act)? {
                Reply::Simulated { results, done } => {
                    each(results);
                    if done {
                        return Ok(());
                    }
                }
                Reply::Failed(f) => return Err(failed(f)),
                other => return Err(sandbox_act(unexpected(&other))),
            }
        }
    }

    /// What the operating system enforces on this worker, found by trying.
    pub fn probe(&self) -> Result<Probe, SandboxError> {
        let mut slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        match self.worker(&mut slot)?.ask(&Request::Probe)? {
            Reply::Probed(p) => Ok(p),
            other => Err(unexpected(&other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn shares_cover_every_run_once_in_order() {
        for (runs, n) in [(10_000, 2), (10_001, 2), (7, 3), (100_000, 7), (5, 1)] {
            let s = shares(runs, n);
            assert_eq!(s.len() as u64, n);
            assert_eq!(s[0].0, 0);
            for w in s.windows(2) {
                assert_eq!(w[0].0 + w[0].1, w[1].0, "{runs} in {n}: consecutive");
            }
            assert_eq!(s.iter().map(|x| x.1).sum::<u64>(), runs);
            assert!(s.iter().all(|x| x.1 >= runs / n && x.1 <= runs / n + 1), "even");
        }
    }
}
