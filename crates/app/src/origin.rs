//! Where an action came from when a bridge took it from a message in a chat room (Matrix).
//!
//! Guarantees: the action's event records the message it answers in its header
//! (`detail.origin`: the bridge, the room and the message's id), so anyone reading the log can
//! tie each event to its request and no request is taken twice; its rolls mix in entropy
//! derived from that id (the player's message, stamped by their homeserver, is the acting
//! side's contribution — recomputed by anyone who reads the log); and the bridge's own marks
//! (how far it has answered) are written in the same transaction as the event, so a bridge
//! killed at any moment finds the file and its marks in agreement.

use crate::campaign::{Acted, CampaignError};
use crate::front::App;
use houserule_core::dice::Entropy;
use houserule_core::event::Header;
use houserule_core::talk::PostDraft;
use houserule_core::view::LogEntry;
use houserule_core::{ErrorReport, Role};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// The prefix of every `meta` key a bridge keeps in the campaign file (its room, its place in
/// it, who is who). No copy of the file carries them: a copy is not linked to the room.
pub const MARK_PREFIX: &str = "bridge.";

/// The message an action answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    /// The bridge (`matrix`).
    pub via: String,
    /// The room the message was sent in.
    pub room: String,
    /// The message's id in that room.
    pub event: String,
}

impl Origin {
    /// The entropy the action's rolls mix in: `SHA-256("houserule-origin-v1" ‖ via ‖ 0 ‖ event)`.
    pub fn entropy(&self) -> Entropy {
        let mut h = Sha256::new();
        h.update(b"houserule-origin-v1");
        h.update(self.via.as_bytes());
        h.update([0]);
        h.update(self.event.as_bytes());
        Entropy(h.finalize().into())
    }

    /// The header detail that records it.
    pub fn detail(&self) -> Value {
        json!({ "origin": self })
    }

    /// The origin an event's header records, if any.
    pub fn of(header: &Header) -> Option<Origin> {
        serde_json::from_value(header.detail.as_ref()?.get("origin")?.clone()).ok()
    }
}

/// How an action is taken, beyond who takes it, which and with what parameters.
#[derive(Debug, Clone, Default)]
pub struct Taking<'a> {
    /// Dice faces given in advance (typed in by hand, or a test's).
    pub forced: Option<Vec<i64>>,
    /// The acting side's fresh bytes mixed into the rolls (none only for reproducible tests).
    pub entropy: Option<Entropy>,
    /// A post that carries the action, committed with it or not at all.
    pub post: Option<&'a PostDraft>,
    /// The message the action answers; its entropy is used when `entropy` is none.
    pub origin: Option<&'a Origin>,
    /// Values for the file's `meta` table written in the event's transaction (a bridge's marks:
    /// keys start with [`MARK_PREFIX`]).
    pub marks: Vec<(String, String)>,
}

impl App {
    /// Takes an action a bridge read from a message: the event records `origin`, its rolls mix
    /// in the message's entropy, and `marks` are written with it.
    pub fn act_from(
        &self,
        role: &Role,
        action: &str,
        params: &Map<String, Value>,
        origin: &Origin,
        marks: Vec<(String, String)>,
    ) -> Result<Acted, ErrorReport> {
        let taking = Taking { origin: Some(origin), marks, ..Taking::default() };
        self.with(|s| s.act_taking(role, action, params, &taking).map_err(|e| e.report()))
    }

    /// Writes a post a bridge read from a message, as `act_from` takes an action.
    pub fn say_from(
        &self,
        author: &Role,
        draft: &PostDraft,
        origin: &Origin,
        marks: Vec<(String, String)>,
    ) -> Result<LogEntry, ErrorReport> {
        let taking = Taking { origin: Some(origin), marks, ..Taking::default() };
        self.with(|s| s.post_taking(author, draft, &taking).map_err(|e| e.report()))
    }

    /// A bridge's mark in the campaign in play (`key` starts with [`MARK_PREFIX`]).
    pub fn mark(&self, key: &str) -> Result<Option<String>, ErrorReport> {
        self.with(|s| s.campaign().store().meta(key).map_err(|e| CampaignError::from(e).report()))
    }

    /// Writes a bridge's marks, all or none.
    pub fn set_marks(&self, marks: &[(&str, &str)]) -> Result<(), ErrorReport> {
        self.with(|s| {
            let c = s.campaign();
            let store = c.store();
            let write = || -> Result<(), crate::store::StoreError> {
                store.connection().execute_batch("SAVEPOINT marks")?;
                for (k, v) in marks {
                    if let Err(e) = store.set_meta(k, v) {
                        store.connection().execute_batch("ROLLBACK TO marks; RELEASE marks")?;
                        return Err(e);
                    }
                }
                store.connection().execute_batch("RELEASE marks")?;
                Ok(())
            };
            write().map_err(|e| CampaignError::from(e).report())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_differs_by_message_and_bridge() {
        let a = Origin { via: "matrix".into(), room: "!r:hs".into(), event: "$a".into() };
        let b = Origin { event: "$b".into(), ..a.clone() };
        let c = Origin { via: "other".into(), ..a.clone() };
        assert_ne!(a.entropy().0, b.entropy().0);
        assert_ne!(a.entropy().0, c.entropy().0);
        assert_eq!(a.entropy().0, a.clone().entropy().0);
    }
}
