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
    /// The HTML subset chat clients show (Matrix's `formatted_body`): every text escaped.
    Html,
}

impl PostFormat {
    pub fn parse(text: &str) -> Option<PostFormat> {
        match text.to_ascii_lowercase().as_str() {
            "markdown" | "md" => Some(PostFormat::Markdown),
            "bbcode" | "bb" => Some(PostFormat::Bbcode),
            "text" | "plain" => Some(PostFormat::Text),
            "html" => Some(PostFormat::Html),
            _ => None,
        }
    }

    fn bold(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("**{s}**"),
            PostFormat::Bbcode => format!("[b]{s}[/b]"),
            PostFormat::Text => s.to_string(),
            PostFormat::Html => format!("<strong>{s}</strong>"),
        }
    }

    fn strike(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("~~{s}~~"),
            PostFormat::Bbcode => format!("[s]{s}[/s]"),
            PostFormat::Text => format!("({s})"),
            PostFormat::Html => format!("<del>{s}</del>"),
        }
    }

    fn italic(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("*{s}*"),
            PostFormat::Bbcode => format!("[i]{s}[/i]"),
            PostFormat::Text => s.to_string(),
            PostFormat::Html => format!("<em>{s}</em>"),
        }
    }

    fn code(self, s: &str) -> String {
        match self {
            PostFormat::Markdown => format!("`{s}`"),
            PostFormat::Bbcode => format!("[code]{s}[/code]"),
            PostFormat::Text => s.to_string(),
            PostFormat::Html => format!("<code>{s}</code>"),
        }
    }

    fn quote(self, lines: &[String]) -> String {
        match self {
            PostFormat::Markdown => lines.iter().map(|l| format!("> {l}")).collect::<Vec<_>>().join("\n"),
            PostFormat::Bbcode => format!("[quote]{}[/quote]", lines.join("\n")),
            PostFormat::Text => lines.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"),
            PostFormat::Html => format!("<blockquote>{}</blockquote>", lines.join("<br>\n")),
        }
    }

    /// Text as it is, escaped for HTML.
    pub fn text(self, s: &str) -> String {
        match self {
            PostFormat::Html => escape_html(s),
            _ => s.to_string(),
        }
    }

    /// Lines joined into one post.
    fn lines(self, lines: &[String]) -> String {
        lines.join(if self == PostFormat::Html { "<br>\n" } else { "\n" })
    }
}

/// `&`, `<`, `>`, `"` and `'` as entities: a text can never open a tag or leave an attribute.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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
        s.push_str(&format!(" ({})", f.text(&die.marks.join(", "))));
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
    let label = roll.label.as_ref().map(|l| format!("{}: ", f.italic(&f.text(l)))).unwrap_or_default();
    let faces: Vec<String> = roll.dice().map(|d| face(d, f)).collect();
    let result = roll.result();
    let source = if roll.source == RollSource::Forced { " — dice rolled by hand" } else { "" };
    format!("{label}{} [{}] = {}{source}", f.text(&roll.expr), faces.join(", "), f.bold(&result))
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
    f.lines(&out)
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
            out.push_str(&f.text(&chars[i].to_string()));
            i += 1;
            continue;
        };
        let rest: String = chars[i + len..].iter().collect();
        match rest.find(mark).filter(|&end| end > 0) {
            Some(end) => {
                let inner = &rest[..end];
                let shown = f.text(inner);
                out.push_str(&if len == 2 { f.bold(&shown) } else { f.italic(&shown) });
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
    let mut out = vec![format!(
        "{} — {} ({} #{})",
        f.bold(&f.text(&who)),
        f.italic(&f.text(&what)),
        f.text(&campaign.name),
        entry.seq
    )];
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
        out.push(f.text(&params.join(" · ")));
    }
    let mut lines = Vec::new();
    for i in &entry.items {
        match i.body() {
            Some(Body::Roll { roll }) => lines.push(roll_line(roll, f)),
            Some(Body::Say { text }) => lines.push(f.text(text)),
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
                lines.push(f.text(&format!("· {}", render::change(change))))
            }
            _ => {}
        }
    }
    if !lines.is_empty() {
        out.push(f.quote(&lines));
    }
    out.push(format!(
        "Check it: {} (campaign {}, event {}, hash {})",
        f.code(&f.text(&format!("houserule verify {file} --event {} --hash {}", entry.seq, entry.hash))),
        f.text(&campaign.id),
        entry.seq,
        f.text(&entry.hash[..16.min(entry.hash.len())])
    ));
    f.lines(&out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::talk::{Audience, Post};
    use crate::view::{LogItem, RulesetInfo};
    use crate::Visibility;
    use proptest::prelude::*;

    fn entry(text: &str) -> (LogEntry, CampaignInfo) {
        let shown = |body| LogItem::Shown { visibility: Visibility::Public, body };
        let post = Post {
            text: format!("**{text}** _{text}_\n> {text}"),
            character: None,
            character_name: Some(text.into()),
            to: Audience::Everyone,
            edits: None,
        };
        let entry = LogEntry {
            seq: 3,
            hash: "ab".repeat(32),
            at: String::new(),
            kind: EventKind::Action,
            actor: Some(Role::Player(text.into())),
            action: Some(text.into()),
            detail: None,
            items: vec![
                shown(Body::Post { post }),
                shown(Body::Param { name: text.into(), value: serde_json::Value::String(text.into()) }),
                shown(Body::Say { text: text.into() }),
            ],
            voided_by: None,
        };
        let ruleset = RulesetInfo { id: "r".into(), name: "r".into(), version: "1".into() };
        let info = CampaignInfo {
            id: text.into(),
            name: text.into(),
            ruleset,
            events: 3,
            head: String::new(),
            seed_commitment: String::new(),
        };
        (entry, info)
    }

    /// The tags a post's HTML may hold: those it writes itself.
    const TAGS: [&str; 10] =
        ["strong>", "/strong>", "em>", "/em>", "del>", "/del>", "code>", "/code>", "br>", "blockquote>"];

    proptest! {
        /// Whatever a name, an action, a parameter, narration or a post says, the HTML shows it
        /// as text: every `<` opens one of the post's own tags, and no quote is left raw.
        #[test]
        fn html_posts_never_carry_markup_from_their_texts(text in "[a-z<>&\"' /=*_]{0,40}") {
            let (entry, info) = entry(&text);
            let html = post(&entry, &info, &text, PostFormat::Html);
            for (i, _) in html.match_indices('<') {
                let rest = &html[i + 1..];
                prop_assert!(
                    TAGS.iter().any(|t| rest.starts_with(t)) || rest.starts_with("/blockquote>"),
                    "unexpected markup at {}: {}", i, &html[i..]
                );
            }
            prop_assert!(!html.contains('"') && !html.contains('\''), "{}", html);
        }
    }

    #[test]
    fn html_posts_keep_the_marks_and_the_verify_line() {
        let (entry, info) = entry("a<b");
        let html = post(&entry, &info, "camp.houserule", PostFormat::Html);
        assert!(html.contains("<strong>a&lt;b</strong>"), "{html}");
        assert!(html.contains("<code>houserule verify camp.houserule --event 3 --hash "), "{html}");
    }
}
