//! Changing the rules of a running campaign: what changed, what the new rules need on the
//! table, and the reload event that records it.
//!
//! [`Campaign::reload`](crate::campaign::Campaign::reload) compiles new sources in a new
//! sandbox worker before anything changes, then commits one `reload` event naming the changed
//! files and the digests now in force. A failed reload changes nothing: the last good rules keep
//! running. Table state lives in the engine, never in scripts, so a reload loses nothing;
//! settings and pools the new rules declare but the table lacks are added in the same event.
//!
//! A house rule the GM keeps secret (its name in the file's `house.secret` meta) is never
//! named to a player: the reload's public line and detail leave it out (the GM gets a line of
//! their own), [`ReloadReport::public`] is the report everyone is told of, and
//! [`hide_secret`] takes the files in force out of a reload's entry before a player reads it.

use crate::rules::RulesError;
use crate::store::{Store, StoreError};
use houserule_core::event::{Body, EventKind};
use houserule_core::house::HouseRules;
use houserule_core::manifest::{Manifest, ManifestError};
use houserule_core::plugin::{
    check_name, digest_files, file_digest, Layer, PluginError, PluginSource, Problem, HOUSE_SETTINGS,
};
use houserule_core::pool::PoolRef;
use houserule_core::table::Change;
use houserule_core::tx::{Tx, TxError};
use houserule_core::view::{LogEntry, LogItem, RulesetInfo};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Why the rules were not changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReloadError {
    /// The new rules do not load; the old ones keep running.
    #[error("{}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Problem>),
    /// The sandbox failed while loading them (the message names the limit).
    #[error("{0}")]
    Sandbox(String),
    #[error("{0}")]
    Io(String),
    #[error("the folder holds the ruleset '{found}', but this campaign plays '{expected}'")]
    OtherRuleset { expected: String, found: String },
    /// The campaign file could not be read or written.
    #[error("{0}")]
    Storage(String),
}

impl From<PluginError> for ReloadError {
    fn from(e: PluginError) -> Self {
        ReloadError::Invalid(e.0)
    }
}

impl From<RulesError> for ReloadError {
    fn from(e: RulesError) -> Self {
        match e {
            RulesError::Invalid(p) => ReloadError::Invalid(p.0),
            RulesError::Sandbox(s) => ReloadError::Sandbox(s.to_string()),
        }
    }
}

/// What a reload changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReloadReport {
    /// The reload event.
    pub seq: u64,
    pub hash: String,
    pub ruleset: RulesetInfo,
    /// Files added, changed or removed, as `ruleset/rules.rhai` or `house/boss.rhai`.
    pub changed: Vec<String>,
    /// Digest of everything now in force (ruleset and house rules).
    pub digest: String,
    /// Settings whose value changed.
    pub settings: IndexMap<String, Value>,
    /// What each house-rule function now in force does (wraps, replaces, hooks, adds, or
    /// nothing, with a warning).
    #[serde(default)]
    pub house: Vec<houserule_core::plugin::HouseFunction>,
    /// What of it is the GM's alone (never sent).
    #[serde(skip)]
    #[schemars(skip)]
    pub secret: Box<SecretPart>,
}

/// What of a reload is the GM's alone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SecretPart {
    /// The entries of `changed` that are secret house rules.
    pub changed: Vec<String>,
    /// The secret house rules in force.
    pub files: BTreeSet<String>,
}

/// A layer's files (name, text).
pub type Files = Vec<(String, String)>;

impl ReloadReport {
    /// The report as everyone may be told of it: nothing of a secret house rule.
    pub fn public(&self) -> ReloadReport {
        ReloadReport {
            changed: self.changed.iter().filter(|c| !self.secret.changed.contains(c)).cloned().collect(),
            house: self.house.iter().filter(|f| !self.secret.files.contains(&f.file)).cloned().collect(),
            secret: Box::default(),
            ..self.clone()
        }
    }
}

