//! What the referee writes in the room: notices with a plain body and HTML, as replies.
//!
//! Guarantees: every text that comes from the campaign or a player is escaped in the HTML (the
//! post renderer escapes its own texts; lists and views go in a `<pre>` block, escaped); each
//! answer is a reply to the request it answers (`m.in_reply_to`) — inside the request's thread
//! when it was sent in one — and carries a machine-readable `houserule` field: the campaign,
//! event number and hash it reports, or the refusal.
//!
//! *Every message fits*: the homeserver refuses an event over 65536 bytes, so a notice whose
//! content would take more than [`MAX_CONTENT`] is sent as several messages ([`Notice::parts`]),
//! each starting "(part i of n)" and each a reply to the same request; together they hold the
//! whole text, in order, nothing cut. (Split, not shortened: a play-by-post group reads the
//! log and the table to catch up, and a cut view would hide exactly what was asked for.)

use houserule_core::post::{self, escape_html, PostFormat};
use houserule_core::view::{CampaignInfo, LogEntry};
use serde_json::{json, Value};

/// The most one message's content may take, as JSON: half the homeserver's limit for a whole
/// event, the rest left for what the homeserver adds (ids, hashes, signatures, relations).
pub const MAX_CONTENT: usize = 32 * 1024;
/// A part's label is as long as this at most (a part number of five digits).
const LONGEST_LABEL: &str = "(part 99999 of 99999)\n";
/// A text in the `houserule` field of a part is cut to this many characters.
const PART_FIELD_CHARS: usize = 500;

/// How a request is answered: in the room, or in the room and privately (to the room named);
/// or with pictures: one for the room, and one privately when the sender may see more.
pub(crate) enum Answer {
    Room(Notice),
    Both(Notice, String, Notice),
    Pictures(Picture, Option<(String, Picture)>),
}

/// A picture the referee sends (an `m.image`): a PNG, and its caption — a notice whose text,
/// HTML, reply and `houserule` field the image message carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    pub png: Vec<u8>,
    /// The file name clients show and save it under.
    pub file_name: String,
    pub width: u32,
    pub height: u32,
    pub caption: Notice,
}

impl Picture {
    /// The `m.room.message` content, once the PNG is uploaded to `url` (an `mxc://` URI). The
    /// caption is cut to fit one message (a legend of a few hundred tokens fits whole).
    pub fn content(&self, url: &str) -> Value {
        let mut caption = self.caption.clone();
        if size(&caption.content()) > MAX_CONTENT {
            let cut: String = caption.body.chars().take(MAX_CONTENT / 4).collect();
            caption = Notice { body: format!("{cut}…"), html: escape_html(&format!("{cut}…")), ..caption };
        }
        let mut c = caption.content();
        c["msgtype"] = json!("m.image");
        c["filename"] = json!(self.file_name);
        c["url"] = json!(url);
        c["info"] = json!({ "mimetype": "image/png", "w": self.width, "h": self.height, "size": self.png.len() });
        c
    }

    /// Puts it in the thread that starts at `root`.
    pub fn in_thread(self, root: Option<&str>) -> Picture {
        Picture { caption: self.caption.in_thread(root), ..self }
    }
}

/// One message the referee sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub body: String,
    pub html: String,
    /// The request it answers.
    pub reply_to: Option<String>,
    /// The thread (its first event) the request was sent in.
    pub thread: Option<String>,
    /// The machine-readable part.
    pub houserule: Value,
}

impl Notice {
    /// Plain text, shown as it is (in a `<pre>` block when it has several lines).
    pub fn text(body: String, reply_to: Option<&str>) -> Notice {
        let html = if body.contains('\n') { format!("<pre>{}</pre>", escape_html(&body)) } else { escape_html(&body) };
        Notice { body, html, reply_to: reply_to.map(str::to_string), thread: None, houserule: json!({}) }
    }

    /// A refusal of a request: what was wrong.
    pub fn refusal(message: &str, reply_to: &str) -> Notice {
        let body = format!("Refused: {message}");
        Notice { houserule: json!({ "refused": message }), ..Notice::text(body, Some(reply_to)) }
    }

