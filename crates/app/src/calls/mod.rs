//! The calls the desktop window and the server's browsers make, declared once ([`list.rs`]).
//!
//! From that one list come: [`Call`], which reads a call from `{"method": …, "params": …}`
//! exactly as both front ends receive it; [`CALLS`], each call's name and who may make it (the
//! desktop shell's build script reads the same list to make its Tauri commands and the window's
//! capability); and [`signatures`], the JSON Schemas the UI's typed client is generated from.
//! The app layer handles every call in one place ([`crate::front::App::call`]); a front end only
//! says who is calling ([`Caller`]).

mod replies;

use crate::campaign::FormOdds;
use crate::invites::{Invite, NewInvite};
use crate::lab::LabProgress;
use crate::online::{Online, OnlineInvite, OnlineLink};
use crate::reload::ReloadReport;
use crate::serving::{HostStart, Serving};
use crate::Acted;
use houserule_core::manifest::Manifest;
use houserule_core::talk::PostDraft;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_core::{ErrorCode, ErrorReport, Role};
pub use replies::{HouseRuleText, HouseRulesState, Joined, Removed, RulesetChoice, TableNow};
use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::PathBuf;

/// Who may make a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Who {
    /// Anyone who has joined.
    Anyone,
    /// The GM only.
    Gm,
    /// Only the desktop app (it reaches the GM's own files).
    Desktop,
}

/// One declared call.
#[derive(Debug, Clone, Serialize)]
pub struct CallInfo {
    pub name: &'static str,
    pub who: Who,
    pub params: &'static str,
    pub result: &'static str,
    pub doc: &'static str,
}

/// A call's parameter and result schemas.
pub struct Signature {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: Schema,
    pub result: Schema,
}

macro_rules! calls {
    ($( $(#[doc = $doc:literal])* $variant:ident $name:literal ($params:ty) -> $result:ty, $who:ident; )*) => {
        /// A call with its parameters, read from `{"method": NAME, "params": {…}}`.
        #[derive(Debug, Deserialize)]
        #[serde(tag = "method", content = "params")]
        pub enum Call {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant($params), )*
        }

        /// Every call, in the order declared.
        pub const CALLS: &[CallInfo] = &[
            $( CallInfo { name: $name, who: Who::$who, params: stringify!($params), result: stringify!($result), doc: concat!($($doc),*) }, )*
        ];

        impl Call {
            /// The call's name.
            pub fn name(&self) -> &'static str {
                match self { $( Call::$variant(_) => $name, )* }
            }
        }

        /// The schemas of every call's parameters and result, their definitions in `gen`.
        pub fn signatures(gen: &mut SchemaGenerator) -> Vec<Signature> {
            vec![ $( Signature { name: $name, doc: concat!($($doc),*), params: gen.subschema_for::<$params>(), result: gen.subschema_for::<$result>() }, )* ]
        }
    };
}

include!("list.rs");

impl Call {
    /// Reads a call from its name and parameters (missing parameters are an empty object).
    pub fn read(method: &str, params: Value) -> Result<Call, ErrorReport> {
        if !CALLS.iter().any(|c| c.name == method) {
            return Err(ErrorReport::new(ErrorCode::BadRequest, format!("there is no call '{method}'")));
        }
        let params = if params.is_null() { Value::Object(Map::new()) } else { params };
        let mut message = Map::new();
        message.insert("method".into(), Value::String(method.to_string()));
        message.insert("params".into(), params);
        serde_json::from_value(Value::Object(message))
            .map_err(|e| ErrorReport::new(ErrorCode::BadRequest, format!("{method}: {e}")))
    }

    /// Who may make this call.
    pub fn who(&self) -> Who {
        CALLS.iter().find(|c| c.name == self.name()).map(|c| c.who).unwrap_or(Who::Gm)
    }
}

/// Where a call comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Host {
    /// The desktop window: the person at the computer is the GM.
    Desktop,
    /// A browser connected to `houserule serve`.
    Server,
}

/// Who is calling, as the front end established it (never from the call itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub role: Role,
    pub host: Host,
}

impl Caller {
    /// The role a call runs as: a player is always themselves; the GM may name a player.
    pub fn acting_as(&self, asked: Option<&str>) -> Result<Role, ErrorReport> {
        let asked =
            asked.map(Role::parse).transpose().map_err(|e| ErrorReport::new(ErrorCode::BadRequest, e.to_string()))?;
        match (&self.role, asked) {
            (me, None) => Ok(me.clone()),
            (Role::Gm, Some(r)) => Ok(r),
            (me, Some(r)) if &r == me => Ok(r),
            (me, Some(r)) => Err(ErrorReport::new(
                ErrorCode::Forbidden,
                format!("you joined as {me}: you may look and act only as yourself, not as {r}"),
            )),
        }
    }

    /// Whether the caller may make `call` at all.
    pub fn may(&self, call: &Call) -> Result<(), ErrorReport> {
        match call.who() {
            Who::Anyone => Ok(()),
            Who::Gm if self.role.is_gm() => Ok(()),
            Who::Gm => Err(ErrorReport::new(ErrorCode::Forbidden, "only the GM may do that")),
            Who::Desktop if self.host == Host::Desktop => Ok(()),
            Who::Desktop => {
                Err(ErrorReport::new(ErrorCode::Forbidden, format!("{} is for the desktop app only", call.name())))
            }
        }
    }
}

/// No parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Nothing {}

/// Joining from a browser: a player with the token of their join link, or the GM with the
/// secret the server printed; nothing from the desktop, or to ask who this connection is.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Join {
    #[serde(default)]
    pub invite: Option<String>,
    #[serde(default)]
    pub secret: Option<String>,
}

