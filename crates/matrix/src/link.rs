//! What the campaign file keeps of its room: the link, who sits where, and the referee's place.
//!
//! Guarantees: everything here is in the file's `meta` table under the bridge prefix, so no
//! copy of the file carries it (a copy is not linked to the room); no credential is ever kept
//! here (they live in the GM's configuration folder: [`crate::account`]). The place in the room
//! (`position`), the last request answered (`answered`) and the last event posted (`posted`)
//! move forward only, each written after what it covers is done — an action's `answered` in the
//! action's own transaction.

use crate::MatrixError;
use houserule_app::front::App;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const LINK: &str = "bridge.matrix.link";
const SEATS: &str = "bridge.matrix.seats";
pub const POSITION: &str = "bridge.matrix.position";
pub const ANSWERED: &str = "bridge.matrix.answered";
pub const POSTED: &str = "bridge.matrix.posted";

/// The room a campaign is played in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub homeserver: String,
    /// The referee's account (the GM's).
    pub user: String,
    pub room: String,
}

/// A Matrix account's seat: the player it plays as, and the direct room for what only that
/// player may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    pub player: String,
    pub direct: String,
}

/// Seats by Matrix user id.
pub type Seats = BTreeMap<String, Seat>;

fn read<T: for<'de> Deserialize<'de>>(app: &App, key: &str) -> Result<Option<T>, MatrixError> {
    match app.mark(key)? {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| MatrixError::Damaged(format!("the campaign's Matrix link ({key}) is damaged: {e}"))),
    }
}

fn text<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("link state serialises")
}

/// The campaign's link, if it has one.
pub fn link(app: &App) -> Result<Option<Link>, MatrixError> {
    read(app, LINK)
}

/// The campaign's link, or why there is none.
pub fn linked(app: &App) -> Result<Link, MatrixError> {
    link(app)?.ok_or_else(|| {
        MatrixError::Usage(
            "this campaign is not linked to a Matrix room yet: run `houserule matrix link FILE` first".into(),
        )
    })
}

pub fn seats(app: &App) -> Result<Seats, MatrixError> {
    Ok(read(app, SEATS)?.unwrap_or_default())
}

/// The referee's place: the room token reading resumes from, the last request answered and the
/// last campaign event posted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub position: String,
    pub answered: Option<String>,
    pub posted: u64,
}

pub fn place(app: &App) -> Result<Place, MatrixError> {
    Ok(Place {
        position: read(app, POSITION)?
            .ok_or_else(|| MatrixError::Damaged("the campaign's Matrix link has no position".into()))?,
        answered: read::<Option<String>>(app, ANSWERED)?.flatten(),
        posted: read(app, POSTED)?.unwrap_or(0),
    })
}

/// Writes a new link with the referee's place at its start (all or nothing).
pub fn save_link(app: &App, link: &Link, place: &Place) -> Result<(), MatrixError> {
    let (l, p, a, s) = (text(link), text(&place.position), text(&place.answered), text(&place.posted));
    Ok(app.set_marks(&[(LINK, &l), (POSITION, &p), (ANSWERED, &a), (POSTED, &s)])?)
}

pub fn save_seats(app: &App, seats: &Seats) -> Result<(), MatrixError> {
    Ok(app.set_marks(&[(SEATS, &text(seats))])?)
}

/// A mark as a pair for [`App::set_marks`] or an action's transaction.
pub fn mark<T: Serialize>(key: &str, value: &T) -> (String, String) {
    (key.to_string(), text(value))
}

pub fn save(app: &App, marks: &[(String, String)]) -> Result<(), MatrixError> {
    let pairs: Vec<(&str, &str)> = marks.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Ok(app.set_marks(&pairs)?)
}
