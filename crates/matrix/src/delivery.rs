//! How the referee's messages reach the room, so that no request blocks the ones after it.
//!
//! Guarantees: a notice goes as the messages it fits in ([`Notice::parts`]), each with a
//! transaction id made from the request, so a repeated send is the same message to the
//! homeserver; an answer goes into the thread its request was sent in; a message the
//! homeserver refuses for good (too large, forbidden …, [`crate::room::failure`]) is answered
//! with a short error where it can be and then passed over; a rate limit is waited out by the
//! caller ([`Referee::run`]), which tells the room once per spell ([`Referee::tell_waiting`]);
//! a `!hr` in a player's direct room is answered with the room to send it in (a hint, read
//! from the referee's wait for news: one sent while no referee runs, or to `matrix run --once`,
//! goes unanswered).

use crate::commands;
use crate::messages::{Answer, Notice, Picture};
use crate::referee::{short, Referee};
use crate::MatrixError;
use serde_json::Value;

impl Referee {
    /// Tells the room the referee waits for the homeserver's rate limit; answers whether it
    /// could.
    pub(crate) async fn tell_waiting(&self) -> bool {
        let notice = Notice {
            houserule: serde_json::json!({ "waiting": "rate limit" }),
            ..Notice::text(
                "I am waiting: the homeserver limits how fast my account may post. Every request \
                 will be answered, in order, a little later. (GM: the README's Matrix section says \
                 how to lift the limit for this account.)"
                    .into(),
                None,
            )
        };
        let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        self.deliver(&self.link.room, &format!("hr-waiting-{}", at.as_millis()), &notice).await.is_ok()
    }

    /// Answers each `!hr` sent in a player's direct room with where to send it. A hint, not an
    /// answer the file keeps: one the homeserver refuses is left, a rate limit waited out.
    pub(crate) async fn answer_direct(&self, events: &[(String, Value)]) {
        for (room, event) in events {
            let content = &event["content"];
            let (Some(id), Some(sender), Some(body)) =
                (event["event_id"].as_str(), event["sender"].as_str(), content["body"].as_str())
            else {
                continue;
            };
            let edit = content["m.relates_to"]["rel_type"] == "m.replace";
            if event["type"] != "m.room.message" || sender == self.link.user || edit {
                continue;
            }
            if commands::read(commands::without_quote(body)).is_none() {
                continue;
            }
            let room_link = format!("https://matrix.to/#/{}", self.link.room);
            let text = format!(
                "Requests are taken in the table's room only, where the whole table sees them, in \
                 one order: send it there ({}, {room_link}). What only you may see still comes here.",
                self.link.room
            );
            let txn = format!("hr-direct-{}", short(id));
            let hint = Notice::text(text, Some(id));
            while let Err(MatrixError::RateLimited { wait, .. }) = self.deliver(room, &txn, &hint).await {
                tokio::time::sleep(wait).await;
            }
        }
    }

    /// Says an answer could not be sent, briefly, as the reply to its request: the request is
    /// then dropped, and the next one served. A refusal of this too is let be.
    pub(crate) async fn answer_failed(
        &self,
        id: &str,
        thread: Option<&str>,
        e: &MatrixError,
    ) -> Result<(), MatrixError> {
        let notice = Notice::refusal(&format!("my answer could not be sent ({e}): ask for less, or again later"), id)
            .in_thread(thread);
        match self.deliver(&self.link.room, &format!("hr-failed-{}", short(id)), &notice).await {
            Err(MatrixError::Refused { .. }) | Ok(()) => Ok(()),
            Err(other) => Err(other),
        }
    }

    /// Sends an answer to request `id`: in the room (in `thread` if the request was sent in
    /// one), and first the private part in the player's direct room if there is one.
    pub(crate) async fn send_answer(&self, id: &str, answer: Answer, thread: Option<&str>) -> Result<(), MatrixError> {
        let txn = format!("hr-answer-{}", short(id));
        match answer {
            Answer::Room(n) => self.deliver(&self.link.room, &txn, &n.in_thread(thread)).await,
            Answer::Both(n, direct, private) => {
                self.deliver(&direct, &format!("{txn}-direct"), &private).await?;
                self.deliver(&self.link.room, &txn, &n.in_thread(thread)).await
            }
            Answer::Pictures(room, private) => {
                if let Some((direct, own)) = private {
                    self.deliver_picture(&direct, &format!("{txn}-direct"), own).await?;
                }
                self.deliver_picture(&self.link.room, &txn, room.in_thread(thread)).await
            }
        }
    }

    /// Uploads a picture and sends it to `room` with transaction id `txn` (a send repeated
    /// after a crash is the same message; its upload, done again, is only an unused copy).
    pub(crate) async fn deliver_picture(&self, room: &str, txn: &str, picture: Picture) -> Result<(), MatrixError> {
        let content = picture.content(&self.chat.upload_png(picture.png.clone()).await?);
        self.chat.send_once(room, txn, &content).await?;
        Ok(())
    }

    /// Sends a notice to `room` as the messages it fits in: itself, or its parts in order (each
    /// with a transaction id of its own, made from `txn`, so a repeated send is the same).
    pub(crate) async fn deliver(&self, room: &str, txn: &str, notice: &Notice) -> Result<(), MatrixError> {
        let parts = notice.parts();
        let n = parts.len();
        for (i, content) in parts.iter().enumerate() {
            let txn = if n == 1 { txn.to_string() } else { format!("{txn}-{}-of-{n}", i + 1) };
            self.chat.send_once(room, &txn, content).await?;
        }
        Ok(())
    }

    /// The thread the request `id` was sent in: as read, or asked of the homeserver (a referee
    /// started again after the request was read).
    pub(crate) async fn thread_of(&self, id: &str) -> Result<Option<String>, MatrixError> {
        if let Some(known) = self.threads.lock().unwrap_or_else(|p| p.into_inner()).get(id) {
            return Ok(known.clone());
        }
        let event = self.chat.event(&self.link.room, id).await?;
        let relation = event.as_ref().map(|e| &e["content"]["m.relates_to"]);
        let thread =
            relation.filter(|r| r["rel_type"] == "m.thread").and_then(|r| r["event_id"].as_str()).map(str::to_string);
        self.threads.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), thread.clone());
        Ok(thread)
    }

    /// Says in the room that event `seq` could not be posted, briefly (the post is then passed
    /// over: the campaign's log has it).
    pub(crate) async fn post_failed(
        &self,
        seq: u64,
        reply_to: Option<&str>,
        thread: Option<&str>,
        e: &MatrixError,
    ) -> Result<(), MatrixError> {
        let text = format!("Event #{seq} could not be posted here ({e}); `houserule post FILE {seq}` shows it.");
        let notice = Notice::text(text, reply_to).in_thread(thread);
        let txn = format!("hr-post-failed-{}-{seq}", short(&self.link.room));
        match self.deliver(&self.link.room, &txn, &notice).await {
            Err(MatrixError::Refused { .. }) | Ok(()) => Ok(()),
            Err(other) => Err(other),
        }
    }
}
