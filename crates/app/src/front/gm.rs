//! What only the GM does: taking actions back, setting values by hand, letting a player type
//! their dice, join links, copies to share, removing a player from the table.
//!
//! Guarantees: ending a player's join link — revoking it, replacing it with a new one, or
//! removing the player — ends it in the file first and then closes every connection that joined
//! with it, so a page that reconnects by itself is refused; a seat is never given under a
//! known player's name in other capitals; a copy is written only where nothing is yet.

use super::App;
use crate::calls::{
    Caller, CopyFor, Correct, Download, Nothing, PlayerName, Removed, ShareCopy, SomeoneInTurns, TypedDice, UndoTo,
};
use crate::invites::{self, Invite, InviteError, NewInvite};
use crate::share::{self, ShareError, ShareReport};
use houserule_core::view::LogEntry;
use houserule_core::{ErrorCode, ErrorReport, Role};

fn invite_report(e: InviteError) -> ErrorReport {
    match e {
        InviteError::Name(m) => ErrorReport::new(ErrorCode::BadParam, m).with_param("player"),
        InviteError::Store(s) => ErrorReport::new(ErrorCode::Storage, s.to_string()),
    }
}

pub(super) fn undo(app: &App, caller: &Caller, p: UndoTo) -> Result<LogEntry, ErrorReport> {
    app.session()?.undo(&caller.role, p.to).map_err(|e| e.report())
}

pub(super) fn correct(app: &App, caller: &Caller, p: Correct) -> Result<LogEntry, ErrorReport> {
    app.session()?.correct(&caller.role, &p.correction, &p.reason).map_err(|e| e.report())
}

pub(super) fn allow_typed_dice(app: &App, caller: &Caller, p: TypedDice) -> Result<LogEntry, ErrorReport> {
    app.session()?.set_typed_dice(&caller.role, &p.player, p.allowed).map_err(|e| e.report())
}

pub(super) fn someone_in_turns(app: &App, caller: &Caller, p: SomeoneInTurns) -> Result<LogEntry, ErrorReport> {
    app.session()?.set_someone_in_turns(&caller.role, p.shown).map_err(|e| e.report())
}

/// Runs `f` on the campaign file's store (under the session: join links change the file).
fn with_store<R>(app: &App, f: impl FnOnce(&crate::store::Store) -> Result<R, InviteError>) -> Result<R, ErrorReport> {
    let session = app.session()?;
    let campaign = session.campaign();
    f(campaign.store()).map_err(invite_report)
}

/// Closes the connections `player` joined with (their link has just ended).
fn disconnect(app: &App, player: &str) -> usize {
    app.server().map_or(0, |s| s.disconnect(&format!("player:{player}")))
}

pub(super) fn invite(app: &App, _: &Caller, p: PlayerName) -> Result<NewInvite, ErrorReport> {
    let player = app.seat_name(&p.player)?;
    let made = with_store(app, |store| invites::create(store, &player, &crate::campaign::now()))?;
    // The older link is replaced: whoever joined with it is let go.
    disconnect(app, &player);
    Ok(made)
}

pub(super) fn invites(app: &App, _: &Caller, _: Nothing) -> Result<Vec<Invite>, ErrorReport> {
    with_store(app, invites::list)
}

pub(super) fn revoke_invite(app: &App, _: &Caller, p: PlayerName) -> Result<bool, ErrorReport> {
    let ended = with_store(app, |store| invites::revoke(store, &p.player))?;
    disconnect(app, p.player.trim());
    Ok(ended)
}

pub(super) fn remove_player(app: &App, _: &Caller, p: PlayerName) -> Result<Removed, ErrorReport> {
    let link_ended = with_store(app, |store| invites::revoke(store, &p.player))?;
    Ok(Removed { link_ended, connections: disconnect(app, p.player.trim()) })
}

pub(super) fn share_copy(app: &App, _: &Caller, p: ShareCopy) -> Result<ShareReport, ErrorReport> {
    let from = current_file(app)?;
    let role = copy_for(p.player.as_deref())?;
    share::share(&from, &p.path, role.as_ref()).map_err(share_report)
}

/// The most a copy to download may take (it travels whole over the table's connection).
pub const MAX_DOWNLOAD_BYTES: u64 = 64 << 20;

