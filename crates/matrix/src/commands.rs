//! What players send the referee: `!hr` command messages, readable from any Matrix client,
//! each read into one of the app layer's calls ([`houserule_app::calls::Call`]), which the same
//! dispatcher answers as it answers the desktop window and browsers — so who may do what is
//! decided in one place.
//!
//! Guarantees: a message is ours only when its first word is `!hr`; everything else in the room
//! is table talk and left alone. A command is read in full before anything runs: an unknown
//! command, an unclosed quote or a malformed `name=value` is refused with what was wrong and at
//! which column of the message, and nothing is taken.
//!
//! What phones and clients add is read through: a reply's quote of the message it answers
//! (the `> ` lines first, [`without_quote`]) is not part of the command, and curly quotes
//! (“ ” „ ‘ ’, which phone keyboards type for " and ') count as the straight ones — except in
//! `!hr say`, whose text is kept exactly as typed.

use houserule_app::calls::{As, Call, LogPage};
use houserule_app::request::{ActRequest, PostRequest};
use houserule_core::talk::PostDraft;
use serde_json::Map;

/// The word that starts every command.
pub const PREFIX: &str = "!hr";

/// The longest command read (a longer message is refused, not cut).
pub const MAX_COMMAND: usize = 8 * 1024;

/// How many log entries `!hr log` shows at most.
pub const MAX_LOG: usize = 20;

/// A command a player sent: `!hr` or `!hr help` (what the referee understands), or a call —
/// `!hr actions` (the actions the sender may take), `!hr act ACTION name=value …` (takes one),
/// `!hr view` (the table as the sender may see it), `!hr log [N]` (the last N entries, 5 when
/// not said), `!hr say TEXT` (a post to everyone, out of character); `!hr turn` (whose turn it
/// is, as the sender may see it); `!hr handouts` (the handouts the sender may read); `!hr map`
/// (the shown scene drawn as the sender may see it); `!hr move TOKEN CELL …` (moves a token
/// along the cells named, each `column,row` counted from 1 as the map's legend numbers them).
#[derive(Debug)]
pub enum Request {
    Help,
    Turn,
    Handouts,
    Map,
    /// A token (its id, or a name the sender sees) and the cells it goes through, as the
    /// legend numbers them (from 1); the path starts where the token stands.
    Move {
        token: String,
        cells: Vec<(i32, i32)>,
    },
    /// A call, boxed: a call is large and a help request is nothing.
    Call(Box<Call>),
}

fn actions() -> Request {
    Request::Call(Box::new(Call::Actions(As::default())))
}

fn view() -> Request {
    Request::Call(Box::new(Call::View(As::default())))
}

fn log(count: usize) -> Request {
    Request::Call(Box::new(Call::Log(LogPage { role: None, from: 1, before: None, limit: count })))
}

fn say(text: &str) -> Request {
    Request::Call(Box::new(Call::Say(PostRequest::new(PostDraft {
        text: text.to_string(),
        character: None,
        to: None,
    }))))
}

/// A command that could not be read: what was wrong, and the column (1-based, in characters)
/// of the message where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

/// A word of a command and the column it starts at.
#[derive(Debug, Clone, PartialEq)]
struct Word {
    text: String,
    column: usize,
}

/// Splits a command into words: spaces separate, `"…"` keeps spaces (`\"` and `\\` inside).
fn words(text: &str) -> Result<Vec<Word>, Unreadable> {
    let mut out = Vec::new();
    let mut chars = text.chars().enumerate().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        let mut open: Option<usize> = None;
        while let Some(&(j, c)) = chars.peek() {
            match (c, open) {
                (c, None) if c.is_whitespace() => break,
                ('"', None) => open = Some(j),
                ('"', Some(_)) => open = None,
                ('\\', Some(_)) => {
                    chars.next();
                    match chars.peek() {
                        Some(&(_, e @ ('"' | '\\'))) => word.push(e),
                        Some(&(_, e)) => {
                            word.push('\\');
                            word.push(e);
                        }
                        None => word.push('\\'),
                    }
                }
                (c, _) => word.push(c),
            }
            chars.next();
        }
        if let Some(j) = open {
            return Err(Unreadable { column: j + 1, message: "this quote is never closed".into() });
        }
        out.push(Word { text: word, column: i + 1 });
    }
    Ok(out)
}

