//! What a front end plugs in: a server that serves the table to browsers ([`TableServer`]:
//! `houserule serve`'s, or the desktop app's Players panel), a referee that plays it in a chat
//! room ([`OnlineTable`]: the Matrix referee), and the marks a bridge keeps in the file.
//!
//! The server and the referee live in their own crates (`houserule-host`, `houserule-matrix`),
//! so the app layer links neither; a front end installs them with [`App::install_server`] and
//! [`App::install_online`], and with none installed the calls say where to serve or play
//! online instead.
//!
//! Guarantees: a server or a referee serves the campaign in play and nothing else — before
//! another campaign takes its place, the server is stopped (refused when `houserule serve` runs
//! it: it is stopped where it runs) and the referee is stopped and waited for; a linked campaign
//! just opened is refereed again; what they report of themselves is announced on the app's hub
//! as it changes, so no screen asks again and again.

use super::App;
use crate::calls::{Caller, Nothing};
use crate::campaign::CampaignError;
use crate::chat::MARK_PREFIX;
use crate::events::AppEvent;
use crate::online::{no_referee, Online, OnlineInvite, OnlineLink};
use crate::serving::{HostStart, Reach, Serving, SetReach};
use houserule_core::{ErrorCode, ErrorReport};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A server a front end installed.
pub trait TableServer: Send + Sync {
    /// Starts serving `app`'s campaign, at `file` (refused when it serves already).
    fn start(&self, app: &App, file: &Path, how: &HostStart) -> Result<Serving, ErrorReport>;
    /// Opens the table served to this computer only to the network too, or closes it to other
    /// computers again (their connections end); what is served then.
    fn set_reach(&self, reach: Reach) -> Result<Serving, ErrorReport>;
    /// What is served now, if anything.
    fn status(&self) -> Option<Serving>;
    /// Stops serving and closes every connection; whether it was serving.
    fn stop(&self) -> Result<bool, ErrorReport>;
    /// Closes every connection that joined as `role` (e.g. `player:ann`); how many.
    fn disconnect(&self, role: &str) -> usize;
}

/// A referee a front end installed.
pub trait OnlineTable: Send + Sync {
    /// The campaign's room, seats and referee; none when the campaign in play is not linked.
    fn status(&self, app: &App) -> Result<Option<Online>, ErrorReport>;
    /// Links the campaign in play to a room and starts refereeing it.
    fn link(&self, app: &App, how: &OnlineLink) -> Result<Online, ErrorReport>;
    /// Seats an account as a player.
    fn invite(&self, app: &App, how: &OnlineInvite) -> Result<Online, ErrorReport>;
    /// Starts refereeing the campaign in play (it must be linked); nothing when it runs.
    fn start(&self, app: &App) -> Result<Online, ErrorReport>;
    /// Stops refereeing and returns once it has; whether it was running.
    fn stop(&self) -> bool;
    /// A campaign was opened or created: starts refereeing it when it is linked (what goes
    /// wrong shows in [`OnlineTable::status`]).
    fn opened(&self, app: &App);
}

/// The server and the referee the front end installed.
#[derive(Default)]
pub(super) struct Ports {
    server: Mutex<Option<Arc<dyn TableServer>>>,
    online: Mutex<Option<Arc<dyn OnlineTable>>>,
}

fn no_server() -> ErrorReport {
    ErrorReport::new(
        ErrorCode::Refused,
        "this program cannot serve the table: host from the desktop app, or run `houserule serve FILE`",
    )
}

impl App {
    /// Lets the calls serve the table to browsers through `server`.
    pub fn install_server(&self, server: Arc<dyn TableServer>) {
        *self.shared.ports.server.lock().unwrap_or_else(|p| p.into_inner()) = Some(server);
    }

    /// Lets the calls play online through `online`.
    pub fn install_online(&self, online: Arc<dyn OnlineTable>) {
        *self.shared.ports.online.lock().unwrap_or_else(|p| p.into_inner()) = Some(online);
    }

