//! Table talk: posts players and the GM write into the log, in or out of character, to
//! everyone, to the GM alone, or as a whisper between the GM and one player.
//!
//! A post is an item of its own kind ([`crate::event::Body::Post`]) in a `post` event, or in an
//! action's event when the post carries the action. Who may read it is the item's visibility,
//! so the one redaction every view, log page, export and shared copy goes through keeps a
//! whisper from everyone else: to the GM alone is a GM-only item (the GM's own note) or an
//! owner item of its author (a player's word to the GM); a whisper is an owner item of the
//! player it goes to or comes from. The rules never see posts and no script can write one.
//!
//! Text is kept as typed (a light Markdown the UI renders without HTML: see `ui/src/talk.tsx`),
//! within [`MAX_POST_CHARS`] characters and held to the one rule for text ([`crate::text`]): no
//! control character but line breaks and tabs. Whom a post speaks as and whom it goes to are
//! names, one line each.

use crate::visibility::{Role, Visibility};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest post, in characters.
pub const MAX_POST_CHARS: usize = 8000;

/// Who a post is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Audience {
    /// Everyone at the table.
    Everyone,
    /// The GM alone (from a player: a word to the GM that player sees too).
    Gm,
    /// A whisper between the GM and this player.
    Player(String),
}

crate::string_schema!(Audience, "Audience", "^(everyone|gm|player:.+)$", "everyone, gm, or player:NAME (a whisper)");

impl Audience {
    pub fn parse(text: &str) -> Result<Audience, TalkError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "" | "everyone" | "all" | "public" | "table" => Ok(Audience::Everyone),
            "gm" => Ok(Audience::Gm),
            _ => match Role::parse(text) {
                Ok(Role::Player(p)) => Ok(Audience::Player(p)),
                _ => Err(TalkError::Audience(format!(
                    "'{}' is not whom a post can go to: everyone, gm, or player:NAME",
                    text.trim()
                ))),
            },
        }
    }

    /// Who may read a post `author` writes to this audience, as an item's visibility and owner.
    pub fn visibility(&self, author: &Role) -> Result<(Visibility, Option<String>), TalkError> {
        match (self, author) {
            (Audience::Everyone, _) => Ok((Visibility::Public, None)),
            (Audience::Gm, Role::Gm) => Ok((Visibility::Gm, None)),
            (Audience::Gm, Role::Player(p)) => Ok((Visibility::Owner, Some(p.clone()))),
            (Audience::Player(to), Role::Gm) => Ok((Visibility::Owner, Some(to.clone()))),
            (Audience::Player(to), Role::Player(me)) if to == me => Ok((Visibility::Owner, Some(me.clone()))),
            (Audience::Player(_), Role::Player(_)) => Err(TalkError::Audience(
                "a whisper goes between the GM and one player: write to the GM, or to everyone".into(),
            )),
            (_, Role::Public) => Err(TalkError::Audience("only someone at the table may post".into())),
        }
    }
}

impl fmt::Display for Audience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Audience::Everyone => f.write_str("everyone"),
            Audience::Gm => f.write_str("gm"),
            Audience::Player(p) => write!(f, "player:{p}"),
        }
    }
}

impl From<Audience> for String {
    fn from(a: Audience) -> String {
        a.to_string()
    }
}

impl TryFrom<String> for Audience {
    type Error = TalkError;
    fn try_from(s: String) -> Result<Audience, TalkError> {
        Audience::parse(&s)
    }
}

/// A post as the log keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Post {
    /// As typed, in the UI's light Markdown.
    pub text: String,
    /// In character: the entity (a character the author plays; the GM may speak for anyone).
    /// Absent: out of character.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character: Option<String>,
    /// The character's name when it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_name: Option<String>,
    pub to: Audience,
    /// The post this one replaces (an edit by its author; the original stays in the log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edits: Option<u64>,
}

