//! What the referee writes in the room: notices with a plain body and HTML, as replies.
//!
//! Guarantees: every text that comes from the campaign or a player is escaped in the HTML (the
//! post renderer escapes its own texts; lists and views go in a `<pre>` block, escaped); each
//! answer is a reply to the request it answers (`m.in_reply_to`), and carries a machine-readable
//! `houserule` field: the campaign, event number and hash it reports, or the refusal.

use houserule_core::post::{self, escape_html, PostFormat};
use houserule_core::view::{CampaignInfo, LogEntry};
use serde_json::{json, Value};

/// One message the referee sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub body: String,
    pub html: String,
    /// The request it answers.
    pub reply_to: Option<String>,
    /// The machine-readable part.
    pub houserule: Value,
}

impl Notice {
    /// Plain text, shown as it is (in a `<pre>` block when it has several lines).
    pub fn text(body: String, reply_to: Option<&str>) -> Notice {
        let html = if body.contains('\n') { format!("<pre>{}</pre>", escape_html(&body)) } else { escape_html(&body) };
        Notice { body, html, reply_to: reply_to.map(str::to_string), houserule: json!({}) }
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

    /// The `m.room.message` content.
    pub fn content(&self) -> Value {
        let mut c = json!({
            "msgtype": "m.notice",
            "body": self.body,
            "format": "org.matrix.custom.html",
            "formatted_body": self.html,
            "houserule": self.houserule,
        });
        if let Some(id) = &self.reply_to {
            c["m.relates_to"] = json!({ "m.in_reply_to": { "event_id": id } });
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
