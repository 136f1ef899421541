//! The GM's table commands: `invite` and `typed-dice` (who may join over the network, whose
//! dice may be typed in by hand), `undo` and `correct` (taking mistakes back).

use super::campaign::open;
use super::Outcome;
use crate::output::{self, Failure};
use houserule_app::invites::{self, InviteError};
use houserule_app::store::Store;
use houserule_app::undo::Correction;
use houserule_core::{ErrorCode, Role};
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
                match i.made_here {
                    true => crate::say!("{}: made {}, {used}", i.player, i.created),
                    false => crate::say!(
                        "{}: NOT made on this machine, so it lets nobody in: make a new link (houserule invite FILE {})",
                        i.player,
                        i.player
                    ),
                }
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
    show(json, &entry);
    Ok(true)
}

fn show(json: bool, entry: &houserule_core::view::LogEntry) {
    if json {
        output::json(entry);
    } else {
        output::entry(entry);
    }
}

/// Takes back the latest action, or every action after event `to`.
pub fn undo(json: bool, file: &Path, to: Option<u64>) -> Outcome {
    let mut c = open(file)?;
    let entry = c.undo(&Role::Gm, to).map_err(Failure::from)?;
    show(json, &entry);
    Ok(true)
}

/// What `houserule correct` was asked to set.
pub struct CorrectArgs<'a> {
    pub field: Option<&'a str>,
    pub pool: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub trait_: Option<&'a str>,
    pub remove: bool,
    pub reason: &'a str,
}

/// `ENTITY.NAME=VALUE` split into its parts (`=VALUE` optional when `optional_value`).
fn target<'a>(flag: &str, text: &'a str, optional_value: bool) -> Result<(&'a str, &'a str, Option<&'a str>), Failure> {
    let bad = || Failure::new(ErrorCode::BadParam, format!("{flag} '{text}': expected ENTITY.NAME=VALUE"));
    let (place, value) = match text.split_once('=') {
        Some((p, v)) => (p, Some(v.trim())),
        None if optional_value => (text, None),
        None => return Err(bad()),
    };
    let (entity, name) = place.split_once('.').ok_or_else(bad)?;
    Ok((entity.trim(), name.trim(), value))
}

/// Sets one value by hand.
pub fn correct(json: bool, file: &Path, args: CorrectArgs) -> Outcome {
    let chosen = [args.field.is_some(), args.pool.is_some(), args.trait_.is_some()].iter().filter(|b| **b).count();
    if chosen != 1 {
        return Err(Failure::new(ErrorCode::BadParam, "give one of --field, --pool or --trait"));
    }
    let correction = if let Some(f) = args.field {
        let (entity, field, value) = target("--field", f, true)?;
        // A value that reads as JSON (a number, true, a list) is that; anything else is text;
        // no value removes the field.
        let value = value.map(|v| serde_json::from_str(v).unwrap_or_else(|_| serde_json::Value::String(v.to_string())));
        Correction::Field { entity: entity.into(), field: field.into(), value }
    } else if let Some(p) = args.pool {
        let (pool, count) = p
            .rsplit_once('=')
            .ok_or_else(|| Failure::new(ErrorCode::BadParam, format!("--pool '{p}': expected POOL=COUNT")))?;
        let count = count.trim().parse().map_err(|_| {
            Failure::new(ErrorCode::BadParam, format!("--pool '{p}': the count must be a whole number"))
        })?;
        Correction::Pool { pool: pool.trim().into(), count, kind: args.kind.map(str::to_string) }
    } else {
        let t = args.trait_.unwrap_or_default();
        let (entity, name, rating) = target("--trait", t, true)?;
        let rating = rating.map(|r| r.parse::<i64>()).transpose().map_err(|_| {
            Failure::new(ErrorCode::BadParam, format!("--trait '{t}': the rating must be a whole number"))
        })?;
        Correction::Trait { entity: entity.into(), name: name.into(), rating, state: None, remove: args.remove }
    };
    let mut c = open(file)?;
    let entry = c.correct(&Role::Gm, &correction, args.reason).map_err(Failure::from)?;
    show(json, &entry);
    Ok(true)
}
