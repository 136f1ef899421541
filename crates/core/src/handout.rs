//! Handouts: journal entries the GM writes (a title, light Markdown, an optional picture) and
//! reveals to everyone or to chosen players.
//!
//! A handout is table state like any other, changed only by `Change::Handout` (the GM's alone:
//! its body is never in what a player may read of the log) and shown to a viewer only through
//! [`Handout::view_for`]. Guarantee: an unrevealed handout, or one revealed to other players,
//! gives a viewer nothing — not its id, title, text or picture — and [`Handout::check`] holds
//! every handout to the bounds below, so a log cannot carry one no GM could write.

use crate::text::{self, Lines};
use crate::visibility::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Handouts one table holds.
pub const MAX_HANDOUTS: usize = 500;
/// Bytes of a handout's title (one line).
pub const MAX_TITLE_BYTES: usize = 200;
/// Bytes of a handout's text (Markdown, several lines).
pub const MAX_TEXT_BYTES: usize = 32 * 1024;
/// Players one handout is revealed to by name.
pub const MAX_READERS: usize = 64;

/// One handout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Handout {
    pub title: String,
    /// Light Markdown (paragraphs, emphasis, lists, headings, links); front ends render it with
    /// HTML turned off.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The digest of a picture the campaign holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
    /// Revealed to everyone (players and a public thread alike).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub everyone: bool,
    /// The players it is revealed to by name (besides everyone, when it is).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub readers: BTreeSet<String>,
}

/// A handout as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HandoutView {
    pub id: String,
    pub title: String,
    pub text: String,
    /// The picture's digest (the `picture` call gives it to whoever may read the handout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
    /// Revealed to everyone.
    pub everyone: bool,
    /// The players it is revealed to by name: all of them for the GM, only the viewer for a player.
    pub readers: Vec<String>,
}

/// A handout over one of the bounds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a handout's {what}: {detail}")]
pub struct HandoutError {
    pub what: &'static str,
    pub detail: String,
}

impl Handout {
    /// Whether `role` may read it: the GM always; a player when it is revealed to everyone or
    /// to them; the public when it is revealed to everyone.
    pub fn seen_by(&self, role: &Role) -> bool {
        match role {
            Role::Gm => true,
            Role::Player(p) => self.everyone || self.readers.contains(p),
            Role::Public => self.everyone,
        }
    }

    /// What `role` sees of it, if anything.
    pub fn view_for(&self, id: &str, role: &Role) -> Option<HandoutView> {
        if !self.seen_by(role) {
            return None;
        }
        let readers = match role {
            Role::Gm => self.readers.iter().cloned().collect(),
            Role::Player(p) if self.readers.contains(p) => vec![p.clone()],
            _ => vec![],
        };
        Some(HandoutView {
            id: id.to_string(),
            title: self.title.clone(),
            text: self.text.clone(),
            picture: self.picture.clone(),
            everyone: self.everyone,
            readers,
        })
    }

    /// Holds the handout to the bounds: a title of one line, a text within [`MAX_TEXT_BYTES`],
    /// a picture's digest, readers by name.
    pub fn check(&self) -> Result<(), HandoutError> {
        let bad = |what, detail: String| HandoutError { what, detail };
        if self.title.trim().is_empty() {
            return Err(bad("title", "is empty; give it a title".into()));
        }
        if self.title.len() > MAX_TITLE_BYTES {
            return Err(bad("title", format!("{} bytes; at most {MAX_TITLE_BYTES}", self.title.len())));
        }
        text::check(&self.title, Lines::One).map_err(|e| bad("title", e.to_string()))?;
        if self.text.len() > MAX_TEXT_BYTES {
            return Err(bad("text", format!("{} bytes; at most {MAX_TEXT_BYTES}", self.text.len())));
        }
        text::check(&self.text, Lines::Several).map_err(|e| bad("text", e.to_string()))?;
        if let Some(d) = &self.picture {
            crate::picture::check_digest(d).map_err(|e| bad("picture", e.to_string()))?;
        }
        if self.readers.len() > MAX_READERS {
            return Err(bad("readers", format!("{} players; at most {MAX_READERS}", self.readers.len())));
        }
        for r in &self.readers {
            text::check(r, Lines::One).map_err(|e| bad("readers", e.to_string()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letter() -> Handout {
        Handout {
            title: "The duke's letter".into(),
            text: "Meet me at the *old mill*.".into(),
            picture: None,
            everyone: false,
            readers: BTreeSet::new(),
        }
    }

    #[test]
    fn only_those_it_is_revealed_to_read_it() {
        let ann = Role::Player("ann".into());
        let bo = Role::Player("bo".into());
        let mut h = letter();
        assert!(h.view_for("h1", &ann).is_none() && h.view_for("h1", &Role::Public).is_none());
        assert!(h.view_for("h1", &Role::Gm).is_some(), "the GM reads an unrevealed handout");
        h.readers.insert("ann".into());
        h.readers.insert("cy".into());
        let seen = h.view_for("h1", &ann).unwrap();
        assert_eq!(seen.readers, vec!["ann".to_string()], "a player is not told who else reads it");
        assert!(h.view_for("h1", &bo).is_none() && h.view_for("h1", &Role::Public).is_none());
        h.everyone = true;
        assert!(h.view_for("h1", &bo).is_some() && h.view_for("h1", &Role::Public).is_some());
        assert!(h.view_for("h1", &bo).unwrap().readers.is_empty());
    }

    #[test]
    fn bounds_are_held_by_name() {
        assert!(letter().check().is_ok());
        let e = Handout { title: " ".into(), ..letter() }.check().unwrap_err();
        assert_eq!(e.what, "title");
        let e = Handout { title: "a\nb".into(), ..letter() }.check().unwrap_err();
        assert_eq!(e.what, "title");
        let e = Handout { text: "x".repeat(MAX_TEXT_BYTES + 1), ..letter() }.check().unwrap_err();
        assert!(e.to_string().contains("at most 32768"), "{e}");
        let e = Handout { picture: Some("nope".into()), ..letter() }.check().unwrap_err();
        assert_eq!(e.what, "picture");
        let e = Handout { text: "a\u{202e}b".into(), ..letter() }.check().unwrap_err();
        assert_eq!(e.what, "text");
    }
}
