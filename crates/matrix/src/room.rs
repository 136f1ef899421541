//! The few Matrix requests the referee makes, through `matrix-sdk`'s client.
//!
//! Guarantees: messages are sent with a transaction id the caller derives from what it answers,
//! so a send repeated after a crash is the same message to the homeserver, not a second one;
//! room history is read forward from a token the caller keeps, in room order; a room with
//! end-to-end encryption switched on is refused (the referee reads and writes plain messages).

use crate::MatrixError;
use matrix_sdk::config::RequestConfig;
use matrix_sdk::ruma::api::client::filter::FilterDefinition;
use matrix_sdk::ruma::api::client::media::create_content;
use matrix_sdk::ruma::api::client::membership::{invite_user, join_room_by_id};
use matrix_sdk::ruma::api::client::message::{get_message_events, send_message_event};
use matrix_sdk::ruma::api::client::room::{create_room, get_room_event};
use matrix_sdk::ruma::api::client::state::get_state_event_for_key;
use matrix_sdk::ruma::api::client::sync::sync_events::v3 as sync;
use matrix_sdk::ruma::api::client::sync::sync_events::v3::Filter;
use matrix_sdk::ruma::api::error::{ErrorKind, RetryAfter};
use matrix_sdk::ruma::events::{AnyMessageLikeEventContent, MessageLikeEventType, StateEventType};
use matrix_sdk::ruma::serde::Raw;
use matrix_sdk::ruma::{EventId, OwnedRoomId, OwnedUserId, RoomId, UInt, UserId};
use matrix_sdk::{Client, HttpError};
use serde_json::{json, Value};
use std::time::Duration;

/// Room events read in one request.
const PAGE: u32 = 50;
/// Events of each direct room one wait brings at most.
const DIRECT_PAGE: u32 = 20;
/// How long to wait when the homeserver limits the account without saying for how long.
const RATE_LIMIT_WAIT: Duration = Duration::from_secs(5);

/// What one failed request to the homeserver means for the referee: waiting (a rate limit, for
/// the homeserver's delay), giving this request up (any other refusal of the request itself —
/// too large, forbidden, unknown room — which sending it again would meet again), or trying
/// again later (the homeserver could not be reached or failed, or the session is refused, which
/// the GM must see).
pub fn failure(doing: &'static str) -> impl Fn(HttpError) -> MatrixError {
    move |e| {
        if let Some(ErrorKind::LimitExceeded(limit)) = e.client_api_error_kind() {
            return MatrixError::RateLimited { doing, wait: delay(limit.retry_after.as_ref()) };
        }
        match e.as_client_api_error().map(|c| c.status_code.as_u16()) {
            Some(429) => MatrixError::RateLimited { doing, wait: RATE_LIMIT_WAIT },
            Some(401) => MatrixError::http(doing)(e),
            Some(code) if (400..500).contains(&code) => MatrixError::Refused { doing, message: e.to_string() },
            _ => MatrixError::http(doing)(e),
        }
    }
}

/// How long a rate limit asks to wait (a moment at least, ten minutes at most).
fn delay(after: Option<&RetryAfter>) -> Duration {
    let wait = match after {
        Some(RetryAfter::Delay(d)) => *d,
        Some(RetryAfter::DateTime(t)) => t.duration_since(std::time::SystemTime::now()).unwrap_or_default(),
        None => RATE_LIMIT_WAIT,
    };
    wait.clamp(Duration::from_millis(100), Duration::from_secs(600))
}

/// A page of room history, oldest first.
pub struct Page {
    pub events: Vec<Value>,
    /// Where the next page starts (none: the end of the room so far).
    pub next: Option<String>,
}

/// The referee's account on its homeserver.
#[derive(Clone)]
pub struct Chat {
    pub client: Client,
}

pub fn room_id(text: &str) -> Result<OwnedRoomId, MatrixError> {
    RoomId::parse(text).map_err(|e| MatrixError::Usage(format!("'{text}' is not a room id (!id:server): {e}")))
}

