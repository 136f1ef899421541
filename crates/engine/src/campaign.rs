//! A campaign: the file, the rules it is played with, and the table.
//!
//! [`Campaign`] coordinates the pieces: it creates a file atomically (written under a temporary
//! name and renamed when complete), opens one by checking it and folding its events from the
//! latest snapshot, runs actions through [`action::stage`] and commits each as one event, and
//! hands out views. The table held in memory is always the fold of the committed events.

use crate::action::{self, ActError, ErrorReport, Staged};
use crate::dice::Forced;
use crate::event::{self, Body, Event, EventKind, Hash, Header, Item, GENESIS};
use crate::plugin::{HouseRule, Plugin, PluginError, PluginSource};
use crate::sandbox::Limits;
use crate::store::{Row, Store, StoreError, SNAPSHOT_EVERY};
use crate::table::{Change, Table};
use crate::tx::{DiceSupply, Tx};
use crate::view::{self, ActionForm, CampaignInfo, LogEntry, RulesetInfo, View};
use crate::visibility::Role;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a campaign could not be created or opened.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CampaignError {
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("rules check failed: the scripts the campaign carries do not load: {0}")]
    Plugin(#[from] PluginError),
    #[error("{0}")]
    Settings(String),
    #[error("setting up the campaign failed: {0}")]
    Setup(ActError),
    #[error("event {seq}: {message}")]
    Chain { seq: u64, message: String },
    #[error("this is {for_role}'s copy of a campaign: it can be viewed and verified, not played")]
    PlayerCopy { for_role: String },
}

impl CampaignError {
    pub fn report(&self) -> ErrorReport {
        let code = match self {
            CampaignError::Store(StoreError::Sqlite(_)) => "storage",
            CampaignError::Store(_) | CampaignError::Chain { .. } => "bad_file",
            CampaignError::PlayerCopy { .. } => "player_copy",
            CampaignError::Plugin(_) => "invalid_plugin",
            CampaignError::Settings(_) => "bad_setting",
            CampaignError::Setup(e) => return e.report(),
        };
        let diagnostics = match self {
            CampaignError::Plugin(PluginError::Invalid(problems)) => problems.iter().map(crate::plugin::Diagnostic::from).collect(),
            _ => vec![],
        };
        ErrorReport { code: code.into(), message: self.to_string(), param: None, script: None, diagnostics }
    }
}

/// What a new campaign starts from.
pub struct NewCampaign<'a> {
    pub name: String,
    pub ruleset: &'a PluginSource,
    /// Setting overrides as typed (`--set KEY=VALUE`) or as JSON.
    pub settings: IndexMap<String, Value>,
    /// A fixed seed (reproducible demos and tests); otherwise one from the operating system.
    pub seed: Option<u64>,
    pub limits: Limits,
    /// House rules layered over the ruleset from the start.
    pub house_rules: Vec<HouseRule>,
}

/// The outcome of an action, as the actor may see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Outcome {
    pub event: LogEntry,
    /// What the action's function returned.
    pub result: Value,
    /// What the scripts printed (for homebrewers; not part of the log).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub script_log: Vec<String>,
}

/// Stored facts about a campaign.
#[derive(Debug, Clone)]
struct Meta {
    id: String,
    name: String,
    seed_commitment: String,
}

/// An open campaign.
pub struct Campaign {
    store: Store,
    plugin: Arc<Plugin>,
    table: Table,
    meta: Meta,
    seed: Option<[u8; 32]>,
    head: (u64, Hash),
}

/// The seed for a number given on the command line.
pub fn seed_from_number(n: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"houserule-seed-v1");
    h.update(n.to_le_bytes());
    h.finalize().into()
}

/// A fresh seed from the operating system.
pub fn fresh_seed() -> [u8; 32] {
    let mut s = [0u8; 32];
    getrandom::getrandom(&mut s).expect("the operating system's random source");
    s
}

/// The public commitment to a seed.
pub fn seed_commitment(seed: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(seed))
}

fn random_id() -> String {
    let mut s = [0u8; 8];
    getrandom::getrandom(&mut s).expect("the operating system's random source");
    hex::encode(s)
}

