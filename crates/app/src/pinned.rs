//! The rules a campaign file carries, and what its log committed to about them.
//!
//! Every event that puts rules in force (creating the campaign, a reload, bringing an older
//! file up to date) carries a `rules` change: the digest of each ruleset and house-rule file,
//! as `ruleset/NAME` and `house/NAME`. It folds into the table, so the table (and so every
//! snapshot and the hash chain) always says which sources are in force. [`compare`] holds the
//! sources stored in the file to that, naming the first file that differs; a file whose stored
//! sources were swapped, added or removed is refused on open and fails `verify`.
//!
//! Files from before this record (schema 1) committed only to a digest of the whole ruleset and
//! one per house-rule file, in the header of their last rules event; [`compare_v1`] holds the
//! stored sources to those before such a file is brought up to date.

use crate::store::{Store, StoreError};
use houserule_core::event::{EventKind, Header};
use houserule_core::house::HouseRules;
use houserule_core::plugin::{check_name, file_digest, Layer, PluginSource};
use serde_json::Value;
use std::collections::BTreeMap;

/// The sources stored in a file, their names checked.
pub struct Stored {
    pub ruleset: PluginSource,
    pub house: HouseRules,
    /// The house-rule files as stored (name, text).
    pub house_files: Vec<(String, String)>,
}

/// Reads the stored sources; a name that is not a plain file name of its layer is refused.
pub fn stored(store: &Store) -> Result<Stored, StoreError> {
    let ruleset_files = store.sources("ruleset")?;
    let house_files = store.sources("house")?;
    for (layer, files, label) in
        [(Layer::Ruleset, &ruleset_files, "ruleset"), (Layer::House, &house_files, "house rule")]
    {
        for (name, _) in files {
            check_name(layer, name)
                .map_err(|m| StoreError::Corrupt(format!("the file carries a {label} stored as {m}")))?;
        }
    }
    if ruleset_files.is_empty() {
        return Err(StoreError::Corrupt("the file carries no ruleset".into()));
    }
    Ok(Stored {
        ruleset: PluginSource { files: ruleset_files.into_iter().collect() },
        house: HouseRules::from_files(house_files.clone()),
        house_files,
    })
}

/// The digest of every file, as the `rules` change records them.
pub fn digests(ruleset: &PluginSource, house_files: &[(String, String)]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (name, text) in &ruleset.files {
        out.insert(format!("ruleset/{name}"), file_digest(name, text));
    }
    for (name, text) in house_files {
        out.insert(format!("house/{name}"), file_digest(name, text));
    }
    out
}

/// Stored sources that are not what the log committed to: the first file that differs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Mismatch(pub String);

/// Holds what is stored to what was committed; the error names the first file that differs.
pub fn compare(committed: &BTreeMap<String, String>, stored: &BTreeMap<String, String>) -> Result<(), Mismatch> {
    compare_text(committed, stored).map_err(Mismatch)
}

fn compare_text(committed: &BTreeMap<String, String>, stored: &BTreeMap<String, String>) -> Result<(), String> {
    for (file, digest) in committed {
        match stored.get(file) {
            None => return Err(format!("{file} is missing: the log committed to it, the file no longer carries it")),
            Some(d) if d != digest => {
                return Err(format!("{file} is not the text the log committed to (it was changed)"))
            }
            _ => {}
        }
    }
    if let Some(extra) = stored.keys().find(|f| !committed.contains_key(*f)) {
        return Err(format!("{extra} is in the file, but the log never committed to it"));
    }
    Ok(())
}

/// What a schema-1 file's last rules event committed to.
pub struct V1 {
    pub seq: u64,
    pub ruleset_digest: String,
    /// House-rule file → its digest.
    pub house: BTreeMap<String, String>,
}

/// The last `created` or `reload` event of a schema-1 file, as a commitment.
pub fn v1_commitment(store: &Store) -> Result<V1, StoreError> {
    let mut last: Option<Header> = None;
    store.each_header(|_, _, header, _| {
        if header.contains("\"kind\":\"created\"") || header.contains("\"kind\":\"reload\"") {
            let h: Header = serde_json::from_str(&header)
                .map_err(|e| StoreError::Corrupt(format!("a header does not parse: {e}")))?;
            if matches!(h.kind, EventKind::Created | EventKind::Reload) {
                last = Some(h);
            }
        }
        Ok(())
    })?;
    let h = last.ok_or_else(|| StoreError::Corrupt("the log has no event that put rules in force".into()))?;
    let detail = h.detail.unwrap_or(Value::Null);
    let ruleset_digest = detail.pointer("/ruleset/digest").and_then(Value::as_str).unwrap_or_default().to_string();
    let house = detail
        .get("house_rules")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|f| Some((f.get("file")?.as_str()?.to_string(), f.get("digest")?.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    Ok(V1 { seq: h.seq, ruleset_digest, house })
}

/// Holds a schema-1 file's stored sources to its last rules event.
pub fn compare_v1(v1: &V1, stored: &Stored) -> Result<(), Mismatch> {
    compare_v1_text(v1, stored).map_err(Mismatch)
}

fn compare_v1_text(v1: &V1, stored: &Stored) -> Result<(), String> {
    if stored.ruleset.digest() != v1.ruleset_digest {
        return Err(format!(
            "the ruleset's files are not the ones event {} committed to (one was changed, added or removed)",
            v1.seq
        ));
    }
    let house: BTreeMap<String, String> =
        stored.house_files.iter().map(|(n, t)| (n.clone(), file_digest(n, t))).collect();
    for (file, digest) in &v1.house {
        match house.get(file) {
            None => return Err(format!("house/{file} is missing: event {} committed to it", v1.seq)),
            Some(d) if d != digest => {
                return Err(format!("house/{file} is not the text event {} committed to (it was changed)", v1.seq))
            }
            _ => {}
        }
    }
    if let Some(extra) = house.keys().find(|f| !v1.house.contains_key(*f)) {
        return Err(format!("house/{extra} is in the file, but event {} never committed to it", v1.seq));
    }
    Ok(())
}
