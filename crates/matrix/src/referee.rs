//! The referee: reads the room, takes players' actions, and posts what happens at the table.
//!
//! Guarantees:
//! - *Who acts*: a request acts as the player whose seat its sender holds; the sender is the
//!   account the homeserver says sent the message, never anything the message says. A sender
//!   with no seat is refused — answered once per [`QUIET`] at most, so that nobody outside the
//!   table can make the referee flood the room.
//! - *Exactly once*: requests are read in room order from the place the file keeps. An action
//!   is committed with its message's id in its event and the `answered` mark in the same
//!   transaction, so after a crash it is neither lost nor taken twice; other answers are sent
//!   before `answered` moves, with a transaction id made from the request, so a repeated send
//!   is the same message to the homeserver. Every event of the campaign (an action from the
//!   room, the GM's own from the app or the CLI) is posted once, in order, as a reply to the
//!   request it answers, `posted` moving after each.
//! - *Who sees what*: the room gets each event as the public sees it; a seated player whose own
//!   view of it shows more gets that privately, in their direct room; what only the GM may see
//!   goes nowhere (a `!hr view` from the GM's account is answered with the public view).
//!
//! - *No request blocks the room*: an answer too large for one message is sent in parts
//!   ([`Notice::parts`]); a message the homeserver refuses for good (too large, forbidden …) is
//!   answered with a short error if it can be, and dropped, so the next request is served; when
//!   the homeserver limits how fast the referee may send, it waits the delay the homeserver
//!   names, tells the room once that it is waiting, and goes on in order.
//! - *Where players write*: a request sent in a thread is answered in that thread (its action's
//!   post too); a reply's quote of another message is not read as part of the request; an edit
//!   of a request is acted on never, and answered "edits are not taken: send it again"; a `!hr`
//!   in a player's direct room is answered with where to send it (the table's room: requests
//!   are taken in one room, in its order, where the whole table sees them).
//!
//! - *One referee per campaign*: a referee holds an exclusive lock for the campaign (a file in
//!   the GM's configuration folder, released by the system when its process ends, however it
//!   ends), so a second one — the desktop app and `houserule matrix run` at once — is refused
//!   instead of answering the same requests again.
//!
//! The exactly-once claim is tested by crashing the referee at each point where it could be
//! lost: [`FAULT_ENV`] makes the process abort there, as a kill -9 would (tests/matrix).

use crate::commands::{self, Request};
use crate::link::{self, Link, Seats, ANSWERED, POSITION, POSTED};
use crate::messages::{Answer, Notice};
use crate::room::Chat;
use crate::{account, MatrixError};
use houserule_app::calls::{As, Call, Caller, Front, LogPage, Nothing};
use houserule_app::chat::{Bridged, ChatMessage};
use houserule_app::front::App;
use houserule_core::manifest::Manifest;
use houserule_core::render;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_core::{ErrorReport, Role};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

/// How long one wait for the room lasts: also how soon the GM's own actions are posted.
const WAIT: Duration = Duration::from_secs(1);
/// After a failed request to the homeserver, the pause before trying again.
pub const RETRY: Duration = Duration::from_secs(5);
/// How long an account without a seat waits between two answers (the requests between are
/// passed over).
pub const QUIET: Duration = Duration::from_secs(600);
/// Campaign events posted per read of the log.
const POST_PAGE: u64 = 50;

/// For tests: `POINT:N` aborts the process the Nth time the referee reaches `POINT`, as a
/// kill -9 would. The points are where a crash could lose or double something: `acted` (an
/// action or a post from the room is committed, nothing is sent yet), `answered` (an answer is
/// sent, its request not yet marked answered), `posted` (an event's post is sent, `posted` not
/// yet moved).
pub const FAULT_ENV: &str = "HOUSERULE_MATRIX_FAULT";
const FAULT_POINTS: [&str; 3] = ["acted", "answered", "posted"];

/// The crash [`FAULT_ENV`] asks for.
struct Fault {
    point: String,
    left: std::sync::atomic::AtomicU32,
}

