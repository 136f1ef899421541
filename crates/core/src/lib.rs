//! The pure Houserule engine: everything a virtual tabletop needs except a screen, a file,
//! a thread or a clock.
//!
//! It runs each tabletop ruleset as a Rhai plugin ([`plugin`], built by [`sandbox`], reaching
//! the table only through [`host`]) over shared primitives — [`dice`], token [`pool`]s,
//! [`traits`] and [`entity`]s on a [`table`]. Every change goes through a transaction
//! ([`tx`]) within [`caps`] and becomes an [`event`] item; state leaves the engine only as
//! [`view`]s computed for one viewer; [`undo`] works out how to take actions back. This crate has no threads, files, network, clock, UI or
//! SQLite: the app layer (`houserule-app`) adds those, and runs the scripts in a sandbox
//! worker process.

pub mod action;
pub mod caps;
pub mod chance;
pub mod deck;
pub mod deck_view;
pub mod dice;
pub mod engine;
pub mod entity;
pub mod error;
pub mod event;
pub mod handout;
pub mod house;
pub mod manifest;
pub mod names;
pub mod params;
pub mod picture;
pub mod plugin;
pub mod pool;
pub mod post;
pub mod quote;
pub mod render;
pub mod scenario;
pub mod scene;
pub mod script_api;
pub mod script_error;
pub mod table;
pub mod talk;
pub mod text;
pub mod traits;
pub mod turns;
pub mod tx;
pub mod tx_deck;
pub mod tx_scene;
pub mod tx_turns;
pub mod undo;
pub mod view;
pub mod view_scene;
pub mod visibility;

pub use action::ActError;
pub use engine::Limits;
pub use error::{ErrorCode, ErrorReport};
pub use plugin::{HouseRule, Plugin, PluginError, PluginSource};
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
                    metadata: Some(Box::new(schemars::schema::Metadata {
                        description: Some($doc.to_string()),
                        ..Default::default()
                    })),
                    string: Some(Box::new(schemars::schema::StringValidation {
                        pattern: Some($pattern.to_string()),
                        ..Default::default()
                    })),
                    ..Default::default()
                }
                .into()
            }
        }
    };
}
pub(crate) use string_schema;