/// A message's text without the quote of the message it replies to: clients that quote put it
/// first, as lines starting with `>`, then an empty line (the reply fallback of the Matrix
/// spec). Columns of refusals count from after the quote.
pub fn without_quote(body: &str) -> &str {
    if !body.starts_with('>') {
        return body;
    }
    let mut rest = body;
    while rest.starts_with('>') {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n')).unwrap_or(rest)
}

/// `text` with curly quotes made straight, character for character (columns stay).
fn straight(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            c => c,
        })
        .collect()
}

/// Reads a message: `None` when it is not a command for the referee.
pub fn read(body: &str) -> Option<Result<Request, Unreadable>> {
    let trimmed = body.trim_start();
    let first = trimmed.split_whitespace().next()?;
    if !first.eq_ignore_ascii_case(PREFIX) {
        return None;
    }
    if body.len() > MAX_COMMAND {
        let message = format!("a command is at most {MAX_COMMAND} bytes; this one is {}", body.len());
        return Some(Err(Unreadable { column: 1, message }));
    }
    // A post's text is kept as typed (quotes, spaces and lines included).
    let after = trimmed[first.len()..].trim_start();
    if let Some(text) = after.get(..3).filter(|w| w.eq_ignore_ascii_case("say")).map(|_| &after[3..]) {
        if text.is_empty() || text.starts_with(char::is_whitespace) {
            let text = text.trim();
            if text.is_empty() {
                let column = body.chars().count() + 1;
                return Some(Err(Unreadable { column, message: "say what? '!hr say TEXT'".into() }));
            }
            return Some(Ok(say(text)));
        }
    }
    Some(words(&straight(body)).and_then(|w| request(&w[1..])))
}

fn request(words: &[Word]) -> Result<Request, Unreadable> {
    let Some(command) = words.first() else { return Ok(Request::Help) };
    let rest = &words[1..];
    let none_after = |r: Request| match rest.first() {
        Some(w) => Err(Unreadable { column: w.column, message: format!("'{}' takes nothing after it", command.text) }),
        None => Ok(r),
    };
    match command.text.to_ascii_lowercase().as_str() {
        "help" => none_after(Request::Help),
        "actions" => none_after(actions()),
        "view" => none_after(view()),
        "turn" => none_after(Request::Turn),
        "handouts" | "handout" => none_after(Request::Handouts),
        "map" => none_after(Request::Map),
        "move" => move_request(command, rest),
        "log" => match rest {
            [] => Ok(log(5)),
            [n] => match n.text.parse::<usize>() {
                Ok(count) if (1..=MAX_LOG).contains(&count) => Ok(log(count)),
                _ => Err(Unreadable {
                    column: n.column,
                    message: format!("'{}': how many entries, from 1 to {MAX_LOG}", n.text),
                }),
            },
            [_, extra, ..] => Err(Unreadable { column: extra.column, message: "'log' takes one number".into() }),
        },
        "act" => {
            let Some((action, pairs)) = rest.split_first() else {
                return Err(Unreadable {
                    column: command.column + command.text.chars().count(),
                    message: "which action? '!hr actions' lists them".into(),
                });
            };
            if action.text.contains('=') {
                return Err(Unreadable {
                    column: action.column,
                    message: "the action's name comes first, then its parameters as name=value".into(),
                });
            }
            let mut params = Map::new();
            for pair in pairs {
                let one = houserule_core::params::typed_pairs([pair.text.as_str()])
                    .map_err(|m| Unreadable { column: pair.column, message: format!("parameter {m}") })?;
                for (k, v) in one {
                    if params.insert(k.clone(), v).is_some() {
                        return Err(Unreadable {
                            column: pair.column,
                            message: format!("parameter '{k}' is given twice"),
                        });
                    }
                }
            }
            Ok(Request::Call(Box::new(Call::Act(ActRequest {
                action: action.text.clone(),
                params,
                ..ActRequest::default()
            }))))
        }
        other => Err(Unreadable {
            column: command.column,
            message: format!(
                "'{other}' is not a command: try help, actions, act, view, turn, map, move, handouts, log or say"
            ),
        }),
    }
}