impl Fault {
    fn from_env() -> Result<Option<Fault>, MatrixError> {
        let Ok(spec) = std::env::var(FAULT_ENV) else { return Ok(None) };
        let bad = || {
            MatrixError::Usage(format!(
                "{FAULT_ENV}={spec}: expected POINT:N with POINT one of {FAULT_POINTS:?} and N ≥ 1"
            ))
        };
        let (point, n) = spec.split_once(':').ok_or_else(bad)?;
        let n: u32 = n.parse().ok().filter(|n| *n > 0).ok_or_else(bad)?;
        if !FAULT_POINTS.contains(&point) {
            return Err(bad());
        }
        Ok(Some(Fault { point: point.into(), left: n.into() }))
    }
}

/// The campaign in play, refereed in its room.
pub struct Referee {
    pub(crate) app: App,
    pub(crate) chat: Chat,
    pub(crate) link: Link,
    /// The campaign file's name, for the verify line of posts.
    file: String,
    fault: Option<Fault>,
    /// The front end every request is a call through.
    front: Arc<Front>,
    /// The lock that makes this the campaign's only referee (held while this lives).
    _lock: std::fs::File,
    /// When each account without a seat was last answered (the homeserver's time, in ms).
    strangers: std::sync::Mutex<std::collections::HashMap<String, u64>>,
    /// The thread (its root) each request read so far was sent in, if any.
    pub(crate) threads: std::sync::Mutex<std::collections::HashMap<String, Option<String>>>,
}

/// The answer to an edited request.
pub const EDITS: &str = "Edits are not taken: send it again, as a new message.";

/// Takes the campaign's referee lock, or says another referee holds it.
fn lock(campaign: &str) -> Result<std::fs::File, MatrixError> {
    let dir = houserule_app::checked::config_dir().unwrap_or_else(std::env::temp_dir).join("matrix");
    let path = dir.join(format!("referee-{campaign}.lock"));
    let failed = |e: std::io::Error| MatrixError::Internal(format!("the referee lock {}: {e}", path.display()));
    std::fs::create_dir_all(&dir).map_err(failed)?;
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(failed)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(MatrixError::Busy(format!("it holds {}", path.display()))),
        Err(std::fs::TryLockError::Error(e)) => Err(failed(e)),
    }
}

/// A Matrix room as a front end: its players act from their own accounts, their rolls mix in
/// entropy from their messages, and their typed dice need the GM's word.
pub fn front() -> Front {
    Front {
        name: "matrix",
        local: false,
        campaign_file: None,
        players_bring_entropy: false,
        typed_dice_need_permission: true,
    }
}

pub(crate) fn short(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..12])
}

fn refusal(e: &ErrorReport) -> String {
    match &e.param {
        Some(p) if !e.message.contains(p.as_str()) => format!("parameter '{p}': {}", e.message),
        _ => e.message.clone(),
    }
}

impl Referee {
    /// Resumes the GM's session and checks the room is still one the referee can play in.
    pub async fn start(app: App) -> Result<Referee, MatrixError> {
        let link = link::linked(&app)?;
        let (info, path) = app.current().ok_or(MatrixError::NoCampaign)?;
        let file = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let lock = lock(&info.id)?;
        let chat = account::resume(&link.homeserver, &link.user).await?;
        chat.check_unencrypted(&link.room).await?;
        let front = Arc::new(front());
        Ok(Referee {
            app,
            chat,
            link,
            file,
            fault: Fault::from_env()?,
            front,
            _lock: lock,
            strangers: Default::default(),
            threads: Default::default(),
        })
    }

    /// Aborts the process here when [`FAULT_ENV`] says so.
    fn fault(&self, point: &str) {
        use std::sync::atomic::Ordering;
        if let Some(f) = self.fault.as_ref().filter(|f| f.point == point) {
            if f.left.fetch_sub(1, Ordering::SeqCst) == 1 {
                std::process::abort();
            }
        }
    }

    pub fn link(&self) -> &Link {
        &self.link
    }

