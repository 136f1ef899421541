//! Events: the append-only record of a campaign, and the hash chain over it.
//!
//! An event is a header (sequence number, previous hash, time, kind, actor, action) and an
//! ordered list of items (parameters, rolls, changes, narration, the result). Each item carries
//! a visibility. Its *commitment* is `SHA-256` over its visibility, owner, public label and the
//! digest of its body (`SHA-256(salt ‖ body JSON)`, salted when the item is not public), so a
//! copy of the log may drop a secret body and keep only its digest, and the event hash still
//! checks. The event hash is
//! `SHA-256("houserule-event-v1" ‖ previous hash ‖ seq as u64 LE ‖ SHA-256(header JSON) ‖
//! commitments of the items in order)`.

use crate::dice::Roll;
use crate::table::Change;
use crate::visibility::{Role, Visibility};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A 32-byte SHA-256 digest.
pub type Hash = [u8; 32];

/// The hash before the first event.
pub const GENESIS: Hash = [0u8; 32];

/// What an event records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// The campaign was created on a ruleset.
    Created,
    /// An action was taken.
    Action,
    /// The rules in force changed (a hot reload or a house-rule edit).
    Reload,
    /// A dice seed was disclosed and a new one committed.
    Reveal,
    /// The file was brought up to this version's format; the rules it was played with are
    /// recorded, by digest, from here on.
    Migrated,
    /// The GM changed a table permission (who may type in their own dice).
    Permission,
    /// The GM took actions back: the table is as it was after event `detail.to`; the events in
    /// `detail.voided` stay in the log, voided.
    Undo,
    /// The GM set a value by hand (`detail.reason` says why).
    Correction,
    /// Someone wrote a post (table talk: [`crate::talk`]).
    Post,
}

/// The public part of an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Header {
    pub seq: u64,
    /// Hex hash of the event before (all zeros for the first).
    pub prev: String,
    /// UTC time, RFC 3339.
    pub at: String,
    pub kind: EventKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Public details of the kind (ruleset and seed commitment for `created`, sources for
    /// `reload`, the disclosed seed for `reveal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
    /// Hex SHA-256 of the table after this event, on events that store a snapshot — so a
    /// snapshot is as trustworthy as the chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// The body of an item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Body {
    /// An action parameter as validated.
    Param {
        name: String,
        value: Value,
    },
    Roll {
        roll: Roll,
    },
    Change {
        change: Change,
    },
    /// A line of narration from the rules.
    Say {
        text: String,
    },
    /// What the action returned.
    Result {
        value: Value,
    },
    /// A post someone wrote (never a script).
    Post {
        post: crate::talk::Post,
    },
}

/// One item of an event. `body` is absent in a redacted copy, where `digest` stands in for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// What anyone may know of a non-public item ("white bag changed").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Facts anyone may know of a non-public item, kept in a redacted copy: a secret roll's
    /// counter (`{"counter": 7}`), so every copy can check that no roll was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public: Option<Value>,
    /// Hex salt for non-public bodies, so a short secret cannot be guessed from its digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub salt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Body>,
    /// Hex digest of the body, kept when the body was redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// An event whose hash cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("item {index} has neither a body nor a digest")]
    Empty { index: usize },
    #[error("item {index}: {message}")]
    Malformed { index: usize, message: String },
}

impl Item {
    pub fn new(body: Body, visibility: Visibility, owner: Option<String>, label: Option<String>) -> Item {
        let salt = (visibility != Visibility::Public).then(|| {
            let mut s = [0u8; 16];
            getrandom::getrandom(&mut s).expect("the operating system's random source");
            hex::encode(s)
        });
        Item { visibility, owner, label, public: None, salt, body: Some(body), digest: None }
    }

    /// The roll counter of a roll item, from its body or (redacted) from its public facts.
    pub fn roll_counter(&self) -> Option<u64> {
        match &self.body {
            Some(Body::Roll { roll }) => match roll.source {
                crate::dice::RollSource::Generated { counter, .. } => Some(counter),
                crate::dice::RollSource::Forced => None,
            },
            Some(_) => None,
            None => self.public.as_ref().and_then(|p| p.get("counter")).and_then(Value::as_u64),
        }
    }

    /// The body digest: computed from the body, or the stored one of a redacted item.
    pub fn body_digest(&self, index: usize) -> Result<Hash, EventError> {
        match (&self.body, &self.digest) {
            (Some(body), _) => {
                let json =
                    serde_json::to_value(body).map_err(|e| EventError::Malformed { index, message: e.to_string() })?;
                Ok(digest_value(self.salt.as_deref(), &json))
            }
            (None, Some(d)) => parse_hash(d)
                .ok_or_else(|| EventError::Malformed { index, message: "digest is not 64 hex digits".into() }),
            (None, None) => Err(EventError::Empty { index }),
        }
    }

    /// The item's commitment, as it enters the event hash.
    pub fn commitment(&self, index: usize) -> Result<Hash, EventError> {
        let body = self.body_digest(index)?;
        let mut h = Sha256::new();
        h.update(b"houserule-item-v1");
        h.update(self.visibility.to_string().as_bytes());
        h.update([0]);
        h.update(self.owner.as_deref().unwrap_or("").as_bytes());
        h.update([0]);
        h.update(self.label.as_deref().unwrap_or("").as_bytes());
        h.update([0]);
        if let Some(p) = &self.public {
            h.update(serde_json::to_vec(p).expect("JSON values serialise"));
        }
        h.update([0]);
        h.update(body);
        Ok(h.finalize().into())
    }

