//! Verifying a campaign file: is this the log as it was played?
//!
//! [`verify`] runs every check of [`CHECKS`], in that order, and reports each one by its name,
//! so a failure says which check and which event:
//! - `integrity`: SQLite's own check of the file;
//! - `schema`: the file's tables, indexes and columns are exactly the ones Houserule creates,
//!   at a schema version this build reads;
//! - `caps`: every event is one an action could have made — no row larger as stored than an
//!   event can be, every item within the caps, names and text held to the one rule for text;
//! - `chain`: the hash chain, each event's hash recomputed from its header and from every
//!   item (an edited, deleted or reordered event, or an edited item, is found);
//! - `replay`: every change applies in order, and replaying them gives every stored snapshot;
//! - `dice`: generated rolls use consecutive counters (none skipped or redone), and where the
//!   seed is known each roll is recomputed from it and must match face for face;
//! - `rules`: the sources the file carries are the ones the log last committed to, and every
//!   version the log ever committed to is still in the file;
//! - `pictures`: every stored picture is under the SHA-256 of its bytes and is the one an event
//!   added (so a copy cannot swap a map), and every picture the log added is in the file.
//!
//! The checks of the log read it once: the chain vouches for each event before the other
//! checks of the log look at it ([`Step`]); a row too large to read stops the walk there.

mod caps;
mod chain;
mod dice;
mod file;
mod pictures;
mod replay;
mod rules;
pub use rules::WITHHELD_KEY;
#[cfg(test)]
mod testing;

use crate::store::Store;
use houserule_core::event::{Hash, Header, Item};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    /// The check's name: `integrity`, `schema`, `caps`, `chain`, `replay`, `dice`, `rules` or `pictures`
    /// (the checks every file gets), or `open`, `event` or `against` (the command line's).
    pub name: String,
    pub ok: bool,
    pub detail: String,
    /// The first event the check failed at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<u64>,
}

/// The result of verifying a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerifyReport {
    pub ok: bool,
    pub events: u64,
    /// Hex hash of the last event that checked out.
    pub head: String,
    /// Generated rolls recomputed from a known seed.
    pub rolls_recomputed: u64,
    /// Rolls typed in or given in advance (marked forced; not recomputable).
    pub rolls_forced: u64,
    /// Generated rolls since the last reveal, waiting for their seed to be disclosed.
    pub rolls_pending: u64,
    /// Secret rolls this copy cannot see: counted (no counter is skipped), not recomputed.
    pub rolls_secret: u64,
    pub checks: Vec<Check>,
}

pub(crate) fn pass(name: &str, detail: impl Into<String>) -> Check {
    Check { name: name.into(), ok: true, detail: detail.into(), event: None }
}

pub(crate) fn fail(name: &str, event: Option<u64>, detail: impl Into<String>) -> Check {
    Check { name: name.into(), ok: false, detail: detail.into(), event }
}

/// Seeds known to the verifier, by their commitment.
pub type KnownSeeds = HashMap<String, [u8; 32]>;

/// One event of the log, as the chain vouched for it.
pub(crate) struct Event<'a> {
    pub seq: u64,
    pub header: &'a Header,
    pub items: &'a [Item],
}

/// What the report counts besides its checks.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub events: u64,
    pub head: Hash,
    pub recomputed: u64,
    pub forced: u64,
    pub pending: u64,
    pub secret: u64,
}

/// A check of the log: it sees each event the chain vouched for, in order, until it fails.
pub(crate) trait Step {
    /// Looks at one event; a failure is this check's result, and it sees no more events.
    fn event(&mut self, event: &Event) -> Option<Check>;
    /// The check's result once the log is read (and it did not fail on the way).
    fn finish(self: Box<Self>, tally: &mut Tally) -> Check;
}

/// Starts a check of the log on a file.
type Start = for<'a> fn(&'a Store, &'a KnownSeeds) -> Box<dyn Step + 'a>;

/// How a named check runs.
#[derive(Clone, Copy)]
pub(crate) enum Run {
    /// On the file as a whole.
    File(fn(&Store) -> Check),
    /// The hash chain: the walk through the log every check of the log rides on.
    Chain,
    /// On each event of the log (see [`Step`]).
    Log(Start),
}

/// One check `verify` makes, by the name its report gives it.
#[derive(Clone, Copy)]
pub struct Named {
    pub name: &'static str,
    pub(crate) run: Run,
}

