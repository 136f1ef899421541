//! A live session on a campaign: the campaign, the people following it, and the one task that
//! loads and swaps rules.
//!
//! A [`Session`] is what the desktop app and the server hold. Actions go through it and are
//! announced to every subscriber. Rule changes — a saved file in a watched folder, or a house
//! rule saved from the editor — all go to a single reload task, so loads and swaps never race:
//! it reads the sources, compiles and checks them, and swaps them in through
//! [`Campaign::reload`], or reports the problems with file, line and column while the last good
//! rules keep running.

use crate::campaign::{Acted, Campaign, CampaignError};
use crate::folders;
use crate::origin::Taking;
use crate::reload::{ReloadError, ReloadReport};
use crate::undo::Correction;
use crate::watch::{FolderWatch, WatchError};
use houserule_core::action::ActError;
use houserule_core::dice::Entropy;
use houserule_core::house::HouseRules;
use houserule_core::plugin::{check_name, Diagnostic, HouseRule, Layer, PluginSource, Problem, HOUSE_SETTINGS};
use houserule_core::talk::PostDraft;
use houserule_core::view::LogEntry;
use houserule_core::{Limits, Role};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Someone following a session: told each event, returns whether it still listens.
type Subscriber = Box<dyn FnMut(&SessionEvent) -> bool + Send>;

/// Something that happened in a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// An action (or a post, `action` "post") was committed. `readers`: who besides the GM may
    /// read it, when not everyone — nobody else is told of it.
    Committed {
        seq: u64,
        actor: Role,
        action: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        readers: Option<Role>,
    },
    /// New rules are in force.
    Reloaded { report: ReloadReport },
    /// Another program (`houserule act` while `serve` runs) added events to the file; they are
    /// in the table now.
    Written { from: u64, to: u64 },
    /// Edited rules did not load; the previous rules keep running.
    ReloadFailed { problems: Vec<Diagnostic> },
    /// The session watches these folders for saved edits.
    Watching { ruleset: Option<PathBuf>, house: Option<PathBuf> },
}

impl SessionEvent {
    /// Whether `role` may be told of this event: rule errors and watch notices are the GM's, and
    /// a post only its readers are told of.
    pub fn may_reach(&self, role: &Role) -> bool {
        match self {
            SessionEvent::ReloadFailed { .. } | SessionEvent::Watching { .. } => role.is_gm(),
            SessionEvent::Committed { readers: Some(reader), .. } => role.is_gm() || role == reader,
            _ => true,
        }
    }
}

/// Folders whose saved edits reload the rules.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleFolders {
    /// The ruleset's own folder (bundled or installed).
    pub ruleset: Option<PathBuf>,
    /// The campaign's exported house rules.
    pub house: Option<PathBuf>,
}

enum ReloadRequest {
    Files(Vec<PathBuf>),
    SaveHouseRule { name: String, text: String, reply: Sender<Result<Option<ReloadReport>, ReloadError>> },
    RemoveHouseRule { name: String, reply: Sender<Result<Option<ReloadReport>, ReloadError>> },
}

struct SessionState {
    campaign: Mutex<Campaign>,
    subscribers: Mutex<Vec<Subscriber>>,
    folders: Mutex<RuleFolders>,
}

/// A campaign in play.
#[derive(Clone)]
pub struct Session {
    shared: Arc<SessionState>,
    requests: Sender<ReloadRequest>,
    _watch: Arc<Mutex<Option<FolderWatch>>>,
}

/// The problems of a failed reload, as diagnostics.
pub fn diagnostics(e: &ReloadError) -> Vec<Diagnostic> {
    match e {
        ReloadError::Invalid(problems) => problems.iter().map(Diagnostic::from).collect(),
        other => vec![Diagnostic::plain("rules", other.to_string())],
    }
}

impl Session {
    /// Starts a session and its reload task.
    pub fn new(campaign: Campaign) -> Session {
        let shared = Arc::new(SessionState {
            campaign: Mutex::new(campaign),
            subscribers: Mutex::new(Vec::new()),
            folders: Mutex::new(RuleFolders::default()),
        });
        let (requests, rx) = channel();
        let task = shared.clone();
        std::thread::Builder::new()
            .name("houserule-reload".into())
            .spawn(move || reload_task(task, rx))
            .expect("the reload task starts");
        Session { shared, requests, _watch: Arc::new(Mutex::new(None)) }
    }

