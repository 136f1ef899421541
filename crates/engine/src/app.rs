//! What a front end offers: the calls the desktop window and the web server make.
//!
//! [`App`] holds the campaign in play (a [`Session`]) and answers the front end's calls — the
//! rulesets, creating and opening a campaign, the view, the action forms, the log, taking an
//! action, the house rules and saving one — each as serialisable data or one [`ErrorReport`]
//! with a `code`. The desktop shell maps a command onto each call; the server maps a WebSocket
//! message onto each call, choosing the role from who is connected. Neither adds game logic.

use crate::action::ErrorReport;
use crate::campaign::{Campaign, CampaignError, NewCampaign, Outcome};
use crate::catalog::{self, Catalog};
use crate::manifest::{Manifest, SettingSpec};
use crate::plugin::{Diagnostic, HouseFunction};
use crate::reload::{ReloadError, ReloadReport};
use crate::session::{diagnostics, Session, SessionEvent};
use crate::view::{ActionForm, CampaignInfo, LogEntry, View};
use crate::visibility::Role;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// A ruleset a campaign can be created on, with the settings a GM may pick.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RulesetChoice {
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: String,
    pub settings: IndexMap<String, SettingSpec>,
}

/// A house-rule file with its text, for the editor.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HouseRuleText {
    pub name: String,
    pub text: String,
    pub functions: Vec<HouseFunction>,
}

/// The campaign's house rules, and the ruleset scripts they may replace functions of.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HouseRulesState {
    pub files: Vec<HouseRuleText>,
    /// The ruleset's own scripts (read-only in the editor; copy a function into a house rule to
    /// change it).
    pub ruleset_files: Vec<HouseRuleText>,
}

/// Something a front end shows as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AppEvent {
    /// A campaign was opened or created.
    Opened { campaign: CampaignInfo },
    /// Something happened in the campaign in play.
    Session { event: SessionEvent },
}

/// The most log entries one call returns.
pub const MAX_LOG_ENTRIES: usize = 2000;

/// The parameters of the front ends' calls, as the desktop commands and the server both read
/// them (docs/ui-contract.md). `as` is whose view or action it is; who may name whom is the
/// front end's to decide.
pub mod request {
    use super::*;
    use serde::de::DeserializeOwned;

    /// Reads a call's parameters (missing parameters are an empty object).
    pub fn parse<T: DeserializeOwned>(method: &str, params: &Value) -> Result<T, ErrorReport> {
        let params = if params.is_null() { Value::Object(Map::new()) } else { params.clone() };
        serde_json::from_value(params).map_err(|e| ErrorReport::new("bad_request", format!("{method}: {e}")))
    }

    fn role(asked: &Option<String>) -> Result<Option<Role>, ErrorReport> {
        asked.as_deref().map(Role::parse).transpose().map_err(|e| ErrorReport::new("bad_request", e))
    }

    /// `{as?}`.
    #[derive(Debug, Default, Deserialize)]
    pub struct As {
        #[serde(default, rename = "as")]
        pub role: Option<String>,
    }

    impl As {
        /// The role named by `as`, if any.
        pub fn role(&self) -> Result<Option<Role>, ErrorReport> {
            role(&self.role)
        }
    }

    /// `{ruleset, settings?, name?, path?}` (`path`: where the desktop saves it).
    #[derive(Debug, Deserialize)]
    pub struct Create {
        pub ruleset: String,
        #[serde(default)]
        pub settings: Map<String, Value>,
        #[serde(default)]
        pub name: String,
        #[serde(default)]
        pub path: Option<PathBuf>,
    }

    /// `{path}`.
    #[derive(Debug, Deserialize)]
    pub struct Open {
        pub path: PathBuf,
    }

    /// `{as?, from?, limit?}`: from event 1, the last 200 entries by default.
    #[derive(Debug, Deserialize)]
    pub struct Log {
        #[serde(default, rename = "as")]
        pub role: Option<String>,
        #[serde(default = "first_event")]
        pub from: u64,
        #[serde(default = "log_page")]
        pub limit: usize,
    }

    fn first_event() -> u64 {
        1
    }

    fn log_page() -> usize {
        200
    }

    impl Default for Log {
        fn default() -> Log {
            Log { role: None, from: first_event(), limit: log_page() }
        }
    }

