//! Verifying a campaign file: is this the log as it was played?
//!
//! [`verify`] runs every check and reports each one, so a failure says which check and which
//! event: SQLite's integrity check; the schema version; the hash chain, recomputing each
//! event's hash from its header and from every item (so an edited, deleted or reordered event,
//! or an edited item, is found); a replay of all changes compared with every stored snapshot;
//! and the dice — generated rolls must use consecutive counters (none skipped or redone), and
//! where the seed is known each roll is recomputed from it and must match face for face.

use crate::pinned;
use crate::store::{Store, OLDEST_SCHEMA, SCHEMA_VERSION};
use houserule_core::dice::{self, seed_commitment, Entropy, RollSource, SeededStream};
use houserule_core::event::{self, Body, EventKind, Hash, GENESIS};
use houserule_core::table::{Change, Table};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::collections::HashMap;

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    /// `integrity`, `schema`, `chain`, `replay` or `dice`.
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

fn pass(name: &str, detail: impl Into<String>) -> Check {
    Check { name: name.into(), ok: true, detail: detail.into(), event: None }
}

fn fail(name: &str, event: Option<u64>, detail: impl Into<String>) -> Check {
    Check { name: name.into(), ok: false, detail: detail.into(), event }
}

/// Seeds known to the verifier, by their commitment.
pub type KnownSeeds = HashMap<String, [u8; 32]>;

