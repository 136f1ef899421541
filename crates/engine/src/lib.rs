//! The Houserule engine: everything a virtual tabletop needs except a screen.
//!
//! It runs each tabletop ruleset as a sandboxed Rhai plugin ([`plugin`], [`sandbox`],
//! [`host`]) over shared primitives — [`dice`], token [`pool`]s, [`traits`] and
//! [`entity`]s on a [`table`] — and keeps a campaign in one SQLite file ([`store`]) as a
//! hash-chained log of [`event`]s. State leaves the engine only as [`view`]s computed for one
//! viewer. The crate has no UI, no HTTP and no Tauri: the CLI and the desktop shell adapt it.

pub mod action;
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
pub mod render;
pub mod sandbox;
pub mod scenario;
pub mod script_error;
pub mod store;
pub mod table;
pub mod traits;
pub mod tx;
pub mod verify;
pub mod view;
pub mod visibility;

pub use action::{ActError, ErrorReport};
pub use campaign::{Campaign, CampaignError, NewCampaign, Outcome};
pub use plugin::{HouseRule, Plugin, PluginError, PluginSource};
pub use sandbox::Limits;
pub use visibility::{Role, Visibility};