    /// Answers every waiting request and posts every new event; with `once`, returns when
    /// nothing is left, else keeps watching the room (a homeserver that fails is tried again;
    /// `report` hears of the trouble, and `None` once it has cleared).
    pub async fn run(&self, once: bool, mut report: impl FnMut(Option<&str>)) -> Result<(), MatrixError> {
        let mut since: Option<String> = None;
        let mut troubled = false;
        // When the homeserver last limited the referee: the room is told it waits once for a
        // spell of limits (a spell ends after [`QUIET`] without one).
        let mut limited: Option<std::time::Instant> = None;
        loop {
            match self.pass().await {
                Ok(0) if once => return Ok(()),
                Ok(_) if once => continue,
                Ok(_) => {}
                Err(e @ MatrixError::RateLimited { wait, .. }) => {
                    let new_spell = !matches!(limited, Some(t) if t.elapsed() <= QUIET);
                    limited = Some(std::time::Instant::now());
                    troubled = true;
                    report(Some(&e.to_string()));
                    tokio::time::sleep(wait).await;
                    if new_spell && !self.tell_waiting().await {
                        limited = None; // told nobody: the next limit tries again
                    }
                    continue;
                }
                Err(e @ MatrixError::Http { .. }) if !once => {
                    troubled = true;
                    report(Some(&format!("{e}; trying again in {} s", RETRY.as_secs())));
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
                Err(e) => return Err(e),
            }
            let seats = link::seats(&self.app)?;
            let directs: Vec<&str> = seats.values().map(|s| s.direct.as_str()).collect();
            match self.chat.wait_all(&self.link.room, &directs, since.as_deref(), WAIT).await {
                Ok((next, events)) => {
                    // The first wait says where the rooms stand: what came before is not new.
                    if since.is_some() {
                        self.answer_direct(&events).await;
                    }
                    since = Some(next);
                    if std::mem::take(&mut troubled) {
                        report(None);
                    }
                }
                Err(e) => {
                    troubled = true;
                    report(Some(&format!("{e}; trying again in {} s", RETRY.as_secs())));
                    tokio::time::sleep(RETRY).await;
                }
            }
        }
    }

    /// One pass: what other programs wrote is read in and posted, then the waiting requests
    /// are answered and their events posted. Answers how many requests were handled.
    async fn pass(&self) -> Result<usize, MatrixError> {
        self.app.catch_up()?;
        self.post_new().await?;
        let handled = self.answer_waiting().await?;
        self.post_new().await?;
        Ok(handled)
    }

    async fn answer_waiting(&self) -> Result<usize, MatrixError> {
        let mut place = link::place(&self.app)?;
        let seats = link::seats(&self.app)?;
        let mut handled = 0;
        loop {
            let page = self.chat.page(&self.link.room, &place.position).await?;
            // A referee stopped in the middle of a page answered up to `answered` already.
            let done = place.answered.as_ref().and_then(|a| page.events.iter().position(|e| e["event_id"] == **a));
            for event in &page.events[done.map_or(0, |i| i + 1)..] {
                if let Some(id) = self.handle(event, &seats).await? {
                    place.answered = Some(id);
                    handled += 1;
                }
            }
            match page.next {
                Some(next) => {
                    link::save(&self.app, &[link::mark(POSITION, &next)])?;
                    place.position = next;
                }
                None => return Ok(handled),
            }
        }
    }

    /// Handles one room event; answers the id of the request it answered, if it was one.
    async fn handle(&self, event: &Value, seats: &Seats) -> Result<Option<String>, MatrixError> {
        let kind = event["type"].as_str().unwrap_or_default();
        if kind == "m.room.encryption" {
            return Err(MatrixError::Encrypted(self.link.room.clone()));
        }
        let content = &event["content"];
        let (Some(id), Some(sender), Some(body)) =
            (event["event_id"].as_str(), event["sender"].as_str(), content["body"].as_str())
        else {
            return Ok(None);
        };
        let ours = sender == self.link.user && content["msgtype"] == "m.notice";
        if kind != "m.room.message" || ours {
            return Ok(None);
        }
        let relation = &content["m.relates_to"];
        // An edit's text is its new content (its body is a fallback starting "* ").
        let edit = relation["rel_type"] == "m.replace";
        let text = match content["m.new_content"]["body"].as_str() {
            Some(new) if edit => new,
            _ if edit => body.strip_prefix("* ").unwrap_or(body),
            _ => body,
        };
        let Some(request) = commands::read(commands::without_quote(text)) else { return Ok(None) };
        let thread = relation["event_id"].as_str().filter(|_| relation["rel_type"] == "m.thread");
        self.threads.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), thread.map(str::to_string));
        let role = if sender == self.link.user {
            Some(Role::Gm)
        } else {
            seats.get(sender).map(|s| Role::Player(s.player.clone()))
        };
        let direct = seats.get(sender).map(|s| s.direct.as_str());
        let player = match &role {
            Some(Role::Player(p)) => Some(p.clone()),
            Some(_) => Some("the GM".to_string()),
            None => None,
        };
        if role.is_none() && !self.may_answer_stranger(sender, event["origin_server_ts"].as_u64().unwrap_or(0)) {
            // Noted as answered, and left unanswered: nobody can flood the room through the referee.
            link::save(&self.app, &[link::mark(ANSWERED, &id)])?;
            return Ok(Some(id.to_string()));
        }
        let answer = match (request, role) {
            _ if edit => Answer::Room(Notice::text(EDITS.into(), Some(id))),
            (Err(e), _) => Answer::Room(Notice::refusal(&e.to_string(), id)),
            (Ok(Request::Help), _) => Answer::Room(Notice::text(commands::help(player.as_deref()), Some(id))),
            (Ok(_), None) => Answer::Room(Notice::refusal(
                &format!("{sender} has no seat at this table: the GM gives one with `houserule matrix invite FILE {sender} --as NAME`"),
                id,
            )),
            (Ok(Request::Turn), Some(role)) => self.turn(&Caller::new(role, &self.front), id, direct)?,
            (Ok(Request::Handouts), Some(role)) => self.handouts(&Caller::new(role, &self.front), id, direct)?,
            (Ok(Request::Map), Some(role)) => self.map(&Caller::new(role, &self.front), id, direct)?,
            (Ok(Request::Move { token, cells }), Some(role)) => {
                match self.move_token(&Caller::new(role, &self.front), &token, &cells, id)? {
                    Some(refusal) => refusal,
                    None => {
                        // The move's post is the answer (`post_new`), and `answered` moved with it.
                        self.fault("acted");
                        return Ok(Some(id.to_string()));
                    }
                }
            }
            (Ok(Request::Call(call)), Some(role)) => {
                let caller = Caller::new(role, &self.front);
                match self.answer(&caller, *call, id, direct)? {
                    Some(answer) => answer,
                    None => {
                        // The event's post is the answer (`post_new`), and `answered` moved with it.
                        self.fault("acted");
                        return Ok(Some(id.to_string()));
                    }
                }
            }
        };
        match self.send_answer(id, answer, thread).await {
            Err(e @ MatrixError::Refused { .. }) => self.answer_failed(id, thread, &e).await?,
            other => other?,
        }
        self.fault("answered");
        link::save(&self.app, &[link::mark(ANSWERED, &id)])?;
        Ok(Some(id.to_string()))
    }

    /// Answers a call from a seated player: none when it wrote an event (its post, sent later,
    /// is the answer; the request's `answered` mark was written with it).
    fn answer(
        &self,
        caller: &Caller,
        call: Call,
        id: &str,
        direct: Option<&str>,
    ) -> Result<Option<Answer>, MatrixError> {
        let bridged = || self.bridged(id);
        let refused = |e: ErrorReport| Ok(Some(Answer::Room(Notice::refusal(&refusal(&e), id))));
        let written = match call {
            Call::Act(request) => self.app.call(caller, Call::Act(request.bridged(bridged()))),
            Call::Say(mut request) => {
                request.bridged = Some(bridged());
                self.app.call(caller, Call::Say(request))
            }
            Call::Actions(p) => {
                let forms: Vec<ActionForm> = match self.app.ask(caller, Call::Actions(p)) {
                    Ok(forms) => forms,
                    Err(e) => return refused(e),
                };
                let mut lines = vec!["Send: !hr act ACTION name=value …".to_string()];
                lines.extend(render::action_lines(&forms, ""));
                if forms.is_empty() {
                    lines.push("  (nothing you may take now)".into());
                }
                return Ok(Some(Answer::Room(Notice::text(lines.join("\n"), Some(id)))));
            }
            Call::View(p) => {
                let manifest: Option<Manifest> = self.app.ask(caller, Call::Manifest(Nothing {})).ok();
                let lines = |v: View| render::view_lines(&v, manifest.as_ref()).join("\n");
                let own: View = match self.app.ask(caller, Call::View(p)) {
                    Ok(v) => v,
                    Err(e) => return refused(e),
                };
                let public: View = self.app.ask(&self.public(), Call::View(As { role: Some("public".into()) }))?;
                return Ok(Some(self.split(id, &caller.role, direct, lines(public), lines(own))));
            }
            Call::Log(p) => {
                let lines = |page: Vec<LogEntry>| page.iter().map(render::entry).collect::<Vec<_>>().join("\n");
                let public_page = LogPage { role: Some("public".into()), ..p.clone() };
                let own: Vec<LogEntry> = match self.app.ask(caller, Call::Log(p)) {
                    Ok(page) => page,
                    Err(e) => return refused(e),
                };
                let public: Vec<LogEntry> = self.app.ask(&self.public(), Call::Log(public_page))?;
                return Ok(Some(self.split(id, &caller.role, direct, lines(public), lines(own))));
            }
            other => self.app.call(caller, other),
        };
        match written {
            Ok(_) => Ok(None),
            Err(e) => refused(e),
        }
    }

    /// Whose turn it is: the room's line to the room, a player who may see more told privately.
    fn turn(&self, caller: &Caller, id: &str, direct: Option<&str>) -> Result<Answer, MatrixError> {
        let own: View = match self.app.ask(caller, Call::View(As::default())) {
            Ok(v) => v,
            Err(e) => return Ok(Answer::Room(Notice::refusal(&refusal(&e), id))),
        };
        let public: View = self.app.ask(&self.public(), Call::View(As { role: Some("public".into()) }))?;
        Ok(self.split(id, &caller.role, direct, crate::turns::line(&public), crate::turns::line(&own)))
    }

    /// The handouts: the room's in the room, the sender's own in their direct room.
    fn handouts(&self, caller: &Caller, id: &str, direct: Option<&str>) -> Result<Answer, MatrixError> {
        let own: View = match self.app.ask(caller, Call::View(As::default())) {
            Ok(v) => v,
            Err(e) => return Ok(Answer::Room(Notice::refusal(&refusal(&e), id))),
        };
        let public: View = self.app.ask(&self.public(), Call::View(As { role: Some("public".into()) }))?;
        Ok(self.split(id, &caller.role, direct, crate::handouts::text(&public), crate::handouts::text(&own)))
    }

    /// What a call taken from request `id` carries: the message, and the `answered` mark
    /// committed with its event.
    pub(crate) fn bridged(&self, id: &str) -> Bridged {
        Bridged {
            message: ChatMessage { via: "matrix".into(), room: self.link.room.clone(), event: id.to_string() },
            marks: vec![link::mark(ANSWERED, &id)],
        }
    }

    /// The referee itself, reading what the room (the public) or a seat may see.
    pub(crate) fn public(&self) -> Caller {
        Caller::new(Role::Gm, &self.front)
    }

    /// A page of the log from `from` to before `before`, as `role` (`public`, `player:NAME`) sees it.
    fn page(&self, role: &str, from: u64, before: u64) -> Result<Vec<LogEntry>, MatrixError> {
        let page = LogPage { role: Some(role.to_string()), from, before: Some(before), limit: POST_PAGE as usize };
        Ok(self.app.ask(&self.public(), Call::Log(page))?)
    }

    /// Whether a request at `at` (the homeserver's time, in ms) from `sender`, who has no seat,
    /// is answered: one answer per [`QUIET`] for each such account, the rest are passed over.
    fn may_answer_stranger(&self, sender: &str, at: u64) -> bool {
        let mut last = self.strangers.lock().unwrap_or_else(|p| p.into_inner());
        match last.get(sender) {
            Some(&t) if at < t + QUIET.as_millis() as u64 => false,
            _ => {
                last.insert(sender.to_string(), at);
                true
            }
        }
    }

    /// The public text goes to the room; a player who may see more gets their own privately.
    fn split(&self, id: &str, role: &Role, direct: Option<&str>, public: String, own: String) -> Answer {
        match (role, direct) {
            (Role::Player(_), Some(direct)) if own != public => Answer::Both(
                Notice::text(format!("{public}\n(What only you may see is in your direct room with me.)"), Some(id)),
                direct.to_string(),
                Notice::text(own, None).private(),
            ),
            _ => Answer::Room(Notice::text(public, Some(id))),
        }
    }

    /// Tells the room whose turn it is now (after event `seq`, the last; sent once: its
    /// transaction id is the event's).
    async fn tell_turn(&self, info: &CampaignInfo, seq: u64) -> Result<(), MatrixError> {
        let public: View = self.app.ask(&self.public(), Call::View(As { role: Some("public".into()) }))?;
        let notice = Notice::text(crate::turns::line(&public), None);
        let txn = format!("hr-turn-{}-{seq}", short(&info.id));
        match self.deliver(&self.link.room, &txn, &notice).await {
            Ok(()) | Err(MatrixError::Refused { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Posts every campaign event after `posted`, in order.
    async fn post_new(&self) -> Result<(), MatrixError> {
        let (info, _) = self.app.current().ok_or(MatrixError::NoCampaign)?;
        let seats = link::seats(&self.app)?;
        let mut posted = link::place(&self.app)?.posted;
        // Whether a turn passed among the events posted now: the room is told where the turn
        // stands once, after the last of them.
        let mut turn_moved = false;
        while posted < info.events {
            let before = (posted + 1 + POST_PAGE).min(info.events + 1);
            let public = self.page("public", posted + 1, before)?;
            let mut own: Vec<(&str, Vec<LogEntry>)> = Vec::new();
            for seat in seats.values() {
                own.push((seat.direct.as_str(), self.page(&format!("player:{}", seat.player), posted + 1, before)?));
            }
            for seq in posted + 1..before {
                let shown = public.iter().find(|e| e.seq == seq);
                let origin = shown
                    .or_else(|| own.iter().find_map(|(_, p)| p.iter().find(|e| e.seq == seq)))
                    .and_then(|e| e.detail.as_ref())
                    .and_then(|d| serde_json::from_value::<ChatMessage>(d.get("origin")?.clone()).ok())
                    .filter(|o| o.via == "matrix" && o.room == self.link.room);
                let reply_to = origin.as_ref().map(|o| o.event.as_str());
                let thread = match reply_to {
                    Some(id) => self.thread_of(id).await?,
                    None => None,
                };
                let public_post =
                    shown.map(|e| Notice::post(e, &info, &self.file, reply_to).in_thread(thread.as_deref()));
                if let Some(n) = &public_post {
                    let txn = format!("hr-post-{}-{seq}", short(&info.id));
                    if let Err(e @ MatrixError::Refused { .. }) = self.deliver(&self.link.room, &txn, n).await {
                        self.post_failed(seq, reply_to, thread.as_deref(), &e).await?;
                    }
                }
                turn_moved |= shown.is_some_and(crate::turns::moved);
                if turn_moved && seq == info.events {
                    self.tell_turn(&info, seq).await?;
                }
                for (direct, page) in &own {
                    let Some(entry) = page.iter().find(|e| e.seq == seq) else { continue };
                    let mine = Notice::post(entry, &info, &self.file, None);
                    if public_post.as_ref().map(|p| &p.body) != Some(&mine.body) {
                        let txn = format!("hr-post-{}-{seq}-{}", short(&info.id), short(direct));
                        // A private copy the homeserver refuses (a direct room gone) is let be:
                        // the player's view and log show it still.
                        match self.deliver(direct, &txn, &mine.private()).await {
                            Ok(()) | Err(MatrixError::Refused { .. }) => {}
                            Err(e) => return Err(e),
                        }
                    }
                }
                self.fault("posted");
                link::save(&self.app, &[link::mark(POSTED, &seq)])?;
            }
            posted = before - 1;
        }
        Ok(())
    }
}
