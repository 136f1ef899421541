//! The one rule for text that comes from outside the engine, and how a terminal shows text.
//!
//! **The rule** ([`check`]): no text a player, a script or a file supplies — an action's text
//! parameters, the names of entities, traits, pools, fields and variables, narration, a post,
//! the campaign's name — holds a control character: nothing in C0 (U+0000–U+001F), DEL
//! (U+007F) or C1 (U+0080–U+009F), no line or paragraph separator (U+2028, U+2029), and none of
//! the bidirectional controls that make text show in another order than it is stored (U+061C,
//! U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). Text meant to run over several lines
//! ([`Lines::Several`]: narration, a post, a long text parameter, a text value) may hold line
//! breaks and tabs; a name never does. The rule is checked where text enters — parameters,
//! posts, the host API through the transaction's caps, a campaign's name — and again on every
//! event read from a file.
//!
//! **The second wall** ([`shown`], [`shown_lines`]): whatever reaches a terminal has every
//! character the rule refuses, and every line break and tab inside one line, written as a
//! visible escape (`\u{1b}`, `\n`), so no text can move the cursor, set a window title, write
//! the clipboard, or start a line of its own.

use std::borrow::Cow;
use std::fmt;

/// Whether a text may run over several lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// A name or a short text: one line.
    One,
    /// Narration, a post, a long text: line breaks and tabs allowed.
    Several,
}

/// A character the rule refuses, and where it is (counted in characters, from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextError {
    pub position: usize,
    pub found: char,
    pub lines: Lines,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.found;
        let what = match c {
            '\n' => "a line break",
            '\t' => "a tab",
            '\u{2028}' | '\u{2029}' => "a line separator",
            c if is_bidi_control(c) => "a control that reorders how text shows",
            _ => "a control character",
        };
        let holds = match self.lines {
            Lines::One => "a name or a one-line text holds none",
            Lines::Several => "text holds none but line breaks and tabs",
        };
        write!(f, "character {} is {what} (U+{:04X}); {holds}", self.position, c as u32)
    }
}

impl std::error::Error for TextError {}

/// The bidirectional controls: marks, embeddings, overrides and isolates.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether the rule refuses `c` in text of this kind.
pub fn refused(c: char, lines: Lines) -> bool {
    match c {
        '\n' | '\t' => lines == Lines::One,
        c => c.is_control() || is_bidi_control(c) || c == '\u{2028}' || c == '\u{2029}',
    }
}

/// Checks `text` against the rule: the first character it refuses, and where.
pub fn check(text: &str, lines: Lines) -> Result<(), TextError> {
    match text.chars().enumerate().find(|(_, c)| refused(*c, lines)) {
        None => Ok(()),
        Some((i, found)) => Err(TextError { position: i + 1, found, lines }),
    }
}

/// Text as one line of a terminal shows it: every character the rule refuses in a name (line
/// breaks and tabs included) written as a visible escape (`\n`, `\u{1b}`).
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| refused(c, Lines::One)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if refused(c, Lines::One) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Text of several lines as a terminal shows it: each line through [`shown`].
pub fn shown_lines(text: &str) -> impl Iterator<Item = Cow<'_, str>> {
    text.split('\n').map(shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_hold_no_control_and_text_only_line_breaks_and_tabs() {
        assert!(check("Gandolf the Grey", Lines::One).is_ok());
        assert!(check("two\nlines\tand a tab", Lines::Several).is_ok());
        let e = check("Bob\n#9", Lines::One).unwrap_err();
        assert_eq!(e.to_string(), "character 4 is a line break (U+000A); a name or a one-line text holds none");
        let e = check("ok\u{1b}]0;title\u{7}", Lines::Several).unwrap_err();
        assert_eq!((e.position, e.found), (3, '\u{1b}'));
        assert!(check("evil\u{202e}txt", Lines::Several).unwrap_err().to_string().contains("reorders"));
        for c in ['\u{7f}', '\u{85}', '\u{9b}', '\u{2028}', '\r', '\0'] {
            assert!(check(&format!("a{c}"), Lines::Several).is_err(), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn a_terminal_shows_every_refused_character_as_an_escape() {
        assert_eq!(shown("plain – text"), "plain – text");
        assert_eq!(shown("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(shown("Bob\n#9 roll"), "Bob\\n#9 roll");
        assert_eq!(shown_lines("one\ntwo\u{9b}").collect::<Vec<_>>(), vec!["one", "two\\u{9b}"]);
    }

    proptest! {
        #[test]
        fn whatever_the_text_a_shown_line_holds_no_control(text in "\\PC*|[\\x00-\\x{a0}\\x{2028}\\x{202e}\\x{2066}]*") {
            let line = shown(&text);
            prop_assert!(!line.chars().any(|c| c.is_control() || is_bidi_control(c) || c == '\u{2028}'), "{line:?}");
        }
    }
}