/// Every check `verify` makes, in the order it reports them.
pub const CHECKS: &[Named] = &[
    Named { name: "integrity", run: Run::File(file::integrity) },
    Named { name: "schema", run: Run::File(file::schema) },
    Named { name: "caps", run: Run::Log(caps::start) },
    Named { name: "chain", run: Run::Chain },
    Named { name: "replay", run: Run::Log(replay::start) },
    Named { name: "dice", run: Run::Log(dice::start) },
    Named { name: "rules", run: Run::Log(rules::start) },
    Named { name: "pictures", run: Run::Log(pictures::start) },
];

/// A check of the log on its way through it.
struct Running<'a> {
    name: &'static str,
    step: Box<dyn Step + 'a>,
    failed: Option<Check>,
}

/// Runs every check on an open store.
pub fn verify(store: &Store, seeds: &KnownSeeds) -> VerifyReport {
    let mut tally = Tally::default();
    let mut running: Vec<Running> = CHECKS
        .iter()
        .filter_map(|n| match n.run {
            Run::Log(start) => Some(Running { name: n.name, step: start(store, seeds), failed: None }),
            _ => None,
        })
        .collect();
    let mut chain = Some(walk(store, &mut running, &mut tally));
    let mut running = running.into_iter();
    let checks: Vec<Check> = CHECKS
        .iter()
        .map(|n| match n.run {
            Run::File(check) => check(store),
            Run::Chain => chain.take().expect("one chain check"),
            Run::Log(_) => {
                let r = running.next().expect("a running check per check of the log");
                debug_assert_eq!(r.name, n.name);
                r.failed.unwrap_or_else(|| r.step.finish(&mut tally))
            }
        })
        .collect();
    VerifyReport {
        ok: checks.iter().all(|c| c.ok),
        events: tally.events,
        head: hex::encode(tally.head),
        rolls_recomputed: tally.recomputed,
        rolls_forced: tally.forced,
        rolls_pending: tally.pending,
        rolls_secret: tally.secret,
        checks,
    }
}

/// Reads the log once: each row is followed along the chain and handed to every check of the
/// log that has not failed; a row too large to read stops the walk, failing `caps`. Returns
/// the chain's check.
fn walk(store: &Store, running: &mut [Running], tally: &mut Tally) -> Check {
    let mut chain = chain::Chain::default();
    let mut stopped: Option<Check> = None;
    let read = store.each_event(1, |row| {
        if stopped.is_some() {
            return Ok(());
        }
        match chain.follow(&row) {
            Err(check) => stopped = Some(check),
            Ok((header, items)) => {
                let event = Event { seq: row.seq, header: &header, items: &items };
                for r in running.iter_mut().filter(|r| r.failed.is_none()) {
                    r.failed = r.step.event(&event);
                }
            }
        }
        Ok(())
    });
    tally.events = chain.seq;
    tally.head = chain.prev;
    match (read, stopped) {
        (_, Some(check)) => check,
        (Err(e), None) => match caps::unread(&e) {
            Some((seq, check)) => {
                if let Some(r) = running.iter_mut().find(|r| r.name == caps::NAME) {
                    r.failed = Some(check);
                }
                chain::not_read(seq, caps::NAME)
            }
            None => fail("chain", None, e.to_string()),
        },
        (Ok(()), None) => chain.finish(),
    }
}

/// The report on a file that could not be opened: the check it failed, by the error.
pub fn unopened(e: &crate::store::StoreError) -> VerifyReport {
    use crate::store::StoreError;
    let name = match e {
        StoreError::Foreign { .. } | StoreError::Newer { .. } => "schema",
        StoreError::Integrity { .. } => "integrity",
        _ => "open",
    };
    VerifyReport {
        ok: false,
        events: 0,
        head: String::new(),
        rolls_recomputed: 0,
        rolls_forced: 0,
        rolls_pending: 0,
        rolls_secret: 0,
        checks: vec![fail(name, None, e.to_string())],
    }
}

/// The seeds a file itself holds (the GM's copy keeps its seed).
pub fn own_seeds(store: &Store) -> KnownSeeds {
    let mut out = KnownSeeds::new();
    if let Ok(Some(s)) = store.secret("seed") {
        if let Some(seed) = houserule_core::event::parse_hash(&s) {
            out.insert(houserule_core::dice::seed_commitment(&seed), seed);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::testing::{file_with, first};
    use super::*;

    #[test]
    fn the_report_names_every_check_once_in_the_table_order() {
        let store = file_with(&[first()]);
        let report = verify(&store, &KnownSeeds::new());
        let names: Vec<&str> = report.checks.iter().map(|c| c.name.as_str()).collect();
        let table: Vec<&str> = CHECKS.iter().map(|n| n.name).collect();
        assert_eq!(names, table);
        assert!(report.ok, "{report:?}");
        assert_eq!(report.events, 1);
    }
}
