//! Changing the rules of an open campaign: hot reload and house rules.
//!
//! [`Campaign::reload`] takes new ruleset and/or house-rule sources, compiles and checks them in
//! the sandbox, and only if everything passes swaps them in — as one `reload` event that names
//! the changed files and the digests now in force. A failed reload changes nothing: the last
//! good rules keep running. Table state lives in the engine, never in scripts, so a reload loses
//! nothing; settings and pools the new rules declare but the table lacks are added in the same
//! event.
//!
//! House rules are `*.rhai` files layered over the ruleset (a function replaces the ruleset's
//! function of the same name and arity) plus an optional `settings.toml` whose `[settings]`
//! override the ruleset's settings.

use crate::campaign::{Campaign, CampaignError};
use crate::event::EventKind;
use crate::plugin::{digest_files, HouseRule, Plugin, PluginError, PluginSource, Problem, MANIFEST};
use crate::pool::PoolRef;
use crate::table::Change;
use crate::tx::{DiceSupply, Tx};
use crate::view::RulesetInfo;
use crate::visibility::Role;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The house-rule file that overrides settings.
pub const HOUSE_SETTINGS: &str = "settings.toml";

/// A campaign's house rules: scripts and setting overrides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HouseRules {
    pub scripts: Vec<HouseRule>,
    /// `settings.toml` as written (kept so an export gives the file back).
    pub settings_text: Option<String>,
}

/// Why the rules were not changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReloadError {
    /// The new rules do not load; the old ones keep running.
    #[error("{}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Problem>),
    #[error("{0}")]
    Io(String),
    #[error("the folder holds the ruleset '{found}', but this campaign plays '{expected}'")]
    OtherRuleset { expected: String, found: String },
    #[error("{0}")]
    Campaign(#[from] CampaignError),
}

impl From<PluginError> for ReloadError {
    fn from(e: PluginError) -> Self {
        match e {
            PluginError::Invalid(p) => ReloadError::Invalid(p),
            other => ReloadError::Io(other.to_string()),
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
}

impl HouseRules {
    /// Reads `*.rhai` and `settings.toml` from a folder (not sub-folders).
    pub fn from_dir(dir: &Path, max_bytes: usize) -> Result<HouseRules, ReloadError> {
        let mut out = HouseRules::default();
        let entries = std::fs::read_dir(dir).map_err(|e| ReloadError::Io(format!("{}: {e}", dir.display())))?;
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            if !(name.ends_with(".rhai") || name == HOUSE_SETTINGS) || name.starts_with('.') {
                continue;
            }
            let size = std::fs::metadata(&path).map(|m| m.len() as usize).unwrap_or(0);
            if size > max_bytes {
                return Err(ReloadError::Io(format!("{}: {size} bytes is larger than the limit of {max_bytes}", path.display())));
            }
            let text = std::fs::read_to_string(&path).map_err(|e| ReloadError::Io(format!("{}: {e}", path.display())))?;
            if name == HOUSE_SETTINGS {
                out.settings_text = Some(text);
            } else {
                out.scripts.push(HouseRule { name, source: text });
            }
        }
        Ok(out)
    }

    /// The files as stored in a campaign (name → text).
    pub fn files(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = self.scripts.iter().map(|h| (h.name.clone(), h.source.clone())).collect();
        if let Some(s) = &self.settings_text {
            files.push((HOUSE_SETTINGS.into(), s.clone()));
        }
        files
    }

    /// From stored files.
    pub fn from_files(files: Vec<(String, String)>) -> HouseRules {
        let mut out = HouseRules::default();
        for (name, text) in files {
            if name == HOUSE_SETTINGS {
                out.settings_text = Some(text);
            } else if name.ends_with(".rhai") {
                out.scripts.push(HouseRule { name, source: text });
            }
        }
        out
    }

    /// The `[settings]` table of `settings.toml`, with errors naming the file and line.
    pub fn setting_overrides(&self) -> Result<IndexMap<String, Value>, Problem> {
        let Some(text) = &self.settings_text else { return Ok(IndexMap::new()) };
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            #[serde(default)]
            settings: IndexMap<String, Value>,
        }
        toml::from_str::<File>(text).map(|f| f.settings).map_err(|e| {
            let (line, column) = e.span().map(|s| crate::manifest::line_col(text, s.start)).map(|(l, c)| (Some(l), Some(c))).unwrap_or((None, None));
            Problem::Manifest(crate::manifest::ManifestError { file: HOUSE_SETTINGS.into(), line, column, field: String::new(), message: e.message().trim().to_string() })
        })
    }
}