/// Runs every check on an open store.
pub fn verify(store: &Store, seeds: &KnownSeeds) -> VerifyReport {
    let mut checks = Vec::new();
    match store.integrity_check() {
        Ok(problems) if problems.is_empty() => checks.push(pass("integrity", "SQLite reports the file sound")),
        Ok(problems) => checks.push(fail("integrity", None, problems.join("; "))),
        Err(e) => checks.push(fail("integrity", None, e.to_string())),
    }
    match store.meta("schema_version") {
        Ok(Some(v)) if v.parse::<i64>().is_ok_and(|v| (OLDEST_SCHEMA..=SCHEMA_VERSION).contains(&v)) => {
            checks.push(pass("schema", format!("schema version {v}")))
        }
        Ok(v) => checks.push(fail(
            "schema",
            None,
            format!("schema version {v:?}; this build reads {OLDEST_SCHEMA} to {SCHEMA_VERSION}"),
        )),
        Err(e) => checks.push(fail("schema", None, e.to_string())),
    }

    let snapshots: Vec<u64> = store.snapshot_seqs().unwrap_or_default();
    let copy = store.meta("copy_for").ok().flatten().is_some();
    let mut state = Walk {
        prev: GENESIS,
        seq: 0,
        table: Table::default(),
        next_counter: 0,
        recomputed: 0,
        forced: 0,
        secret: 0,
        commitment: None,
        span: Vec::new(),
    };
    // The rules each rules event put in force (public items, so a player's copy has them too).
    let mut rules_events: Vec<(u64, BTreeMap<String, String>)> = Vec::new();
    let mut chain_fail: Option<Check> = None;
    let mut replay_fail: Option<Check> = None;
    let mut dice_fail: Option<Check> = None;
    let result = store.each_event(1, |row| {
        if chain_fail.is_some() {
            return Ok(());
        }
        let seq = row.seq;
        if seq != state.seq + 1 {
            chain_fail = Some(fail(
                "chain",
                Some(state.seq + 1),
                format!("event {} is missing (the next stored event is {seq})", state.seq + 1),
            ));
            return Ok(());
        }
        let header = match row.parse_header() {
            Ok(h) => h,
            Err(e) => {
                chain_fail = Some(fail("chain", Some(seq), e.to_string()));
                return Ok(());
            }
        };
        let items = match row.parse_items() {
            Ok(i) => i,
            Err(e) => {
                chain_fail = Some(fail("chain", Some(seq), e.to_string()));
                return Ok(());
            }
        };
        if header.seq != seq || header.prev != hex::encode(state.prev) {
            chain_fail = Some(fail(
                "chain",
                Some(seq),
                format!("event {seq} does not follow event {} (it was moved or replaced)", state.seq),
            ));
            return Ok(());
        }
        let mut commitments = Vec::with_capacity(items.len() * 32);
        for (i, item) in items.iter().enumerate() {
            match item.commitment(i) {
                Ok(c) => commitments.extend_from_slice(&c),
                Err(e) => {
                    chain_fail = Some(fail("chain", Some(seq), format!("event {seq}: {e}")));
                    return Ok(());
                }
            }
        }
        if commitments != row.commitments {
            chain_fail = Some(fail(
                "chain",
                Some(seq),
                format!("event {seq} was edited: its items no longer match what was recorded"),
            ));
            return Ok(());
        }
        let hash = event::event_hash(&state.prev, seq, &row.header, &commitments);
        if hash.as_slice() != row.hash.as_slice() {
            chain_fail = Some(fail("chain", Some(seq), format!("event {seq} was edited: its hash does not match")));
            return Ok(());
        }
        state.prev = hash;
        state.seq = seq;

        if dice_fail.is_none() {
            let origin = crate::chat::ChatMessage::of(&header).map(|o| o.entropy());
            dice_fail = state.collect_rolls(seq, &items, origin);
        }
        if dice_fail.is_none() && header.kind == EventKind::Reveal {
            dice_fail = state.reveal(seq, header.detail.as_ref());
        }
        if let Some(d) = header.detail.as_ref().and_then(|d| d.get("seed_commitment")).and_then(|v| v.as_str()) {
            state.commitment = Some(d.to_string());
        }
        for item in &items {
            if let Some(Body::Change { change: Change::Rules { sources } }) = &item.body {
                rules_events.push((seq, sources.clone()));
            }
        }
        if replay_fail.is_none() && !copy {
            if let Err(m) = event::fold(&mut state.table, &items) {
                replay_fail =
                    Some(fail("replay", Some(seq), format!("event {seq} does not apply to the state before it: {m}")));
            } else if snapshots.contains(&seq) {
                let replayed = serde_json::to_string(&state.table).expect("tables serialise");
                match store.snapshot_before(seq) {
                    Ok(Some((s, snap))) if s == seq && snap != replayed => {
                        replay_fail = Some(fail(
                            "replay",
                            Some(seq),
                            format!("the snapshot at event {seq} differs from replaying the log"),
                        ));
                    }
                    Err(e) => replay_fail = Some(fail("replay", Some(seq), e.to_string())),
                    _ => {}
                }
                let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(replayed.as_bytes()));
                if replay_fail.is_none() && header.state.as_deref() != Some(digest.as_str()) {
                    replay_fail = Some(fail(
                        "replay",
                        Some(seq),
                        format!("event {seq} records a state digest that replaying the log does not give"),
                    ));
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        chain_fail.get_or_insert_with(|| fail("chain", None, e.to_string()));
    }
    // Rolls since the last reveal can be checked only by whoever holds the seed.
    let mut pending = 0;
    if dice_fail.is_none() {
        match state.commitment.as_ref().and_then(|c| seeds.get(c)).copied() {
            Some(seed) => dice_fail = state.check_span(&seed),
            None => pending = state.span.len() as u64,
        }
    }
    let events = state.seq;
    checks.push(
        chain_fail.unwrap_or_else(|| {
            pass("chain", format!("{events} events, each hash recomputed from its header and items"))
        }),
    );
    checks.push(replay_fail.unwrap_or_else(|| {
        if copy {
            pass("replay", "not replayed: this is a player's copy, whose GM-only changes are redacted")
        } else {
            pass("replay", format!("all changes apply in order; {} snapshot(s) match", snapshots.len()))
        }
    }));
    checks.push(dice_fail.unwrap_or_else(|| {
        let waiting = if pending > 0 {
            format!("; {pending} since the last reveal wait for the seed to be disclosed")
        } else {
            String::new()
        };
        pass(
            "dice",
            format!(
                "generated rolls use consecutive counters; {} recomputed from a committed seed, {} forced{waiting}",
                state.recomputed, state.forced
            ),
        )
    }));
    checks.push(check_rules(store, &rules_events));
    if events == 0 {
        checks.push(fail("chain", None, "the file has no events"));
    }
    VerifyReport {
        ok: checks.iter().all(|c| c.ok),
        events,
        head: hex::encode(state.prev),
        rolls_recomputed: state.recomputed,
        rolls_forced: state.forced,
        rolls_pending: pending,
        rolls_secret: state.secret,
        checks,
    }
}

struct Walk {
    prev: Hash,
    seq: u64,
    table: Table,
    next_counter: u64,
    recomputed: u64,
    forced: u64,
    secret: u64,
    /// The seed commitment in force.
    commitment: Option<String>,
    /// Generated rolls since the last reveal: (event, roll).
    span: Vec<(u64, houserule_core::dice::Roll)>,
}

impl Walk {
    /// Checks counters run on without gaps or repeats, and keeps the rolls for their seed. An
    /// event that answers a message (`origin`) must roll with that message's entropy: whoever
    /// holds the seed could otherwise pick entropy that gives the faces they want.
    fn collect_rolls(&mut self, seq: u64, items: &[event::Item], origin: Option<Entropy>) -> Option<Check> {
        for item in items {
            if item.body.is_none() {
                // A redacted secret roll: its counter still has to follow on.
                if let Some(counter) = item.roll_counter() {
                    if counter != self.next_counter {
                        return Some(fail("dice", Some(seq), format!("roll counter {} was skipped or used again: event {seq} has a secret roll with counter {counter}", self.next_counter)));
                    }
                    self.next_counter = counter + 1;
                    self.secret += 1;
                }
                continue;
            }
            let Some(Body::Roll { roll }) = &item.body else { continue };
            match roll.source {
                RollSource::Forced => self.forced += 1,
                RollSource::Generated { counter, entropy } => {
                    if origin.is_some_and(|o| entropy.map(|e| e.0) != Some(o.0)) {
                        return Some(fail(
                            "dice",
                            Some(seq),
                            format!("event {seq} answers a message, but its roll with counter {counter} does not mix in that message's entropy"),
                        ));
                    }
                    if counter != self.next_counter {
                        let what = if counter > self.next_counter { "skipped" } else { "used again (a redone roll)" };
                        return Some(fail(
                            "dice",
                            Some(seq),
                            format!("roll counter {} was {what}: event {seq} has counter {counter}", self.next_counter),
                        ));
                    }
                    self.next_counter = counter + 1;
                    self.span.push((seq, roll.clone()));
                }
            }
        }
        None
    }

    /// A reveal discloses the seed of the span that ends here: it must match the commitment,
    /// and every roll of the span must come from it.
    fn reveal(&mut self, seq: u64, detail: Option<&serde_json::Value>) -> Option<Check> {
        let revealed = detail.and_then(|d| d.get("revealed_seed")).and_then(|v| v.as_str()).and_then(event::parse_hash);
        let Some(seed) = revealed else {
            return Some(fail("dice", Some(seq), format!("event {seq} is a reveal without a seed")));
        };
        if self.commitment.as_deref() != Some(seed_commitment(&seed).as_str()) {
            return Some(fail(
                "dice",
                Some(seq),
                format!("event {seq} discloses a seed that is not the one committed to"),
            ));
        }
        self.check_span(&seed)
    }

    fn check_span(&mut self, seed: &[u8; 32]) -> Option<Check> {
        for (seq, roll) in std::mem::take(&mut self.span) {
            // The seed, the counter and the entropy the actor supplied give the faces.
            let RollSource::Generated { counter, entropy } = roll.source else { continue };
            let expected = roll.parsed().ok().and_then(|e| {
                dice::roll(&e, &mut SeededStream::for_roll(seed, counter, entropy.as_ref()), roll.source).ok()
            });
            let same = expected.as_ref().is_some_and(|e| e.dice().map(|d| d.face).eq(roll.dice().map(|d| d.face)));
            if !same {
                return Some(fail("dice", Some(seq), format!("event {seq}: roll {counter} ({}) does not come from the committed seed (it was changed or redone)", roll.expr)));
            }
            self.recomputed += 1;
        }
        None
    }
}

/// The rules: the sources the file carries must be the ones the log last committed to, and the
/// text of every version the log ever committed to must still be in the file.
fn check_rules(store: &Store, rules_events: &[(u64, BTreeMap<String, String>)]) -> Check {
    let stored = match pinned::stored(store) {
        Ok(s) => s,
        Err(e) => return fail("rules", None, e.to_string()),
    };
    let Some((last_seq, last)) = rules_events.last() else {
        // A file from before the rules were recorded file by file.
        return match pinned::v1_commitment(store).map(|v1| (v1.seq, pinned::compare_v1(&v1, &stored))) {
            Ok((seq, Ok(()))) => pass("rules", format!("the rules the file carries are the ones event {seq} committed to (an older file: the whole ruleset by one digest)")),
            Ok((seq, Err(m))) => fail("rules", Some(seq), m.0),
            Err(e) => fail("rules", None, e.to_string()),
        };
    };
    if let Err(m) = pinned::compare(last, &pinned::digests(&stored.ruleset, &stored.house_files)) {
        return fail("rules", Some(*last_seq), m.0);
    }
    let blobs = match store.blob_texts() {
        Ok(b) => b,
        Err(e) => return fail("rules", None, e.to_string()),
    };
    // Every (file, digest) some blob gives, for the file names the log mentions.
    let names: std::collections::BTreeSet<&str> = rules_events
        .iter()
        .flat_map(|(_, s)| s.keys())
        .map(|k| k.split_once('/').map_or(k.as_str(), |p| p.1))
        .collect();
    let kept: std::collections::HashSet<String> =
        names.iter().flat_map(|n| blobs.iter().map(move |b| houserule_core::plugin::file_digest(n, b))).collect();
    for (seq, sources) in rules_events {
        if let Some((file, _)) = sources.iter().find(|(_, digest)| !kept.contains(*digest)) {
            return fail(
                "rules",
                Some(*seq),
                format!("{file} as event {seq} put it in force is no longer in the file"),
            );
        }
    }
    pass("rules", format!("the rules the file carries are the ones event {last_seq} committed to; all {} version(s) of the rules are kept", rules_events.len()))
}

/// The seeds a file itself holds (the GM's copy keeps its seed).
pub fn own_seeds(store: &Store) -> KnownSeeds {
    let mut out = KnownSeeds::new();
    if let Ok(Some(s)) = store.secret("seed") {
        if let Some(seed) = event::parse_hash(&s) {
            out.insert(seed_commitment(&seed), seed);
        }
    }
    out
}