/// `!hr move TOKEN CELL …`: the token, then at least one cell `column,row` (from 1).
fn move_request(command: &Word, rest: &[Word]) -> Result<Request, Unreadable> {
    let Some((token, cells)) = rest.split_first() else {
        return Err(Unreadable {
            column: command.column + command.text.chars().count(),
            message: "which token, to where? '!hr move Frody 4,2' (column,row as the map's legend says them)".into(),
        });
    };
    if cells.is_empty() {
        return Err(Unreadable {
            column: token.column + token.text.chars().count(),
            message: format!("to where? '!hr move {} 4,2' (column,row as the map's legend says them)", token.text),
        });
    }
    let cell = |w: &Word| {
        let number = |t: &str| t.trim().parse::<i32>().ok().filter(|n| (1..=100_000).contains(n));
        match w.text.split_once(',') {
            Some((c, r)) => number(c).zip(number(r)).ok_or(()),
            None => Err(()),
        }
        .map_err(|()| Unreadable {
            column: w.column,
            message: format!("'{}' is not a cell: write column,row, each from 1 (as in 4,2)", w.text),
        })
    };
    let cells = cells.iter().map(cell).collect::<Result<Vec<_>, _>>()?;
    Ok(Request::Move { token: token.text.clone(), cells })
}

