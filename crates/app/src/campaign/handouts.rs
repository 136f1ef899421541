//! Handouts in a campaign: the GM writes, reveals, takes back and removes them, each one event.
//!
//! A [`HandoutOp`] is built in, as scene operations are: a transaction whose one change (the
//! handout as it now is) only the GM may read, and the lines that tell each reader what
//! happened — a public line when it is revealed to everyone, otherwise one line for each player
//! it concerns, readable by that player alone. So a player's log, a player's copy of the file, a
//! Matrix room and a forum post hold a handout only once it is revealed to that reader, and
//! never a handout revealed to someone else. Undo takes an operation back like any action.

use super::{Campaign, CampaignError};
use houserule_core::dice::Entropy;
use houserule_core::handout::{Handout, MAX_HANDOUTS};
use houserule_core::table::{Change, Table};
use houserule_core::tx::{Tx, TxError};
use houserule_core::view::LogEntry;
use houserule_core::{Role, Visibility};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One thing the GM does to the handouts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum HandoutOp {
    /// Writes a new handout (unrevealed) or, with the id of one, changes its title, text and
    /// picture (who reads it stays as it was).
    Write {
        #[serde(default)]
        id: Option<String>,
        title: String,
        #[serde(default)]
        text: String,
        /// The digest of a picture the campaign holds.
        #[serde(default)]
        picture: Option<String>,
    },
    /// Sets who reads it: everyone, and the players named (an empty list and no `everyone`
    /// takes it back from all).
    Reveal {
        id: String,
        #[serde(default)]
        everyone: bool,
        #[serde(default)]
        players: Vec<String>,
    },
    /// Removes it (from everyone who read it, too).
    Remove { id: String },
}

fn rule(msg: impl Into<String>) -> TxError {
    TxError::Rule(msg.into())
}

/// A new handout's id: random, so an id tells nothing of the handouts a player was not shown.
fn fresh_id(table: &Table) -> String {
    loop {
        let id = format!("h-{}", hex::encode(&Entropy::fresh().0[..5]));
        if !table.handouts.contains_key(&id) {
            return id;
        }
    }
}

/// Who reads a handout, as the lines address them.
#[derive(Default)]
struct Readers {
    everyone: bool,
    players: BTreeSet<String>,
}

impl Readers {
    fn of(h: Option<&Handout>) -> Readers {
        h.map_or_else(Readers::default, |h| Readers { everyone: h.everyone, players: h.readers.clone() })
    }

    /// Tells these readers `line` (a public line when everyone reads it).
    fn tell(&self, tx: &mut Tx, line: &str) -> Result<(), TxError> {
        if self.everyone {
            return tx.say(line, Visibility::Public, None);
        }
        self.players.iter().try_for_each(|p| tx.say(line, Visibility::Owner, Some(p.clone())))
    }
}