    pub(super) fn server(&self) -> Option<Arc<dyn TableServer>> {
        self.shared.ports.server.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn referee(&self) -> Option<Arc<dyn OnlineTable>> {
        self.shared.ports.online.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// What is served now, if anything.
    pub fn serving(&self) -> Option<Serving> {
        self.server().and_then(|s| s.status())
    }

    /// Tells the GM's screens where hosting stands now (a server calls this as people come
    /// and go).
    pub fn hosting_changed(&self) {
        self.shared.hub.publish(AppEvent::Hosting { serving: self.serving() });
    }

    /// Tells the GM's screens where the referee stands now.
    pub fn online_changed(&self) {
        let online = self.referee().and_then(|o| o.status(self).ok().flatten());
        self.shared.hub.publish(AppEvent::Online { online });
    }

    /// Before another campaign takes the place of the one in play: stops what serves or
    /// referees it.
    pub(super) fn before_switch(&self) -> Result<(), ErrorReport> {
        if self.current().is_none() {
            return Ok(());
        }
        stop_serving(self)?;
        if let Some(o) = self.referee() {
            o.stop();
        }
        Ok(())
    }

    /// A campaign was just put in play: the referee follows it when it is linked.
    pub(super) fn after_switch(&self) {
        if let Some(o) = self.referee() {
            o.opened(self);
        }
    }

    /// A bridge's mark in the campaign in play (`key` starts with [`MARK_PREFIX`]).
    pub fn mark(&self, key: &str) -> Result<Option<String>, ErrorReport> {
        let session = self.session()?;
        let campaign = session.campaign();
        campaign.store().meta(key).map_err(|e| CampaignError::from(e).report())
    }

    /// Writes a bridge's marks, all or none (every key starts with [`MARK_PREFIX`]).
    pub fn set_marks(&self, marks: &[(&str, &str)]) -> Result<(), ErrorReport> {
        if let Some((key, _)) = marks.iter().find(|(k, _)| !k.starts_with(MARK_PREFIX)) {
            return Err(ErrorReport::new(ErrorCode::Internal, format!("'{key}' is not a bridge's mark")));
        }
        let session = self.session()?;
        let campaign = session.campaign();
        write_all(campaign.store(), marks).map_err(|e| CampaignError::from(e).report())
    }
}

/// Writes every `meta` value of `marks` in one savepoint: all of them, or none.
fn write_all(store: &crate::store::Store, marks: &[(&str, &str)]) -> Result<(), crate::store::StoreError> {
    store.connection().execute_batch("SAVEPOINT marks")?;
    for (k, v) in marks {
        if let Err(e) = store.set_meta(k, v) {
            store.connection().execute_batch("ROLLBACK TO marks; RELEASE marks")?;
            return Err(e);
        }
    }
    store.connection().execute_batch("RELEASE marks")?;
    Ok(())
}

/// Stops a server the GM may stop; whether it was serving.
fn stop_serving(app: &App) -> Result<bool, ErrorReport> {
    let stopped = match app.server() {
        Some(s) if s.status().is_some_and(|st| st.stoppable) => s.stop()?,
        Some(s) if s.status().is_some() => {
            return Err(ErrorReport::new(
                ErrorCode::Forbidden,
                "this table is served by `houserule serve`: stop it where it runs",
            ))
        }
        _ => false,
    };
    if stopped {
        app.hosting_changed();
    }
    Ok(stopped)
}

pub(super) fn hosting(app: &App, _: &Caller, _: Nothing) -> Result<Option<Serving>, ErrorReport> {
    Ok(app.serving())
}

pub(super) fn host_start(app: &App, _: &Caller, how: HostStart) -> Result<Serving, ErrorReport> {
    let server = app.server().ok_or_else(no_server)?;
    let (_, file) = app
        .current()
        .ok_or_else(|| ErrorReport::new(ErrorCode::NoCampaign, "open or create a campaign to host first"))?;
    let serving = server.start(app, &file, &how)?;
    app.hosting_changed();
    Ok(serving)
}

pub(super) fn host_reach(app: &App, _: &Caller, to: SetReach) -> Result<Serving, ErrorReport> {
    let server = app.server().ok_or_else(no_server)?;
    if server.status().is_none() {
        return Err(ErrorReport::new(ErrorCode::Refused, "the table is not served: start hosting first"));
    }
    let serving = server.set_reach(to.reach)?;
    app.hosting_changed();
    Ok(serving)
}

pub(super) fn host_stop(app: &App, _: &Caller, _: Nothing) -> Result<bool, ErrorReport> {
    stop_serving(app)
}

/// The referee, for a call that needs one and a campaign in play.
fn referee_for(app: &App) -> Result<Arc<dyn OnlineTable>, ErrorReport> {
    let referee = app.referee().ok_or_else(no_referee)?;
    if app.current().is_none() {
        return Err(ErrorReport::new(ErrorCode::NoCampaign, "open or create a campaign to play online first"));
    }
    Ok(referee)
}

pub(super) fn online(app: &App, _: &Caller, _: Nothing) -> Result<Option<Online>, ErrorReport> {
    match app.referee() {
        None => Ok(None),
        Some(o) => o.status(app),
    }
}

pub(super) fn online_link(app: &App, _: &Caller, how: OnlineLink) -> Result<Online, ErrorReport> {
    let online = referee_for(app)?.link(app, &how)?;
    app.online_changed();
    Ok(online)
}

pub(super) fn online_invite(app: &App, _: &Caller, how: OnlineInvite) -> Result<Online, ErrorReport> {
    let online = referee_for(app)?.invite(app, &how)?;
    app.online_changed();
    Ok(online)
}

pub(super) fn online_start(app: &App, _: &Caller, _: Nothing) -> Result<Online, ErrorReport> {
    let online = referee_for(app)?.start(app)?;
    app.online_changed();
    Ok(online)
}

pub(super) fn online_stop(app: &App, _: &Caller, _: Nothing) -> Result<bool, ErrorReport> {
    let stopped = app.referee().is_some_and(|o| o.stop());
    app.online_changed();
    Ok(stopped)
}
