//! The WebSocket protocol: requests `{id, method, params}`, replies `{id, result}` or
//! `{id, error}`, and pushed events `{event}`. The method names and results are the desktop
//! app's commands (see `docs/ui-contract.md`); the role always comes from the connection.

use super::Shared;
use houserule_engine::action::ErrorReport;
use houserule_engine::app::AppEvent;
use houserule_engine::session::SessionEvent;
use houserule_engine::Role;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// A request from the browser.
#[derive(Debug, Deserialize)]
pub struct Request {
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
    pub fn failure(id: u64, code: &str, message: impl Into<String>) -> Reply {
        Reply::Error { id, error: ErrorReport { code: code.into(), message: message.into(), param: None, script: None, diagnostics: vec![] } }
    }
}

/// Who is on this connection (none until they join).
#[derive(Debug, Clone, Default)]
pub struct Connection {
    pub role: Option<Role>,
}

fn forbidden(message: impl Into<String>) -> ErrorReport {
    ErrorReport { code: "forbidden".into(), message: message.into(), param: None, script: None, diagnostics: vec![] }
}

fn bad(message: impl Into<String>) -> ErrorReport {
    ErrorReport { code: "bad_request".into(), message: message.into(), param: None, script: None, diagnostics: vec![] }
}

fn text<'a>(params: &'a Value, key: &str) -> Option<&'a str> {
    params.get(key).and_then(Value::as_str)
}

/// The role a call runs as: a player is always themselves; the GM may name a player.
fn as_role(me: &Role, params: &Value) -> Result<Role, ErrorReport> {
    let asked = text(params, "as").map(Role::parse).transpose().map_err(bad)?;
    match (me, asked) {
        (me, None) => Ok(me.clone()),
        (Role::Gm, Some(r)) => Ok(r),
        (me, Some(r)) if &r == me => Ok(r),
        (me, Some(r)) => Err(forbidden(format!("you joined as {me}: you may look and act only as yourself, not as {r}"))),
    }
}

fn gm_only(me: &Role) -> Result<(), ErrorReport> {
    if me.is_gm() {
        Ok(())
    } else {
        Err(forbidden("only the GM may do that"))
    }
}

/// Handles one request, returning the reply and the connection's state after it.
pub fn handle(shared: &Shared, mut conn: Connection, request: Request) -> (Reply, Connection) {
    let id = request.id;
    let result = dispatch(shared, &mut conn, &request.method, &request.params);
    let reply = match result {
        Ok(result) => Reply::Result { id, result },
        Err(error) => Reply::Error { id, error },
    };
    (reply, conn)
}

fn value<T: Serialize>(v: Result<T, ErrorReport>) -> Result<Value, ErrorReport> {
    v.and_then(|x| serde_json::to_value(x).map_err(|e| bad(e.to_string())))
}

fn dispatch(shared: &Shared, conn: &mut Connection, method: &str, p: &Value) -> Result<Value, ErrorReport> {
    let app = &shared.app;
    if method == "hello" {
        let role = match (text(p, "secret"), text(p, "name")) {
            (Some(s), _) if !s.is_empty() && s == shared.secret => Role::Gm,
            (Some(s), _) if !s.is_empty() => return Err(forbidden("that is not the GM's secret")),
            (_, Some(name)) => Role::parse(&format!("player:{}", name.trim())).map_err(bad)?,
            _ => return Err(bad("join with your name, or as GM with the secret")),
        };
        conn.role = Some(role.clone());
        let campaign = app.current().map(|(info, _)| info);
        return Ok(json!({ "role": role, "campaign": campaign, "file": shared.file.display().to_string(), "host": "server" }));
    }
    let me = conn.role.clone().ok_or_else(|| forbidden("join first: send hello with your name"))?;
    match method {
        "campaign" => Ok(json!(app.current().map(|(info, _)| info))),
        "rulesets" => {
            gm_only(&me)?;
            value(Ok(app.rulesets()))
        }
        "create" => {
            gm_only(&me)?;
            if app.current().is_some() {
                return Err(forbidden("this server already plays a campaign"));
            }
            let ruleset = text(p, "ruleset").ok_or_else(|| bad("create needs a ruleset"))?;
            let settings = p.get("settings").and_then(Value::as_object).cloned().unwrap_or_default();
            value(app.create(&shared.file, ruleset, &settings, text(p, "name").unwrap_or_default()))
        }
        "view" => value(app.view(&as_role(&me, p)?)),
        "actions" => value(app.actions(&as_role(&me, p)?)),
        "log" => {
            let from = p.get("from").and_then(Value::as_u64).unwrap_or(1);
            let limit = p.get("limit").and_then(Value::as_u64).unwrap_or(200).min(2000) as usize;
            value(app.log(&as_role(&me, p)?, from, limit))
        }
        "act" => {
            let role = as_role(&me, p)?;
            let action = text(p, "action").ok_or_else(|| bad("act needs an action"))?;
            let params: Map<String, Value> = p.get("params").and_then(Value::as_object).cloned().unwrap_or_default();
            let dice = match p.get("dice") {
                None | Some(Value::Null) => None,
                Some(d) => Some(serde_json::from_value::<Vec<i64>>(d.clone()).map_err(|_| bad("dice is a list of faces"))?),
            };
            value(app.act(&role, action, &params, dice))
        }
        "manifest" => value(app.manifest()),
        "house_rules" => {
            gm_only(&me)?;
            value(app.house_rules())
        }
        "save_house_rule" => {
            gm_only(&me)?;
            let name = text(p, "name").ok_or_else(|| bad("save_house_rule needs a name"))?;
            let body = text(p, "text").ok_or_else(|| bad("save_house_rule needs the text"))?;
            value(app.save_house_rule(name, body))
        }
        "remove_house_rule" => {
            gm_only(&me)?;
            let name = text(p, "name").ok_or_else(|| bad("remove_house_rule needs a name"))?;
            value(app.remove_house_rule(name))
        }
        other => Err(bad(format!("there is no method '{other}'"))),
    }
}

/// The event as this connection may receive it: rule errors and watch notices are the GM's.
pub fn event_for(conn: &Connection, event: AppEvent) -> Option<Reply> {
    let role = conn.role.as_ref()?;
    let gm_only = matches!(&event, AppEvent::Session { event: SessionEvent::ReloadFailed { .. } | SessionEvent::Watching { .. } });
    if gm_only && !role.is_gm() {
        return None;
    }
    Some(Reply::Event { event })
}