    impl Log {
        pub fn role(&self) -> Result<Option<Role>, ErrorReport> {
            role(&self.role)
        }
    }

    /// `{as?, action, params?, dice?}`.
    #[derive(Debug, Deserialize)]
    pub struct Act {
        #[serde(default, rename = "as")]
        pub role: Option<String>,
        pub action: String,
        #[serde(default)]
        pub params: Map<String, Value>,
        #[serde(default)]
        pub dice: Option<Vec<i64>>,
    }

    impl Act {
        pub fn role(&self) -> Result<Option<Role>, ErrorReport> {
            role(&self.role)
        }
    }

    /// `{name, text}`: a house rule to save.
    #[derive(Debug, Deserialize)]
    pub struct SaveHouseRule {
        pub name: String,
        pub text: String,
    }

    /// `{name}`: a house rule to remove.
    #[derive(Debug, Deserialize)]
    pub struct HouseRuleName {
        pub name: String,
    }
}

fn reload_report(e: ReloadError) -> ErrorReport {
    let diagnostics: Vec<Diagnostic> = diagnostics(&e);
    ErrorReport { code: "invalid_house_rule".into(), message: e.to_string(), param: None, script: None, diagnostics }
}

/// The campaign in play and everyone following it.
#[derive(Clone, Default)]
pub struct App {
    session: Arc<Mutex<Option<(Session, PathBuf)>>>,
    subscribers: Arc<Mutex<Vec<Sender<AppEvent>>>>,
    recent: Arc<Mutex<Option<PathBuf>>>,
}

impl App {
    /// An app that remembers recently opened files in `recent_file` (none: it does not).
    pub fn new(recent_file: Option<PathBuf>) -> App {
        let app = App::default();
        *app.recent.lock().unwrap_or_else(|p| p.into_inner()) = recent_file;
        app
    }

    /// The rulesets a campaign can be created on.
    pub fn rulesets(&self) -> Vec<RulesetChoice> {
        let catalog: Catalog = catalog::default_catalog();
        catalog
            .rulesets
            .iter()
            .map(|r| {
                let settings = r.source.manifest_text().and_then(|t| Manifest::parse("plugin.toml", t).ok()).map(|m| m.settings).unwrap_or_default();
                RulesetChoice { id: r.id.clone(), name: r.name.clone(), version: r.version.clone(), description: r.description.clone(), settings }
            })
            .collect()
    }

    /// Receives every later event: campaigns opened, actions, reloads.
    pub fn subscribe(&self) -> Receiver<AppEvent> {
        let (tx, rx) = channel();
        self.subscribers.lock().unwrap_or_else(|p| p.into_inner()).push(tx);
        rx
    }

    fn publish(subscribers: &Mutex<Vec<Sender<AppEvent>>>, event: AppEvent) {
        subscribers.lock().unwrap_or_else(|p| p.into_inner()).retain(|s| s.send(event.clone()).is_ok());
    }

    fn install(&self, campaign: Campaign, path: &Path) -> CampaignInfo {
        let info = campaign.info();
        let session = Session::new(campaign);
        let events = session.subscribe();
        let subscribers = self.subscribers.clone();
        std::thread::Builder::new()
            .name("houserule-app-events".into())
            .spawn(move || {
                for event in events {
                    App::publish(&subscribers, AppEvent::Session { event });
                }
            })
            .expect("the event thread starts");
        *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some((session, path.to_path_buf()));
        self.remember(path);
        App::publish(&self.subscribers, AppEvent::Opened { campaign: info.clone() });
        info
    }

    /// Creates a campaign file on a ruleset and plays it.
    pub fn create(&self, path: &Path, ruleset: &str, settings: &Map<String, Value>, name: &str) -> Result<CampaignInfo, ErrorReport> {
        let catalog = catalog::default_catalog();
        let r = catalog.get(ruleset).ok_or_else(|| ErrorReport::new("unknown_ruleset", format!("there is no ruleset '{ruleset}'")))?;
        let new = NewCampaign {
            name: name.to_string(),
            ruleset: &r.source,
            settings: settings.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            seed: None,
            limits: Default::default(),
            house_rules: vec![],
        };
        let campaign = Campaign::create(Some(path), new).map_err(|e| e.report())?;
        Ok(self.install(campaign, path))
    }