    /// A log entry as a post, with the line to verify it (`file` is the campaign file's name).
    pub fn post(entry: &LogEntry, campaign: &CampaignInfo, file: &str, reply_to: Option<&str>) -> Notice {
        Notice {
            body: post::post(entry, campaign, file, PostFormat::Text),
            html: post::post(entry, campaign, file, PostFormat::Html),
            reply_to: reply_to.map(str::to_string),
            thread: None,
            houserule: json!({ "campaign": campaign.id, "seq": entry.seq, "hash": entry.hash }),
        }
    }

    /// Marks it as sent privately (to one player's direct room).
    pub fn private(mut self) -> Notice {
        if let Some(m) = self.houserule.as_object_mut() {
            m.insert("private".into(), Value::Bool(true));
        }
        self
    }

    /// Puts it in the thread that starts at `root` (none: the room's main timeline).
    pub fn in_thread(mut self, root: Option<&str>) -> Notice {
        self.thread = root.map(str::to_string);
        self
    }

    /// The `m.room.message` content (which may be too large to send: see [`Notice::parts`]).
    pub fn content(&self) -> Value {
        let mut c = json!({
            "msgtype": "m.notice",
            "body": self.body,
            "format": "org.matrix.custom.html",
            "formatted_body": self.html,
            "houserule": self.houserule,
        });
        // A reply inside a thread is a genuine reply there (`is_falling_back: false`); a
        // notice in a thread that answers nothing points at the thread's root as the fallback
        // for clients without threads.
        let relation = match (&self.reply_to, &self.thread) {
            (Some(id), None) => Some(json!({ "m.in_reply_to": { "event_id": id } })),
            (reply, Some(root)) => Some(json!({
                "rel_type": "m.thread",
                "event_id": root,
                "is_falling_back": reply.is_none(),
                "m.in_reply_to": { "event_id": reply.as_ref().unwrap_or(root) },
            })),
            (None, None) => None,
        };
        if let Some(r) = relation {
            c["m.relates_to"] = r;
        }
        c
    }

    /// The contents it is sent as: itself when it fits in [`MAX_CONTENT`], else its text in
    /// parts that each fit, each labelled "(part i of n)" on a line of its own (the parts'
    /// HTML is their escaped text; the `houserule` field gains `part` and `parts`).
    pub fn parts(&self) -> Vec<Value> {
        let whole = self.content();
        if size(&whole) <= MAX_CONTENT {
            return vec![whole];
        }
        let houserule = cut_texts(&self.houserule);
        let part = |label: &str, text: &str, i: usize, n: usize| {
            let mut field = houserule.clone();
            if let Some(m) = field.as_object_mut() {
                m.insert("part".into(), json!(i));
                m.insert("parts".into(), json!(n));
            }
            let notice =
                Notice::text(format!("{label}{text}"), self.reply_to.as_deref()).in_thread(self.thread.as_deref());
            Notice { houserule: field, ..notice }.content()
        };
        let overhead = size(&part(LONGEST_LABEL, "", 99999, 99999));
        let pieces = split(&self.body, MAX_CONTENT.saturating_sub(overhead).max(1024));
        let n = pieces.len();
        pieces.iter().enumerate().map(|(i, text)| part(&label(i + 1, n), text, i + 1, n)).collect()
    }
}

/// The label a part's text starts with.
pub fn label(i: usize, n: usize) -> String {
    format!("(part {i} of {n})\n")
}

/// How many bytes a content takes as JSON.
fn size(content: &Value) -> usize {
    serde_json::to_string(content).map_or(usize::MAX, |s| s.len())
}

/// How many bytes `c` adds to a part's content: in the body and in the escaped HTML, each as
/// JSON text (as `serde_json` writes it: `"` and `\\` and control characters escaped).
fn cost(c: char) -> usize {
    let json = match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    };
    let html = match c {
        '&' => 5,
        '<' | '>' => 4,
        '"' => 6,
        '\'' => 5,
        _ => json,
    };
    json + html
}

/// Cuts `text` into pieces that each cost at most `budget` (see [`cost`]), at a line's end when
/// one is in the piece's second half, else anywhere between two characters. Joined, the pieces
/// are `text`.
pub fn split(text: &str, budget: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut start, mut spent, mut line_end) = (0, 0, None);
    for (i, c) in text.char_indices() {
        let c_cost = cost(c);
        if spent + c_cost > budget && i > start {
            let cut = line_end.filter(|&e| e > start + (i - start) / 2).unwrap_or(i);
            pieces.push(&text[start..cut]);
            spent = text[cut..i].chars().map(cost).sum();
            start = cut;
            line_end = None;
            if spent + c_cost > budget && i > start {
                pieces.push(&text[start..i]);
                (start, spent) = (i, 0);
            }
        }
        spent += c_cost;
        if c == '\n' {
            line_end = Some(i + 1);
        }
    }
    if start < text.len() || pieces.is_empty() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// `value` with every text longer than [`PART_FIELD_CHARS`] cut there (marked "…").
