//! `houserule invite` and `houserule typed-dice`: who may join the table over the network, and
//! whose dice may be typed in by hand.

use super::campaign::open;
use super::Outcome;
use crate::output::{self, Failure};
use houserule_app::invites::{self, InviteError};
use houserule_app::store::Store;
use houserule_core::{render, ErrorCode, Role};
use std::path::Path;

fn failure(e: InviteError) -> Failure {
    match e {
        InviteError::Name(m) => Failure::new(ErrorCode::BadParam, format!("PLAYER: {m}")),
        InviteError::Store(s) => Failure::new(ErrorCode::Storage, s.to_string()),
    }
}

/// Makes, revokes or lists join links.
pub fn invite(json: bool, file: &Path, player: Option<&str>, url: Option<&str>, revoke: bool) -> Outcome {
    let store = Store::open(file).map_err(|e| Failure::new(ErrorCode::Storage, e.to_string()))?;
    match (player, revoke) {
        (None, true) => Err(Failure::new(ErrorCode::BadParam, "--revoke needs the PLAYER whose link to end")),
        (None, false) => {
            let list = invites::list(&store).map_err(failure)?;
            if json {
                output::json(&list);
            } else if list.is_empty() {
                crate::say!("No player has a join link yet: `houserule invite FILE NAME` makes one.");
            }
            for i in list.iter().filter(|_| !json) {
                let used = i.last_used.as_deref().map_or("never used".to_string(), |u| format!("last used {u}"));
                crate::say!("{}: made {}, {used}", i.player, i.created);
            }
            Ok(true)
        }
        (Some(p), true) => {
            let ended = invites::revoke(&store, p).map_err(failure)?;
            if json {
                output::json(&serde_json::json!({ "player": p, "revoked": ended }));
            } else if ended {
                crate::say!("{p}'s join link no longer works. Anyone joined with it stays until they leave the page.");
            } else {
                crate::say!("{p} had no join link.");
            }
            Ok(ended)
        }
        (Some(p), false) => {
            let new = invites::create(&store, p, &houserule_app::campaign::now()).map_err(failure)?;
            let link = url.map(|u| format!("{}/#join={}", u.trim_end_matches('/'), new.token));
            if json {
                output::json(&serde_json::json!({ "player": new.player, "token": new.token, "link": link }));
            } else {
                crate::say!("Join link for {} (shown only now; a new one replaces it):", new.player);
                match link {
                    Some(l) => crate::say!("  {l}"),
                    None => crate::say!("  the table's address followed by #join={}", new.token),
                }
            }
            Ok(true)
        }
    }
}

/// Lets a player type in their own dice over the network, or stops it.
pub fn typed_dice(json: bool, file: &Path, player: &str, allowed: bool) -> Outcome {
    let mut c = open(file)?;
    let entry = c.set_typed_dice(&Role::Gm, player, allowed).map_err(Failure::from)?;
    if json {
        output::json(&entry);
    } else {
        crate::say!("{}", render::entry(&entry));
    }
    Ok(true)
}