    /// A copy without the body (and salt), keeping the digest.
    pub fn redacted(&self, index: usize) -> Result<Item, EventError> {
        let digest = hex::encode(self.body_digest(index)?);
        Ok(Item {
            visibility: self.visibility,
            owner: self.owner.clone(),
            label: self.label.clone(),
            public: self.public.clone(),
            salt: None,
            body: None,
            digest: Some(digest),
        })
    }
}

/// Applies an event's changes and roll counters to a table: the fold that makes the state.
/// A redacted item (a player's copy) has no body and changes nothing.
pub fn fold(table: &mut crate::table::Table, items: &[Item]) -> Result<(), crate::table::TableError> {
    for item in items {
        match &item.body {
            Some(Body::Change { change }) => table.apply(change)?,
            Some(Body::Roll { roll }) => {
                if let crate::dice::RollSource::Generated { counter, .. } = roll.source {
                    table.next_roll = counter + 1;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Digest of a body given as JSON (as stored), with its salt.
pub fn digest_value(salt: Option<&str>, json: &Value) -> Hash {
    let mut h = Sha256::new();
    h.update(b"houserule-body-v1");
    if let Some(s) = salt {
        h.update(s.as_bytes());
    }
    h.update([0]);
    h.update(serde_json::to_vec(json).expect("JSON values serialise"));
    h.finalize().into()
}

pub fn parse_hash(text: &str) -> Option<Hash> {
    let bytes = hex::decode(text.trim()).ok()?;
    bytes.try_into().ok()
}

/// The hash of an event from its parts.
pub fn event_hash(prev: &Hash, seq: u64, header_json: &str, commitments: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update(b"houserule-event-v1");
    h.update(prev);
    h.update(seq.to_le_bytes());
    h.update(Sha256::digest(header_json.as_bytes()));
    h.update(commitments);
    h.finalize().into()
}

/// An event with its items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Event {
    pub header: Header,
    pub items: Vec<Item>,
}

impl Event {
    /// The commitments of all items, concatenated.
    pub fn commitments(&self) -> Result<Vec<u8>, EventError> {
        let mut out = Vec::with_capacity(self.items.len() * 32);
        for (i, item) in self.items.iter().enumerate() {
            out.extend_from_slice(&item.commitment(i)?);
        }
        Ok(out)
    }

    pub fn header_json(&self) -> String {
        serde_json::to_string(&self.header).expect("headers serialise")
    }

    pub fn hash(&self, prev: &Hash) -> Result<Hash, EventError> {
        Ok(event_hash(prev, self.header.seq, &self.header_json(), &self.commitments()?))
    }

    /// The rolls in this event, in order.
    pub fn rolls(&self) -> impl Iterator<Item = &Roll> {
        self.items.iter().filter_map(|i| match &i.body {
            Some(Body::Roll { roll }) => Some(roll),
            _ => None,
        })
    }

    /// The changes in this event, in order (redacted ones are skipped).
    pub fn changes(&self) -> impl Iterator<Item = &Change> {
        self.items.iter().filter_map(|i| match &i.body {
            Some(Body::Change { change }) => Some(change),
            _ => None,
        })
    }
}

/// Formats seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> Event {
        Event {
            header: Header {
                seq: 1,
                prev: hex::encode(GENESIS),
                at: rfc3339(0),
                kind: EventKind::Action,
                actor: Some(Role::Gm),
                action: Some("gm_turn".into()),
                detail: None,
                state: None,
            },
            items: vec![
                Item::new(Body::Say { text: "The goblins charge.".into() }, Visibility::Public, None, None),
                Item::new(
                    Body::Param { name: "stones".into(), value: 4.into() },
                    Visibility::Gm,
                    None,
                    Some("stones".into()),
                ),
            ],
        }
    }

    #[test]
    fn redaction_keeps_the_hash() {
        let e = event();
        let h = e.hash(&GENESIS).unwrap();
        let mut copy = e.clone();
        copy.items[1] = copy.items[1].redacted(1).unwrap();
        assert!(copy.items[1].body.is_none() && copy.items[1].salt.is_none());
        assert_eq!(copy.hash(&GENESIS).unwrap(), h, "a redacted copy must hash the same");
        let json = serde_json::to_string(&copy).unwrap();
        assert!(!json.contains("\"value\":4"), "the secret must be gone from the copy: {json}");
    }

    #[test]
    fn any_edit_changes_the_hash() {
        let e = event();
        let h = e.hash(&GENESIS).unwrap();
        let mut edited = e.clone();
        edited.items[1].body = Some(Body::Param { name: "stones".into(), value: 5.into() });
        assert_ne!(edited.hash(&GENESIS).unwrap(), h);
        let mut relabelled = e.clone();
        relabelled.items[1].visibility = Visibility::Public;
        assert_ne!(relabelled.hash(&GENESIS).unwrap(), h);
        let mut moved = e.clone();
        moved.header.seq = 2;
        assert_ne!(moved.hash(&GENESIS).unwrap(), h);
        assert_ne!(e.hash(&[1u8; 32]).unwrap(), h, "the previous hash is part of the chain");
    }

    #[test]
    fn dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_000_000), "2026-11-18T11:06:40Z");
    }
}