    /// The campaign, locked (keep the guard short: actions wait for it).
    pub fn campaign(&self) -> MutexGuard<'_, Campaign> {
        self.shared.campaign.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Receives every later event of this session.
    pub fn subscribe(&self) -> Receiver<SessionEvent> {
        let (tx, rx) = channel();
        self.subscribe_with(move |e| tx.send(e.clone()).is_ok());
        rx
    }

    /// Calls `f` with every later event of this session, in the thread that announces it and
    /// before the call that caused it returns; `f` must not block, and returns whether it
    /// still listens.
    pub fn subscribe_with(&self, f: impl FnMut(&SessionEvent) -> bool + Send + 'static) {
        self.shared.subscribers.lock().unwrap_or_else(|p| p.into_inner()).push(Box::new(f));
    }

    fn publish(shared: &SessionState, event: SessionEvent) {
        shared.subscribers.lock().unwrap_or_else(|p| p.into_inner()).retain_mut(|f| f(&event));
    }

    /// Reads in what another program wrote to the file, and announces it.
    pub fn catch_up(&self) -> Result<(), CampaignError> {
        self.changing(|c| c.catch_up()).map(|_| ())
    }

    /// Runs `f` on the campaign, then announces what other writers added that `f` read in on
    /// the way (an action catches up, and may again when it falls behind), before the caller
    /// announces its own event: nobody misses an event, and each is told in order.
    fn changing<T>(&self, f: impl FnOnce(&mut Campaign) -> T) -> T {
        let (out, written) = {
            let mut c = self.campaign();
            let out = f(&mut c);
            (out, c.take_written())
        };
        if let Some((from, to)) = written {
            Session::publish(&self.shared, SessionEvent::Written { from, to });
        }
        out
    }

    /// Takes actions back (see [`crate::undo`]), and announces it.
    pub fn undo(&self, actor: &Role, to: Option<u64>) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.undo(actor, to))?;
        Session::publish(
            &self.shared,
            SessionEvent::Committed { seq: entry.seq, actor: actor.clone(), action: "undo".into(), readers: None },
        );
        Ok(entry)
    }

    /// Sets a value by hand, and announces it.
    pub fn correct(&self, actor: &Role, correction: &Correction, reason: &str) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.correct(actor, correction, reason))?;
        Session::publish(
            &self.shared,
            SessionEvent::Committed { seq: entry.seq, actor: actor.clone(), action: "correct".into(), readers: None },
        );
        Ok(entry)
    }

    /// Changes whether `player` may type in their own dice, and announces it.
    pub fn set_typed_dice(&self, actor: &Role, player: &str, allowed: bool) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.set_typed_dice(actor, player, allowed))?;
        Session::publish(
            &self.shared,
            SessionEvent::Committed {
                seq: entry.seq,
                actor: actor.clone(),
                action: "allow_typed_dice".into(),
                readers: None,
            },
        );
        Ok(entry)
    }

    /// Takes an action and announces it.
    pub fn act(
        &self,
        role: &Role,
        action: &str,
        params: &Map<String, Value>,
        dice: Option<Vec<i64>>,
        entropy: Option<Entropy>,
    ) -> Result<Acted, ActError> {
        self.act_taking(role, action, params, &Taking { forced: dice, entropy, ..Taking::default() })
    }

    /// Takes an action with what else it comes with ([`Taking`]) and announces it.
    pub fn act_taking(
        &self,
        role: &Role,
        action: &str,
        params: &Map<String, Value>,
        taking: &Taking,
    ) -> Result<Acted, ActError> {
        // What another program wrote is announced as such before this action is.
        let out = self.changing(|c| c.act_taking(role, action, params, taking))?;
        Session::publish(
            &self.shared,
            SessionEvent::Committed {
                seq: out.event.seq,
                actor: role.clone(),
                action: action.to_string(),
                readers: None,
            },
        );
        Ok(out)
    }

    /// Writes a post, and tells only those who may read it.
    pub fn post(&self, author: &Role, draft: &PostDraft) -> Result<LogEntry, CampaignError> {
        self.post_taking(author, draft, &Taking::default())
    }

    /// As [`Session::post`], with the message it came from and a bridge's marks.
    pub fn post_taking(&self, author: &Role, draft: &PostDraft, taking: &Taking) -> Result<LogEntry, CampaignError> {
        let written = self.changing(|c| c.post_taking(author, draft, taking))?;
        Ok(self.announce_post(author, written))
    }

    /// Edits a post by its author, and tells only those who may read it.
    pub fn edit_post(&self, author: &Role, seq: u64, text: &str) -> Result<LogEntry, CampaignError> {
        let written = self.changing(|c| c.edit_post(author, seq, text))?;
        Ok(self.announce_post(author, written))
    }

    fn announce_post(&self, author: &Role, (entry, readers): (LogEntry, Option<Role>)) -> LogEntry {
        let event = SessionEvent::Committed { seq: entry.seq, actor: author.clone(), action: "post".into(), readers };
        Session::publish(&self.shared, event);
        entry
    }

    /// Watches rule folders; each saved edit is reloaded by the session's reload task.
    pub fn watch(&self, folders: RuleFolders, debounce: Duration) -> Result<(), WatchError> {
        // Change notices carry absolute paths: compare them with absolute folders.
        let absolute = |p: Option<PathBuf>| -> Result<Option<PathBuf>, WatchError> {
            p.map(|p| p.canonicalize().map_err(|e| WatchError(format!("{}: {e}", p.display())))).transpose()
        };
        let folders = RuleFolders { ruleset: absolute(folders.ruleset)?, house: absolute(folders.house)? };
        let list: Vec<PathBuf> = folders.ruleset.iter().chain(folders.house.iter()).cloned().collect();
        let requests = self.requests.clone();
        let watch = FolderWatch::start(&list, debounce, move |paths| {
            let _ = requests.send(ReloadRequest::Files(paths));
        })?;
        *self._watch.lock().unwrap_or_else(|p| p.into_inner()) = Some(watch);
        *self.shared.folders.lock().unwrap_or_else(|p| p.into_inner()) = folders.clone();
        Session::publish(&self.shared, SessionEvent::Watching { ruleset: folders.ruleset, house: folders.house });
        Ok(())
    }

    /// Saves a house-rule script (from the editor): into the watched house folder if there is
    /// one, and into the campaign. Returns once the reload task has swapped it in or refused it.
    pub fn save_house_rule(&self, name: &str, text: &str) -> Result<Option<ReloadReport>, ReloadError> {
        let (reply, rx) = channel();
        self.requests
            .send(ReloadRequest::SaveHouseRule { name: name.to_string(), text: text.to_string(), reply })
            .map_err(|_| ReloadError::Io("the reload task has stopped".into()))?;
        rx.recv().map_err(|_| ReloadError::Io("the reload task has stopped".into()))?
    }

    /// Removes a house-rule file.
    pub fn remove_house_rule(&self, name: &str) -> Result<Option<ReloadReport>, ReloadError> {
        let (reply, rx) = channel();
        self.requests
            .send(ReloadRequest::RemoveHouseRule { name: name.to_string(), reply })
            .map_err(|_| ReloadError::Io("the reload task has stopped".into()))?;
        rx.recv().map_err(|_| ReloadError::Io("the reload task has stopped".into()))?
    }
}

