//! The chat message an action or a post answers, when a bridge took it from a room (Matrix).
//!
//! Guarantees: the action's event records the message it answers in its header
//! (`detail.origin`: the bridge, the room and the message's id), so anyone reading the log can
//! tie each event to its request and no request is taken twice; its rolls mix in entropy
//! derived from that id (the player's message, stamped by their homeserver, is the acting
//! side's contribution — recomputed by anyone who reads the log); and the bridge's own marks
//! (how far it has answered) are written in the same transaction as the event, so a bridge
//! killed at any moment finds the file and its marks in agreement.

use houserule_core::dice::Entropy;
use houserule_core::event::Header;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The prefix of every `meta` key a bridge keeps in the campaign file (its room, its place in
/// it, who is who). No copy of the file carries them: a copy is not linked to the room.
pub const MARK_PREFIX: &str = "bridge.";

/// The message an action answers (recorded as `detail.origin` in its event's header).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// The bridge (`matrix`).
    pub via: String,
    /// The room the message was sent in.
    pub room: String,
    /// The message's id in that room.
    pub event: String,
}

impl ChatMessage {
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

    /// The message an event's header records, if any.
    pub fn of(header: &Header) -> Option<ChatMessage> {
        serde_json::from_value(header.detail.as_ref()?.get("origin")?.clone()).ok()
    }
}

/// What a bridge adds to an action or a post it took from a chat message: the message, and
/// its own marks (how far it has answered) for the file's `meta` table, written in the same
/// transaction as the event (keys start with [`MARK_PREFIX`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bridged {
    pub message: ChatMessage,
    pub marks: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_differs_by_message_and_bridge() {
        let a = ChatMessage { via: "matrix".into(), room: "!r:hs".into(), event: "$a".into() };
        let b = ChatMessage { event: "$b".into(), ..a.clone() };
        let c = ChatMessage { via: "other".into(), ..a.clone() };
        assert_ne!(a.entropy().0, b.entropy().0);
        assert_ne!(a.entropy().0, c.entropy().0);
        assert_eq!(a.entropy().0, a.clone().entropy().0);
    }
}