pub(super) fn share_download(app: &App, _: &Caller, p: CopyFor) -> Result<Download, ErrorReport> {
    let from = current_file(app)?;
    let role = copy_for(p.player.as_deref())?;
    let stem = from.file_stem().map_or("campaign".into(), |s| s.to_string_lossy().to_string());
    let name = match &role {
        Some(r) => format!("{stem}-for-{}.houserule", r.player().unwrap_or_default()),
        None => format!("{stem}-copy.houserule"),
    };
    let dir = tempfile::tempdir().map_err(|e| ErrorReport::new(ErrorCode::Io, e.to_string()))?;
    let out = dir.path().join(&name);
    let report = share::share(&from, &out, role.as_ref()).map_err(share_report)?;
    let size = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(u64::MAX);
    if size > MAX_DOWNLOAD_BYTES {
        let message = format!("the copy takes {size} bytes, more than a download over the table's connection may ({MAX_DOWNLOAD_BYTES} bytes); save it from the desktop app or with `houserule share` instead");
        return Err(ErrorReport::new(ErrorCode::BadParam, message));
    }
    let bytes = std::fs::read(&out).map_err(|e| ErrorReport::new(ErrorCode::Io, e.to_string()))?;
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    Ok(Download { name, report, data })
}

pub(super) fn verify(app: &App, _: &Caller, _: Nothing) -> Result<crate::verify::VerifyReport, ErrorReport> {
    let now = app.now()?;
    app.reading(&now, |store| Ok(crate::verify::verify(store, &crate::verify::own_seeds(store))))
}

/// The campaign file in play.
fn current_file(app: &App) -> Result<std::path::PathBuf, ErrorReport> {
    let (_, from) =
        app.current().ok_or_else(|| ErrorReport::new(ErrorCode::NoCampaign, "open a campaign to share first"))?;
    Ok(from)
}

/// The player a copy is for (a name), or none for a full copy.
fn copy_for(player: Option<&str>) -> Result<Option<Role>, ErrorReport> {
    match player.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => Ok(Some(Role::Player(invites::player_name(name).map_err(invite_report)?))),
        None => Ok(None),
    }
}

fn share_report(e: ShareError) -> ErrorReport {
    let code = if matches!(e, ShareError::Exists(_)) { ErrorCode::BadParam } else { ErrorCode::Storage };
    ErrorReport::new(code, e.to_string())
}

impl App {
    /// The player a join link's token was made for, if it is live.
    pub fn redeem_invite(&self, token: &str) -> Result<Option<String>, ErrorReport> {
        let player = with_store(self, |store| invites::redeem(store, token, &crate::campaign::now()))?;
        if let Some(p) = &player {
            let made = with_store(self, invites::list)?.into_iter().find(|i| &i.player == p).map(|i| i.created);
            self.joined().insert(p.clone(), made.unwrap_or_default());
        }
        Ok(player)
    }

    fn joined(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<String, String>> {
        self.shared.joined.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends the connections of every player whose link was revoked or replaced since they
    /// joined, by this process or another (`houserule invite FILE NAME --revoke` while the table
    /// is served): the link each joined with is looked for in the file. How many were closed.
    pub fn sweep_links(&self) -> usize {
        let Some(server) = self.server() else { return 0 };
        if self.joined().is_empty() {
            return 0;
        }
        let Ok(live) = with_store(self, invites::list) else { return 0 };
        let ended: Vec<String> = self
            .joined()
            .iter()
            .filter(|(p, made)| !live.iter().any(|i| &i.player == *p && &i.created == *made && i.made_here))
            .map(|(p, _)| p.clone())
            .collect();
        let mut closed = 0;
        for p in ended {
            self.joined().remove(&p);
            closed += server.disconnect(&format!("player:{p}"));
        }
        closed
    }

    /// The player a seat at the table (a join link, a Matrix account) may be given for `asked`:
    /// a player name, refused when it is a known player's name in other capitals.
    pub fn seat_name(&self, asked: &str) -> Result<String, ErrorReport> {
        let player = invites::player_name(asked).map_err(invite_report)?;
        let players = houserule_core::params::players(&self.now()?.table);
        match players.iter().find(|k| **k != player && k.eq_ignore_ascii_case(&player)) {
            Some(known) => Err(ErrorReport::new(
                ErrorCode::BadParam,
                format!("'{player}' is not a player here: did you mean '{known}'? (names are exact)"),
            )
            .with_param("player")),
            None => Ok(player),
        }
    }
}
