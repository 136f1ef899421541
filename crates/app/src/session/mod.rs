//! A live session on a campaign: the campaign, the people following it, and the one task that
//! loads and swaps rules.
//!
//! A [`Session`] is what the desktop app and the server hold. Actions go through it and are
//! announced to every subscriber. Rule changes — a saved file in a watched folder, or a house
//! rule saved from the editor — all go to a single reload task, so loads and swaps never race:
//! it reads the sources, compiles and checks them, and swaps them in through
//! [`Campaign::reload`], or reports the problems with file, line and column while the last good
//! rules keep running.

mod now;
mod reloading;
pub use reloading::read_ruleset_dir;

use crate::campaign::{Acted, Campaign, CampaignError};
pub use crate::events::SessionEvent;
use crate::events::{AppEvent, Hub};
use crate::reload::{ReloadError, ReloadReport};
use crate::request::{ActRequest, PostRequest};
use crate::undo::Correction;
use crate::watch::{FolderWatch, WatchError};
use houserule_core::action::ActError;
use houserule_core::plugin::Diagnostic;
use houserule_core::view::LogEntry;
use houserule_core::Role;
pub use now::Now;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Duration;

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
    /// Held by whoever changes the campaign (an action, a reload, an undo), through the
    /// sandbox's work for an action or a reload; never by a reader.
    campaign: Mutex<Campaign>,
    /// What readers read: the campaign as of its last change, swapped whole.
    now: RwLock<Arc<Now>>,
    hub: Hub,
    folders: Mutex<RuleFolders>,
}

impl SessionState {
    /// The campaign, locked for a change; what readers see is renewed when the guard goes.
    fn change(&self) -> CampaignGuard<'_> {
        CampaignGuard { guard: self.campaign.lock().unwrap_or_else(|p| p.into_inner()), now: &self.now }
    }

    fn publish(&self, event: SessionEvent) {
        self.hub.publish(AppEvent::Session { event });
    }
}

/// The campaign locked for a change ([`Session::campaign`]): when it is dropped, what readers
/// see ([`Session::now`]) becomes the campaign as it is then.
pub struct CampaignGuard<'a> {
    guard: MutexGuard<'a, Campaign>,
    now: &'a RwLock<Arc<Now>>,
}

impl Deref for CampaignGuard<'_> {
    type Target = Campaign;
    fn deref(&self) -> &Campaign {
        &self.guard
    }
}

impl DerefMut for CampaignGuard<'_> {
    fn deref_mut(&mut self) -> &mut Campaign {
        &mut self.guard
    }
}