impl Campaign {
    /// Creates a campaign file at `path` (or in memory with `None`).
    pub fn create(path: Option<&Path>, new: NewCampaign) -> Result<Campaign, CampaignError> {
        let plugin = Plugin::load(new.ruleset, &new.house_rules, &new.limits)?;
        let manifest = plugin.manifest.clone();
        let overrides = manifest.check_settings(&new.settings).map_err(CampaignError::Settings)?;
        let settings = manifest.settings_with(&overrides);
        let seed = new.seed.map(seed_from_number).unwrap_or_else(fresh_seed);
        let commitment = seed_commitment(&seed);

        let mut tx = Tx::new(Table::default(), manifest.clone(), Role::Gm, None, DiceSupply::Seeded(seed));
        let setup = (|| -> Result<(), crate::tx::TxError> {
            for (k, v) in &settings {
                tx.change(Change::Setting { key: k.clone(), value: v.clone() })?;
            }
            for (name, spec) in &manifest.pools {
                tx.change(Change::DefinePool { pool: crate::pool::PoolRef { entity: None, name: name.clone() }, def: spec.build(&settings) })?;
            }
            Ok(())
        })();
        setup.map_err(|e| CampaignError::Settings(e.to_string()))?;
        let staged = action::stage_setup(&plugin, tx).map_err(CampaignError::Setup)?;

        let id = random_id();
        let name = if new.name.trim().is_empty() { format!("{} campaign", manifest.name) } else { new.name.trim().to_string() };
        let detail = json!({
            "campaign": id,
            "name": name,
            "ruleset": { "id": manifest.id, "name": manifest.name, "version": manifest.version, "digest": new.ruleset.digest() },
            "house_rules": new.house_rules.iter().map(|h| json!({ "file": h.name, "digest": crate::plugin::digest_files(std::iter::once((h.name.as_str(), h.source.as_str()))) })).collect::<Vec<_>>(),
            "settings": settings,
            "seed_commitment": commitment,
        });

        let (store, tmp) = match path {
            Some(p) => {
                if p.exists() {
                    return Err(StoreError::Exists(p.display().to_string()).into());
                }
                let tmp = temp_path(p);
                let _ = std::fs::remove_file(&tmp);
                (Store::create(&tmp)?, Some(tmp))
            }
            None => (Store::in_memory()?, None),
        };
        let mut campaign = Campaign {
            store,
            plugin: Arc::new(plugin),
            table: Table::default(),
            meta: Meta { id: id.clone(), name: name.clone(), seed_commitment: commitment.clone() },
            seed: Some(seed),
            head: (0, GENESIS),
        };
        let result = (|| -> Result<(), CampaignError> {
            for (k, v) in [
                ("campaign_id", id.as_str()),
                ("name", name.as_str()),
                ("ruleset_id", manifest.id.as_str()),
                ("ruleset_name", manifest.name.as_str()),
                ("ruleset_version", manifest.version.as_str()),
                ("seed_commitment", commitment.as_str()),
                ("settings", &serde_json::to_string(&settings).expect("settings serialise")),
            ] {
                campaign.store.set_meta(k, v)?;
            }
            campaign.store.set_secret("seed", &hex::encode(seed))?;
            let files: Vec<(String, String)> = new.ruleset.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let house: Vec<(String, String)> = new.house_rules.iter().map(|h| (h.name.clone(), h.source.clone())).collect();
            campaign.commit(EventKind::Created, None, None, Some(detail), staged, &[("ruleset", &files), ("house", &house)])?;
            Ok(())
        })();
        match (result, tmp, path) {
            (Err(e), Some(tmp), _) => {
                drop(campaign);
                remove_with_sidecars(&tmp);
                Err(e)
            }
            (Err(e), None, _) => Err(e),
            (Ok(()), Some(tmp), Some(p)) => {
                drop(campaign);
                std::fs::rename(&tmp, p).map_err(|e| StoreError::Open { path: p.display().to_string(), message: e.to_string() })?;
                Campaign::open(p)
            }
            (Ok(()), _, _) => Ok(campaign),
        }
    }

