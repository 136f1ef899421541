//! The Houserule app layer: everything around the pure engine (`houserule-core`) that touches
//! files, threads, processes or the clock.
//!
//! - [`campaign`]: a campaign file in play — created, opened and checked ([`store`],
//!   [`pinned`], [`checked`]), its actions checked, run in the sandbox and committed;
//! - [`sandbox`] and [`rules`]: the sandbox worker process every script runs in, and the rules
//!   in force as this process sees them;
//! - [`session`], [`reload`] and [`watch`]: a campaign in play with hot reload;
//! - [`verify`] and [`share`]: checking a file and writing clean copies of it;
//! - [`invites`]: the join links players prove who they are with; [`serving`]: the table served
//!   to browsers, as the calls see it (the server itself is the `houserule-host` crate);
//! - [`origin`]: the message a bridge took an action from (a Matrix room), recorded with it;
//!   [`online`]: the campaign's referee in a room, as the calls see it (the referee itself is
//!   the `houserule-matrix` crate);
//! - [`lab`]: the balance lab, one scene played many times with and without house rules;
//! - [`undo`]: the GM taking actions back, and setting values by hand;
//! - [`catalog`] and [`folders`]: the rulesets there are, and reading rules from folders;
//! - [`scenario`]: running a plugin's scenario tests;
//! - [`calls`] and [`front`]: the calls the desktop app and the server share, declared once and
//!   answered in one place.

pub mod calls;
pub mod campaign;
pub mod catalog;
pub mod chat;
pub mod checked;
pub mod entries;
pub mod events;
pub mod folders;
pub mod front;
pub mod invites;
pub mod lab;
pub mod online;
pub mod pictures;
pub mod pinned;
pub mod reads;
pub mod reload;
pub mod request;
pub mod rules;
pub mod sandbox;
pub mod scenario;
pub mod serving;
pub mod session;
pub mod share;
pub mod store;
pub mod undo;
pub mod verify;
pub mod watch;

pub use campaign::{Acted, Campaign, CampaignError, NewCampaign};
pub use rules::{Rules, RulesError};
