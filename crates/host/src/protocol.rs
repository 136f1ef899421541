//! The WebSocket protocol: a message `{id, method, params}` is a call from the app layer's one
//! list ([`houserule_app::calls`]); the reply is `{id, result}` or `{id, error}`, and events are
//! pushed as `{event}`.
//!
//! Identity: a connection is nobody until its `hello` carries a live join link's token (that
//! player) or the GM's secret; from then on it is that role for its whole life. Another `hello`
//! asking to be someone is refused, the role of every call comes from the connection and never
//! from the call, and wrong tokens or secrets count against the address they came from
//! ([`crate::attempts`]).

use crate::attempts::Attempts;
use crate::shared::Shared as Server;
use houserule_app::calls::{Call, Caller, Join};
use houserule_app::events::AppEvent;
use houserule_core::{ErrorCode, ErrorReport, Role};
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::IpAddr;

/// A message from the browser.
#[derive(Debug, Deserialize)]
pub struct Message {
    pub id: u64,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

/// A message to the browser.
#[derive(Debug)]
pub enum Reply {
    /// `{id, result}`, the result already JSON text.
    Result {
        id: u64,
        result: String,
    },
    Error {
        id: u64,
        error: ErrorReport,
    },
    Event {
        event: AppEvent,
    },
}

impl Reply {
    pub fn failure(id: u64, code: ErrorCode, message: impl Into<String>) -> Reply {
        Reply::Error { id, error: ErrorReport::new(code, message) }
    }

    /// The message as sent.
    pub fn to_text(&self) -> String {
        match self {
            Reply::Result { id, result } => format!("{{\"id\":{id},\"result\":{result}}}"),
            Reply::Error { id, error } => json!({ "id": id, "error": error }).to_string(),
            Reply::Event { event } => json!({ "event": event }).to_string(),
        }
    }
}

/// Who is on this connection (none until they join), and where it comes from.
#[derive(Debug, Clone)]
pub struct Connection {
    pub role: Option<Role>,
    pub peer: IpAddr,
}

impl Connection {
    pub fn new(peer: IpAddr) -> Connection {
        Connection { role: None, peer }
    }
}

/// Equal in time that does not depend on where two texts differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The role a `hello` proves: the GM with the secret, or the player a join link was made for.
fn join(server: &Server, attempts: &Attempts, peer: IpAddr, join: &Join) -> Result<Role, ErrorReport> {
    attempts.check(peer)?;
    let proved = match (join.secret.as_deref().map(str::trim), join.invite.as_deref().map(str::trim)) {
        (Some(s), _) if !s.is_empty() => same(s, &server.secret).then_some(Role::Gm),
        (_, Some(token)) if !token.is_empty() => server.app.redeem_invite(token)?.map(Role::Player),
        _ => {
            return Err(ErrorReport::new(
                ErrorCode::BadRequest,
                "join with your join link (ask the GM for one), or as the GM with the secret the server printed",
            ))
        }
    };
    proved.ok_or_else(|| {
        attempts.failed(peer);
        let what = if join.secret.as_deref().is_some_and(|s| !s.trim().is_empty()) {
            "that is not the GM's secret"
        } else {
            "that join link is not valid (it was replaced or revoked): ask the GM for a new one"
        };
        ErrorReport::new(ErrorCode::Forbidden, what)
    })
}

/// Handles one message, returning the reply and the connection's state after it.
pub fn handle(server: &Server, mut conn: Connection, message: Message) -> (Reply, Connection) {
    let id = message.id;
    let result = Call::read(&message.method, message.params).and_then(|call| {
        if let Call::Hello(j) = &call {
            match &conn.role {
                Some(me) if j.asks() => {
                    return Err(ErrorReport::new(
                        ErrorCode::Forbidden,
                        format!("this connection joined as {me} and stays so; to be someone else, open the table again with their link"),
                    ))
                }
                Some(_) => {}
                None => conn.role = Some(join(server, &server.attempts, conn.peer, j)?),
            }
        }
        let role = conn
            .role
            .clone()
            .ok_or_else(|| ErrorReport::new(ErrorCode::Forbidden, "join first: open the join link the GM gave you"))?;
        server.app.call(&Caller::new(role, &server.front), call)
    });
    let reply = match result {
        Ok(result) => Reply::Result { id, result },
        Err(error) => Reply::Error { id, error },
    };
    (reply, conn)
}

/// The event as this connection may receive it ([`AppEvent::may_reach`]): rule errors, watch
/// notices, hosting and online status are the GM's, and a post only its readers are told of.
pub fn event_for(conn: &Connection, event: AppEvent) -> Option<Reply> {
    let role = conn.role.as_ref()?;
    event.may_reach(role).then_some(Reply::Event { event })
}