/// The meta key that holds the names of the house rules the GM keeps secret (a JSON array).
pub const SECRET_KEY: &str = "house.secret";

/// The house rules the GM keeps secret in the file `store` reads (a name may be marked before
/// the rule is saved, so that not even its first reload names it).
pub fn secret_names(store: &Store) -> Result<BTreeSet<String>, StoreError> {
    match store.meta(SECRET_KEY)? {
        None => Ok(BTreeSet::new()),
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| StoreError::Corrupt(format!("the list of secret house rules does not read: {e}"))),
    }
}

/// Marks the house rule `name` secret or not; answers the secret names now.
pub fn mark_secret(store: &Store, name: &str, secret: bool) -> Result<BTreeSet<String>, StoreError> {
    let mut names = secret_names(store)?;
    if secret {
        names.insert(name.to_string());
    } else {
        names.remove(name);
    }
    let text = serde_json::to_string(&names).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    store.set_meta(SECRET_KEY, &text)?;
    Ok(names)
}

/// The files of a layer split into those everyone may know of and the secret ones.
pub fn split_secret(files: &[(String, String)], secret: &BTreeSet<String>) -> (Files, Files) {
    files.iter().cloned().partition(|(name, _)| !secret.contains(name))
}

/// The lines a reload writes: for everyone, the changes they may know of (or that the GM
/// changed a rule they keep to themselves); for the GM, the secret house rules that changed.
pub fn announcement(public: &[String], secret: &[String]) -> (String, Option<String>) {
    let everyone = if public.is_empty() {
        "The GM changed a house rule they keep secret.".to_string()
    } else {
        format!("The rules changed: {}.", public.join(", "))
    };
    let gm = (!secret.is_empty()).then(|| format!("Secret house rules changed: {}.", secret.join(", ")));
    (everyone, gm)
}

/// The name of the file a `changed` entry (`house/NAME` or `house/NAME (added)`) is about.
pub fn changed_file(entry: &str) -> &str {
    entry.trim_end_matches(" (added)").trim_end_matches(" (removed)")
}

/// Takes the secret house rules out of a reload's (or the campaign's creation's) entry before a
/// player reads it: the files in force by digest, the detail's list of files and of changes.
pub fn hide_secret(entry: &mut LogEntry, secret: &BTreeSet<String>) {
    if secret.is_empty() || !matches!(entry.kind, EventKind::Reload | EventKind::Created) {
        return;
    }
    let is_secret = |key: &str| key.strip_prefix("house/").is_some_and(|n| secret.contains(n));
    for item in &mut entry.items {
        if let LogItem::Shown { body: Body::Change { change: Change::Rules { sources } }, .. } = item {
            sources.retain(|k, _| !is_secret(k));
        }
    }
    let Some(detail) = entry.detail.as_mut() else { return };
    if let Some(files) = detail.get_mut("house_rules").and_then(Value::as_array_mut) {
        files.retain(|f| !f.get("file").and_then(Value::as_str).is_some_and(|n| secret.contains(n)));
    }
    if let Some(changed) = detail.get_mut("changed").and_then(Value::as_array_mut) {
        changed.retain(|c| !c.as_str().is_some_and(|c| is_secret(changed_file(c))));
    }
}

/// Files added, changed or removed between two versions of a layer.
pub fn changed_files(layer: &str, old: &[(String, String)], new: &[(String, String)]) -> Vec<String> {
    let old: BTreeMap<&str, &str> = old.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let new: BTreeMap<&str, &str> = new.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut out = Vec::new();
    for (k, v) in &new {
        match old.get(k) {
            None => out.push(format!("{layer}/{k} (added)")),
            Some(o) if o != v => out.push(format!("{layer}/{k}")),
            _ => {}
        }
    }
    for k in old.keys().filter(|k| !new.contains_key(*k)) {
        out.push(format!("{layer}/{k} (removed)"));
    }
    out
}

