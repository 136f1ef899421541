//! A campaign: the file, the rules it is played with, and the table.
//!
//! [`Campaign`] coordinates the pieces: it creates a file atomically (written under a temporary
//! name and renamed when complete); opens one by checking its hash chain, folding its events
//! from the latest snapshot, holding the sources it carries to what its log committed to
//! ([`crate::pinned`]) and only then loading the rules in a sandbox worker; takes actions —
//! parameters checked here, the scripts run in the worker, what they produced replayed and
//! checked here ([`houserule_core::tx::Tx::replay`]) — and commits each as one event; swaps in
//! new rules; and hands out views. The table held in memory is always the fold of the
//! committed events, and no script ever runs in this process.

mod append;
mod gm_ops;
mod handouts;
mod log;
mod odds;
mod open;
pub mod pictures;
mod scene;
pub use handouts::HandoutOp;
pub use scene::SceneOp;
mod other_writers;
mod talk;

use crate::checked;
use crate::pinned::{self, Stored};
use crate::reload::{self, ReloadError, ReloadReport};
use crate::request::{ActRequest, Dice};
use crate::rules::{Rules, RulesError};
use crate::sandbox::TableId;
use crate::store::{Row, Store, StoreError, SCHEMA_VERSION, SNAPSHOT_EVERY};
pub(crate) use append::Append;
use houserule_core::action::{self, ActError, Staged};
use houserule_core::dice::{seed_commitment, seed_from_number, Entropy, Forced};
use houserule_core::event::{self, Event, EventKind, Hash, Header, Item, GENESIS};
use houserule_core::house::HouseRules;
use houserule_core::plugin::{HouseRule, PluginSource};
use houserule_core::pool::PoolRef;
use houserule_core::table::{Change, Table};
use houserule_core::tx::{DiceSupply, Tx};
use houserule_core::view::{self, ActionForm, CampaignInfo, LogEntry, RulesetInfo, View};
use houserule_core::{ErrorCode, ErrorReport, Limits, Role, Visibility};
use indexmap::IndexMap;
pub use log::{log_page, log_page_text};
pub use odds::FormOdds;
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
    Rules(#[from] RulesError),
    #[error("{0}")]
    Settings(String),
    #[error("{0}")]
    Setting(#[from] houserule_core::manifest::SettingError),
    #[error("setting up the campaign failed: {0}")]
    Setup(ActError),
    #[error("event {seq}: {message}")]
    Chain { seq: u64, message: String },
    #[error("rules check failed: {0}")]
    Sources(#[from] pinned::Mismatch),
    #[error("this is {for_role}'s copy of a campaign: it can be viewed and verified, not played")]
    PlayerCopy { for_role: String },
    /// The GM's undo or correction cannot be done as asked (the message says why).
    #[error("{0}")]
    Refused(String),
    #[error("{param}: {message}")]
    BadParam { param: String, message: String },
}

impl CampaignError {
    pub fn code(&self) -> ErrorCode {
        match self {
            CampaignError::Store(StoreError::Sqlite(_)) => ErrorCode::Storage,
            CampaignError::Store(StoreError::Exists(_)) => ErrorCode::Exists,
            CampaignError::Store(StoreError::Open { .. }) => ErrorCode::Io,
            CampaignError::Store(StoreError::Behind { .. }) => ErrorCode::Storage,
            CampaignError::Refused(_) => ErrorCode::Refused,
            CampaignError::BadParam { .. } => ErrorCode::BadParam,
            CampaignError::Store(_) | CampaignError::Chain { .. } | CampaignError::Sources(_) => ErrorCode::BadFile,
            CampaignError::PlayerCopy { .. } => ErrorCode::PlayerCopy,
            CampaignError::Rules(r) => r.code(),
            CampaignError::Settings(_) | CampaignError::Setting(_) => ErrorCode::BadSetting,
            CampaignError::Setup(e) => e.code(),
        }
    }

    pub fn report(&self) -> ErrorReport {
        if let CampaignError::Setup(e) = self {
            return e.report();
        }
        let mut r = ErrorReport::new(self.code(), self.to_string());
        if let CampaignError::BadParam { param, .. } = self {
            r.param = Some(param.clone());
        }
        if let CampaignError::Rules(RulesError::Invalid(p)) = self {
            r.diagnostics = p.diagnostics();
        }
        r
    }
}

/// How many times an action is run when other programs keep writing the same file.
pub const WRITE_TRIES: usize = 3;

/// One try at committing an action.
enum Attempt {
    /// Another program appended first: read its events and run the action again.
    Behind,
    Failed(ActError),
}

impl From<ActError> for Attempt {
    fn from(e: ActError) -> Attempt {
        Attempt::Failed(e)
    }
}

/// A new file's first event and the facts written with it.
struct FirstEvent<'a> {
    manifest: &'a houserule_core::manifest::Manifest,
    settings: &'a IndexMap<String, Value>,
    seed: [u8; 32],
    staged: Staged,
    detail: Value,
    ruleset: &'a PluginSource,
    house_files: &'a [(String, String)],
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
pub struct Acted {
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
    rules: Arc<Rules>,
    table: Arc<Table>,
    meta: Meta,
    seed: Option<[u8; 32]>,
    head: (u64, Hash),
    /// Names this campaign's tables to the sandbox worker (unique within the process).
    token: u64,
    /// The events undone so far, each with the undo that voided it.
    pub(crate) voided: std::collections::BTreeMap<u64, u64>,
    /// Events read in from other writers that nobody was told of yet ([`Campaign::take_written`]).
    written: Option<(u64, u64)>,
}

/// Random bytes from the operating system.
fn random<const N: usize>() -> [u8; N] {
    let mut s = [0u8; N];
    getrandom::getrandom(&mut s).expect("the operating system's random source");
    s
}

/// A fresh seed from the operating system.
pub fn fresh_seed() -> [u8; 32] {
    random()
}

/// The current UTC time in RFC 3339 with seconds.
pub fn now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    event::rfc3339(secs)
}

/// The `rules` change for sources about to be in force.
fn rules_change(ruleset: &PluginSource, house_files: &[(String, String)]) -> Change {
    Change::Rules { sources: pinned::digests(ruleset, house_files) }
}

impl Campaign {
    /// Creates a campaign file at `path` (or in memory with `None`).
    pub fn create(path: Option<&Path>, new: NewCampaign) -> Result<Campaign, CampaignError> {
        let rules = Rules::load(new.ruleset, &new.house_rules, &new.limits)?;
        Self::create_with(path, new, rules)
    }

    /// Creates a campaign on rules already loaded (several scenarios on one worker).
    pub fn create_with(path: Option<&Path>, new: NewCampaign, rules: Arc<Rules>) -> Result<Campaign, CampaignError> {
        let manifest = rules.manifest.clone();
        let overrides = manifest.check_settings(&new.settings)?;
        let settings = manifest.settings_with(&overrides);
        let seed = new.seed.map(seed_from_number).unwrap_or_else(fresh_seed);
        let commitment = seed_commitment(&seed);
        // A campaign made from a seed number is a reproducible demo or test; any other mixes
        // the OS's entropy into its setup rolls, as every later action mixes in its own.
        let entropy = new.seed.is_none().then(Entropy::fresh);
        let dice = DiceSupply::Seeded { seed, entropy };
        let house_files: Vec<(String, String)> =
            new.house_rules.iter().map(|h| (h.name.clone(), h.source.clone())).collect();

        let mut tx = Tx::new(Table::default(), manifest.clone(), Role::Gm, None, dice.clone())
            .with_caps(new.limits.caps.clone());
        let mut changes: Vec<Change> =
            settings.iter().map(|(k, v)| Change::Setting { key: k.clone(), value: v.clone() }).collect();
        for (name, spec) in &manifest.pools {
            changes.push(Change::DefinePool {
                pool: PoolRef { entity: None, name: name.clone() },
                def: spec.build(&settings),
            });
        }
        changes.push(rules_change(new.ruleset, &house_files));
        for change in changes {
            tx.change(change).map_err(|e| CampaignError::Settings(e.to_string()))?;
        }
        let token = u64::from_le_bytes(random());
        let calls = action::setup_calls(&manifest);
        let mut log = vec![];
        if !calls.is_empty() {
            let reply = rules
                .stage(TableId { campaign: token, seq: 0 }, &tx.table, &Role::Gm, None, &calls, &dice)
                .map_err(CampaignError::Setup)?;
            tx.replay(reply.items).map_err(|e| CampaignError::Setup(ActError::from_tx(e)))?;
            log = reply.log;
        }
        tx.finish_dice().map_err(|e| CampaignError::Setup(ActError::Dice(e)))?;
        let staged = Staged { tx, result: Value::Null, log };

        let id = hex::encode(random::<8>());
        let name = if new.name.trim().is_empty() {
            format!("{} campaign", manifest.name)
        } else {
            new.name.trim().to_string()
        };
        houserule_core::text::check(&name, houserule_core::text::Lines::One).map_err(|e| CampaignError::BadParam {
            param: "name".into(),
            message: format!("the campaign's name: {e}"),
        })?;
        let detail = json!({
            "campaign": id,
            "name": name,
            "ruleset": { "id": manifest.id, "name": manifest.name, "version": manifest.version, "digest": new.ruleset.digest() },
            "house_rules": house_files.iter().map(|(n, t)| json!({ "file": n, "digest": houserule_core::plugin::file_digest(n, t) })).collect::<Vec<_>>(),
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
            rules: rules.clone(),
            table: Arc::default(),
            meta: Meta { id: id.clone(), name: name.clone(), seed_commitment: commitment.clone() },
            seed: Some(seed),
            head: (0, GENESIS),
            token,
            voided: Default::default(),
            written: None,
        };
        let first = FirstEvent {
            manifest: &manifest,
            settings: &settings,
            seed,
            staged,
            detail,
            ruleset: new.ruleset,
            house_files: &house_files,
        };
        let result = campaign.write_first_event(first);
        match (result, tmp, path) {
            (Err(e), Some(tmp), _) => {
                drop(campaign);
                remove_with_sidecars(&tmp);
                Err(e)
            }
            (Err(e), None, _) => Err(e),
            (Ok(()), Some(tmp), Some(p)) => {
                drop(campaign);
                std::fs::rename(&tmp, p)
                    .map_err(|e| StoreError::Open { path: p.display().to_string(), message: e.to_string() })?;
                let store = Store::open(p)?;
                Self::from_store_with(store, Some(rules))
            }
            (Ok(()), _, _) => Ok(campaign),
        }
    }

    /// Writes the new file's facts and its first event.
    fn write_first_event(&mut self, first: FirstEvent) -> Result<(), CampaignError> {
        let FirstEvent { manifest, settings, seed, staged, detail, ruleset, house_files } = first;
        let settings_json = serde_json::to_string(settings).expect("settings serialise");
        let meta = self.meta.clone();
        for (k, v) in [
            ("campaign_id", meta.id.as_str()),
            ("name", meta.name.as_str()),
            ("ruleset_id", manifest.id.as_str()),
            ("ruleset_name", manifest.name.as_str()),
            ("ruleset_version", manifest.version.as_str()),
            ("seed_commitment", meta.seed_commitment.as_str()),
            ("settings", settings_json.as_str()),
        ] {
            self.store.set_meta(k, v)?;
        }
        self.store.set_secret("seed", &hex::encode(seed))?;
        let files: Vec<(String, String)> = ruleset.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let sources: &[(&str, &[(String, String)])] = &[("ruleset", &files), ("house", house_files)];
        self.commit(Append::new(EventKind::Created, None, staged).detail(Some(detail)).sources(sources))?;
        Ok(())
    }

    /// Brings a file from before schema 2 up to date: one `migrated` event records the rules
    /// in force by digest (they were just checked against the older commitment), and the file
    /// gains the `pictures` table and the current schema version in the same transaction. A
    /// file of version 2 is left as it is until a picture is imported (see `pictures`).
    fn upgrade(&mut self) -> Result<(), CampaignError> {
        let found = self.store.version();
        if found >= 2 {
            return Ok(());
        }
        self.store.begin_write()?;
        let done = self.migrate(found);
        self.store.end_write(done.is_ok())?;
        done?;
        self.store.set_version(SCHEMA_VERSION);
        Ok(())
    }

    fn migrate(&mut self, found: i64) -> Result<(), CampaignError> {
        self.store.add_pictures_table()?;
        let stored = pinned::stored(&self.store)?;
        let mut tx = Tx::new(
            Table::clone(&self.table),
            self.rules.manifest.clone(),
            Role::Gm,
            None,
            DiceSupply::Forced(Forced::new([])),
        );
        tx.change(rules_change(&stored.ruleset, &stored.house_files))
            .map_err(|e| CampaignError::Settings(e.to_string()))?;
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let detail = json!({ "from_schema": found, "to_schema": SCHEMA_VERSION });
        let version = SCHEMA_VERSION.to_string();
        self.commit(
            Append::new(EventKind::Migrated, None, staged).detail(Some(detail)).meta("schema_version", &version),
        )?;
        Ok(())
    }

    pub fn rules(&self) -> &Arc<Rules> {
        &self.rules
    }

    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The table, shared (what readers of the session hold while it moves on).
    pub fn shared_table(&self) -> Arc<Table> {
        self.table.clone()
    }

    /// The last event's number and hash.
    pub fn head(&self) -> (u64, Hash) {
        self.head
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn path(&self) -> Option<PathBuf> {
        self.store.path().map(Path::to_path_buf)
    }

    pub fn info(&self) -> CampaignInfo {
        let m = &self.rules.manifest;
        CampaignInfo {
            id: self.meta.id.clone(),
            name: self.meta.name.clone(),
            ruleset: RulesetInfo { id: m.id.clone(), name: m.name.clone(), version: m.version.clone() },
            events: self.head.0,
            head: hex::encode(self.head.1),
            seed_commitment: self.meta.seed_commitment.clone(),
        }
    }

    /// The dice of an action: typed in, or from the seed mixed with the action's entropy.
    fn dice(&self, forced: Option<Vec<i64>>, entropy: Option<Entropy>) -> Result<DiceSupply, ActError> {
        match forced {
            Some(faces) => Ok(DiceSupply::Forced(Forced::new(faces))),
            None => self.seed.map(|seed| DiceSupply::Seeded { seed, entropy }).ok_or_else(|| {
                ActError::Unplayable(
                    "this copy of the campaign has no dice seed (it is a shared copy); play from the GM's file".into(),
                )
            }),
        }
    }

    /// Takes the action `request` asks for, as `role`. Dice typed in by hand are used as they
    /// fall; otherwise each roll comes from the seed mixed with the request's entropy (the
    /// acting side's fresh bytes, or its chat message's; none only for reproducible tests: then
    /// whoever holds the seed can foresee the rolls). A post it carries is committed with it or
    /// not at all; a bridge's message and marks are written in its transaction.
    ///
    /// Another program may write the same file (`houserule act` while `serve` runs): what it
    /// wrote is read in first, and if it writes between that and this commit, the action is
    /// run again on the new table (at most [`WRITE_TRIES`] times, the last holding the file's
    /// write lock throughout) — nothing is lost or doubled.
    pub fn act(&mut self, role: &Role, request: &ActRequest) -> Result<Acted, ActError> {
        let storage = |e: CampaignError| ActError::Storage(e.to_string());
        for _ in 1..WRITE_TRIES {
            self.catch_up().map_err(storage)?;
            match self.act_once(role, request) {
                Err(Attempt::Behind) => continue,
                Err(Attempt::Failed(e)) => return Err(e),
                Ok(acted) => return Ok(acted),
            }
        }
        // The last try holds the file's write lock from reading the head to the commit: other
        // writers wait for it, so this one cannot fall behind again.
        self.store.begin_write().map_err(|e| storage(e.into()))?;
        let outcome = self.catch_up().map_err(storage).and_then(|_| {
            self.act_once(role, request).map_err(|e| match e {
                Attempt::Failed(e) => e,
                Attempt::Behind => ActError::Storage(format!(
                    "other programs kept writing to the campaign; the action was tried {WRITE_TRIES} times and not taken"
                )),
            })
        });
        if let Err(e) = self.store.end_write(outcome.is_ok()) {
            // The commit did not reach the file: what this copy holds is read from it again.
            if let Some(path) = self.path() {
                *self = Campaign::open(&path).map_err(storage)?;
            }
            return Err(storage(e.into()));
        }
        outcome
    }

    fn act_once(&mut self, role: &Role, request: &ActRequest) -> Result<Acted, Attempt> {
        let manifest = self.rules.manifest.clone();
        let action = request.action.as_str();
        let params = action::check(&manifest, &self.table, role, action, &request.params)?;
        let post = request.post.as_ref().map(|d| d.post(role, &self.table)).transpose().map_err(|e| {
            ActError::Param(houserule_core::params::ParamError {
                param: "post".into(),
                message: e.to_string(),
                rule: None,
            })
        })?;
        let faces = request.dice.as_ref().map(Dice::faces).transpose().map_err(ActError::Dice)?.flatten();
        let dice = self.dice(faces, request.entropy())?;
        let calls = action::calls(&manifest, action, &params)?;
        let id = TableId { campaign: self.token, seq: self.head.0 };
        let reply = self.rules.stage(id, &self.table, role, Some((action, &params)), &calls, &dice)?;
        let mut tx = action::begin(&manifest, &self.table, role, action, &params, dice, &self.rules.limits)?;
        tx.replay(reply.items).map_err(ActError::from_tx)?;
        tx.finish_dice().map_err(ActError::Dice)?;
        if let Some((post, visibility, owner)) = post {
            tx.post(post, visibility, owner).map_err(ActError::from_tx)?;
        }
        let (result, log) = (reply.result, reply.log);
        let staged = Staged { tx, result: result.clone(), log: log.clone() };
        let append =
            Append::new(EventKind::Action, Some(role.clone()), staged).action(action).bridged(request.bridged.as_ref());
        let (header, items) = self.commit(append).map_err(|e| match e {
            CampaignError::Store(StoreError::Behind { .. }) => Attempt::Behind,
            CampaignError::Store(s) => Attempt::Failed(ActError::Storage(s.to_string())),
            other => Attempt::Failed(ActError::Rejected(other.to_string())),
        })?;
        self.rules.committed(id);
        let entry = view::log_entry(&header, &items, &hex::encode(self.head.1), role);
        Ok(Acted { event: entry, result, script_log: log })
    }

    /// The settings the campaign was created with (house rules override them).
    fn base_settings(&self) -> IndexMap<String, Value> {
        self.store.meta("settings").ok().flatten().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default()
    }

    /// The house rules in force.
    pub fn house_rules(&self) -> Result<HouseRules, CampaignError> {
        Ok(HouseRules::from_files(self.store.sources("house")?))
    }

    /// Swaps in new rules if they load and check; `None` keeps that layer as it is. Returns
    /// `Ok(None)` when nothing changed. The new rules are compiled in a new sandbox worker
    /// before anything changes; a failure leaves the old rules running.
    pub fn reload(
        &mut self,
        actor: Option<&Role>,
        ruleset: Option<PluginSource>,
        house: Option<HouseRules>,
    ) -> Result<Option<ReloadReport>, ReloadError> {
        self.catch_up().map_err(|e| ReloadError::Storage(e.to_string()))?;
        let current = self.rules.clone();
        let ruleset = ruleset.unwrap_or_else(|| current.source.clone());
        let house = match house {
            Some(h) => h,
            None => self.house_rules().map_err(|e| ReloadError::Storage(e.to_string()))?,
        };
        let old_ruleset: Vec<(String, String)> =
            current.source.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let new_ruleset: Vec<(String, String)> = ruleset.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let old_house = self.store.sources("house").map_err(|e| ReloadError::Storage(e.to_string()))?;
        let new_house = house.files();
        let secret = reload::secret_names(&self.store).map_err(|e| ReloadError::Storage(e.to_string()))?;
        let ((old_public, old_secret), (new_public, new_secret)) =
            (reload::split_secret(&old_house, &secret), reload::split_secret(&new_house, &secret));
        let mut changed = reload::changed_files("ruleset", &old_ruleset, &new_ruleset);
        changed.extend(reload::changed_files("house", &old_public, &new_public));
        let secret_changed = reload::changed_files("house", &old_secret, &new_secret);
        if changed.is_empty() && secret_changed.is_empty() {
            return Ok(None);
        }
        reload::check_names(&ruleset, &new_house)?;
        let rules = Rules::load(&ruleset, &house.scripts, &current.limits)?;
        if rules.manifest.id != current.manifest.id {
            return Err(ReloadError::OtherRuleset {
                expected: current.manifest.id.clone(),
                found: rules.manifest.id.clone(),
            });
        }
        let overrides = reload::overrides(&rules.manifest, &house)?;
        let base = self.base_settings();
        let mut tx = Tx::new(
            Table::clone(&self.table),
            rules.manifest.clone(),
            actor.cloned().unwrap_or(Role::Gm),
            None,
            DiceSupply::Forced(Forced::new([])),
        )
        .with_caps(current.limits.caps.clone());
        let settings = reload::bring_table_up(&mut tx, &rules.manifest, &base, &overrides)
            .map_err(|e| ReloadError::Io(e.to_string()))?;
        tx.change(rules_change(&ruleset, &new_house)).map_err(|e| ReloadError::Io(e.to_string()))?;
        let (everyone, gm) = reload::announcement(&changed, &secret_changed);
        tx.say(everyone, Visibility::Public, None).map_err(|e| ReloadError::Io(e.to_string()))?;
        if let Some(gm) = gm {
            tx.say(gm, Visibility::Gm, None).map_err(|e| ReloadError::Io(e.to_string()))?;
        }
        let detail = reload::detail(&rules.manifest, &ruleset, &new_ruleset, &new_house, &changed, &secret);
        let digest = detail.get("digest").and_then(Value::as_str).unwrap_or_default().to_string();
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let sources: &[(&str, &[(String, String)])] = &[("ruleset", &new_ruleset), ("house", &new_house)];
        self.commit(Append::new(EventKind::Reload, actor.cloned(), staged).detail(Some(detail)).sources(sources))
            .map_err(|e| ReloadError::Storage(e.to_string()))?;
        let manifest = rules.manifest.clone();
        self.rules = rules;
        Ok(Some(ReloadReport {
            seq: self.head.0,
            hash: hex::encode(self.head.1),
            ruleset: RulesetInfo {
                id: manifest.id.clone(),
                name: manifest.name.clone(),
                version: manifest.version.clone(),
            },
            changed: changed.into_iter().chain(secret_changed.iter().cloned()).collect(),
            digest,
            settings,
            house: self.rules.house_functions().to_vec(),
            secret: Box::new(reload::SecretPart { changed: secret_changed, files: secret }),
        }))
    }

    /// Lets `player` type in their own dice over the network, or stops it: a public event, so
    /// the whole table knows whose dice come from the table and whose from their hands.
    pub fn set_typed_dice(&mut self, actor: &Role, player: &str, allowed: bool) -> Result<LogEntry, CampaignError> {
        let role = Role::parse(&format!("player:{player}")).map_err(|e| CampaignError::Settings(e.to_string()))?;
        let Role::Player(player) = role else { unreachable!("parsed as a player") };
        let line = if allowed {
            format!("The GM lets {player} type in the dice they roll by hand.")
        } else {
            format!("{player}'s dice come from the table again: no more dice typed in by hand.")
        };
        self.permission(actor, Change::TypedDice { player: player.clone(), allowed }, line)
    }

    /// Shows players a participant of the turn order they may not see as "someone", or leaves
    /// such a participant out of their turn order again: a public event.
    pub fn set_someone_in_turns(&mut self, actor: &Role, shown: bool) -> Result<LogEntry, CampaignError> {
        let line = if shown {
            "The GM shows players anyone hidden from them in the turn order as someone."
        } else {
            "The GM leaves out of players' turn order anyone hidden from them."
        };
        self.permission(actor, Change::SomeoneInTurns { shown }, line.to_string())
    }

    /// Commits one of the GM's table permissions, told to everyone with `line`.
    fn permission(&mut self, actor: &Role, change: Change, line: String) -> Result<LogEntry, CampaignError> {
        self.catch_up()?;
        let mut tx = Tx::new(
            Table::clone(&self.table),
            self.rules.manifest.clone(),
            actor.clone(),
            None,
            DiceSupply::Forced(Forced::new([])),
        );
        tx.change(change).map_err(|e| CampaignError::Settings(e.to_string()))?;
        tx.say(line, Visibility::Public, None).map_err(|e| CampaignError::Settings(e.to_string()))?;
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let (header, items) = self.commit(Append::new(EventKind::Permission, Some(actor.clone()), staged))?;
        Ok(view::log_entry(&header, &items, &hex::encode(self.head.1), actor))
    }

    /// Discloses the dice seed in force and commits to a fresh one, so anyone holding the log
    /// can recompute every generated roll so far. Returns the reveal event.
    pub fn reveal(&mut self, actor: &Role) -> Result<LogEntry, CampaignError> {
        self.catch_up()?;
        let old = self.seed.ok_or_else(|| {
            StoreError::Corrupt("this copy of the campaign has no dice seed to reveal (it is a shared copy)".into())
        })?;
        let new = fresh_seed();
        let (old_c, new_c) = (seed_commitment(&old), seed_commitment(&new));
        let rolls = self.table.next_roll;
        let detail = json!({ "revealed_seed": hex::encode(old), "revealed_commitment": old_c, "seed_commitment": new_c, "rolls_before": rolls });
        let mut tx = Tx::new(
            Table::clone(&self.table),
            self.rules.manifest.clone(),
            actor.clone(),
            None,
            DiceSupply::Seeded { seed: new, entropy: None },
        );
        let line = format!("The dice seed is revealed: every generated roll so far ({rolls}) can now be checked against it. New rolls come from a new committed seed.");
        tx.say(line, Visibility::Public, None).map_err(|e| CampaignError::Settings(e.to_string()))?;
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let new_hex = hex::encode(new);
        let append = Append::new(EventKind::Reveal, Some(actor.clone()), staged)
            .detail(Some(detail))
            .meta("seed_commitment", &new_c)
            .secret("seed", &new_hex);
        let (header, items) = self.commit(append)?;
        self.seed = Some(new);
        self.meta.seed_commitment = new_c;
        Ok(view::log_entry(&header, &items, &hex::encode(self.head.1), actor))
    }

    /// Appends an event made of a staged transaction (and what else its transaction writes),
    /// and makes its table current.
    pub(crate) fn commit(&mut self, append: Append) -> Result<(Header, Vec<Item>), CampaignError> {
        let Append { kind, actor, action, detail, staged, sources, mut meta, secrets } = append;
        let (seq, prev) = (self.head.0 + 1, self.head.1);
        // A table too large to keep as a snapshot is rebuilt from the events before it instead.
        let snapshot = (seq % SNAPSHOT_EVERY == 0)
            .then(|| serde_json::to_string(&staged.tx.table).expect("tables serialise"))
            .filter(|s| crate::store::fits_snapshot(s.len()));
        let state = snapshot.as_ref().map(|s| hex::encode(Sha256::digest(s.as_bytes())));
        let header = Header { seq, prev: hex::encode(prev), at: now(), kind, actor, action, detail, state };
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
        // With each snapshot the file is stamped as checked here up to this event: what this
        // process holds was checked when it was opened or read in (see `crate::checked`).
        let stamp = snapshot.as_ref().and_then(|_| {
            let file = self.store.path().and_then(checked::identity);
            checked::stamp(checked::Subject { campaign: &self.meta.id, file }, seq, &hash)
        });
        if let Some(stamp) = &stamp {
            meta.push((checked::META_KEY.to_string(), stamp.clone()));
        }
        let meta: Vec<(&str, &str)> = meta.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let secrets: Vec<(&str, &str)> = secrets.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        self.store.append_with(&row, snapshot.as_deref(), sources, &meta, &secrets)?;
        self.table = Arc::new(staged.tx.table);
        self.head = (seq, hash);
        Ok((ev.header, ev.items))
    }

    pub fn view(&self, role: &Role) -> View {
        view::table_view(&self.table, role, self.info())
    }

    pub fn actions(&self, role: &Role) -> Vec<ActionForm> {
        view::action_forms(&self.rules.manifest, &self.table, role, &self.rules.info.quotes)
    }
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