pub fn user_id(text: &str) -> Result<OwnedUserId, MatrixError> {
    UserId::parse(text).map_err(|e| MatrixError::Usage(format!("'{text}' is not a Matrix user id (@name:server): {e}")))
}

impl Chat {
    /// Creates a private, unencrypted room and invites `invite`; `direct` marks it as a direct
    /// chat for the invited.
    pub async fn create_room(
        &self,
        name: &str,
        topic: &str,
        invite: &[OwnedUserId],
        direct: bool,
    ) -> Result<String, MatrixError> {
        let mut request = create_room::v3::Request::new();
        request.name = Some(name.to_string());
        request.topic = Some(topic.to_string());
        request.invite = invite.to_vec();
        request.is_direct = direct;
        request.preset = Some(if direct {
            create_room::v3::RoomPreset::TrustedPrivateChat
        } else {
            create_room::v3::RoomPreset::PrivateChat
        });
        let response = self.client.send(request).await.map_err(MatrixError::http("creating a room"))?;
        Ok(response.room_id.to_string())
    }

    pub async fn join(&self, room: &str) -> Result<(), MatrixError> {
        self.client
            .send(join_room_by_id::v3::Request::new(room_id(room)?))
            .await
            .map_err(MatrixError::http("joining the room"))?;
        Ok(())
    }

    /// Invites `user` to `room`; someone already in it is not an error.
    pub async fn invite(&self, room: &str, user: &OwnedUserId) -> Result<(), MatrixError> {
        let to = invite_user::v3::InvitationRecipient::UserId(invite_user::v3::InviteUserId::new(user.clone()));
        match self.client.send(invite_user::v3::Request::new(room_id(room)?, to)).await {
            Ok(_) => Ok(()),
            Err(e) if e.to_string().contains("already in the room") => Ok(()),
            Err(e) => Err(MatrixError::http("inviting to the room")(e)),
        }
    }

    /// Refuses a room with end-to-end encryption switched on.
    pub async fn check_unencrypted(&self, room: &str) -> Result<(), MatrixError> {
        let request =
            get_state_event_for_key::v3::Request::new(room_id(room)?, StateEventType::RoomEncryption, String::new());
        match self.client.send(request).await {
            Ok(_) => Err(MatrixError::Encrypted(room.to_string())),
            Err(e) if e.as_client_api_error().is_some_and(|c| c.status_code.as_u16() == 404) => Ok(()),
            Err(e) => Err(MatrixError::http("reading the room's encryption setting")(e)),
        }
    }

    /// Sends a message content with a transaction id; answers the new event's id.
    pub async fn send(&self, room: &str, txn: &str, content: &Value) -> Result<String, MatrixError> {
        let raw = serde_json::value::to_raw_value(content).map_err(|e| MatrixError::Internal(e.to_string()))?;
        let body: Raw<AnyMessageLikeEventContent> = Raw::from_json(raw);
        let request = send_message_event::v3::Request::new_raw(
            room_id(room)?,
            txn.into(),
            MessageLikeEventType::RoomMessage,
            body,
        );
        let response = self.client.send(request).await.map_err(MatrixError::http("sending a message"))?;
        Ok(response.event_id.to_string())
    }

    /// Sends a message content once, as the referee does (no silent retries: a rate limit is
    /// waited out by the referee, which tells the room): its failure says what it means
    /// ([`failure`]).
    pub async fn send_once(&self, room: &str, txn: &str, content: &Value) -> Result<String, MatrixError> {
        let raw = serde_json::value::to_raw_value(content).map_err(|e| MatrixError::Internal(e.to_string()))?;
        let body: Raw<AnyMessageLikeEventContent> = Raw::from_json(raw);
        let request = send_message_event::v3::Request::new_raw(
            room_id(room)?,
            txn.into(),
            MessageLikeEventType::RoomMessage,
            body,
        );
        let once = RequestConfig::new().disable_retry();
        let response =
            self.client.send(request).with_request_config(once).await.map_err(failure("sending a message"))?;
        Ok(response.event_id.to_string())
    }

