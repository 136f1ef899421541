//! Play-by-post posts: an action's outcome as a forum post, with a line that lets anyone
//! check it against the campaign file.
//!
//! A post is rendered from the *public* log entry, so it never shows more than anyone at the
//! table may see. It names who acted and what they did, shows every die (successes in bold,
//! dropped dice struck through, explosions and marks such as critical or complication named),
//! the narration and the visible changes, and ends with the campaign id, event number and event
//! hash — which `houserule verify FILE --event N --hash H` confirms.

use crate::dice::{Die, Roll, RollSource, Sides};
use crate::event::{Body, EventKind};
use crate::render;
use crate::view::{CampaignInfo, LogEntry};
use crate::visibility::Role;

/// How to mark up a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostFormat {
    Markdown,
    Bbcode,
    Text,
}

impl PostFormat {
    pub fn parse(text: &str) -> Option<PostFormat> {
        match text.to_ascii_lowercase().as_str() {
            "markdown" | "md" => Some(PostFormat::Markdown),
            "bbcode" | "bb" => Some(PostFormat::Bbcode),
            "text" | "plain" => Some(PostFormat::Text),
            _ => None,
        }
    }

    fn bold(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("**{s}**"),
            PostFormat::Bbcode => format!("[b]{s}[/b]"),
            PostFormat::Text => s.to_string(),
        }
    }

    fn strike(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("~~{s}~~"),
            PostFormat::Bbcode => format!("[s]{s}[/s]"),
            PostFormat::Text => format!("({s})"),
        }
    }

    fn italic(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("*{s}*"),
            PostFormat::Bbcode => format!("[i]{s}[/i]"),
            PostFormat::Text => s.to_string(),
        }
    }

    fn code(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("`{s}`"),
            PostFormat::Bbcode => format!("[code]{s}[/code]"),
            PostFormat::Text => s.to_string(),
        }
    }

    fn quote(self, lines: &[String]) -> String {
        match self {
            PostFormat::Markdown => lines.iter().map(|l| format!("> {l}")).collect::<Vec<_>>().join("\n"),
            PostFormat::Bbcode => format!("[quote]{}[/quote]", lines.join("\n")),
            PostFormat::Text => lines.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"),
        }
    }
}

fn face(die: &Die, f: PostFormat) -> String {
    let mut s = match (die.sides, die.face) {
        (Sides::Fudge, 1) => "+".to_string(),
        (Sides::Fudge, -1) => "−".to_string(),
        (Sides::Fudge, _) => "0".to_string(),
        (_, n) => n.to_string(),
    };
    if die.exploded {
        s.push('!');
    }
    if !die.marks.is_empty() {
        s.push_str(&format!(" ({})", die.marks.join(", ")));
    }
    if !die.kept {
        f.strike(&s)
    } else if die.success == Some(true) {
        f.bold(&s)
    } else {
        s
    }
}

fn roll_line(roll: &Roll, f: PostFormat) -> String {
    let label = roll.label.as_ref().map(|l| format!("{}: ", f.italic(l))).unwrap_or_default();
    let faces: Vec<String> = roll.dice().map(|d| face(d, f)).collect();
    let result = match roll.successes {
        Some(s) => format!("{s} success{}", if s == 1 { "" } else { "es" }),
        None => roll.total.to_string(),
    };
    let source = if roll.source == RollSource::Forced { " — dice rolled by hand" } else { "" };
    format!("{label}{} [{}] = {}{source}", roll.expr, faces.join(", "), f.bold(&result))
}

/// A post's light Markdown (`**bold**`, `*italic*` or `_italic_`, `> quote` lines) in `f`:
/// Markdown as typed, BBCode tags, or plain text without the marks.
pub fn markup(text: &str, f: PostFormat) -> String {
    if f == PostFormat::Markdown {
        return text.to_string();
    }
    let mut out = Vec::new();
    let mut quote: Vec<String> = Vec::new();
    for line in text.lines() {
        let inline = inline_marks(line.strip_prefix('>').map(str::trim_start).unwrap_or(line), f);
        if line.starts_with('>') {
            quote.push(inline);
        } else {
            if !quote.is_empty() {
                out.push(f.quote(&std::mem::take(&mut quote)));
            }
            out.push(inline);
        }
    }
    if !quote.is_empty() {
        out.push(f.quote(&quote));
    }
    out.join("\n")
}

