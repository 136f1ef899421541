//! The WebSocket protocol: a message `{id, method, params}` is a call from the app layer's one
//! list ([`houserule_app::calls`]); the reply is `{id, result}` or `{id, error}`, and events are
//! pushed as `{event}`. The role of every call comes from the connection, never from the call.

use super::Server;
use houserule_app::calls::{Call, Caller, Host, Join};
use houserule_app::front::AppEvent;
use houserule_app::session::SessionEvent;
use houserule_core::{ErrorCode, ErrorReport, Role};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A message from the browser.
#[derive(Debug, Deserialize)]
pub struct Message {
    pub id: u64,
    pub method: String,
    #[serde(default)]
    pub params: Value,
}

/// A message to the browser.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Reply {
    Result { id: u64, result: Value },
    Error { id: u64, error: ErrorReport },
    Event { event: AppEvent },
}

impl Reply {
    pub fn failure(id: u64, code: ErrorCode, message: impl Into<String>) -> Reply {
        Reply::Error { id, error: ErrorReport::new(code, message) }
    }
}

/// Who is on this connection (none until they join).
#[derive(Debug, Clone, Default)]
pub struct Connection {
    pub role: Option<Role>,
}

/// The role a `hello` asks for: the GM with the secret, or a player by name.
fn join(server: &Server, join: &Join) -> Result<Role, ErrorReport> {
    match (join.secret.as_deref(), join.name.as_deref()) {
        (Some(s), _) if !s.is_empty() && s == server.secret => Ok(Role::Gm),
        (Some(s), _) if !s.is_empty() => Err(ErrorReport::new(ErrorCode::Forbidden, "that is not the GM's secret")),
        (_, Some(name)) => Role::parse(&format!("player:{}", name.trim()))
            .map_err(|e| ErrorReport::new(ErrorCode::BadRequest, e.to_string())),
        _ => Err(ErrorReport::new(ErrorCode::BadRequest, "join with your name, or as GM with the secret")),
    }
}

/// Handles one message, returning the reply and the connection's state after it.
pub fn handle(server: &Server, mut conn: Connection, message: Message) -> (Reply, Connection) {
    let id = message.id;
    let result = Call::read(&message.method, message.params).and_then(|call| {
        if let Call::Hello(j) = &call {
            conn.role = Some(join(server, j)?);
        }
        let role = conn
            .role
            .clone()
            .ok_or_else(|| ErrorReport::new(ErrorCode::Forbidden, "join first: send hello with your name"))?;
        server.app.call(&Caller { role, host: Host::Server }, call, Some(&server.file))
    });
    let reply = match result {
        Ok(result) => Reply::Result { id, result },
        Err(error) => Reply::Error { id, error },
    };
    (reply, conn)
}

/// The event as this connection may receive it: rule errors and watch notices are the GM's.
pub fn event_for(conn: &Connection, event: AppEvent) -> Option<Reply> {
    let role = conn.role.as_ref()?;
    let gm_only = matches!(
        &event,
        AppEvent::Session { event: SessionEvent::ReloadFailed { .. } | SessionEvent::Watching { .. } }
    );
    if gm_only && !role.is_gm() {
        return None;
    }
    Some(Reply::Event { event })
}