    /// Uploads a PNG to the homeserver's media store, once (no silent retries, as
    /// [`Chat::send_once`]); answers its `mxc://` URI.
    pub async fn upload_png(&self, png: Vec<u8>) -> Result<String, MatrixError> {
        let mut request = create_content::v3::Request::new(png);
        request.content_type = Some("image/png".into());
        let once = RequestConfig::new().disable_retry().timeout(Duration::from_secs(60));
        let response =
            self.client.send(request).with_request_config(once).await.map_err(failure("uploading a picture"))?;
        Ok(response.content_uri.to_string())
    }

    /// One event of `room`; none when the homeserver will not give it (unknown, not visible).
    pub async fn event(&self, room: &str, id: &str) -> Result<Option<Value>, MatrixError> {
        let event = EventId::parse(id).map_err(|e| MatrixError::Internal(format!("'{id}' is not an event id: {e}")))?;
        match self.client.send(get_room_event::v3::Request::new(room_id(room)?, event)).await {
            Ok(r) => Ok(serde_json::from_str(r.event.json().get()).ok()),
            Err(e) => match failure("reading an event")(e) {
                MatrixError::Refused { .. } => Ok(None),
                other => Err(other),
            },
        }
    }

    /// The room's events after `from`, oldest first.
    pub async fn page(&self, room: &str, from: &str) -> Result<Page, MatrixError> {
        let mut request = get_message_events::v3::Request::forward(room_id(room)?);
        request.from = Some(from.to_string());
        request.limit = UInt::from(PAGE);
        let response = self.client.send(request).await.map_err(MatrixError::http("reading the room"))?;
        let events =
            response.chunk.iter().filter_map(|raw| serde_json::from_str(raw.json().get()).ok()).collect::<Vec<Value>>();
        let next = if events.is_empty() { None } else { response.end };
        Ok(Page { events, next })
    }

    /// Waits until something happens in `room` (at most `wait`); answers the token to wait from
    /// next time. With no `since`, answers at once with where the room stands now.
    pub async fn wait(&self, room: &str, since: Option<&str>, wait: Duration) -> Result<String, MatrixError> {
        Ok(self.wait_all(room, &[], since, wait).await?.0)
    }

    /// [`Chat::wait`] in `room` and the rooms `directs`; answers the token and the new events of
    /// the `directs` (a few of each at most: the latest), as `(room, event)`, oldest first.
    pub async fn wait_all(
        &self,
        room: &str,
        directs: &[&str],
        since: Option<&str>,
        wait: Duration,
    ) -> Result<(String, Vec<(String, Value)>), MatrixError> {
        let rooms: Vec<&str> = std::iter::once(room).chain(directs.iter().copied()).collect();
        let filter: FilterDefinition = serde_json::from_value(json!({
            "presence": { "not_types": ["*"] },
            "account_data": { "not_types": ["*"] },
            "room": {
                "rooms": rooms,
                "timeline": { "limit": if directs.is_empty() { 1 } else { DIRECT_PAGE } },
                "state": { "lazy_load_members": true, "not_types": ["*"] },
                "ephemeral": { "not_types": ["*"] },
                "account_data": { "not_types": ["*"] },
            },
        }))
        .map_err(|e| MatrixError::Internal(e.to_string()))?;
        let mut request = sync::Request::new();
        request.filter = Some(Filter::FilterDefinition(filter));
        request.since = since.map(str::to_string);
        request.timeout = since.map(|_| wait);
        let response = self.client.send(request).await.map_err(MatrixError::http("waiting for the room"))?;
        let mut events = Vec::new();
        for (id, joined) in &response.rooms.join {
            if directs.contains(&id.as_str()) {
                let timeline =
                    joined.timeline.events.iter().filter_map(|raw| serde_json::from_str(raw.json().get()).ok());
                events.extend(timeline.map(|e: Value| (id.to_string(), e)));
            }
        }
        Ok((response.next_batch, events))
    }
}