impl HandoutOp {
    /// Applies the operation to a transaction; returns the GM's line about it.
    fn apply(self, tx: &mut Tx) -> Result<String, TxError> {
        match self {
            HandoutOp::Write { id, title, text, picture } => {
                if let Some(d) = picture.as_deref().filter(|d| !tx.table.pictures.contains_key(*d)) {
                    return Err(rule(format!("there is no picture {d} in the campaign: import it first")));
                }
                let (id, old) = match id {
                    Some(id) => {
                        let old = tx.table.handouts.get(&id).cloned();
                        (id.clone(), Some(old.ok_or_else(|| rule(format!("there is no handout '{id}'")))?))
                    }
                    None if tx.table.handouts.len() >= MAX_HANDOUTS => {
                        return Err(rule(format!("a campaign holds at most {MAX_HANDOUTS} handouts: remove one first")))
                    }
                    None => (fresh_id(&tx.table), None),
                };
                let kept = old.clone().unwrap_or(Handout {
                    title: String::new(),
                    text: String::new(),
                    picture: None,
                    everyone: false,
                    readers: BTreeSet::new(),
                });
                let handout = Handout { title: title.trim().to_string(), text, picture, ..kept };
                let title = handout.title.clone();
                tx.change(Change::Handout { id: id.clone(), handout: Some(handout) })?;
                if old.is_some() {
                    Readers::of(old.as_ref()).tell(tx, &format!("The GM changes the handout “{title}”."))?;
                    return Ok(format!("The GM changes the handout “{title}” ({id})."));
                }
                Ok(format!("The GM writes the handout “{title}” ({id}); nobody reads it yet."))
            }
            HandoutOp::Reveal { id, everyone, players } => {
                let old =
                    tx.table.handouts.get(&id).cloned().ok_or_else(|| rule(format!("there is no handout '{id}'")))?;
                let players: BTreeSet<String> = players.into_iter().map(|p| p.trim().to_string()).collect();
                if let Some(p) = players.iter().find(|p| p.is_empty() || Role::parse(&format!("player:{p}")).is_err()) {
                    return Err(rule(format!("'{p}' is not a player's name")));
                }
                let title = old.title.clone();
                let new = Handout { everyone, readers: players, ..old.clone() };
                tx.change(Change::Handout { id: id.clone(), handout: Some(new.clone()) })?;
                Self::tell_reveal(tx, &old, &new)?;
                Ok(match (new.everyone, new.readers.is_empty()) {
                    (true, _) => format!("The GM shows everyone the handout “{title}”."),
                    (false, true) => format!("The GM keeps the handout “{title}” from everyone."),
                    (false, false) => {
                        let names: Vec<&str> = new.readers.iter().map(String::as_str).collect();
                        format!("The GM shows the handout “{title}” to {}.", names.join(", "))
                    }
                })
            }
            HandoutOp::Remove { id } => {
                let old =
                    tx.table.handouts.get(&id).cloned().ok_or_else(|| rule(format!("there is no handout '{id}'")))?;
                tx.change(Change::Handout { id: id.clone(), handout: None })?;
                Readers::of(Some(&old)).tell(tx, &format!("The GM takes the handout “{}” away.", old.title))?;
                Ok(format!("The GM removes the handout “{}” ({id}).", old.title))
            }
        }
    }

    /// Tells those who now read it that they do, and those who no longer do that it is taken back.
    fn tell_reveal(tx: &mut Tx, old: &Handout, new: &Handout) -> Result<(), TxError> {
        let title = &new.title;
        let to = |tx: &mut Tx, p: &String, line: String| tx.say(line, Visibility::Owner, Some(p.clone()));
        match (old.everyone, new.everyone) {
            (false, true) => tx.say(format!("The GM shows everyone the handout “{title}”."), Visibility::Public, None),
            (true, true) => Ok(()),
            (true, false) => {
                tx.say(format!("The GM takes the handout “{title}” back."), Visibility::Public, None)?;
                new.readers.iter().try_for_each(|p| to(tx, p, format!("You still read the handout “{title}”.")))
            }
            (false, false) => {
                for p in new.readers.difference(&old.readers) {
                    to(tx, p, format!("The GM shows you the handout “{title}”."))?;
                }
                old.readers
                    .difference(&new.readers)
                    .try_for_each(|p| to(tx, p, format!("The GM takes the handout “{title}” back.")))
            }
        }
    }

    /// The name the event's action carries.
    fn name(&self) -> &'static str {
        match self {
            HandoutOp::Write { .. } => "handout_write",
            HandoutOp::Reveal { .. } => "handout_reveal",
            HandoutOp::Remove { .. } => "handout_remove",
        }
    }
}

impl Campaign {
    /// Does one GM handout operation as one event: the GM's line, and a line for each reader
    /// it concerns. Refused with the reason, committing nothing, when it does not fit.
    pub fn handout(&mut self, actor: &Role, op: HandoutOp) -> Result<LogEntry, CampaignError> {
        let action = op.name();
        self.gm_op(actor, action, "only the GM writes and reveals handouts", |tx| op.apply(tx))
    }
}