impl Drop for CampaignGuard<'_> {
    fn drop(&mut self) {
        let now = Arc::new(Now::of(&self.guard));
        *self.now.write().unwrap_or_else(|p| p.into_inner()) = now;
    }
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
    /// Starts a session and its reload task, announcing on a hub of its own.
    pub fn new(campaign: Campaign) -> Session {
        Session::on(campaign, Hub::default())
    }

    /// Starts a session and its reload task, announcing on `hub`.
    pub fn on(campaign: Campaign, hub: Hub) -> Session {
        let shared = Arc::new(SessionState {
            now: RwLock::new(Arc::new(Now::of(&campaign))),
            campaign: Mutex::new(campaign),
            hub,
            folders: Mutex::new(RuleFolders::default()),
        });
        let (requests, rx) = channel();
        let task = shared.clone();
        std::thread::Builder::new()
            .name("houserule-reload".into())
            .spawn(move || reloading::reload_task(task, rx))
            .expect("the reload task starts");
        Session { shared, requests, _watch: Arc::new(Mutex::new(None)) }
    }

    /// The campaign, locked for a change: keep the guard short, every change waits for it.
    /// Readers use [`Session::now`], which never waits.
    pub fn campaign(&self) -> CampaignGuard<'_> {
        self.shared.change()
    }

    /// The campaign as of its last change: the table, the rules, the head. Never waits for an
    /// action or a reload in progress.
    pub fn now(&self) -> Arc<Now> {
        self.shared.now.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The hub this session announces on.
    pub fn hub(&self) -> &Hub {
        &self.shared.hub
    }

    /// Receives every later event of this session.
    pub fn subscribe(&self) -> Receiver<SessionEvent> {
        let (tx, rx) = channel();
        self.shared.hub.subscribe_with(move |e| match e {
            AppEvent::Session { event } => tx.send(event.clone()).is_ok(),
            _ => true,
        });
        rx
    }

    /// Reads in what another program wrote to the file, and announces it.
    pub fn catch_up(&self) -> Result<(), CampaignError> {
        self.changing(|c| c.catch_up()).map(|_| ())
    }

    /// Checks the path still names the campaign's file (a reader found it did not): if not,
    /// nothing more is written there, its write-ahead log leaves the path, and everyone is told.
    pub fn check_file(&self) -> bool {
        self.changing(|c| c.still_here())
    }

    /// Runs `f` on the campaign, then announces what other writers added that `f` read in on
    /// the way (an action catches up, and may again when it falls behind), before the caller
    /// announces its own event: nobody misses an event, and each is told in order.
    fn changing<T>(&self, f: impl FnOnce(&mut Campaign) -> T) -> T {
        let (out, written, gone) = {
            let mut c = self.campaign();
            let out = f(&mut c);
            (out, c.take_written(), c.take_gone())
        };
        if let Some((from, to)) = written {
            self.shared.publish(SessionEvent::Written { from, to });
        }
        if let Some(message) = gone {
            self.shared.publish(SessionEvent::FileGone { message });
        }
        out
    }

    /// Takes actions back (see [`crate::undo`]), and announces it.
    pub fn undo(&self, actor: &Role, to: Option<u64>) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.undo(actor, to))?;
        self.shared.publish(SessionEvent::Committed {
            seq: entry.seq,
            actor: actor.clone(),
            action: "undo".into(),
            readers: None,
        });
        Ok(entry)
    }

    /// Sets a value by hand, and announces it.
    pub fn correct(&self, actor: &Role, correction: &Correction, reason: &str) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.correct(actor, correction, reason))?;
        self.shared.publish(SessionEvent::Committed {
            seq: entry.seq,
            actor: actor.clone(),
            action: "correct".into(),
            readers: None,
        });
        Ok(entry)
    }

    /// Changes whether `player` may type in their own dice, and announces it.
    pub fn set_typed_dice(&self, actor: &Role, player: &str, allowed: bool) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.set_typed_dice(actor, player, allowed))?;
        self.shared.publish(SessionEvent::Committed {
            seq: entry.seq,
            actor: actor.clone(),
            action: "allow_typed_dice".into(),
            readers: None,
        });
        Ok(entry)
    }

    /// Changes whether players see a hidden participant of the turn order as "someone", and
    /// announces it.
    pub fn set_someone_in_turns(&self, actor: &Role, shown: bool) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.set_someone_in_turns(actor, shown))?;
        self.shared.publish(SessionEvent::Committed {
            seq: entry.seq,
            actor: actor.clone(),
            action: "someone_in_turns".into(),
            readers: None,
        });
        Ok(entry)
    }

    /// Does one GM scene operation, and announces it.
    pub fn scene(&self, actor: &Role, op: crate::campaign::SceneOp) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.scene(actor, op))?;
        self.shared.publish(SessionEvent::Committed {
            seq: entry.seq,
            actor: actor.clone(),
            action: "scene".into(),
            readers: None,
        });
        Ok(entry)
    }

    /// Does one GM handout operation, and announces it.
    pub fn handout(&self, actor: &Role, op: crate::campaign::HandoutOp) -> Result<LogEntry, CampaignError> {
        let entry = self.changing(|c| c.handout(actor, op))?;
        self.shared.publish(SessionEvent::Committed {
            seq: entry.seq,
            actor: actor.clone(),
            action: "handout".into(),
            readers: None,
        });
        Ok(entry)
    }

    /// Imports a picture (the GM only), and announces it; returns the event (none when the
    /// campaign already held it) and its digest.
    pub fn import_picture(
        &self,
        actor: &Role,
        file: &str,
        bytes: &[u8],
    ) -> Result<(Option<LogEntry>, String), CampaignError> {
        let (entry, digest) = self.changing(|c| c.import_picture(actor, file, bytes))?;
        if let Some(e) = &entry {
            self.shared.publish(SessionEvent::Committed {
                seq: e.seq,
                actor: actor.clone(),
                action: "picture_import".into(),
                readers: None,
            });
        }
        Ok((entry, digest))
    }

    /// Moves a token (with the rules' move hook), and announces it.
    pub fn move_token(
        &self,
        role: &Role,
        token: &str,
        path: Vec<houserule_core::scene::grid::Cell>,
        entropy: Option<houserule_core::dice::Entropy>,
        bridged: Option<&crate::chat::Bridged>,
    ) -> Result<LogEntry, houserule_core::ActError> {
        let entry = self.changing(|c| c.move_token_with(role, token, path, None, entropy, bridged))?;
        self.shared.publish(SessionEvent::Committed {
            seq: entry.seq,
            actor: role.clone(),
            action: "move".into(),
            readers: None,
        });
        Ok(entry)
    }

    /// Takes the action `request` asks for, and announces it.
    pub fn act(&self, role: &Role, request: &ActRequest) -> Result<Acted, ActError> {
        // What another program wrote is announced as such before this action is.
        let out = self.changing(|c| c.act(role, request))?;
        self.shared.publish(SessionEvent::Committed {
            seq: out.event.seq,
            actor: role.clone(),
            action: request.action.clone(),
            readers: None,
        });
        Ok(out)
    }

    /// Writes the post `request` asks for, and tells only those who may read it.
    pub fn post(&self, author: &Role, request: &PostRequest) -> Result<LogEntry, CampaignError> {
        let written = self.changing(|c| c.post(author, request))?;
        Ok(self.announce_post(author, written))
    }

    /// Edits a post by its author, and tells only those who may read it.
    pub fn edit_post(&self, author: &Role, seq: u64, text: &str) -> Result<LogEntry, CampaignError> {
        let written = self.changing(|c| c.edit_post(author, seq, text))?;
        Ok(self.announce_post(author, written))
    }

    fn announce_post(&self, author: &Role, (entry, readers): (LogEntry, Option<Role>)) -> LogEntry {
        let event = SessionEvent::Committed { seq: entry.seq, actor: author.clone(), action: "post".into(), readers };
        self.shared.publish(event);
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
        self.shared.publish(SessionEvent::Watching { ruleset: folders.ruleset, house: folders.house });
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

fn announce_reload(shared: &SessionState, result: &Result<Option<ReloadReport>, ReloadError>) {
    match result {
        // Everyone is told of it: nothing of a secret house rule goes with it.
        Ok(Some(report)) => shared.publish(SessionEvent::Reloaded { report: report.public() }),
        Ok(None) => {}
        Err(e) => shared.publish(SessionEvent::ReloadFailed { problems: diagnostics(e) }),
    }
}
