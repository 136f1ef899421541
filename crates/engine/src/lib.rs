//! The Houserule engine: everything a virtual tabletop needs except a screen.
//!
//! It runs each tabletop ruleset as a sandboxed Rhai plugin ([`plugin`], [`sandbox`],
//! [`host`]) over shared primitives — [`dice`], token [`pool`]s, [`traits`] and
//! [`entity`]s on a [`table`] — and keeps a campaign in one SQLite file ([`store`]) as a
//! hash-chained log of [`event`]s. State leaves the engine only as [`view`]s computed for one
//! viewer. The crate has no UI, no HTTP and no Tauri: the CLI and the desktop shell adapt it.

pub mod action;
pub mod app;
pub mod campaign;
pub mod catalog;
pub mod dice;
pub mod entity;
pub mod event;
pub mod host;
pub mod manifest;
pub mod params;
pub mod plugin;
pub mod pool;
pub mod post;
pub mod reload;
pub mod render;
pub mod sandbox;
pub mod scenario;
pub mod script_error;
pub mod session;
pub mod share;
pub mod store;
pub mod table;
pub mod traits;
pub mod tx;
pub mod verify;
pub mod view;
pub mod visibility;
pub mod watch;

pub use action::{ActError, ErrorReport};
pub use campaign::{Campaign, CampaignError, NewCampaign, Outcome};
pub use plugin::{HouseRule, Plugin, PluginError, PluginSource};
pub use sandbox::Limits;
pub use visibility::{Role, Visibility};

/// Implements `JsonSchema` for a type serialised as a string, with a pattern and description.
macro_rules! string_schema {
    ($ty:ty, $name:literal, $pattern:literal, $doc:literal) => {
        impl schemars::JsonSchema for $ty {
            fn schema_name() -> String {
                $name.to_string()
            }
            fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
                schemars::schema::SchemaObject {
                    instance_type: Some(schemars::schema::InstanceType::String.into()),
                    metadata: Some(Box::new(schemars::schema::Metadata { description: Some($doc.to_string()), ..Default::default() })),
                    string: Some(Box::new(schemars::schema::StringValidation { pattern: Some($pattern.to_string()), ..Default::default() })),
                    ..Default::default()
                }
                .into()
            }
        }
    };
}
pub(crate) use string_schema;