    /// Opens a campaign file: checks it, loads the rules it carries, and folds its events.
    pub fn open(path: &Path) -> Result<Campaign, CampaignError> {
        Self::open_with(path, &Limits::default())
    }

    pub fn open_with(path: &Path, limits: &Limits) -> Result<Campaign, CampaignError> {
        let store = Store::open(path)?;
        Self::from_store(store, limits)
    }

    fn from_store(store: Store, limits: &Limits) -> Result<Campaign, CampaignError> {
        if let Some(for_role) = store.meta("copy_for")? {
            return Err(CampaignError::PlayerCopy { for_role });
        }
        let head = check_chain(&store)?;
        let ruleset = PluginSource { files: store.sources("ruleset")?.into_iter().collect() };
        if ruleset.files.is_empty() {
            return Err(StoreError::Corrupt("the file carries no ruleset".into()).into());
        }
        let house = crate::reload::HouseRules::from_files(store.sources("house")?).scripts;
        let plugin = Plugin::load(&ruleset, &house, limits)?;
        let meta = Meta {
            id: store.meta("campaign_id")?.unwrap_or_default(),
            name: store.meta("name")?.unwrap_or_default(),
            seed_commitment: store.meta("seed_commitment")?.unwrap_or_default(),
        };
        let seed = store.secret("seed")?.and_then(|s| event::parse_hash(&s));
        let (mut table, from) = match store.snapshot_before(head.0)? {
            Some((seq, text)) => {
                // The snapshot is trusted only if its digest is the one its event recorded.
                let header = store.event(seq)?.ok_or_else(|| StoreError::Corrupt(format!("the snapshot at event {seq} has no event")))?.parse_header()?;
                let digest = hex::encode(Sha256::digest(text.as_bytes()));
                if header.state.as_deref() != Some(digest.as_str()) {
                    return Err(CampaignError::Chain { seq, message: "the stored snapshot is not the state this event recorded (the file was edited)".into() });
                }
                (Store::parse_snapshot(seq, &text)?, seq + 1)
            }
            None => (Table::default(), 1),
        };
        store.each_event(from, |row| {
            let items = row.parse_items()?;
            check_items(&row, &items)?;
            fold_items(&mut table, &items).map_err(|m| StoreError::Corrupt(format!("event {}: {m}", row.seq)))
        })?;
        Ok(Campaign { store, plugin: Arc::new(plugin), table, meta, seed, head })
    }

