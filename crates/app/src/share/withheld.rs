//! What a player's copy leaves out of the house rules the GM keeps secret.
//!
//! A secret house rule's text (every version the file keeps), its row among the sources in
//! force, and the `rules` item of every event that put it in force (the item names it) stay out
//! of a player's copy; the item is redacted to its digest, so the copy's chain verifies as
//! before and [`compare`](super::compare) against the full file still covers it. The copy lists
//! the events whose rules item it withheld under [`WITHHELD_KEY`](crate::verify::WITHHELD_KEY) (read by `verify`), so the copy's own `rules`
//! check knows that the rules in force from then on are not all in it.

use crate::reload;
use crate::store::{Store, StoreError};
use houserule_core::event::{Body, Item};
use houserule_core::plugin::file_digest;
use houserule_core::table::Change;
use std::collections::{BTreeSet, HashSet};

/// The secret house rules of a campaign and what of them a copy has met so far.
pub struct Withheld {
    secret: BTreeSet<String>,
    /// The digests of every version of a secret rule some event put in force.
    secret_digests: HashSet<String>,
    /// The file names and digests of every other file some event put in force.
    public: HashSet<(String, String)>,
    /// The events whose rules item was withheld.
    pub seqs: Vec<u64>,
}

/// The file name of a rules key (`house/NAME` or `ruleset/NAME`), and whether it is a house rule.
fn split_key(key: &str) -> (&str, bool) {
    match key.split_once('/') {
        Some(("house", name)) => (name, true),
        Some((_, name)) => (name, false),
        None => (key, false),
    }
}

impl Withheld {
    /// The secret house rules of the campaign `store` holds.
    pub fn of(store: &Store) -> Result<Withheld, StoreError> {
        let secret = reload::secret_names(store)?;
        Ok(Withheld { secret, secret_digests: HashSet::new(), public: HashSet::new(), seqs: Vec::new() })
    }

    /// Whether the item (of event `seq`, which a player may see) must be withheld: a rules item
    /// that names a secret house rule. Notes the digests it puts in force either way.
    pub fn withholds(&mut self, seq: u64, item: &Item) -> bool {
        let Some(Body::Change { change: Change::Rules { sources } }) = &item.body else { return false };
        let mut hides = false;
        for (key, digest) in sources {
            let (name, house) = split_key(key);
            if house && self.secret.contains(name) {
                self.secret_digests.insert(digest.clone());
                hides = true;
            } else {
                self.public.insert((name.to_string(), digest.clone()));
            }
        }
        if hides && self.seqs.last() != Some(&seq) {
            self.seqs.push(seq);
        }
        hides
    }

    /// Whether a source row (layer and file name) is a secret house rule's.
    pub fn hides_source(&self, layer: &str, path: &str) -> bool {
        layer == "house" && self.secret.contains(path)
    }

    /// Whether a kept text is only ever a secret house rule's (a text some other file also has
    /// in force somewhere is that file's to carry).
    pub fn hides_text(&self, text: &str) -> bool {
        let secret = self.secret.iter().any(|n| self.secret_digests.contains(&file_digest(n, text)));
        secret && !self.public.iter().any(|(n, d)| file_digest(n, text) == *d)
    }

    /// The list to store in the copy, if anything was withheld.
    pub fn stored(&self) -> Option<String> {
        (!self.seqs.is_empty()).then(|| serde_json::to_string(&self.seqs).expect("numbers serialise"))
    }
}
