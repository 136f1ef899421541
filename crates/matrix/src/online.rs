//! The referee inside an app: linked, seated, started and stopped from the desktop app's Online
//! panel ([`houserule_app::online`]), refereeing on a thread of its own while the campaign is
//! open.
//!
//! Guarantees: at most one referee runs, for the campaign in play; [`OnlineTable::stop`]
//! returns only once it has ended (the app opens another campaign only after that), and it ends
//! between two steps — an action it takes is committed whole or not at all, and a stop in the
//! middle of a page is caught up with exactly once when it starts again (see [`crate::referee`]).
//! A homeserver that cannot be reached is tried again every few seconds; what stops it for
//! good (a room turned encrypted, a session the homeserver refused) ends it and shows in the
//! status until it is started again.

use crate::link::{self, Link};
use crate::referee::{Referee, RETRY};
use crate::MatrixError;
use houserule_app::front::App;
use houserule_app::front::OnlineTable;
use houserule_app::online::{Online, OnlineInvite, OnlineLink, OnlineSeat};
use houserule_core::{ErrorCode, ErrorReport};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::oneshot;

/// The Matrix referee an app installs.
#[derive(Default)]
pub struct MatrixOnline {
    running: Mutex<Option<Running>>,
    /// The latest trouble, shared with the referee's thread.
    problem: Arc<Mutex<Option<String>>>,
}

/// A referee running on its thread.
struct Running {
    stop: oneshot::Sender<()>,
    thread: JoinHandle<()>,
    since: String,
    /// The campaign it referees.
    campaign: String,
}

fn report(e: MatrixError) -> ErrorReport {
    match e {
        MatrixError::App(report) => report,
        other => ErrorReport::new(other.code(), other.to_string()),
    }
}

fn now() -> String {
    houserule_core::event::rfc3339(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()))
}

/// Runs `work` to its end on a thread of its own with its own network runtime (the caller may
/// be on any thread, in a runtime or not).
fn on_own_thread<T: Send + 'static>(
    work: impl std::future::Future<Output = Result<T, MatrixError>> + Send + 'static,
) -> Result<T, ErrorReport> {
    std::thread::Builder::new()
        .name("houserule-matrix".into())
        .spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| MatrixError::Internal(format!("starting the network runtime: {e}")))?
                .block_on(work)
        })
        .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("starting a thread: {e}")))?
        .join()
        .map_err(|_| ErrorReport::new(ErrorCode::Internal, "the Matrix thread panicked"))?
        .map_err(report)
}

impl MatrixOnline {
    pub fn new() -> MatrixOnline {
        MatrixOnline::default()
    }

    /// Notes the referee's trouble (none: it cleared), and tells the GM's screens.
    fn set_problem(app: &App, problem: &Mutex<Option<String>>, text: Option<String>) {
        *problem.lock().unwrap_or_else(|p| p.into_inner()) = text;
        app.online_changed();
    }

    /// Whether a referee runs for `campaign` now (a thread that ended by itself is cleared).
    fn running_for(&self, campaign: &str) -> Option<String> {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if running.as_ref().is_some_and(|r| r.thread.is_finished()) {
            *running = None;
        }
        running.as_ref().filter(|r| r.campaign == campaign).map(|r| r.since.clone())
    }

    fn spawn(&self, app: &App) -> Result<(), ErrorReport> {
        let (info, _) = app.current().ok_or_else(|| ErrorReport::new(ErrorCode::NoCampaign, "no campaign is open"))?;
        if self.running_for(&info.id).is_some() {
            return Ok(());
        }
        self.stop();
        *self.problem.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let (stop, stopped) = oneshot::channel::<()>();
        let (app, problem) = (app.clone(), self.problem.clone());
        let thread = std::thread::Builder::new()
            .name("houserule-referee".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
                let Ok(runtime) = runtime else {
                    Self::set_problem(&app, &problem, Some("the network runtime did not start".into()));
                    return;
                };
                runtime.block_on(async move {
                    tokio::select! {
                        _ = stopped => {}
                        ended = referee(app.clone(), &problem) => {
                            if let Err(e) = ended {
                                Self::set_problem(&app, &problem, Some(format!("the referee stopped: {e}")));
                            }
                        }
                    }
                });
            })
            .map_err(|e| ErrorReport::new(ErrorCode::Internal, format!("starting the referee: {e}")))?;
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Running { stop, thread, since: now(), campaign: info.id });
        Ok(())
    }
}