    pub fn plugin(&self) -> &Arc<Plugin> {
        &self.plugin
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn path(&self) -> Option<PathBuf> {
        self.store.path().map(Path::to_path_buf)
    }

    pub fn info(&self) -> CampaignInfo {
        let m = &self.plugin.manifest;
        CampaignInfo {
            id: self.meta.id.clone(),
            name: self.meta.name.clone(),
            ruleset: RulesetInfo { id: m.id.clone(), name: m.name.clone(), version: m.version.clone() },
            events: self.head.0,
            head: hex::encode(self.head.1),
            seed_commitment: self.meta.seed_commitment.clone(),
        }
    }

    /// Takes an action as `role`. `forced` gives the dice faces in advance.
    pub fn act(&mut self, role: &Role, action: &str, raw: &Map<String, Value>, forced: Option<Vec<i64>>) -> Result<Outcome, ActError> {
        let dice = match forced {
            Some(faces) => DiceSupply::Forced(Forced::new(faces)),
            None => DiceSupply::Seeded(self.seed.ok_or_else(|| ActError::Engine("this copy of the campaign has no dice seed (it is a shared copy); play from the GM's file".into()))?),
        };
        let staged = action::stage(&self.plugin, &self.table, role, action, raw, dice)?;
        let result = staged.result.clone();
        let log = staged.log.clone();
        let entry = self.commit(EventKind::Action, Some(role.clone()), Some(action.to_string()), None, staged, &[]).map_err(|e| ActError::Engine(e.to_string()))?;
        let entry = view::log_entry(&entry.0, &entry.1, &hex::encode(self.head.1), role);
        Ok(Outcome { event: entry, result, script_log: log })
    }

    /// Runs an action `n` times from the current table with generated dice from `seed`,
    /// committing nothing; returns each run's result (see [`action::simulate`]).
    pub fn simulate(&self, role: &Role, action: &str, raw: &Map<String, Value>, seed: u64, n: u64) -> Result<Vec<Value>, ActError> {
        action::simulate(&self.plugin, &self.table, role, action, raw, seed_from_number(seed), n)
    }

    /// The settings the campaign was created with (house rules override them).
    pub(crate) fn base_settings(&self) -> IndexMap<String, Value> {
        self.store.meta("settings").ok().flatten().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default()
    }

    /// Commits a reload event and swaps in the plugin that was checked for it.
    pub(crate) fn commit_reload(
        &mut self,
        kind: EventKind,
        actor: Option<Role>,
        detail: Value,
        staged: Staged,
        sources: &[(&str, &[(String, String)])],
        plugin: Plugin,
    ) -> Result<(u64, String), CampaignError> {
        self.commit(kind, actor, None, Some(detail), staged, sources)?;
        self.plugin = Arc::new(plugin);
        Ok((self.head.0, hex::encode(self.head.1)))
    }

    /// Discloses the dice seed in force and commits to a fresh one, so anyone holding the log
    /// can recompute every generated roll so far. Returns the reveal event.
    pub fn reveal(&mut self, actor: &Role) -> Result<LogEntry, CampaignError> {
        let old = self.seed.ok_or_else(|| StoreError::Corrupt("this copy of the campaign has no dice seed to reveal (it is a shared copy)".into()))?;
        let new = fresh_seed();
        let (old_c, new_c) = (seed_commitment(&old), seed_commitment(&new));
        let rolls = self.table.next_roll;
        let detail = json!({ "revealed_seed": hex::encode(old), "revealed_commitment": old_c, "seed_commitment": new_c, "rolls_before": rolls });
        let mut tx = Tx::new(self.table.clone(), self.plugin.manifest.clone(), actor.clone(), None, DiceSupply::Seeded(new));
        tx.say(
            format!("The dice seed is revealed: every generated roll so far ({rolls}) can now be checked against it. New rolls come from a new committed seed."),
            crate::visibility::Visibility::Public,
            None,
        );
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let new_hex = hex::encode(new);
        let (header, items) = self.commit_with(EventKind::Reveal, Some(actor.clone()), None, Some(detail), staged, &[], &[("seed_commitment", &new_c)], &[("seed", &new_hex)])?;
        self.seed = Some(new);
        self.meta.seed_commitment = new_c;
        Ok(view::log_entry(&header, &items, &hex::encode(self.head.1), actor))
    }

    /// Appends an event made of a staged transaction, and makes its table current.
    fn commit(
        &mut self,
        kind: EventKind,
        actor: Option<Role>,
        action: Option<String>,
        detail: Option<Value>,
        staged: Staged,
        sources: &[(&str, &[(String, String)])],
    ) -> Result<(Header, Vec<Item>), CampaignError> {
        self.commit_with(kind, actor, action, detail, staged, sources, &[], &[])
    }

    /// As `commit`, also updating meta and secret values in the same transaction.
    #[allow(clippy::too_many_arguments)]
    fn commit_with(
        &mut self,
        kind: EventKind,
        actor: Option<Role>,
        action: Option<String>,
        detail: Option<Value>,
        staged: Staged,
        sources: &[(&str, &[(String, String)])],
        meta: &[(&str, &str)],
        secrets: &[(&str, &str)],
    ) -> Result<(Header, Vec<Item>), CampaignError> {
        let (seq, prev) = (self.head.0 + 1, self.head.1);
        let snapshot = (seq % SNAPSHOT_EVERY == 0).then(|| serde_json::to_string(&staged.tx.table).expect("tables serialise"));
        let state = snapshot.as_ref().map(|s| hex::encode(Sha256::digest(s.as_bytes())));
        let header = Header { seq, prev: hex::encode(prev), at: event::now_rfc3339(), kind, actor, action, detail, state };
        let ev = Event { header, items: staged.tx.items };
        let commitments = ev.commitments().map_err(|e| CampaignError::Chain { seq, message: e.to_string() })?;
        let header_json = ev.header_json();
        let hash = event::event_hash(&prev, seq, &header_json, &commitments);
        let row = Row {
            seq,
            hash: hash.to_vec(),
            header: header_json,
            items: serde_json::to_string(&ev.items).expect("items serialise"),
            commitments,
        };
        self.store.append_with(&row, snapshot.as_deref(), sources, meta, secrets)?;
        self.table = staged.tx.table;
        self.head = (seq, hash);
        Ok((ev.header, ev.items))
    }

    /// Runs every check on the file (see [`crate::verify`]), using the seed this copy holds.
    pub fn verify(&self) -> crate::verify::VerifyReport {
        crate::verify::verify(&self.store, &crate::verify::own_seeds(&self.store))
    }

    pub fn view(&self, role: &Role) -> View {
        view::table_view(&self.table, role, self.info())
    }

    pub fn actions(&self, role: &Role) -> Vec<ActionForm> {
        view::action_forms(&self.plugin.manifest, &self.table, role)
    }

    /// The log as `role` may see it, from event `from` on. An event whose items no longer match
    /// what was recorded is reported, never shown.
    pub fn log(&self, role: &Role, from: u64) -> Result<Vec<LogEntry>, CampaignError> {
        let mut out = Vec::new();
        self.store.each_event(from.max(1), |row| {
            let header = row.parse_header()?;
            let items = row.parse_items()?;
            check_items(&row, &items)?;
            out.push(view::log_entry(&header, &items, &hex::encode(&row.hash), role));
            Ok(())
        })?;
        Ok(out)
    }
}

/// Applies an event's changes and roll counters to a table.
pub fn fold_items(table: &mut Table, items: &[Item]) -> Result<(), String> {
    for item in items {
        match &item.body {
            Some(Body::Change { change }) => table.apply(change).map_err(|e| e.to_string())?,
            Some(Body::Roll { roll }) => {
                if let crate::dice::RollSource::Generated { counter } = roll.source {
                    table.next_roll = counter + 1;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks that an event's items are the ones its hash committed to.
fn check_items(row: &Row, items: &[Item]) -> Result<(), StoreError> {
    let mut commitments = Vec::with_capacity(items.len() * 32);
    for (i, item) in items.iter().enumerate() {
        commitments.extend_from_slice(&item.commitment(i).map_err(|e| StoreError::Corrupt(format!("event {}: {e}", row.seq)))?);
    }
    if commitments != row.commitments {
        return Err(StoreError::Corrupt(format!("hash chain check failed: event {} was edited: its items do not match its hash", row.seq)));
    }
    Ok(())
}

/// Checks the hash chain quickly (headers and stored commitments) and returns the head.
fn check_chain(store: &Store) -> Result<(u64, Hash), CampaignError> {
    let mut prev = GENESIS;
    let mut expected = 1u64;
    store.each_header(|seq, stored_hash, header, commitments| {
        if seq != expected {
            return Err(StoreError::Corrupt(format!("hash chain check failed: event {expected} is missing (found {seq} next)")));
        }
        let hash = event::event_hash(&prev, seq, &header, &commitments);
        if stored_hash != hash {
            return Err(StoreError::Corrupt(format!("hash chain check failed at event {seq}: it was edited, removed or moved")));
        }
        prev = hash;
        expected += 1;
        Ok(())
    })?;
    if expected == 1 {
        return Err(StoreError::Corrupt("the campaign has no events".into()).into());
    }
    Ok((expected - 1, prev))
}

fn temp_path(p: &Path) -> PathBuf {
    let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "campaign".into());
    p.with_file_name(format!(".{name}.creating"))
}

fn remove_with_sidecars(p: &Path) {
    let _ = std::fs::remove_file(p);
    for suffix in ["-wal", "-shm"] {
        let mut s = p.as_os_str().to_owned();
        s.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(s));
    }
}
