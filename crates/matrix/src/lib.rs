//! Houserule in a Matrix room: the campaign's referee speaks for the table where the group
//! already talks, and players act from any Matrix client.
//!
//! - [`link_room`]: links a campaign to a room (made for it, or one the GM names), logged in as
//!   the GM ([`account`]: the session stays in the GM's configuration folder, never in the file);
//! - [`seat`]: gives a Matrix account a player's seat, with a direct room for what only that
//!   player may see;
//! - [`referee::Referee`]: reads `!hr` commands ([`commands`]) in room order, takes actions as
//!   the sender's player, answers each request once and posts every event ([`messages`]);
//! - [`turns`]: whose turn it is (`!hr turn`), and the room told when a turn passes;
//! - [`map`]: the shown scene as a picture (`!hr map`) and a token's move (`!hr move`);
//! - [`online::MatrixOnline`]: the same inside the desktop app, run from its Online panel.
//!
//! What the file keeps of the room is in [`link`]. Only unencrypted rooms are played in: a room
//! with end-to-end encryption is refused, when linking and whenever the referee meets it.

pub mod account;
pub mod commands;
mod delivery;
pub mod handouts;
pub mod link;
pub mod map;
pub mod messages;
pub mod online;
pub mod referee;
pub mod room;
pub mod turns;

use houserule_app::front::App;
use houserule_core::{ErrorCode, ErrorReport};
use link::{Link, Place, Seat};
use messages::Notice;
use room::user_id;
use serde::Serialize;

/// Why the Matrix side could not do something.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Login(String),
    #[error("room {0} has end-to-end encryption switched on: the referee plays only in unencrypted rooms (make a new room, or link without --room to have one made)")]
    Encrypted(String),
    #[error("{doing} failed: {message}")]
    Http { doing: &'static str, message: String },
    /// The homeserver limits how fast the account may send: try again after `wait`.
    #[error("the homeserver limits how fast the referee's account may send ({doing}): waiting {} s", wait.as_secs_f32().ceil())]
    RateLimited { doing: &'static str, wait: std::time::Duration },
    /// The homeserver refused one request for good (too large, forbidden …): sending it again
    /// would fail again.
    #[error("the homeserver refused {doing}: {message}")]
    Refused { doing: &'static str, message: String },
    #[error("{0}")]
    Damaged(String),
    #[error("another referee answers this campaign's room already ({0}): stop it first (one referee per campaign, the desktop app or `houserule matrix run`)")]
    Busy(String),
    #[error("no campaign is open")]
    NoCampaign,
    #[error("{}", .0.message)]
    App(#[from] ErrorReport),
    #[error("{0}")]
    Internal(String),
}

impl MatrixError {
    /// A failed request to the homeserver, saying what was being done.
    pub fn http<E: std::fmt::Display>(doing: &'static str) -> impl Fn(E) -> MatrixError {
        move |e| MatrixError::Http { doing, message: e.to_string() }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            MatrixError::Usage(_) => ErrorCode::BadRequest,
            MatrixError::Login(_) | MatrixError::Encrypted(_) | MatrixError::Busy(_) => ErrorCode::Refused,
            MatrixError::Http { .. } | MatrixError::RateLimited { .. } => ErrorCode::Storage,
            MatrixError::Refused { .. } => ErrorCode::Refused,
            MatrixError::Damaged(_) => ErrorCode::BadFile,
            MatrixError::NoCampaign => ErrorCode::NoCampaign,
            MatrixError::App(e) => e.code,
            MatrixError::Internal(_) => ErrorCode::Internal,
        }
    }
}

/// A campaign linked to its room.
#[derive(Debug, Clone, Serialize)]
pub struct Linked {
    pub room: String,
    pub user: String,
    pub homeserver: String,
    /// Whether it was linked to this room already (its place in the room is kept).
    pub again: bool,
}

/// Links the campaign in play to a room, logged in as `user` (the GM): the room `room` names,
/// or the one it is linked to already, or a new private room. From here on the referee answers
/// what is sent in the room after this moment, and posts the events after the current one.
pub async fn link_room(
    app: &App,
    homeserver: &str,
    user: &str,
    password: Option<&str>,
    room: Option<&str>,
) -> Result<Linked, MatrixError> {
    let (info, _) = app.current().ok_or(MatrixError::NoCampaign)?;
    user_id(user)?;
    let chat = account::log_in(homeserver, user, password).await?;
    let existing = link::link(app)?.filter(|l| l.homeserver == homeserver && l.user == user);
    let room = match (room, &existing) {
        (Some(r), _) => {
            chat.join(r).await?;
            r.to_string()
        }
        (None, Some(l)) => l.room.clone(),
        (None, None) => {
            let topic = format!("The table of the Houserule campaign {}: send !hr help", info.name);
            chat.create_room(&format!("{} — Houserule", info.name), &topic, &[], false).await?
        }
    };
    chat.check_unencrypted(&room).await?;
    let again = existing.as_ref().is_some_and(|l| l.room == room);
    if !again {
        let position = chat.wait(&room, None, std::time::Duration::ZERO).await?;
        let link = Link { homeserver: homeserver.into(), user: user.into(), room: room.clone() };
        link::save_link(app, &link, &Place { position, answered: None, posted: info.events })?;
        let welcome = Notice::text(
            format!(
                "This room is the table of {} ({} {}). The GM seats each player's account; then send `!hr help`.",
                info.name, info.ruleset.name, info.ruleset.version
            ),
            None,
        );
        chat.send(&room, &format!("hr-linked-{}", info.id), &welcome.content()).await?;
    }
    Ok(Linked { room, user: user.into(), homeserver: homeserver.into(), again })
}

/// A Matrix account seated as a player.
#[derive(Debug, Clone, Serialize)]
pub struct Seated {
    pub player: String,
    pub user: String,
    pub room: String,
    /// The direct room for what only this player may see.
    pub direct: String,
}

/// Seats the Matrix account `user` as `player`: invited to the room, and to a direct room for
/// what only that player may see. A player has one account: an older one loses the seat.
pub async fn seat(app: &App, user: &str, player: &str) -> Result<Seated, MatrixError> {
    let link = link::linked(app)?;
    let (info, _) = app.current().ok_or(MatrixError::NoCampaign)?;
    let player = app.seat_name(player)?;
    let account = user_id(user)?;
    if account.as_str() == link.user {
        return Err(MatrixError::Usage(format!("{user} is the GM's own account, which the referee speaks with")));
    }
    let chat = account::resume(&link.homeserver, &link.user).await?;
    chat.invite(&link.room, &account).await?;
    let mut seats = link::seats(app)?;
    let direct = match seats.get(account.as_str()) {
        Some(s) => s.direct.clone(),
        None => {
            let name = format!("{} — Houserule, private to {player}", info.name);
            let topic = "What only you may see at the table comes here.";
            chat.create_room(&name, topic, std::slice::from_ref(&account), true).await?
        }
    };
    seats.retain(|u, s| s.player != player || u == account.as_str());
    seats.insert(account.to_string(), Seat { player: player.clone(), direct: direct.clone() });
    link::save_seats(app, &seats)?;
    Ok(Seated { player, user: account.to_string(), room: link.room, direct })
}
