//! The WebSocket protocol: requests `{id, method, params}`, replies `{id, result}` or
//! `{id, error}`, and pushed events `{event}`. The method names and results are the desktop
//! app's commands (see `docs/ui-contract.md`); the role always comes from the connection.

use super::Shared;
use houserule_engine::action::ErrorReport;
use houserule_engine::app::request::{self, parse};
use houserule_engine::app::AppEvent;
use houserule_engine::session::SessionEvent;
use houserule_engine::Role;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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
        Reply::Error { id, error: ErrorReport::new(code, message) }
    }
}

/// Who is on this connection (none until they join).
#[derive(Debug, Clone, Default)]
pub struct Connection {
    pub role: Option<Role>,
}

fn forbidden(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new("forbidden", message)
}

fn bad(message: impl Into<String>) -> ErrorReport {
    ErrorReport::new("bad_request", message)
}

fn text<'a>(params: &'a Value, key: &str) -> Option<&'a str> {
    params.get(key).and_then(Value::as_str)
}

/// The role a call runs as: a player is always themselves; the GM may name a player.
fn as_role(me: &Role, asked: Option<Role>) -> Result<Role, ErrorReport> {
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
            let r: request::Create = parse(method, p)?;
            value(app.create(&shared.file, &r.ruleset, &r.settings, &r.name))
        }
        "view" => {
            let r: request::As = parse(method, p)?;
            value(app.view(&as_role(&me, r.role()?)?))
        }
        "actions" => {
            let r: request::As = parse(method, p)?;
            value(app.actions(&as_role(&me, r.role()?)?))
        }
        "log" => {
            let r: request::Log = parse(method, p)?;
            value(app.log(&as_role(&me, r.role()?)?, r.from, r.limit))
        }
        "act" => {
            let r: request::Act = parse(method, p)?;
            value(app.act(&as_role(&me, r.role()?)?, &r.action, &r.params, r.dice))
        }
        "manifest" => value(app.manifest()),
        "house_rules" => {
            gm_only(&me)?;
            value(app.house_rules())
        }
        "save_house_rule" => {
            gm_only(&me)?;
            let r: request::SaveHouseRule = parse(method, p)?;
            value(app.save_house_rule(&r.name, &r.text))
        }
        "remove_house_rule" => {
            gm_only(&me)?;
            let r: request::HouseRuleName = parse(method, p)?;
            value(app.remove_house_rule(&r.name))
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
