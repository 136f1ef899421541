//! The `dice` check: generated rolls use consecutive counters (none skipped, none redone), an
//! event that answers a message rolls with that message's entropy, a reveal discloses the seed
//! that was committed to, and every roll whose seed is known — disclosed, or held by the
//! verifier — is recomputed from it and must match face for face.

use super::{fail, pass, Check, Event, KnownSeeds, Step, Tally};
use crate::store::Store;
use houserule_core::dice::{self, seed_commitment, Entropy, Roll, RollSource, SeededStream};
use houserule_core::event::{self, Body, EventKind, Item};

const NAME: &str = "dice";

pub(super) fn start<'a>(_: &'a Store, seeds: &'a KnownSeeds) -> Box<dyn Step + 'a> {
    Box::new(Dice { seeds, next_counter: 0, counts: Tally::default(), commitment: None, span: Vec::new() })
}

struct Dice<'a> {
    seeds: &'a KnownSeeds,
    next_counter: u64,
    /// Rolls recomputed, forced and secret so far.
    counts: Tally,
    /// The seed commitment in force.
    commitment: Option<String>,
    /// Generated rolls since the last reveal: (event, roll).
    span: Vec<(u64, Roll)>,
}

impl Step for Dice<'_> {
    fn event(&mut self, e: &Event) -> Option<Check> {
        let origin = crate::chat::ChatMessage::of(e.header).map(|o| o.entropy());
        if let Some(failed) = e.items.iter().find_map(|item| self.roll(e.seq, item, origin)) {
            return Some(failed);
        }
        if e.header.kind == EventKind::Reveal {
            if let Some(failed) = self.reveal(e.seq, e.header.detail.as_ref()) {
                return Some(failed);
            }
        }
        let detail = e.header.detail.as_ref();
        if let Some(c) = detail.and_then(|d| d.get("seed_commitment")).and_then(|v| v.as_str()) {
            self.commitment = Some(c.to_string());
        }
        None
    }

    fn finish(mut self: Box<Self>, tally: &mut Tally) -> Check {
        // Rolls since the last reveal can be checked only by whoever holds the seed.
        let seed = self.commitment.as_ref().and_then(|c| self.seeds.get(c)).copied();
        match seed {
            Some(seed) => {
                if let Some(failed) = self.check_span(&seed) {
                    return failed;
                }
            }
            None => self.counts.pending = self.span.len() as u64,
        }
        (tally.recomputed, tally.forced, tally.pending, tally.secret) =
            (self.counts.recomputed, self.counts.forced, self.counts.pending, self.counts.secret);
        let waiting = match self.counts.pending {
            0 => String::new(),
            n => format!("; {n} since the last reveal wait for the seed to be disclosed"),
        };
        let (recomputed, forced) = (self.counts.recomputed, self.counts.forced);
        pass(
            NAME,
            format!("generated rolls use consecutive counters; {recomputed} recomputed from a committed seed, {forced} forced{waiting}"),
        )
    }
}