/// What the referee understands, for `!hr help`.
pub fn help(player: Option<&str>) -> String {
    let who = match player {
        Some(p) => format!("You play as {p}."),
        None => "You have no seat at this table yet: the GM gives you one (houserule matrix invite).".into(),
    };
    format!(
        "Houserule referee. {who}\n\
         !hr actions — the actions you may take, with their parameters\n\
         !hr act ACTION name=value … — take one (quote a value with spaces: name=\"two words\"; lists: a,b)\n\
         !hr view — the table as you may see it (what only you may see comes in our direct room)\n\
         !hr turn — whose turn it is, and the turn order\n\
         !hr map — the map as you may see it (what only you may see comes in our direct room)\n\
         !hr move TOKEN COLUMN,ROW … — move a token (its name or id) through those cells, counted from 1 as the map's legend does\n\
         !hr handouts — the handouts the GM has shown you\n\
         !hr log [N] — the last N entries of the log (1 to {MAX_LOG})\n\
         !hr say TEXT — a post into the campaign's log, to everyone\n\
         Each result ends with a line to check it against a copy of the campaign file."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    use serde_json::Value;

    fn act(body: &str) -> (String, Map<String, Value>) {
        match read(body) {
            Some(Ok(Request::Call(call))) => match *call {
                Call::Act(r) => (r.action, r.params),
                other => panic!("{body}: {other:?}"),
            },
            other => panic!("{body}: {other:?}"),
        }
    }

    #[test]
    fn reads_an_action_with_quoted_values_and_lists() {
        let (action, params) =
            act(r#"!hr act challenge_roll character=gandolf attack=Fireball,Magic note="two \"big\" words""#);
        assert_eq!(action, "challenge_roll");
        assert_eq!(
            Value::Object(params),
            json!({"character": "gandolf", "attack": "Fireball,Magic", "note": "two \"big\" words"})
        );
    }

    #[test]
    fn other_messages_are_not_commands() {
        for body in ["hello", "!hrx act", "", "   ", "I said !hr act"] {
            assert!(read(body).is_none(), "{body}");
        }
        assert!(matches!(read("!HR"), Some(Ok(Request::Help))));
        let Some(Ok(Request::Call(log))) = read("  !hr log 3") else { panic!("a log request") };
        assert!(matches!(*log, Call::Log(LogPage { limit: 3, .. })));
        let Some(Ok(Request::Call(say))) = read("!hr say  We \"run\"!\nNow. ") else { panic!("a post") };
        match *say {
            Call::Say(p) => assert_eq!(p.draft.text, "We \"run\"!\nNow."),
            other => panic!("{other:?}"),
        }
        assert!(matches!(read("!hr sayx"), Some(Err(_))));
        assert!(read("!hr say ").unwrap().unwrap_err().message.contains("say what"));
    }

    #[test]
    fn refusals_say_what_and_where() {
        let err = |body: &str| read(body).unwrap().unwrap_err();
        assert_eq!(err(r#"!hr act roll note="open"#).column, 19);
        assert!(err("!hr act roll note").message.contains("expected NAME=VALUE"));
        assert_eq!(err("!hr act roll a=1 a=2").column, 18);
        assert_eq!(err("!hr dance").column, 5);
        assert!(err("!hr log 99").message.contains("from 1 to 20"));
        assert!(err("!hr act").message.contains("which action"));
        assert!(err("!hr view me").message.contains("takes nothing"));
        assert!(err(&format!("!hr act x note={}", "a".repeat(MAX_COMMAND))).message.contains("at most"));
    }

    #[test]
    fn a_move_names_its_token_and_cells_from_one() {
        let Some(Ok(Request::Move { token, cells })) = read("!hr move \"Old Tom\" 2,3 4,3") else { panic!("a move") };
        assert_eq!((token.as_str(), cells), ("Old Tom", vec![(2, 3), (4, 3)]));
        let err = |body: &str| read(body).unwrap().unwrap_err();
        assert_eq!(err("!hr move frody 0,3").column, 16, "cells count from 1");
        assert!(err("!hr move frody 3").message.contains("not a cell"));
        assert!(err("!hr move frody").message.contains("to where?"));
        assert!(err("!hr move").message.contains("which token"));
        assert!(matches!(read("!hr map"), Some(Ok(Request::Map))));
        assert!(err("!hr map big").message.contains("takes nothing"));
    }

    #[test]
    fn curly_quotes_read_as_straight_ones() {
        let (_, params) =
            act("!hr act a traits=\u{201C}IQ of 180,Magic!\u{201D} note=\u{201E}low\u{201C} who=Achilles\u{2019}");
        assert_eq!(Value::Object(params), json!({"traits": "IQ of 180,Magic!", "note": "low", "who": "Achilles'"}));
        let err = read("!hr act a note=\u{201C}open").unwrap().unwrap_err();
        assert_eq!(err.column, 16, "{err}");
        let Some(Ok(Request::Call(say))) = read("!hr say \u{201C}Run\u{201D}, she said") else { panic!("a post") };
        match *say {
            Call::Say(p) => assert_eq!(p.draft.text, "\u{201C}Run\u{201D}, she said"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_reply_is_read_without_its_quote() {
        let body = "> <@ann:example.org> The pan!\n> second line\n\n!hr act a x=1";
        assert_eq!(without_quote(body), "!hr act a x=1");
        assert_eq!(without_quote("> quoted !hr act a\n\nnice"), "nice");
        assert!(read(without_quote("> <@ann:example.org> !hr act a\n\nnice one")).is_none());
        assert_eq!(without_quote("!hr view"), "!hr view");
        assert_eq!(without_quote("> only a quote"), "");
    }

    proptest! {
        /// Whatever a reply quotes, the text after the quote is read as if sent alone.
        #[test]
        fn the_quote_never_reaches_the_command(quoted in "[^\n]{0,30}(\n[^\n]{0,30}){0,3}", text in "[^>\n][ -~]{0,30}") {
            let quote: String = quoted.lines().map(|l| format!("> {l}\n")).collect();
            let quote = if quote.is_empty() { "> \n".to_string() } else { quote };
            let body = format!("{quote}\n{text}");
            prop_assert_eq!(without_quote(&body), text.as_str());
        }

        /// Curly quotes read as the straight ones would, in any value.
        #[test]
        fn curly_and_straight_read_alike(value in "[ a-z,é]{0,20}") {
            let straight = act(&format!("!hr act a v=\"{value}\""));
            let curly = act(&format!("!hr act a v=\u{201C}{value}\u{201D}"));
            prop_assert_eq!(straight, curly);
        }

        /// Any message is either not a command or read into a request or a refusal at a column
        /// inside the message — never a panic.
        #[test]
        fn any_message_reads_or_is_refused_in_place(body in "(!hr )?[ a-z=\"\\\\,é]{0,40}") {
            if let Some(Err(e)) = read(&body) {
                prop_assert!(e.column >= 1 && e.column <= body.chars().count() + 1, "{e} in {body:?}");
            }
        }

        /// A value written in quotes comes back exactly as it was, whatever it holds.
        #[test]
        fn quoted_values_come_back_as_written(value in "[ a-z\"\\\\=,é]{0,30}") {
            let quoted = value.replace('\\', "\\\\").replace('"', "\\\"");
            let (_, params) = act(&format!("!hr act a v=\"{quoted}\""));
            prop_assert_eq!(params.get("v"), Some(&Value::String(value.trim().to_string())));
        }
    }
}