/// Every file name of the new rules must be a plain file name of its layer.
pub fn check_names(ruleset: &PluginSource, house: &[(String, String)]) -> Result<(), ReloadError> {
    let names = ruleset.files.keys().map(|n| (Layer::Ruleset, n)).chain(house.iter().map(|(n, _)| (Layer::House, n)));
    for (layer, name) in names {
        check_name(layer, name).map_err(|e| ReloadError::Io(e.0))?;
    }
    Ok(())
}

/// The house rules' setting overrides, checked against the new manifest.
pub fn overrides(manifest: &Manifest, house: &HouseRules) -> Result<IndexMap<String, Value>, ReloadError> {
    let overrides = house.setting_overrides().map_err(|p| ReloadError::Invalid(vec![p]))?;
    manifest.check_settings(&overrides).map_err(|m| {
        ReloadError::Invalid(vec![Problem::Manifest(ManifestError {
            file: HOUSE_SETTINGS.into(),
            line: None,
            column: None,
            field: "settings".into(),
            message: m.to_string(),
        })])
    })
}

/// Adds to `tx` what new rules need on the table: the settings in force (house overrides, else
/// the campaign's own, else the defaults) and the pools they declare that the table lacks.
/// Returns the settings whose value changed.
pub fn bring_table_up(
    tx: &mut Tx,
    manifest: &Manifest,
    base: &IndexMap<String, Value>,
    overrides: &IndexMap<String, Value>,
) -> Result<IndexMap<String, Value>, TxError> {
    let mut changed = IndexMap::new();
    for (key, spec) in &manifest.settings {
        let want = overrides.get(key).or_else(|| base.get(key)).cloned().unwrap_or_else(|| spec.default.clone());
        let want = spec.check(&want).unwrap_or_else(|_| spec.default.clone());
        if tx.table.settings.get(key) != Some(&want) {
            changed.insert(key.clone(), want.clone());
            tx.change(Change::Setting { key: key.clone(), value: want })?;
        }
    }
    for (name, spec) in &manifest.pools {
        if !tx.table.pools.contains_key(name) {
            let def = spec.build(&tx.table.settings);
            tx.change(Change::DefinePool { pool: PoolRef { entity: None, name: name.clone() }, def })?;
        }
    }
    let settings = tx.table.settings.clone();
    let missing: Vec<(String, String, houserule_core::pool::Pool)> = tx
        .table
        .entities
        .values()
        .flat_map(|e| {
            let settings = &settings;
            manifest.kinds.get(&e.kind).into_iter().flat_map(move |k| {
                k.pools
                    .iter()
                    .filter(|(p, _)| !e.pools.contains_key(*p))
                    .map(move |(p, spec)| (e.id.clone(), p.clone(), spec.build(settings)))
            })
        })
        .collect();
    for (entity, name, def) in missing {
        tx.change(Change::DefinePool { pool: PoolRef { entity: Some(entity), name }, def })?;
    }
    Ok(changed)
}

/// The public detail of a reload event: `changed` only what everyone may know of, and the
/// house rules in force without the secret ones (the digest of everything covers them).
pub fn detail(
    manifest: &Manifest,
    ruleset: &PluginSource,
    ruleset_files: &[(String, String)],
    house: &[(String, String)],
    changed: &[String],
    secret: &BTreeSet<String>,
) -> Value {
    let digest = digest_files(ruleset_files.iter().chain(house.iter()).map(|(k, v)| (k.as_str(), v.as_str())));
    let (public, _) = split_secret(house, secret);
    json!({
        "ruleset": { "id": manifest.id, "name": manifest.name, "version": manifest.version, "digest": ruleset.digest() },
        "house_rules": public.iter().map(|(name, text)| json!({ "file": name, "digest": file_digest(name, text) })).collect::<Vec<_>>(),
        "changed": changed,
        "digest": digest,
    })
}