impl Dice<'_> {
    /// One item: a roll's counter must follow on, and its faces are kept for their seed. An
    /// event that answers a message (`origin`) must roll with that message's entropy: whoever
    /// holds the seed could otherwise pick entropy that gives the faces they want.
    fn roll(&mut self, seq: u64, item: &Item, origin: Option<Entropy>) -> Option<Check> {
        let Some(body) = &item.body else {
            // A redacted secret roll: its counter still has to follow on.
            let counter = item.roll_counter()?;
            self.counts.secret += 1;
            return self.follows(seq, counter, "a secret roll");
        };
        let Body::Roll { roll } = body else { return None };
        let RollSource::Generated { counter, entropy } = roll.source else {
            self.counts.forced += 1;
            return None;
        };
        if origin.is_some_and(|o| entropy.map(|e| e.0) != Some(o.0)) {
            let detail = format!("event {seq} answers a message, but its roll with counter {counter} does not mix in that message's entropy");
            return Some(fail(NAME, Some(seq), detail));
        }
        let failed = self.follows(seq, counter, "a roll");
        self.span.push((seq, roll.clone()));
        failed
    }

    /// The roll counter `counter` is the next one.
    fn follows(&mut self, seq: u64, counter: u64, what: &str) -> Option<Check> {
        let expected = self.next_counter;
        self.next_counter = counter + 1;
        if counter == expected {
            return None;
        }
        let how = if counter > expected { "skipped" } else { "used again (a redone roll)" };
        Some(fail(
            NAME,
            Some(seq),
            format!("roll counter {expected} was {how}: event {seq} has {what} with counter {counter}"),
        ))
    }

    /// A reveal discloses the seed of the span that ends here: it must match the commitment,
    /// and every roll of the span must come from it.
    fn reveal(&mut self, seq: u64, detail: Option<&serde_json::Value>) -> Option<Check> {
        let revealed = detail.and_then(|d| d.get("revealed_seed")).and_then(|v| v.as_str()).and_then(event::parse_hash);
        let Some(seed) = revealed else {
            return Some(fail(NAME, Some(seq), format!("event {seq} is a reveal without a seed")));
        };
        if self.commitment.as_deref() != Some(seed_commitment(&seed).as_str()) {
            let detail = format!("event {seq} discloses a seed that is not the one committed to");
            return Some(fail(NAME, Some(seq), detail));
        }
        self.check_span(&seed)
    }

    /// Every roll since the last reveal comes from `seed`, its counter and its entropy.
    fn check_span(&mut self, seed: &[u8; 32]) -> Option<Check> {
        for (seq, roll) in std::mem::take(&mut self.span) {
            let RollSource::Generated { counter, entropy } = roll.source else { continue };
            let expected = roll.parsed().ok().and_then(|e| {
                dice::roll(&e, &mut SeededStream::for_roll(seed, counter, entropy.as_ref()), roll.source).ok()
            });
            let same = expected.as_ref().is_some_and(|e| e.dice().map(|d| d.face).eq(roll.dice().map(|d| d.face)));
            if !same {
                let detail = format!(
                    "event {seq}: roll {counter} ({}) does not come from the committed seed (it was changed or redone)",
                    roll.expr
                );
                return Some(fail(NAME, Some(seq), detail));
            }
            self.counts.recomputed += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file_with, first, items_event, Written};
    use super::super::verify;
    use super::*;
    use houserule_core::Visibility;
    use serde_json::json;

    const SEED: [u8; 32] = [9u8; 32];

    fn rolled(counter: u64) -> Item {
        let expr = dice::parse("3d6").unwrap();
        let source = RollSource::Generated { counter, entropy: None };
        let roll = dice::roll(&expr, &mut SeededStream::for_roll(&SEED, counter, None), source).unwrap();
        Item::new(Body::Roll { roll }, Visibility::Public, None, None)
    }

    fn committed() -> Written {
        let mut w = first();
        w.detail = Some(json!({ "seed_commitment": seed_commitment(&SEED) }));
        w
    }

    fn dice_check(events: &[Written], seeds: &KnownSeeds) -> (Check, u64, u64) {
        let report = verify(&file_with(events), seeds);
        let check = report.checks.into_iter().find(|c| c.name == NAME).unwrap();
        (check, report.rolls_recomputed, report.rolls_pending)
    }

    #[test]
    fn rolls_from_a_known_seed_are_recomputed_and_others_wait() {
        let events = [committed(), items_event(vec![rolled(0), rolled(1)])];
        let seeds: KnownSeeds = [(seed_commitment(&SEED), SEED)].into();
        let (check, recomputed, _) = dice_check(&events, &seeds);
        assert!(check.ok && recomputed == 2, "{check:?}");
        let (check, recomputed, pending) = dice_check(&events, &KnownSeeds::new());
        assert!(check.ok && (recomputed, pending) == (0, 2), "{check:?}");
    }

    #[test]
    fn a_skipped_or_redone_counter_is_named() {
        let (check, ..) = dice_check(&[committed(), items_event(vec![rolled(0), rolled(2)])], &KnownSeeds::new());
        assert!(!check.ok && check.detail.contains("roll counter 1 was skipped"), "{check:?}");
        let (check, ..) = dice_check(&[committed(), items_event(vec![rolled(0), rolled(0)])], &KnownSeeds::new());
        assert!(!check.ok && check.detail.contains("used again"), "{check:?}");
    }

    #[test]
    fn a_roll_that_is_not_from_the_seed_is_found() {
        let mut changed = rolled(0);
        if let Some(Body::Roll { roll }) = &mut changed.body {
            *roll =
                dice::roll(&dice::parse("3d6").unwrap(), &mut SeededStream::for_roll(&[1u8; 32], 0, None), roll.source)
                    .unwrap();
        }
        let seeds: KnownSeeds = [(seed_commitment(&SEED), SEED)].into();
        let (check, ..) = dice_check(&[committed(), items_event(vec![changed])], &seeds);
        assert!(!check.ok && check.detail.contains("does not come from the committed seed"), "{check:?}");
    }

    #[test]
    fn a_reveal_must_disclose_the_committed_seed() {
        let reveal = |seed: [u8; 32]| Written {
            kind: EventKind::Reveal,
            detail: Some(json!({ "revealed_seed": hex::encode(seed) })),
            items: vec![],
        };
        let (check, recomputed, _) =
            dice_check(&[committed(), items_event(vec![rolled(0)]), reveal(SEED)], &KnownSeeds::new());
        assert!(check.ok && recomputed == 1, "a disclosed seed recomputes the rolls before it: {check:?}");
        let (check, ..) = dice_check(&[committed(), reveal([2u8; 32])], &KnownSeeds::new());
        assert!(!check.ok && check.detail.contains("not the one committed to"), "{check:?}");
    }
}