/// Starts the referee (trying again while the homeserver cannot be reached) and runs it.
async fn referee(app: App, problem: &Mutex<Option<String>>) -> Result<(), MatrixError> {
    let referee = loop {
        match Referee::start(app.clone()).await {
            Ok(r) => break r,
            Err(e @ MatrixError::Http { .. }) => {
                let text = format!("{e}; trying again in {} s", RETRY.as_secs());
                MatrixOnline::set_problem(&app, problem, Some(text));
                tokio::time::sleep(RETRY).await;
            }
            Err(e) => return Err(e),
        }
    };
    MatrixOnline::set_problem(&app, problem, None);
    referee.run(false, |p| MatrixOnline::set_problem(&app, problem, p.map(str::to_string))).await
}

impl OnlineTable for MatrixOnline {
    fn status(&self, app: &App) -> Result<Option<Online>, ErrorReport> {
        let Some(Link { homeserver, user, room }) = link::link(app).map_err(report)? else { return Ok(None) };
        let seats = link::seats(app)
            .map_err(report)?
            .into_iter()
            .map(|(user, s)| OnlineSeat { user, player: s.player, direct: s.direct })
            .collect();
        let since = app.current().and_then(|(info, _)| self.running_for(&info.id));
        let problem = self.problem.lock().unwrap_or_else(|p| p.into_inner()).clone();
        Ok(Some(Online {
            network: "matrix".into(),
            homeserver,
            user,
            room,
            seats,
            refereeing: since.is_some(),
            since,
            problem,
        }))
    }

    fn link(&self, app: &App, how: &OnlineLink) -> Result<Online, ErrorReport> {
        if how.password.is_empty() {
            return Err(ErrorReport::new(ErrorCode::BadParam, "the account's password is needed to log in")
                .with_param("password"));
        }
        // The referee stops while the link changes, and starts again on the new one.
        self.stop();
        let (worker, how) = (app.clone(), how.clone());
        let room = how.room.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(str::to_string);
        on_own_thread(async move {
            crate::link_room(&worker, how.homeserver.trim(), how.user.trim(), Some(&how.password), room.as_deref())
                .await
        })?;
        self.start(app)
    }

    fn invite(&self, app: &App, how: &OnlineInvite) -> Result<Online, ErrorReport> {
        let (worker, user) = (app.clone(), how.user.trim().to_string());
        let player = how.player.trim().strip_prefix("player:").unwrap_or(how.player.trim()).to_string();
        on_own_thread(async move { crate::seat(&worker, &user, &player).await })?;
        self.status(app)?.ok_or_else(|| ErrorReport::new(ErrorCode::Internal, "the seat was given, the link is gone"))
    }

    fn start(&self, app: &App) -> Result<Online, ErrorReport> {
        link::linked(app).map_err(report)?;
        self.spawn(app)?;
        self.status(app)?.ok_or_else(|| ErrorReport::new(ErrorCode::Internal, "the campaign lost its link"))
    }

    fn stop(&self) -> bool {
        let Some(running) = self.running.lock().unwrap_or_else(|p| p.into_inner()).take() else { return false };
        let was_running = !running.thread.is_finished();
        let _ = running.stop.send(());
        let _ = running.thread.join();
        was_running
    }

    fn opened(&self, app: &App) {
        match link::link(app) {
            Ok(Some(_)) => {
                if let Err(e) = self.spawn(app) {
                    Self::set_problem(app, &self.problem, Some(e.message));
                    return;
                }
                app.online_changed();
            }
            Ok(None) => Self::set_problem(app, &self.problem, None),
            Err(e) => Self::set_problem(app, &self.problem, Some(e.to_string())),
        }
    }
}