fn reload_task(shared: Arc<SessionState>, rx: Receiver<ReloadRequest>) {
    let mut queue: std::collections::VecDeque<ReloadRequest> = std::collections::VecDeque::new();
    loop {
        let request = match queue.pop_front() {
            Some(r) => r,
            None => match rx.recv() {
                Ok(r) => r,
                Err(_) => return,
            },
        };
        match request {
            ReloadRequest::Files(mut paths) => {
                // File notices that queued up meanwhile belong to the same reload; other
                // requests wait their turn.
                while let Ok(r) = rx.try_recv() {
                    match r {
                        ReloadRequest::Files(more) => paths.extend(more),
                        other => queue.push_back(other),
                    }
                }
                let result = reload_folders(&shared, &paths);
                announce(&shared, &result);
            }
            ReloadRequest::SaveHouseRule { name, text, reply } => {
                let result = change_house(&shared, |house| {
                    check_name(Layer::House, &name).map_err(|e| ReloadError::Io(e.0))?;
                    if name == HOUSE_SETTINGS {
                        house.settings_text = Some(text.clone());
                    } else {
                        match house.scripts.iter_mut().find(|h| h.name == name) {
                            Some(h) => h.source = text.clone(),
                            None => house.scripts.push(HouseRule { name: name.clone(), source: text.clone() }),
                        }
                    }
                    Ok(())
                });
                if result.is_ok() {
                    write_to_folder(&shared, &name, Some(&text));
                }
                announce(&shared, &result);
                let _ = reply.send(result);
            }
            ReloadRequest::RemoveHouseRule { name, reply } => {
                let result = change_house(&shared, |house| {
                    let before = house.scripts.len() + usize::from(house.settings_text.is_some());
                    house.scripts.retain(|h| h.name != name);
                    if name == HOUSE_SETTINGS {
                        house.settings_text = None;
                    }
                    if before == house.scripts.len() + usize::from(house.settings_text.is_some()) {
                        return Err(ReloadError::Io(format!("there is no house rule '{name}'")));
                    }
                    Ok(())
                });
                if result.is_ok() {
                    write_to_folder(&shared, &name, None);
                }
                announce(&shared, &result);
                let _ = reply.send(result);
            }
        }
    }
}

