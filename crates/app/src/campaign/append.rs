//! An event about to be appended ([`Append`]): what it is, who made it, the transaction it is
//! made of, and what else its SQLite transaction writes — the sources it puts in force, a
//! bridge's marks and other `meta` values, secrets. One value from the caller to
//! [`super::Campaign::commit`], so everything an event writes lands together or not at all.

use crate::chat::Bridged;
use houserule_core::action::Staged;
use houserule_core::event::EventKind;
use houserule_core::Role;
use serde_json::Value;

/// The sources an event puts in force, by layer (`ruleset`, `house`): `(name, text)` pairs.
pub(crate) type Sources<'a> = &'a [(&'a str, &'a [(String, String)])];

/// An event about to be appended, with what its transaction also writes.
pub(crate) struct Append<'a> {
    pub kind: EventKind,
    pub actor: Option<Role>,
    pub action: Option<String>,
    pub detail: Option<Value>,
    pub staged: Staged,
    pub sources: Sources<'a>,
    /// Values for the file's `meta` table.
    pub meta: Vec<(String, String)>,
    /// Values for the file's `secrets` table (no copy carries them).
    pub secrets: Vec<(String, String)>,
}

impl<'a> Append<'a> {
    /// An event of `kind` by `actor`, made of `staged`, writing nothing else.
    pub fn new(kind: EventKind, actor: Option<Role>, staged: Staged) -> Append<'a> {
        Append { kind, actor, action: None, detail: None, staged, sources: &[], meta: vec![], secrets: vec![] }
    }

    /// The action it takes.
    pub fn action(mut self, action: &str) -> Append<'a> {
        self.action = Some(action.to_string());
        self
    }

    /// What its header says besides the usual.
    pub fn detail(mut self, detail: Option<Value>) -> Append<'a> {
        self.detail = detail;
        self
    }

    /// The sources it puts in force.
    pub fn sources(mut self, sources: Sources<'a>) -> Append<'a> {
        self.sources = sources;
        self
    }

    /// A `meta` value written with it.
    pub fn meta(mut self, key: &str, value: &str) -> Append<'a> {
        self.meta.push((key.to_string(), value.to_string()));
        self
    }

    /// A secret written with it.
    pub fn secret(mut self, key: &str, value: &str) -> Append<'a> {
        self.secrets.push((key.to_string(), value.to_string()));
        self
    }

    /// Taken from a chat message by a bridge: the header records the message, and the
    /// bridge's marks are written with it.
    pub fn bridged(mut self, bridged: Option<&Bridged>) -> Append<'a> {
        if let Some(b) = bridged {
            self.detail = Some(b.message.detail());
            self.meta.extend(b.marks.iter().cloned());
        }
        self
    }
}