/// A post as someone writes it: the text, who speaks (a character, by id or name; none: out
/// of character) and whom it is for (`everyone` when absent, `gm`, or `player:NAME`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PostDraft {
    pub text: String,
    #[serde(default)]
    pub character: Option<String>,
    #[serde(default)]
    pub to: Option<String>,
}

impl PostDraft {
    /// The post `author` may write from this draft on `table`, with who may read it.
    pub fn post(
        &self,
        author: &Role,
        table: &crate::table::Table,
    ) -> Result<(Post, Visibility, Option<String>), TalkError> {
        let text = checked_text(&self.text)?;
        let to = Audience::parse(self.to.as_deref().unwrap_or(""))?;
        let (visibility, owner) = to.visibility(author)?;
        let speaker = match self.character.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            None => None,
            Some(c) => {
                crate::text::check(c, crate::text::Lines::One)
                    .map_err(|e| TalkError::Character(format!("whom the post speaks as: {e}")))?;
                let e = table
                    .resolve(c)
                    .ok_or_else(|| TalkError::Character(format!("there is no character \"{c}\" to speak as")))?;
                if let Role::Player(me) = author {
                    if e.owner.as_deref() != Some(me.as_str()) {
                        return Err(TalkError::Character(format!(
                            "{me} does not play {}: speak as your own character, or out of character",
                            e.name
                        )));
                    }
                }
                Some((e.id.clone(), e.name.clone()))
            }
        };
        let (character, character_name) = speaker.unzip();
        Ok((Post { text, character, character_name, to, edits: None }, visibility, owner))
    }
}

/// Why a post cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TalkError {
    #[error("{0}")]
    Text(String),
    #[error("{0}")]
    Audience(String),
    #[error("{0}")]
    Character(String),
    #[error("{0}")]
    Edit(String),
    #[error("{0}")]
    Roll(String),
}

/// The most dice one post may roll as it is written.
pub const MAX_INLINE_ROLLS: usize = 10;

/// The dice a post rolls as it is written, as players type them on Roll20: each `[[EXPR]]` in
/// its text, or the rest of its first line after a leading `/r` or `/roll`. Each comes with the
/// column (in characters, from 1) where its expression starts, for an error to point at. An
/// unclosed `[[`, an empty expression and more than [`MAX_INLINE_ROLLS`] are refused.
pub fn inline_rolls(text: &str) -> Result<Vec<(usize, String)>, TalkError> {
    let refuse = |m: String| Err(TalkError::Roll(m));
    let first = text.lines().next().unwrap_or("");
    for command in ["/roll ", "/r "] {
        if let Some(rest) = first.strip_prefix(command) {
            let expr = rest.trim();
            if expr.is_empty() {
                return refuse(format!("'{}' needs dice to roll, as in '/r 1d20+2'", command.trim()));
            }
            let column = command.chars().count() + rest.chars().count() - rest.trim_start().chars().count() + 1;
            return Ok(vec![(column, expr.to_string())]);
        }
    }
    let mut out = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(start) = rest.find("[[") {
        let after = &rest[start + 2..];
        let opened = text[..offset + start].chars().count() + 1;
        let Some(end) = after.find("]]") else {
            return refuse(format!("the inline roll at column {opened} is never closed with ']]'"));
        };
        let expr = after[..end].trim();
        if expr.is_empty() {
            return refuse(format!("the inline roll at column {opened} names no dice, as in '[[2d6+1]]'"));
        }
        let lead = after[..end].chars().take_while(|c| c.is_whitespace()).count();
        out.push((opened + 2 + lead, expr.to_string()));
        if out.len() > MAX_INLINE_ROLLS {
            return refuse(format!("a post rolls at most {MAX_INLINE_ROLLS} inline rolls"));
        }
        offset += start + 2 + end + 2;
        rest = &text[offset..];
    }
    Ok(out)
}

