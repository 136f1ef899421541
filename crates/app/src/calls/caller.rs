//! Who is calling ([`Caller`]) and what their front end lets them do ([`Front`]), and who may
//! make each call ([`Who`]).
//!
//! Guarantees: a front end's rights are data, not a branch in the app layer — a new front end
//! is a new [`Front`] value; a caller's role is fixed by the front end when they joined (a
//! browser's join link, a seated Matrix account, the person at the desktop), never read from a
//! call; a player acts and looks only as themselves ([`Caller::acting_as`]).

use super::Call;
use houserule_core::{ErrorCode, ErrorReport, Role};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

/// Who may make a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// Anyone who has joined.
    Anyone,
    /// The GM only.
    Gm,
    /// Only a front end on the GM's own computer (it reaches their files and network).
    Local,
}

/// A front end and the rights it gives its callers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Front {
    /// What it is called (`desktop`, `server`, `matrix`), as callers are told.
    pub name: &'static str,
    /// It runs on the GM's own computer: open and create files anywhere, share to a path,
    /// host the table, play online ([`Who::Local`] calls).
    pub local: bool,
    /// Where `create` makes the campaign when the call names no path (a server's own file):
    /// only while nothing is in play.
    pub campaign_file: Option<PathBuf>,
    /// A player's action must bring 32 fresh random bytes from their own device.
    pub players_bring_entropy: bool,
    /// A player's dice typed in by hand need the GM's permission.
    pub typed_dice_need_permission: bool,
}

impl Front {
    /// The desktop window: the person at the computer is the GM, and it reaches their files.
    pub fn desktop() -> Front {
        Front {
            name: "desktop",
            local: true,
            campaign_file: None,
            players_bring_entropy: false,
            typed_dice_need_permission: false,
        }
    }

    /// Browsers connected to a server that plays `file`.
    pub fn server(file: PathBuf) -> Front {
        Front {
            name: "server",
            local: false,
            campaign_file: Some(file),
            players_bring_entropy: true,
            typed_dice_need_permission: true,
        }
    }
}

/// Who is calling, as the front end established it (never from the call itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub role: Role,
    pub front: Arc<Front>,
}

impl Caller {
    /// `role`, calling through `front`.
    pub fn new(role: Role, front: &Arc<Front>) -> Caller {
        Caller { role, front: front.clone() }
    }

    /// The role a call runs as: a player is always themselves; the GM may name a player.
    pub fn acting_as(&self, asked: Option<&str>) -> Result<Role, ErrorReport> {
        let asked =
            asked.map(Role::parse).transpose().map_err(|e| ErrorReport::new(ErrorCode::BadRequest, e.to_string()))?;
        match (&self.role, asked) {
            (me, None) => Ok(me.clone()),
            (Role::Gm, Some(r)) => Ok(r),
            (me, Some(r)) if &r == me => Ok(r),
            (me, Some(r)) => Err(ErrorReport::new(
                ErrorCode::Forbidden,
                format!("you joined as {me}: you may look and act only as yourself, not as {r}"),
            )),
        }
    }

    /// Whether the caller may make `call` at all.
    pub fn may(&self, call: &Call) -> Result<(), ErrorReport> {
        match call.who() {
            Who::Anyone => Ok(()),
            Who::Gm if self.role.is_gm() => Ok(()),
            Who::Gm => Err(ErrorReport::new(ErrorCode::Forbidden, "only the GM may do that")),
            Who::Local if self.front.local => Ok(()),
            Who::Local => Err(ErrorReport::new(
                ErrorCode::Forbidden,
                format!("{} is for the desktop app on the GM's own computer only", call.name()),
            )),
        }
    }

    /// Whether this caller's typed dice are taken without the GM's word: the GM's always, a
    /// player's where the front end does not ask for permission.
    pub fn types_dice_freely(&self) -> bool {
        self.role.is_gm() || !self.front.typed_dice_need_permission
    }
}
