//! What a front end offers: the calls the desktop window and the web server make.
//!
//! [`App`] holds the campaign in play (a [`Session`]) and answers every call declared in
//! [`crate::calls`] in one place, [`App::call`]: who may make it, as whom it runs, and its
//! result as JSON — or one [`ErrorReport`] with its [`ErrorCode`]. The desktop shell and the
//! server only say who is calling ([`Caller`]); neither adds game logic.

use crate::calls::{self, Call, Caller, Host, HouseRuleText, HouseRulesState, Joined, RulesetChoice, TableNow};
use crate::campaign::{Acted, Campaign, CampaignError, FormOdds, NewCampaign};
use crate::catalog::{self, Catalog};
use crate::invites::{self, InviteError};
use crate::lab::{self, LabProgress};
use crate::online::OnlineTable;
use crate::origin::Taking;
use crate::reload::{ReloadError, ReloadReport};
use crate::serving::{Serving, TableServer};
use crate::session::{diagnostics, Session, SessionEvent};
use crate::store::Store;
use houserule_core::dice::{Entropy, Forced};
use houserule_core::manifest::Manifest;
use houserule_core::plugin::Diagnostic;
use houserule_core::post::PostFormat;
use houserule_core::talk::PostDraft;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_core::{ErrorCode, ErrorReport, Role};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};

/// Something a front end shows as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AppEvent {
    /// A campaign was opened or created.
    Opened { campaign: CampaignInfo },
    /// Something happened in the campaign in play.
    Session { event: SessionEvent },
}

/// How many connections for reading history are kept open between calls.
const HISTORY_READERS: usize = 4;

/// The most log entries one call returns.
pub const MAX_LOG_ENTRIES: usize = 2000;

fn json<T: Serialize>(value: T) -> Result<Value, ErrorReport> {
    serde_json::to_value(value).map_err(|e| ErrorReport::new(ErrorCode::Internal, e.to_string()))
}

fn invite_report(e: InviteError) -> ErrorReport {
    match e {
        InviteError::Name(m) => ErrorReport::new(ErrorCode::BadParam, m).with_param("player"),
        InviteError::Store(s) => ErrorReport::new(ErrorCode::Storage, s.to_string()),
    }
}

fn no_server() -> ErrorReport {
    ErrorReport::new(
        ErrorCode::Refused,
        "this program cannot serve the table: host from the desktop app, or run `houserule serve FILE`",
    )
}

fn reload_report(e: ReloadError) -> ErrorReport {
    let diagnostics: Vec<Diagnostic> = diagnostics(&e);
    let code = if matches!(e, ReloadError::Sandbox(_)) { ErrorCode::Sandbox } else { ErrorCode::InvalidHouseRule };
    ErrorReport { code, message: e.to_string(), param: None, script: None, diagnostics }
}

/// The campaign in play and everyone following it.
#[derive(Clone, Default)]
pub struct App {
    session: Arc<Mutex<Option<(Session, PathBuf)>>>,
    subscribers: Arc<Mutex<Vec<Subscriber>>>,
    recent: Arc<Mutex<Option<PathBuf>>>,
    /// Other connections to the file in play, kept for reading history: a page of the log
    /// never holds the session (an action does not wait behind it), nor another reader.
    history: Arc<Mutex<Vec<(PathBuf, Store)>>>,
    /// The balance lab the GM started last (it runs on its own thread and workers).
    lab: Arc<Mutex<Option<lab::Job>>>,
    /// Log entries as each viewer saw them (a page read again is not made again).
    entries: Arc<crate::entries::Entries>,
    /// The server the front end installed to serve the table to browsers, if it can.
    server: Arc<Mutex<Option<Arc<dyn TableServer>>>>,
    /// The referee the front end installed to play online, if it can.
    online: Arc<Mutex<Option<Arc<dyn OnlineTable>>>>,
}