/// The text of a post as it is kept: trimmed, not empty, within bounds, and held to the one
/// rule for text of several lines ([`crate::text`]: no control character but line breaks and
/// tabs; a carriage return is dropped).
pub fn checked_text(text: &str) -> Result<String, TalkError> {
    let text: String = text.trim().chars().filter(|c| *c != '\r').collect();
    if text.is_empty() {
        return Err(TalkError::Text("a post needs some text".into()));
    }
    let n = text.chars().count();
    if n > MAX_POST_CHARS {
        return Err(TalkError::Text(format!("a post is at most {MAX_POST_CHARS} characters, not {n}")));
    }
    crate::text::check(&text, crate::text::Lines::Several).map_err(|e| TalkError::Text(format!("the post: {e}")))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(p: &str) -> Role {
        Role::Player(p.into())
    }

    #[test]
    fn an_audience_is_the_visibility_of_the_post() {
        assert_eq!(Audience::Everyone.visibility(&player("ann")).unwrap(), (Visibility::Public, None));
        assert_eq!(Audience::Gm.visibility(&Role::Gm).unwrap(), (Visibility::Gm, None), "the GM's own note");
        assert_eq!(
            Audience::Gm.visibility(&player("ann")).unwrap(),
            (Visibility::Owner, Some("ann".into())),
            "ann's word to the GM: ann and the GM read it"
        );
        assert_eq!(
            Audience::Player("bo".into()).visibility(&Role::Gm).unwrap(),
            (Visibility::Owner, Some("bo".into()))
        );
        assert!(Audience::Player("bo".into()).visibility(&player("ann")).is_err(), "no whispers between players");
        for (author, to) in [(Role::Gm, "player:bo"), (player("ann"), "gm")] {
            let (v, owner) = Audience::parse(to).unwrap().visibility(&author).unwrap();
            assert!(!player("cy").sees(v, owner.as_deref()), "a third player never reads {author} to {to}");
            assert!(Role::Gm.sees(v, owner.as_deref()));
            assert!(!Role::Public.sees(v, owner.as_deref()));
        }
    }

    #[test]
    fn text_is_checked_and_named_where_it_is_wrong() {
        assert_eq!(checked_text("  Hello\r\nthere  ").unwrap(), "Hello\nthere");
        assert!(checked_text("   ").is_err());
        let e = checked_text("ok\u{7}").unwrap_err();
        assert!(e.to_string().contains("character 3") && e.to_string().contains("U+0007"), "{e}");
        assert!(checked_text("hi \u{202e}olleh").is_err(), "no control that reorders the text");
        assert!(checked_text(&"x".repeat(MAX_POST_CHARS + 1)).is_err());
        assert_eq!(Audience::parse("Player:Bo").unwrap(), Audience::Player("Bo".into()));
        assert!(Audience::parse("bo").is_err());
    }

    #[test]
    fn inline_rolls_are_read_as_roll20_players_type_them() {
        let rolls = |t: &str| inline_rolls(t).unwrap();
        assert_eq!(rolls("I swing [[1d20+5]] for [[ 2d6 ]]!"), vec![(11, "1d20+5".into()), (27, "2d6".into())]);
        assert_eq!(rolls("/r 1d100\nfor the random table"), vec![(4, "1d100".into())]);
        assert_eq!(rolls("/roll   4dF"), vec![(9, "4dF".into())]);
        assert_eq!(rolls("Héllo [[1d6]]"), vec![(9, "1d6".into())], "columns count characters, not bytes");
        assert!(rolls("no dice here, [just brackets] and /r later").is_empty());
        for (text, says) in [
            ("roll [[1d6", "column 6 is never closed"),
            ("roll [[ ]] now", "column 6 names no dice"),
            ("/r   ", "'/r' needs dice"),
        ] {
            let e = inline_rolls(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text:?}: expected '{says}' in: {e}");
        }
        let eleven = "[[1d6]] ".repeat(MAX_INLINE_ROLLS + 1);
        assert!(inline_rolls(&eleven).unwrap_err().to_string().contains("at most 10"));
        assert_eq!(inline_rolls(&"[[1d6]] ".repeat(MAX_INLINE_ROLLS)).unwrap().len(), MAX_INLINE_ROLLS);
    }
}