fn changed_files(layer: &str, old: &[(String, String)], new: &[(String, String)]) -> Vec<String> {
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

impl Campaign {
    /// The house rules in force.
    pub fn house_rules(&self) -> Result<HouseRules, CampaignError> {
        Ok(HouseRules::from_files(self.store().sources("house")?))
    }

    /// Swaps in new rules if they load and check; `None` keeps that layer as it is. Returns
    /// `Ok(None)` when nothing changed.
    pub fn reload(&mut self, actor: Option<&Role>, ruleset: Option<PluginSource>, house: Option<HouseRules>) -> Result<Option<ReloadReport>, ReloadError> {
        let current = self.plugin().clone();
        let ruleset = ruleset.unwrap_or_else(|| current.source.clone());
        let house = match house {
            Some(h) => h,
            None => self.house_rules()?,
        };
        let old_ruleset: Vec<(String, String)> = current.source.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let new_ruleset: Vec<(String, String)> = ruleset.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let old_house = self.store().sources("house").map_err(CampaignError::from)?;
        let new_house = house.files();
        let mut changed = changed_files("ruleset", &old_ruleset, &new_ruleset);
        changed.extend(changed_files("house", &old_house, &new_house));
        if changed.is_empty() {
            return Ok(None);
        }
        // Compile and check everything before anything changes.
        let plugin = Plugin::load(&ruleset, &house.scripts, &current.limits)?;
        if plugin.manifest.id != current.manifest.id {
            return Err(ReloadError::OtherRuleset { expected: current.manifest.id.clone(), found: plugin.manifest.id.clone() });
        }
        let overrides = house.setting_overrides().map_err(|p| ReloadError::Invalid(vec![p]))?;
        let overrides = plugin.manifest.check_settings(&overrides).map_err(|m| {
            ReloadError::Invalid(vec![Problem::Manifest(crate::manifest::ManifestError {
                file: HOUSE_SETTINGS.into(),
                line: None,
                column: None,
                field: "settings".into(),
                message: m,
            })])
        })?;

        // What the new rules need on the table: settings, and pools they declare.
        let base = self.base_settings();
        let manifest = plugin.manifest.clone();
        let mut tx = Tx::new(self.table().clone(), manifest.clone(), actor.cloned().unwrap_or(Role::Gm), None, DiceSupply::Forced(crate::dice::Forced::new([])));
        let mut settings_changed = IndexMap::new();
        for (key, spec) in &manifest.settings {
            let want = overrides.get(key).or_else(|| base.get(key)).cloned().unwrap_or_else(|| spec.default.clone());
            let want = spec.check(&want).unwrap_or_else(|_| spec.default.clone());
            if tx.table.settings.get(key) != Some(&want) {
                settings_changed.insert(key.clone(), want.clone());
                tx.change(Change::Setting { key: key.clone(), value: want }).map_err(|e| ReloadError::Io(e.to_string()))?;
            }
        }
        for (name, spec) in &manifest.pools {
            if !tx.table.pools.contains_key(name) {
                let def = spec.build(&tx.table.settings);
                tx.change(Change::DefinePool { pool: PoolRef { entity: None, name: name.clone() }, def }).map_err(|e| ReloadError::Io(e.to_string()))?;
            }
        }
        let missing: Vec<(String, String, crate::pool::Pool)> = tx
            .table
            .entities
            .values()
            .flat_map(|e| {
                let settings = &tx.table.settings;
                manifest.kinds.get(&e.kind).into_iter().flat_map(move |k| {
                    k.pools.iter().filter(|(p, _)| !e.pools.contains_key(*p)).map(move |(p, spec)| (e.id.clone(), p.clone(), spec.build(settings)))
                })
            })
            .collect();
        for (entity, name, def) in missing {
            tx.change(Change::DefinePool { pool: PoolRef { entity: Some(entity), name }, def }).map_err(|e| ReloadError::Io(e.to_string()))?;
        }
        tx.say(format!("The rules changed: {}.", changed.join(", ")), crate::visibility::Visibility::Public, None);

        let digest = digest_files(new_ruleset.iter().chain(new_house.iter()).map(|(k, v)| (k.as_str(), v.as_str())));
        let detail = json!({
            "ruleset": { "id": manifest.id, "name": manifest.name, "version": manifest.version, "digest": ruleset.digest() },
            "house_rules": new_house.iter().map(|(name, text)| json!({ "file": name, "digest": digest_files(std::iter::once((name.as_str(), text.as_str()))) })).collect::<Vec<_>>(),
            "changed": changed,
            "digest": digest,
        });
        let staged = crate::action::Staged { tx, result: Value::Null, log: vec![] };
        let (seq, hash) = self.commit_reload(EventKind::Reload, actor.cloned(), detail, staged, &[("ruleset", &new_ruleset), ("house", &new_house)], plugin)?;
        Ok(Some(ReloadReport {
            seq,
            hash,
            ruleset: RulesetInfo { id: manifest.id.clone(), name: manifest.name.clone(), version: manifest.version.clone() },
            changed,
            digest,
            settings: settings_changed,
        }))
    }
}

/// Reads a ruleset folder for a reload, and checks its scenario files still parse.
pub fn read_ruleset_dir(dir: &Path, limits: &crate::sandbox::Limits) -> Result<PluginSource, ReloadError> {
    let source = PluginSource::from_dir(dir, limits)?;
    if !source.files.contains_key(MANIFEST) {
        return Err(ReloadError::Io(format!("{}: no {MANIFEST}", dir.display())));
    }
    if let Err(e) = crate::scenario::Scenario::load_dir(dir) {
        return Err(ReloadError::Invalid(vec![Problem::Manifest(crate::manifest::ManifestError {
            file: e.file.clone(),
            line: None,
            column: None,
            field: String::new(),
            message: format!("scenario file does not parse: {}", e.message),
        })]));
    }
    Ok(source)
}