    /// Opens a campaign file (all of its checks run first) and plays it.
    pub fn open(&self, path: &Path) -> Result<CampaignInfo, ErrorReport> {
        let campaign = Campaign::open(path).map_err(|e: CampaignError| e.report())?;
        Ok(self.install(campaign, path))
    }

    /// The campaign in play, if any.
    pub fn current(&self) -> Option<(CampaignInfo, PathBuf)> {
        self.session.lock().unwrap_or_else(|p| p.into_inner()).as_ref().map(|(s, p)| (s.campaign().info(), p.clone()))
    }

    fn with<R>(&self, f: impl FnOnce(&Session) -> Result<R, ErrorReport>) -> Result<R, ErrorReport> {
        let guard = self.session.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some((s, _)) => f(s),
            None => Err(ErrorReport::new("no_campaign", "no campaign is open")),
        }
    }

    pub fn view(&self, role: &Role) -> Result<View, ErrorReport> {
        self.with(|s| Ok(s.campaign().view(role)))
    }

    pub fn actions(&self, role: &Role) -> Result<Vec<ActionForm>, ErrorReport> {
        self.with(|s| Ok(s.campaign().actions(role)))
    }

    /// The log as `role` may see it: the last `limit` events from `from` on (at most
    /// [`MAX_LOG_ENTRIES`]).
    pub fn log(&self, role: &Role, from: u64, limit: usize) -> Result<Vec<LogEntry>, ErrorReport> {
        let limit = limit.min(MAX_LOG_ENTRIES);
        self.with(|s| {
            let mut entries = s.campaign().log(role, from).map_err(|e| e.report())?;
            if entries.len() > limit {
                entries.drain(..entries.len() - limit);
            }
            Ok(entries)
        })
    }

    pub fn act(&self, role: &Role, action: &str, params: &Map<String, Value>, dice: Option<Vec<i64>>) -> Result<Outcome, ErrorReport> {
        self.with(|s| s.act(role, action, params, dice).map_err(|e| e.report()))
    }

    /// The ruleset's manifest (kinds, fields, pools, settings, with their labels).
    pub fn manifest(&self) -> Result<Manifest, ErrorReport> {
        self.with(|s| Ok((*s.campaign().plugin().manifest).clone()))
    }

    /// The house rules and the ruleset scripts, for the editor (the GM's).
    pub fn house_rules(&self) -> Result<HouseRulesState, ErrorReport> {
        self.with(|s| {
            let c = s.campaign();
            let plugin = c.plugin().clone();
            let files = c
                .house_rules()
                .map_err(|e| e.report())?
                .files()
                .into_iter()
                .map(|(name, text)| HouseRuleText { functions: plugin.house_functions().iter().filter(|f| f.file == name).cloned().collect(), name, text })
                .collect();
            let ruleset_files = plugin.source.files.iter().map(|(name, text)| HouseRuleText { name: name.clone(), text: text.clone(), functions: vec![] }).collect();
            Ok(HouseRulesState { files, ruleset_files })
        })
    }

    /// Saves a house rule from the editor: checked, then swapped in (or refused with its place).
    pub fn save_house_rule(&self, name: &str, text: &str) -> Result<Option<ReloadReport>, ErrorReport> {
        self.with(|s| s.save_house_rule(name, text).map_err(reload_report))
    }

    pub fn remove_house_rule(&self, name: &str) -> Result<Option<ReloadReport>, ErrorReport> {
        self.with(|s| s.remove_house_rule(name).map_err(reload_report))
    }

    /// Recently opened campaign files that still exist, newest first.
    pub fn recent_files(&self) -> Vec<PathBuf> {
        let Some(file) = self.recent.lock().unwrap_or_else(|p| p.into_inner()).clone() else { return vec![] };
        let list: Vec<PathBuf> = std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
        list.into_iter().filter(|p| p.is_file()).collect()
    }

    fn remember(&self, path: &Path) {
        let Some(file) = self.recent.lock().unwrap_or_else(|p| p.into_inner()).clone() else { return };
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut list = self.recent_files();
        list.retain(|p| p != &path);
        list.insert(0, path);
        list.truncate(10);
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(&file, serde_json::to_string_pretty(&list).expect("paths serialise"));
    }
}