fn cut_texts(value: &Value) -> Value {
    match value {
        Value::String(s) if s.chars().count() > PART_FIELD_CHARS => {
            Value::String(format!("{}…", s.chars().take(PART_FIELD_CHARS).collect::<String>()))
        }
        Value::Array(a) => Value::Array(a.iter().map(cut_texts).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), cut_texts(v))).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn texts_are_escaped_and_replies_point_at_their_request() {
        let n = Notice::refusal("'<b>' is not an action", "$req");
        let c = n.content();
        assert_eq!(c["m.relates_to"]["m.in_reply_to"]["event_id"], "$req");
        assert_eq!(c["formatted_body"], "Refused: &#39;&lt;b&gt;&#39; is not an action");
        assert_eq!(c["houserule"]["refused"], "'<b>' is not an action");
        let list = Notice::text("a <x>\nb".into(), None).content();
        assert_eq!(list["formatted_body"], "<pre>a &lt;x&gt;\nb</pre>");
        assert!(list.get("m.relates_to").is_none());
    }

    #[test]
    fn an_answer_in_a_thread_stays_in_it() {
        let c = Notice::text("ok".into(), Some("$req")).in_thread(Some("$root")).content();
        assert_eq!(
            c["m.relates_to"],
            json!({"rel_type": "m.thread", "event_id": "$root", "is_falling_back": false,
                   "m.in_reply_to": {"event_id": "$req"}})
        );
        let c = Notice::text("ok".into(), None).in_thread(Some("$root")).content();
        assert_eq!(c["m.relates_to"]["is_falling_back"], true);
    }

    #[test]
    fn a_notice_that_fits_is_sent_whole() {
        let n = Notice::text("short".into(), Some("$req"));
        assert_eq!(n.parts(), vec![n.content()]);
    }

    #[test]
    fn a_long_answer_is_cut_at_line_ends() {
        let line = format!("{}\n", "<&>".repeat(30));
        let text = line.repeat(1000);
        let parts = Notice::refusal(&text, "$req").in_thread(Some("$root")).parts();
        assert!(parts.len() > 1);
        for (i, p) in parts.iter().enumerate() {
            let body = p["body"].as_str().unwrap();
            let rest = body.strip_prefix(&label(i + 1, parts.len())).expect("labelled");
            assert!(rest.ends_with('\n') || i + 1 == parts.len(), "part {i} ends mid-line");
            assert_eq!(p["m.relates_to"]["m.in_reply_to"]["event_id"], "$req");
            assert_eq!(p["m.relates_to"]["event_id"], "$root");
            assert_eq!(p["houserule"]["parts"], parts.len());
            assert!(p["houserule"]["refused"].as_str().unwrap().chars().count() <= PART_FIELD_CHARS + 1);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Every part fits, is labelled, and the parts joined are the text, whatever it holds
        /// (characters that JSON and HTML escape to several times their size included).
        #[test]
        fn parts_fit_and_give_back_the_text(
            unit in "[a-z<>&\"'\\\\\u{1}\u{8}\u{7f}é😀\n\t ]{1,12}",
            times in 1usize..12_000,
        ) {
            let text: String = unit.repeat(times).chars().take(200_000).collect();
            let post = Notice { html: escape_html(&text), ..Notice::text(text.clone(), Some("$r")) };
            let parts = post.parts();
            let mut joined = String::new();
            for (i, p) in parts.iter().enumerate() {
                prop_assert!(size(p) <= MAX_CONTENT, "part {} takes {}", i + 1, size(p));
                let body = p["body"].as_str().unwrap();
                if parts.len() == 1 {
                    joined.push_str(body);
                } else {
                    let rest = body.strip_prefix(&label(i + 1, parts.len()));
                    prop_assert!(rest.is_some(), "part {} is not labelled: {:?}", i + 1, &body[..20]);
                    joined.push_str(rest.unwrap());
                }
            }
            prop_assert_eq!(joined, text);
        }
    }
}
