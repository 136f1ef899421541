//! The table: who joined, the view and the action forms of the campaign in play, the chance a
//! form shows, actions and posts.
//!
//! Guarantees: views and forms are read from the campaign as of its last change, never
//! waiting for an action in progress; an action runs as the role the caller may act as, with
//! dice typed by hand only where the GM allows them, and with the acting side's own fresh
//! entropy (a browser's must come with the request; where the front end does not bring it,
//! this machine's); what the scripts printed reaches the GM only.

use super::App;
use crate::calls::{As, Caller, EditPost, Join, Joined, Nothing, OddsOf};
use crate::campaign::{Acted, FormOdds};
use crate::request::{ActRequest, Dice, PostRequest};
use houserule_core::dice::Entropy;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_core::{ErrorCode, ErrorReport, Role};

pub(super) fn hello(app: &App, caller: &Caller, _: Join) -> Result<Joined, ErrorReport> {
    let current = app.current();
    Ok(Joined {
        role: caller.role.clone(),
        campaign: current.as_ref().map(|(i, _)| i.clone()),
        // Where the GM keeps the file is the GM's business (it names their folders).
        file: current.map(|(_, p)| p).filter(|_| caller.role.is_gm()),
        front: caller.front.name.to_string(),
        local: caller.front.local,
        last_read: app.last_read(&caller.role),
    })
}

pub(super) fn campaign(app: &App, _: &Caller, _: Nothing) -> Result<Option<CampaignInfo>, ErrorReport> {
    Ok(app.current().map(|(info, _)| info))
}

pub(super) fn view(app: &App, caller: &Caller, p: As) -> Result<View, ErrorReport> {
    let role = caller.acting_as(p.role.as_deref())?;
    Ok(app.now()?.view(&role))
}

pub(super) fn actions(app: &App, caller: &Caller, p: As) -> Result<Vec<ActionForm>, ErrorReport> {
    let role = caller.acting_as(p.role.as_deref())?;
    Ok(app.now()?.actions(&role))
}

pub(super) fn odds(app: &App, caller: &Caller, p: OddsOf) -> Result<FormOdds, ErrorReport> {
    let role = caller.acting_as(p.role.as_deref())?;
    let session = app.session()?;
    let odds = session.campaign().odds(&role, &p.action, &p.params);
    odds.map_err(|e| e.report())
}

pub(super) fn act(app: &App, caller: &Caller, mut request: ActRequest) -> Result<Acted, ErrorReport> {
    let role = caller.acting_as(request.role.as_deref())?;
    request.dice = typed_dice(app, caller, &request)?;
    let brings_own = request.entropy.is_some() || request.bridged.is_some();
    if !brings_own && caller.front.players_bring_entropy && !caller.role.is_gm() {
        return Err(ErrorReport::new(
            ErrorCode::BadRequest,
            "a player's action carries 32 fresh random bytes from their own device (entropy), so nobody can foresee \
             its rolls; reload the page",
        ));
    }
    if !brings_own {
        request.entropy = Some(Entropy::fresh());
    }
    let mut acted = app.session()?.act(&role, &request).map_err(|e| e.report())?;
    if !caller.role.is_gm() {
        // What the scripts printed is the homebrewer's (the GM's): it may show anything.
        acted.script_log.clear();
    }
    Ok(acted)
}

/// The dice an action's caller typed in, read, where the caller may type them.
fn typed_dice(app: &App, caller: &Caller, request: &ActRequest) -> Result<Option<Dice>, ErrorReport> {
    let faces = match &request.dice {
        None => return Ok(None),
        Some(d) => d.faces().map_err(|e| ErrorReport::new(ErrorCode::Dice, format!("dice rolled by hand: {e}")))?,
    };
    let Some(faces) = faces else { return Ok(None) };
    let allowed = match &caller.role {
        Role::Player(p) if !caller.types_dice_freely() => app.now()?.table.typed_dice.contains(p),
        _ => true,
    };
    if !allowed {
        return Err(ErrorReport::new(
            ErrorCode::Forbidden,
            "the GM has not let you type in your own dice: leave the dice empty and the table rolls for you, or ask \
             the GM to allow it",
        ));
    }
    Ok(Some(Dice::Faces(faces)))
}

pub(super) fn say(app: &App, caller: &Caller, request: PostRequest) -> Result<LogEntry, ErrorReport> {
    let role = caller.acting_as(request.role.as_deref())?;
    app.session()?.post(&role, &request).map_err(|e| e.report())
}

pub(super) fn edit_post(app: &App, caller: &Caller, p: EditPost) -> Result<LogEntry, ErrorReport> {
    let role = caller.acting_as(p.role.as_deref())?;
    app.session()?.edit_post(&role, p.seq, &p.text).map_err(|e| e.report())
}