/// `**bold**` and `*italic*`/`_italic_` spans of one line in `f` (an unclosed mark stays as typed).
fn inline_marks(line: &str, f: PostFormat) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (mark, len) = if chars[i] == '*' && chars.get(i + 1) == Some(&'*') {
            ("**", 2)
        } else if chars[i] == '*' || chars[i] == '_' {
            (if chars[i] == '*' { "*" } else { "_" }, 1)
        } else {
            out.push(chars[i]);
            i += 1;
            continue;
        };
        let rest: String = chars[i + len..].iter().collect();
        match rest.find(mark).filter(|&end| end > 0) {
            Some(end) => {
                let inner = &rest[..end];
                out.push_str(&if len == 2 { f.bold(inner) } else { f.italic(inner) });
                i += len + inner.chars().count() + len;
            }
            None => {
                out.push_str(mark);
                i += len;
            }
        }
    }
    out
}

/// A post for one log entry (render the public view of the entry).
pub fn post(entry: &LogEntry, campaign: &CampaignInfo, file: &str, f: PostFormat) -> String {
    let who = match &entry.actor {
        Some(Role::Gm) => "The GM".to_string(),
        Some(Role::Player(p)) => p.clone(),
        Some(Role::Public) | None => "The table".to_string(),
    };
    let what = match entry.kind {
        EventKind::Action => entry.action.clone().unwrap_or_default().replace('_', " "),
        EventKind::Created => "starts the campaign".into(),
        EventKind::Reload => "changes the rules".into(),
        EventKind::Reveal => "reveals the dice seed".into(),
        EventKind::Migrated => "brings the file up to date".into(),
        EventKind::Permission => "changes who may type in dice".into(),
        EventKind::Undo => "takes actions back".into(),
        EventKind::Correction => "corrects the table".into(),
        EventKind::Post => "posts".into(),
    };
    let talk = entry.items.iter().find_map(|i| match i.body() {
        Some(Body::Post { post }) => Some(post),
        _ => None,
    });
    let who = match talk.and_then(|p| p.character_name.as_ref()) {
        Some(name) => format!("{name} ({who})"),
        None => who,
    };
    let mut out = vec![format!("{} — {} ({} #{})", f.bold(&who), f.italic(&what), campaign.name, entry.seq)];
    if let Some(p) = talk {
        out.push(markup(&p.text, f));
    }
    let params: Vec<String> = entry
        .items
        .iter()
        .filter_map(|i| match i.body() {
            Some(Body::Param { name, value }) if !value.is_null() => Some(format!("{name}: {}", render::value(value))),
            _ => None,
        })
        .collect();
    if !params.is_empty() {
        out.push(params.join(" · "));
    }
    let mut lines = Vec::new();
    for i in &entry.items {
        match i.body() {
            Some(Body::Roll { roll }) => lines.push(roll_line(roll, f)),
            Some(Body::Say { text }) => lines.push(text.clone()),
            // Values and tokens that changed; trait bookkeeping (use counts) stays out of posts.
            Some(Body::Change { change })
                if !matches!(
                    change,
                    crate::table::Change::Setting { .. }
                        | crate::table::Change::Trait { .. }
                        | crate::table::Change::DefinePool { .. }
                        | crate::table::Change::Rules { .. }
                ) =>
            {
                lines.push(format!("· {}", render::change(change)))
            }
            _ => {}
        }
    }
    if !lines.is_empty() {
        out.push(f.quote(&lines));
    }
    out.push(format!(
        "Check it: {} (campaign {}, event {}, hash {})",
        f.code(&format!("houserule verify {file} --event {} --hash {}", entry.seq, entry.hash)),
        campaign.id,
        entry.seq,
        &entry.hash[..16.min(entry.hash.len())]
    ));
    out.join("\n")
}
