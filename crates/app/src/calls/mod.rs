//! The calls the desktop window and the server's browsers make, declared once ([`list.rs`]).
//!
//! From that one list come: [`Call`], which reads a call from `{"method": …, "params": …}`
//! exactly as both front ends receive it; [`CALLS`], each call's name and who may make it (the
//! desktop shell's build script reads the same list to make its Tauri commands and the window's
//! capability); and [`signatures`], the JSON Schemas the UI's typed client is generated from.
//! The app layer handles every call in one place ([`crate::front::App::call`]); a front end only
//! says who is calling ([`Caller`]).

mod caller;
mod params;
mod replies;

use crate::campaign::FormOdds;
use crate::invites::{Invite, NewInvite};
use crate::lab::LabProgress;
use crate::online::{Online, OnlineInvite, OnlineLink};
use crate::reload::ReloadReport;
use crate::serving::{HostStart, Serving, SetReach};
use crate::Acted;
pub use caller::{Caller, Front, Who};
use houserule_core::manifest::Manifest;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_core::{ErrorCode, ErrorReport};
pub use params::*;
pub use replies::{
    Download, HouseRulePage, HouseRuleText, HouseRulesState, Imported, Joined, LastReload, Measured, PictureData,
    Removed, RuleBook, RuleFileChange, RulesetChoice, SceneDrawing, TableNow,
};
use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
    ($( $(#[doc = $doc:literal])* $variant:ident $name:literal ($params:ty) -> $result:ty, $who:ident
        => $service:ident :: $handler:ident; )*) => {
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

#[cfg(test)]
mod tests {
    use super::*;
    use houserule_core::Role;
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
            Call::Act(crate::request::ActRequest { dice: Some(crate::request::Dice::Typed(_)), .. })
        ));
    }

    #[test]
    fn every_call_is_declared_once_with_its_permission() {
        let mut names: Vec<&str> = CALLS.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CALLS.len(), "no call is declared twice");
        let server = std::sync::Arc::new(Front::server("table.houserule".into()));
        let player = Caller::new(Role::Player("ann".into()), &server);
        assert!(player.may(&Call::read("house_rules", Value::Null).unwrap()).is_err(), "house rules are the GM's");
        assert!(player.may(&Call::read("view", Value::Null).unwrap()).is_ok());
        let gm_in_browser = Caller::new(Role::Gm, &server);
        assert!(
            gm_in_browser.may(&Call::read("open", json!({"path": "/etc/passwd"})).unwrap()).is_err(),
            "a browser never opens the GM's files"
        );
        assert_eq!(player.acting_as(Some("player:bo")).unwrap_err().code, ErrorCode::Forbidden);
        assert_eq!(gm_in_browser.acting_as(Some("player:bo")).unwrap(), Role::Player("bo".into()));
    }
}
