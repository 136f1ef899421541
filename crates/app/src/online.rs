//! Playing online, as the calls see it: the campaign's referee in a chat room.
//!
//! The referee itself (a Matrix client, the room, who sits where) lives in the
//! `houserule-matrix` crate, so the engine never links a network client. A front end that can
//! play online installs one with [`crate::front::App::install_online`] (the port is
//! [`crate::front::OnlineTable`]): the desktop app installs the Matrix referee, which the GM
//! links, seats players with and starts or stops from the Online panel. This module holds what
//! the calls `online`, `online_link`, `online_invite`, `online_start` and `online_stop` take and
//! answer; with no referee installed `online` answers nothing and the others say where to play
//! online instead ([`no_referee`]).
//!
//! Guarantees: a referee referees the campaign in play and nothing else — opening or creating
//! another campaign stops it first (and waits until it has), and opening a linked campaign
//! starts it; a password given to `online_link` is used once to log in and kept nowhere (not
//! in the campaign file, not in the app's files: the session the homeserver gives back is kept
//! in the GM's configuration folder, readable by the GM alone).

use houserule_core::{ErrorCode, ErrorReport};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Linking the campaign in play to a room, logged in as the GM's account.
#[derive(Clone, Default, Deserialize, JsonSchema)]
pub struct OnlineLink {
    /// The homeserver's address, e.g. `https://matrix.example.org`.
    pub homeserver: String,
    /// The GM's account, which the referee speaks with, e.g. `@gm:example.org`.
    pub user: String,
    /// The account's password: used once to log in, kept nowhere.
    pub password: String,
    /// The room to play in (its id or alias); none: the one linked already, else a new room.
    #[serde(default)]
    pub room: Option<String>,
}

impl std::fmt::Debug for OnlineLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnlineLink")
            .field("homeserver", &self.homeserver)
            .field("user", &self.user)
            .field("password", &"(hidden)")
            .field("room", &self.room)
            .finish()
    }
}

/// Giving a player's seat to an account.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct OnlineInvite {
    /// The player's account, e.g. `@ann:example.org`.
    pub user: String,
    /// The player it plays as (`ann` or `player:ann`).
    pub player: String,
}

/// An account seated as a player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OnlineSeat {
    pub user: String,
    pub player: String,
    /// The direct room where what only this player may see is sent.
    pub direct: String,
}

/// The campaign's room and its referee.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Online {
    /// What kind of network (`matrix`).
    pub network: String,
    pub homeserver: String,
    /// The account the referee speaks with (the GM's).
    pub user: String,
    pub room: String,
    /// Who sits where, by account.
    pub seats: Vec<OnlineSeat>,
    /// Whether the referee answers the room now.
    pub refereeing: bool,
    /// Since when it does (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// The latest trouble (an unreachable homeserver, an encrypted room), until it clears.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Why a program without a referee cannot play online.
pub fn no_referee() -> ErrorReport {
    ErrorReport::new(
        ErrorCode::Refused,
        "this program cannot play online: use the desktop app's Online panel, or `houserule matrix link` and `houserule matrix run`",
    )
}
