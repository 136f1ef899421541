//! The `pictures` check: every picture the file stores is under the SHA-256 of its own bytes,
//! and every picture the log added is in the file with the size the event recorded. In a full
//! file, a stored picture no event added is reported too (a player's copy sees only public
//! events, so there it is held to its digest alone).

use super::{fail, pass, Check, Event, KnownSeeds, Step, Tally};
use crate::store::pictures::digest_of;
use crate::store::Store;
use houserule_core::event::Body;
use houserule_core::table::Change;
use std::collections::BTreeMap;

const NAME: &str = "pictures";

pub(super) fn start<'a>(store: &'a Store, _: &'a KnownSeeds) -> Box<dyn Step + 'a> {
    Box::new(Pictures { store, added: BTreeMap::new() })
}

struct Pictures<'a> {
    store: &'a Store,
    /// Each picture the log added: the event and the size it recorded.
    added: BTreeMap<String, (u64, u64)>,
}

impl Step for Pictures<'_> {
    fn event(&mut self, e: &Event) -> Option<Check> {
        for item in e.items {
            if let Some(Body::Change { change: Change::Picture { digest, picture: Some(p) } }) = &item.body {
                self.added.entry(digest.clone()).or_insert((e.seq, p.bytes));
            }
        }
        None
    }

    fn finish(self: Box<Self>, _: &mut Tally) -> Check {
        let player_copy = self.store.meta("copy_for").ok().flatten().is_some();
        let mut stored = BTreeMap::new();
        let mut wrong = None;
        let read = self.store.each_picture(|digest, bytes| {
            if wrong.is_none() && digest_of(bytes) != digest {
                wrong = Some(digest.to_string());
            }
            stored.insert(digest.to_string(), bytes.len() as u64);
        });
        if let Err(e) = read {
            return fail(NAME, None, e.to_string());
        }
        if let Some(d) = wrong {
            let seq = self.added.get(&d).map(|a| a.0);
            return fail(
                NAME,
                seq,
                format!("the picture stored under {d} is not the one with that digest: its bytes were changed"),
            );
        }
        for (digest, (seq, bytes)) in &self.added {
            match stored.get(digest) {
                None if !player_copy => {
                    return fail(
                        NAME,
                        Some(*seq),
                        format!("the picture event {seq} added ({digest}) is not in the file"),
                    )
                }
                Some(n) if n != bytes => {
                    return fail(
                        NAME,
                        Some(*seq),
                        format!("the picture {digest} is {n} bytes; event {seq} recorded {bytes}"),
                    )
                }
                _ => {}
            }
        }
        if let Some(d) = stored.keys().find(|d| !player_copy && !self.added.contains_key(*d)) {
            return fail(NAME, None, format!("the file stores a picture ({d}) no event added"));
        }
        pass(NAME, format!("{} picture(s), each the one its event committed to", stored.len()))
    }
}