/// Someone following the app: told each event, returns whether it still listens.
type Subscriber = Box<dyn FnMut(&AppEvent) -> bool + Send>;

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
                let settings = r
                    .source
                    .manifest_text()
                    .and_then(|t| Manifest::parse("plugin.toml", t).ok())
                    .map(|m| m.settings)
                    .unwrap_or_default();
                RulesetChoice {
                    id: r.id.clone(),
                    name: r.name.clone(),
                    version: r.version.clone(),
                    description: r.description.clone(),
                    settings,
                }
            })
            .collect()
    }

    /// Receives every later event: campaigns opened, actions, reloads.
    pub fn subscribe(&self) -> Receiver<AppEvent> {
        let (tx, rx) = channel();
        self.subscribe_with(move |e| tx.send(e.clone()).is_ok());
        rx
    }

    /// Calls `f` with every later event, in the thread that announces it: an action's
    /// `committed` event reaches `f` before the call that took the action returns. `f` must not
    /// block; it returns whether it still listens.
    pub fn subscribe_with(&self, f: impl FnMut(&AppEvent) -> bool + Send + 'static) {
        self.subscribers.lock().unwrap_or_else(|p| p.into_inner()).push(Box::new(f));
    }

    fn publish(subscribers: &Mutex<Vec<Subscriber>>, event: AppEvent) {
        subscribers.lock().unwrap_or_else(|p| p.into_inner()).retain_mut(|f| f(&event));
    }

    fn install(&self, campaign: Campaign, path: &Path) -> CampaignInfo {
        let info = campaign.info();
        let session = Session::new(campaign);
        let subscribers = self.subscribers.clone();
        session.subscribe_with(move |event| {
            App::publish(&subscribers, AppEvent::Session { event: event.clone() });
            true
        });
        self.history.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.entries.clear();
        *self.lab.lock().unwrap_or_else(|p| p.into_inner()) = None;
        *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some((session, path.to_path_buf()));
        self.remember(path);
        App::publish(&self.subscribers, AppEvent::Opened { campaign: info.clone() });
        info
    }

    /// Creates a campaign file on a ruleset and plays it.
    pub fn create(
        &self,
        path: &Path,
        ruleset: &str,
        settings: &Map<String, Value>,
        name: &str,
    ) -> Result<CampaignInfo, ErrorReport> {
        let catalog = catalog::default_catalog();
        let r = catalog
            .get(ruleset)
            .ok_or_else(|| ErrorReport::new(ErrorCode::UnknownRuleset, format!("there is no ruleset '{ruleset}'")))?;
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

    pub(crate) fn with<R>(&self, f: impl FnOnce(&Session) -> Result<R, ErrorReport>) -> Result<R, ErrorReport> {
        let guard = self.session.lock().unwrap_or_else(|p| p.into_inner());
        match guard.as_ref() {
            Some((s, _)) => f(s),
            None => Err(ErrorReport::new(ErrorCode::NoCampaign, "no campaign is open")),
        }
    }

    pub fn view(&self, role: &Role) -> Result<View, ErrorReport> {
        self.with(|s| Ok(s.campaign().view(role)))
    }

    pub fn actions(&self, role: &Role) -> Result<Vec<ActionForm>, ErrorReport> {
        self.with(|s| Ok(s.campaign().actions(role)))
    }

    /// The log as `role` may see it: the newest `limit` events (at most [`MAX_LOG_ENTRIES`])
    /// with `from <= seq < before`. The session is held only to note how far it has read; the
    /// page is read through the app's own connection to the file.
    pub fn log(&self, role: &Role, from: u64, before: Option<u64>, limit: usize) -> Result<Vec<LogEntry>, ErrorReport> {
        let (path, voided, head) = self.with(|s| {
            let c = s.campaign();
            Ok((c.path(), c.voided_map().clone(), c.head().0))
        })?;
        let before = before.unwrap_or(u64::MAX).min(head + 1);
        self.history(path, role, from, before, limit.min(MAX_LOG_ENTRIES), &voided)
    }

    /// A page of the log read without holding the session (in memory: under it).
    fn history(
        &self,
        path: Option<PathBuf>,
        role: &Role,
        from: u64,
        before: u64,
        limit: usize,
        voided: &std::collections::BTreeMap<u64, u64>,
    ) -> Result<Vec<LogEntry>, ErrorReport> {
        let Some(path) = path else {
            return self.with(|s| s.campaign().log_page(role, from, before, limit).map_err(|e| e.report()));
        };
        self.reading(&path, |store| {
            crate::campaign::log_page(store, voided, role, from, before, limit).map_err(|e| e.report())
        })
    }

    /// As [`App::history`], the page as JSON text (entries read before are not made again).
    fn history_text(
        &self,
        path: Option<PathBuf>,
        role: &Role,
        from: u64,
        before: u64,
        limit: usize,
        voided: &std::collections::BTreeMap<u64, u64>,
    ) -> Result<String, ErrorReport> {
        let Some(path) = path else {
            let page = self.history(None, role, from, before, limit, voided)?;
            return serde_json::to_string(&page).map_err(|e| ErrorReport::new(ErrorCode::Internal, e.to_string()));
        };
        let entries = self.reading(&path, |store| {
            crate::campaign::log_page_text(store, voided, role, from, before, limit, &self.entries)
                .map_err(|e| e.report())
        })?;
        Ok(format!("[{}]", entries.join(",")))
    }

    /// Runs `read` on one of the app's own connections to the file at `path` (kept for the
    /// next read), never under the session.
    fn reading<R>(&self, path: &Path, read: impl FnOnce(&Store) -> Result<R, ErrorReport>) -> Result<R, ErrorReport> {
        let kept = {
            let mut pool = self.history.lock().unwrap_or_else(|p| p.into_inner());
            pool.retain(|(p, _)| p == path);
            pool.pop()
        };
        let store = match kept {
            Some((_, store)) => store,
            // The session checked this file when it opened it.
            None => Store::open_unchecked(path).map_err(|e| CampaignError::from(e).report())?,
        };
        let result = read(&store);
        let mut pool = self.history.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < HISTORY_READERS {
            pool.push((path.to_path_buf(), store));
        }
        result
    }

    /// The view, the action forms and the log since `from` (or its newest `limit` events), all
    /// as of the same event.
    pub fn table(&self, role: &Role, from: Option<u64>, limit: usize) -> Result<TableNow, ErrorReport> {
        let (view, actions, path, voided, head) = self.with(|s| {
            let c = s.campaign();
            Ok((c.view(role), c.actions(role), c.path(), c.voided_map().clone(), c.head().0))
        })?;
        let limit = limit.min(MAX_LOG_ENTRIES);
        let log = self.history(path, role, from.unwrap_or(1), head + 1, limit, &voided)?;
        Ok(TableNow { view, actions, log })
    }

    /// The chance of success of an action as its form stands (nothing is rolled or kept).
    pub fn odds(&self, role: &Role, action: &str, params: &Map<String, Value>) -> Result<FormOdds, ErrorReport> {
        self.with(|s| s.campaign().odds(role, action, params).map_err(|e| e.report()))
    }

    /// Takes an action. `entropy` is mixed into its rolls; with none, this machine's own is.
    pub fn act(
        &self,
        role: &Role,
        action: &str,
        params: &Map<String, Value>,
        dice: Option<Vec<i64>>,
        entropy: Option<Entropy>,
        post: Option<&PostDraft>,
    ) -> Result<Acted, ErrorReport> {
        let entropy = entropy.unwrap_or_else(Entropy::fresh);
        let taking = Taking { forced: dice, entropy: Some(entropy), post, ..Taking::default() };
        self.with(|s| s.act_taking(role, action, params, &taking).map_err(|e| e.report()))
    }

    /// Writes a post as `author`.
    pub fn say(&self, author: &Role, draft: &PostDraft) -> Result<LogEntry, ErrorReport> {
        self.with(|s| s.post(author, draft).map_err(|e| e.report()))
    }

    /// Edits `author`'s own post `seq`.
    pub fn edit_post(&self, author: &Role, seq: u64, text: &str) -> Result<LogEntry, ErrorReport> {
        self.with(|s| s.edit_post(author, seq, text).map_err(|e| e.report()))
    }

    /// Notes how far `role` has read the log.
    pub fn mark_read(&self, role: &Role, seq: u64) -> Result<u64, ErrorReport> {
        self.with(|s| {
            let c = s.campaign();
            crate::reads::mark(c.store(), role, seq, c.head().0).map_err(|e| CampaignError::from(e).report())
        })
    }

    /// Event `seq` as `role` sees it, as a forum post with its verify line.
    pub fn forum_post(&self, role: &Role, seq: u64, format: &str) -> Result<String, ErrorReport> {
        let format = PostFormat::parse(format).ok_or_else(|| {
            ErrorReport::new(ErrorCode::BadParam, format!("'{format}' is not a post format: markdown or bbcode"))
                .with_param("format")
        })?;
        self.with(|s| {
            let c = s.campaign();
            let entry = c.log_page(role, seq, seq + 1, 1).map_err(|e| e.report())?.pop().ok_or_else(|| {
                ErrorReport::new(ErrorCode::BadParam, format!("there is no event #{seq} you can see")).with_param("seq")
            })?;
            let file =
                c.path().and_then(|p| p.file_name().map(|n| n.to_string_lossy().to_string())).unwrap_or_default();
            Ok(houserule_core::post::post(&entry, &c.info(), &file, format))
        })
    }

    /// Reads in what another program wrote to the campaign file in play (nothing open: nothing).
    pub fn catch_up(&self) -> Result<(), ErrorReport> {
        match self.with(|s| s.catch_up().map_err(|e| e.report())) {
            Err(e) if e.code == ErrorCode::NoCampaign => Ok(()),
            other => other,
        }
    }

    /// The player a join link's token was made for, if it is live.
    pub fn redeem_invite(&self, token: &str) -> Result<Option<String>, ErrorReport> {
        self.with(|s| invites::redeem(s.campaign().store(), token, &crate::campaign::now()).map_err(invite_report))
    }

    /// The player a seat at the table (a join link, a Matrix account) may be given for `asked`:
    /// a player name, refused when it is a known player's name in other capitals.
    pub fn seat_name(&self, asked: &str) -> Result<String, ErrorReport> {
        let player = invites::player_name(asked).map_err(invite_report)?;
        self.with(|s| {
            let players = houserule_core::params::players(s.campaign().table());
            match players.iter().find(|k| **k != player && k.eq_ignore_ascii_case(&player)) {
                Some(known) => Err(ErrorReport::new(
                    ErrorCode::BadParam,
                    format!("'{player}' is not a player here: did you mean '{known}'? (names are exact)"),
                )
                .with_param("player")),
                None => Ok(player),
            }
        })
    }

    /// Whether a player (over the network) may type in their own dice.
    fn may_type_dice(&self, caller: &Caller) -> Result<bool, ErrorReport> {
        match (&caller.role, caller.host) {
            (Role::Player(p), Host::Server) => self.with(|s| Ok(s.campaign().table().typed_dice.contains(p))),
            _ => Ok(true),
        }
    }

    /// Who joined, as the reply to `hello`.
    pub fn joined(&self, caller: &Caller) -> Joined {
        let current = self.current();
        Joined {
            role: caller.role.clone(),
            campaign: current.as_ref().map(|(i, _)| i.clone()),
            // Where the GM keeps the file is the GM's business (it names their folders).
            file: current.map(|(_, p)| p).filter(|_| caller.role.is_gm()),
            host: caller.host,
            last_read: self
                .with(|s| Ok(crate::reads::last_read(s.campaign().store(), &caller.role).ok().flatten()))
                .ok()
                .flatten(),
        }
    }

    /// Answers one call for `caller`: checks who may make it and as whom it runs, then does it.
    /// `file` is where a server creates its campaign (a browser never names a path).
    /// As [`App::call`], with the result as JSON text. The log's pages (the largest, most
    /// frequent results) are written straight to text, without building a JSON tree first.
    pub fn call_text(&self, caller: &Caller, call: Call, file: Option<&Path>) -> Result<String, ErrorReport> {
        caller.may(&call)?;
        let text =
            |r: Result<String, serde_json::Error>| r.map_err(|e| ErrorReport::new(ErrorCode::Internal, e.to_string()));
        match call {
            Call::Log(p) => {
                let role = caller.acting_as(p.role.as_deref())?;
                let (path, voided, head) = self.with(|s| {
                    let c = s.campaign();
                    Ok((c.path(), c.voided_map().clone(), c.head().0))
                })?;
                let before = p.before.unwrap_or(u64::MAX).min(head + 1);
                self.history_text(path, &role, p.from, before, p.limit.min(MAX_LOG_ENTRIES), &voided)
            }
            Call::Table(p) => {
                let role = caller.acting_as(p.role.as_deref())?;
                let (view, actions, path, voided, head) = self.with(|s| {
                    let c = s.campaign();
                    Ok((c.view(&role), c.actions(&role), c.path(), c.voided_map().clone(), c.head().0))
                })?;
                let limit = p.limit.min(MAX_LOG_ENTRIES);
                let log = self.history_text(path, &role, p.from.unwrap_or(1), head + 1, limit, &voided)?;
                let view = text(serde_json::to_string(&view))?;
                let actions = text(serde_json::to_string(&actions))?;
                Ok(format!("{{\"view\":{view},\"actions\":{actions},\"log\":{log}}}"))
            }
            other => self.call(caller, other, file).map(|v| v.to_string()),
        }
    }

    pub fn call(&self, caller: &Caller, call: Call, file: Option<&Path>) -> Result<Value, ErrorReport> {
        caller.may(&call)?;
        match call {
            Call::Hello(_) => json(self.joined(caller)),
            Call::Rulesets(_) => json(self.rulesets()),
            Call::Create(p) => {
                let path = match (caller.host, p.path, file) {
                    (Host::Desktop, Some(path), _) => path,
                    (Host::Server, _, Some(file)) if self.current().is_none() => file.to_path_buf(),
                    (Host::Server, _, _) => {
                        return Err(ErrorReport::new(ErrorCode::Forbidden, "this server already plays a campaign"))
                    }
                    _ => {
                        return Err(ErrorReport::new(
                            ErrorCode::BadRequest,
                            "create needs the path of the new campaign file",
                        ))
                    }
                };
                if caller.host == Host::Desktop {
                    self.stop_serving()?;
                    self.stop_online();
                }
                let info = self.create(&path, &p.ruleset, &p.settings, &p.name)?;
                self.follow_online();
                json(info)
            }
            Call::Open(p) => {
                self.stop_serving()?;
                self.stop_online();
                let info = self.open(&p.path)?;
                self.follow_online();
                json(info)
            }
            Call::Recent(_) => json(self.recent_files()),
            Call::Campaign(_) => json(self.current().map(|(info, _)| info)),
            Call::View(p) => json(self.view(&caller.acting_as(p.role.as_deref())?)?),
            Call::Actions(p) => json(self.actions(&caller.acting_as(p.role.as_deref())?)?),
            Call::Log(p) => json(self.log(&caller.acting_as(p.role.as_deref())?, p.from, p.before, p.limit)?),
            Call::Table(p) => json(self.table(&caller.acting_as(p.role.as_deref())?, p.from, p.limit)?),
            Call::Say(p) => json(self.say(&caller.acting_as(p.role.as_deref())?, &p.draft)?),
            Call::EditPost(p) => json(self.edit_post(&caller.acting_as(p.role.as_deref())?, p.seq, &p.text)?),
            Call::MarkRead(p) => json(self.mark_read(&caller.role, p.seq)?),
            Call::ForumPost(p) => json(self.forum_post(&caller.role, p.seq, &p.format)?),
            Call::Odds(p) => json(self.odds(&caller.acting_as(p.role.as_deref())?, &p.action, &p.params)?),
            Call::Act(p) => {
                let role = caller.acting_as(p.role.as_deref())?;
                let dice = match p.dice {
                    None => None,
                    Some(calls::Dice::Faces(f)) => Some(f),
                    Some(calls::Dice::Typed(t)) if t.trim().is_empty() => None,
                    Some(calls::Dice::Typed(t)) => Some(
                        Forced::parse_list(&t)
                            .map_err(|e| ErrorReport::new(ErrorCode::Dice, format!("dice rolled by hand: {e}")))?,
                    ),
                };
                let remote_player = caller.host == Host::Server && !caller.role.is_gm();
                if dice.is_some() && !self.may_type_dice(caller)? {
                    return Err(ErrorReport::new(
                        ErrorCode::Forbidden,
                        "the GM has not let you type in your own dice: leave the dice empty and the table rolls for you, or ask the GM to allow it",
                    ));
                }
                if remote_player && p.entropy.is_none() {
                    return Err(ErrorReport::new(
                        ErrorCode::BadRequest,
                        "a player's action carries 32 fresh random bytes from their own device (entropy), so nobody can foresee its rolls; reload the page",
                    ));
                }
                let mut acted = self.act(&role, &p.action, &p.params, dice, p.entropy, p.post.as_ref())?;
                if !caller.role.is_gm() {
                    // What the scripts printed is the homebrewer's (the GM's): it may show anything.
                    acted.script_log.clear();
                }
                json(acted)
            }
            Call::Undo(p) => json(self.with(|s| s.undo(&caller.role, p.to).map_err(|e| e.report()))?),
            Call::Correct(p) => {
                json(self.with(|s| s.correct(&caller.role, &p.correction, &p.reason).map_err(|e| e.report()))?)
            }
            Call::AllowTypedDice(p) => {
                json(self.with(|s| s.set_typed_dice(&caller.role, &p.player, p.allowed).map_err(|e| e.report()))?)
            }
            Call::Invite(p) => {
                let player = self.seat_name(&p.player)?;
                json(self.with(|s| {
                    invites::create(s.campaign().store(), &player, &crate::campaign::now()).map_err(invite_report)
                })?)
            }
            Call::Invites(_) => json(self.with(|s| invites::list(s.campaign().store()).map_err(invite_report))?),
            Call::RevokeInvite(p) => {
                json(self.with(|s| invites::revoke(s.campaign().store(), &p.player).map_err(invite_report))?)
            }
            Call::ShareCopy(p) => {
                let (_, from) = self
                    .current()
                    .ok_or_else(|| ErrorReport::new(ErrorCode::NoCampaign, "open a campaign to share first"))?;
                let role = match p.player.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
                    Some(name) => Some(Role::Player(invites::player_name(name).map_err(invite_report)?)),
                    None => None,
                };
                let report = crate::share::share(&from, &p.path, role.as_ref()).map_err(|e| {
                    let code = if matches!(e, crate::share::ShareError::Exists(_)) {
                        ErrorCode::BadParam
                    } else {
                        ErrorCode::Storage
                    };
                    ErrorReport::new(code, e.to_string())
                })?;
                json(report)
            }
            Call::Hosting(_) => json(self.server().and_then(|s| s.status())),
            Call::HostStart(p) => {
                let server = self.server().ok_or_else(no_server)?;
                let (_, file) = self.current().ok_or_else(|| {
                    ErrorReport::new(ErrorCode::NoCampaign, "open or create a campaign to host first")
                })?;
                json(server.start(self, &file, &p)?)
            }
            Call::HostStop(_) => json(self.stop_serving()?),
            Call::RemovePlayer(p) => {
                let link_ended =
                    self.with(|s| invites::revoke(s.campaign().store(), &p.player).map_err(invite_report))?;
                let connections = self.server().map_or(0, |s| s.disconnect(&format!("player:{}", p.player.trim())));
                json(calls::Removed { link_ended, connections })
            }
            call @ (Call::Online(_)
            | Call::OnlineLink(_)
            | Call::OnlineInvite(_)
            | Call::OnlineStart(_)
            | Call::OnlineStop(_)) => crate::online::answer(self, self.online(), call),
            Call::Manifest(_) => json(self.manifest()?),
            Call::HouseRules(_) => json(self.house_rules()?),
            Call::SaveHouseRule(p) => json(self.save_house_rule(&p.name, &p.text)?),
            Call::RemoveHouseRule(p) => json(self.remove_house_rule(&p.name)?),
            Call::LabStart(p) => json(self.lab_start(p.times, p.seed)?),
            Call::Lab(_) => json(self.lab.lock().unwrap_or_else(|p| p.into_inner()).as_ref().map(|j| j.progress())),
            Call::LabStop(_) => {
                let job = self.lab.lock().unwrap_or_else(|p| p.into_inner());
                json(job.as_ref().map(|j| {
                    j.stop();
                    j.progress()
                }))
            }
        }
    }

    /// Lets the calls serve the table to browsers through `server` (see [`crate::serving`]).
    pub fn install_server(&self, server: Arc<dyn TableServer>) {
        *self.server.lock().unwrap_or_else(|p| p.into_inner()) = Some(server);
    }

    /// Lets the calls play online through `online` (see [`crate::online`]).
    pub fn install_online(&self, online: Arc<dyn OnlineTable>) {
        *self.online.lock().unwrap_or_else(|p| p.into_inner()) = Some(online);
    }

    fn online(&self) -> Option<Arc<dyn OnlineTable>> {
        self.online.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Stops the referee (before another campaign takes this one's place).
    fn stop_online(&self) {
        if let Some(o) = self.online() {
            o.stop();
        }
    }

    /// Starts refereeing the campaign just opened, when it is linked.
    fn follow_online(&self) {
        if let Some(o) = self.online() {
            o.opened(self);
        }
    }

    fn server(&self) -> Option<Arc<dyn TableServer>> {
        self.server.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// What is served now, if anything.
    pub fn serving(&self) -> Option<Serving> {
        self.server().and_then(|s| s.status())
    }

    /// Stops a server the GM may stop (before another campaign takes this one's place).
    fn stop_serving(&self) -> Result<bool, ErrorReport> {
        match self.server() {
            Some(s) if s.status().is_some_and(|st| st.stoppable) => s.stop(),
            Some(s) if s.status().is_some() => Err(ErrorReport::new(
                ErrorCode::Forbidden,
                "this table is served by `houserule serve`: stop it where it runs",
            )),
            _ => Ok(false),
        }
    }

    /// Starts the balance lab from the table as it stands (stopping one that runs).
    pub fn lab_start(&self, times: u64, seed: u64) -> Result<LabProgress, ErrorReport> {
        if times == 0 || times > lab::MAX_TIMES {
            return Err(ErrorReport::new(ErrorCode::BadParam, format!("times must be 1 to {}", lab::MAX_TIMES))
                .with_param("times"));
        }
        let (setups, from_event) = self.with(|s| {
            let c = s.campaign();
            let rules = c.rules();
            if !rules.has_function("lab_turn", 1) || !rules.has_function("lab_outcome", 1) {
                return Err(ErrorReport::new(
                    ErrorCode::Refused,
                    format!("{} has no lab policy: it defines no lab_turn(t) and lab_outcome(t)", rules.manifest.name),
                ));
            }
            Ok((c.lab_setups(), c.head().0))
        })?;
        let job = lab::Job::start(setups, seed, times, from_event);
        let progress = job.progress();
        *self.lab.lock().unwrap_or_else(|p| p.into_inner()) = Some(job);
        Ok(progress)
    }

    /// The ruleset's manifest (kinds, fields, pools, settings, with their labels).
    pub fn manifest(&self) -> Result<Manifest, ErrorReport> {
        self.with(|s| {
            let campaign = s.campaign();
            let rules = campaign.rules();
            Ok(houserule_core::quote::filled(&rules.manifest, &rules.info.quotes))
        })
    }

    /// The house rules and the ruleset scripts, for the editor (the GM's).
    pub fn house_rules(&self) -> Result<HouseRulesState, ErrorReport> {
        self.with(|s| {
            let c = s.campaign();
            let rules = c.rules().clone();
            let files = c
                .house_rules()
                .map_err(|e| e.report())?
                .files()
                .into_iter()
                .map(|(name, text)| HouseRuleText {
                    functions: rules.house_functions().iter().filter(|f| f.file == name).cloned().collect(),
                    name,
                    text,
                })
                .collect();
            let ruleset_files = rules
                .source
                .files
                .iter()
                .map(|(name, text)| HouseRuleText { name: name.clone(), text: text.clone(), functions: vec![] })
                .collect();
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
        let list: Vec<PathBuf> =
            std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
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