impl Join {
    /// Whether this `hello` asks to become someone.
    pub fn asks(&self) -> bool {
        self.invite.as_deref().is_some_and(|t| !t.trim().is_empty())
            || self.secret.as_deref().is_some_and(|s| !s.trim().is_empty())
    }
}

/// A player's permission to type in their own dice.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TypedDice {
    pub player: String,
    pub allowed: bool,
}

/// How far back an undo goes: with no `to`, the latest action not yet undone.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct UndoTo {
    #[serde(default)]
    pub to: Option<u64>,
}

/// A correction and the GM's reason for it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Correct {
    pub correction: crate::undo::Correction,
    pub reason: String,
}

/// A player, by name.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PlayerName {
    pub player: String,
}

/// Whose view or actions: `as` is a role (`player:NAME`); the GM may name anyone.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct As {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
}

/// A campaign to create (`path`: where the desktop app saves it; the server plays its own file).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Create {
    pub ruleset: String,
    #[serde(default)]
    pub settings: Map<String, Value>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub path: Option<PathBuf>,
}

/// Where to write a copy of the campaign, and for whom (`player`: a player's copy; none: in full).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShareCopy {
    pub path: PathBuf,
    #[serde(default)]
    pub player: Option<String>,
}

/// A campaign file to open.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Open {
    pub path: PathBuf,
}

/// A page of the log: the newest `limit` events with `from <= seq < before` (defaults: from
/// 1, before none — up to the latest —, 200 events). Older pages: `before` the first one held.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LogPage {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    #[serde(default = "first_event")]
    pub from: u64,
    #[serde(default)]
    pub before: Option<u64>,
    #[serde(default = "log_page")]
    pub limit: usize,
}

/// What to read of the table: the log from event `from` on (without it, its newest `limit`
/// events), for the viewer `as` names (the GM may name anyone).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TableSince {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    #[serde(default)]
    pub from: Option<u64>,
    #[serde(default = "log_page")]
    pub limit: usize,
}

fn first_event() -> u64 {
    1
}

fn log_page() -> usize {
    200
}

/// An action: its parameters as the user typed them (text, or JSON for lists and records),
/// and dice rolled by hand — a list of faces, or the faces as typed ("4, 6, +, -").
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Act {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    pub action: String,
    #[serde(default)]
    pub params: Map<String, Value>,
    #[serde(default)]
    pub dice: Option<Dice>,
    /// 32 fresh random bytes from the acting side's own device, mixed into every roll of the
    /// action, so the holder of the seed cannot foresee it (players' browsers must send it).
    #[serde(default)]
    pub entropy: Option<houserule_core::dice::Entropy>,
    /// A post that carries the action (its text, speaker and audience), logged with it.
    #[serde(default)]
    pub post: Option<PostDraft>,
}

/// A post to write, as the caller (the GM may write as `as`, a player).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Say {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    #[serde(flatten)]
    pub draft: PostDraft,
}

/// A new text for one's own post `seq`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditPost {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    pub seq: u64,
    pub text: String,
}

/// How far the caller has read the log.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadTo {
    pub seq: u64,
}

/// A log entry to turn into a forum post, and the markup (`markdown` or `bbcode`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ForumOf {
    pub seq: u64,
    #[serde(default = "markdown")]
    pub format: String,
}

fn markdown() -> String {
    "markdown".into()
}

/// An action's form as it stands, for its odds.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OddsOf {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    pub action: String,
    #[serde(default)]
    pub params: Map<String, Value>,
}

/// Dice rolled by hand.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Dice {
    Faces(Vec<i64>),
    Typed(String),
}

/// A house rule to save.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SaveHouseRule {
    pub name: String,
    pub text: String,
}

/// A balance lab to start.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LabStart {
    /// Runs on each side (1 to 100,000).
    #[serde(default = "lab_times")]
    pub times: u64,
    /// The same seed gives the same answer.
    #[serde(default = "lab_seed")]
    pub seed: u64,
}

fn lab_times() -> u64 {
    1000
}

fn lab_seed() -> u64 {
    1
}

/// A house rule to remove.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct HouseRuleName {
    pub name: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_read_from_their_name_and_parameters() {
        assert!(
            matches!(Call::read("view", json!({"as": "player:ann"})).unwrap(), Call::View(As { role: Some(r) }) if r == "player:ann")
        );
        assert!(matches!(Call::read("campaign", Value::Null).unwrap(), Call::Campaign(_)));
        let e = Call::read("explode", json!({})).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
        let e = Call::read("act", json!({"params": {}})).unwrap_err();
        assert!(e.message.starts_with("act: ") && e.message.contains("action"), "{}", e.message);
        assert!(matches!(
            Call::read("act", json!({"action": "roll", "dice": "4, 6"})).unwrap(),
            Call::Act(Act { dice: Some(Dice::Typed(_)), .. })
        ));
    }

    #[test]
    fn every_call_is_declared_once_with_its_permission() {
        let mut names: Vec<&str> = CALLS.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CALLS.len(), "no call is declared twice");
        let player = Caller { role: Role::Player("ann".into()), host: Host::Server };
        assert!(player.may(&Call::read("house_rules", Value::Null).unwrap()).is_err(), "house rules are the GM's");
        assert!(player.may(&Call::read("view", Value::Null).unwrap()).is_ok());
        let gm_in_browser = Caller { role: Role::Gm, host: Host::Server };
        assert!(
            gm_in_browser.may(&Call::read("open", json!({"path": "/etc/passwd"})).unwrap()).is_err(),
            "a browser never opens the GM's files"
        );
        assert_eq!(player.acting_as(Some("player:bo")).unwrap_err().code, ErrorCode::Forbidden);
        assert_eq!(gm_in_browser.acting_as(Some("player:bo")).unwrap(), Role::Player("bo".into()));
    }
}