/// Reloads the watched folders the changed paths belong to. An editor may still be writing
/// when the notice comes: if the new rules fail to load, the folders are read again a moment
/// later and, if they changed meanwhile, tried again — only a failure that stays is reported.
fn reload_folders(shared: &SessionState, paths: &[PathBuf]) -> Result<Option<ReloadReport>, ReloadError> {
    let folders = shared.folders.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let touches = |dir: &Option<PathBuf>| dir.as_ref().is_some_and(|d| paths.iter().any(|p| p.starts_with(d)));
    let limits = shared.campaign.lock().unwrap_or_else(|p| p.into_inner()).rules().limits.clone();
    let read = || read_folders(&folders, &touches, &limits);
    let mut attempt = read();
    for _ in 0..3 {
        let result = match &attempt {
            Ok((ruleset, house)) => shared.campaign.lock().unwrap_or_else(|p| p.into_inner()).reload(
                Some(&Role::Gm),
                ruleset.clone(),
                house.clone(),
            ),
            Err(e) => Err(e.clone()),
        };
        if result.is_ok() {
            return result;
        }
        std::thread::sleep(crate::watch::DEBOUNCE * 2);
        let again = read();
        if again == attempt {
            return result;
        }
        attempt = again;
    }
    match attempt {
        Ok((ruleset, house)) => {
            shared.campaign.lock().unwrap_or_else(|p| p.into_inner()).reload(Some(&Role::Gm), ruleset, house)
        }
        Err(e) => Err(e),
    }
}

/// Reads the watched folders a change touched (`None` for a layer left as it is).
fn read_folders(
    folders: &RuleFolders,
    touches: &dyn Fn(&Option<PathBuf>) -> bool,
    limits: &Limits,
) -> Result<(Option<PluginSource>, Option<HouseRules>), ReloadError> {
    let ruleset = match &folders.ruleset {
        Some(d) if touches(&folders.ruleset) => Some(read_ruleset_dir(d, limits)?),
        _ => None,
    };
    let house = match &folders.house {
        Some(d) if touches(&folders.house) => {
            Some(folders::read_house_rules(d, limits.max_script_bytes).map_err(|e| ReloadError::Io(e.to_string()))?)
        }
        _ => None,
    };
    Ok((ruleset, house))
}

/// Reads a ruleset folder for a reload, and checks its scenario files still parse.
pub fn read_ruleset_dir(dir: &std::path::Path, limits: &Limits) -> Result<PluginSource, ReloadError> {
    let source = folders::read_plugin(dir, limits).map_err(|e| ReloadError::Io(e.to_string()))?;
    if let Err(e) = folders::read_scenarios(dir, limits) {
        return Err(ReloadError::Invalid(vec![Problem::Manifest(houserule_core::manifest::ManifestError {
            file: e.file.clone(),
            line: None,
            column: None,
            field: String::new(),
            message: format!("scenario file does not parse: {}", e.message),
        })]));
    }
    Ok(source)
}

fn change_house(
    shared: &SessionState,
    edit: impl FnOnce(&mut HouseRules) -> Result<(), ReloadError>,
) -> Result<Option<ReloadReport>, ReloadError> {
    let mut campaign = shared.campaign.lock().unwrap_or_else(|p| p.into_inner());
    let mut house = campaign.house_rules().map_err(|e| ReloadError::Storage(e.to_string()))?;
    edit(&mut house)?;
    campaign.reload(Some(&Role::Gm), None, Some(house))
}

/// Keeps a watched house folder in step with an edit made through the session.
fn write_to_folder(shared: &SessionState, name: &str, text: Option<&str>) {
    let Some(dir) = shared.folders.lock().unwrap_or_else(|p| p.into_inner()).house.clone() else { return };
    let _ = match text {
        Some(t) => folders::write_house_rules(&dir, &[(name.to_string(), t.to_string())]).map(|_| ()),
        None => folders::remove_house_rule(&dir, name),
    };
}

fn announce(shared: &SessionState, result: &Result<Option<ReloadReport>, ReloadError>) {
    match result {
        Ok(Some(report)) => Session::publish(shared, SessionEvent::Reloaded { report: report.clone() }),
        Ok(None) => {}
        Err(e) => Session::publish(shared, SessionEvent::ReloadFailed { problems: diagnostics(e) }),
    }
}
