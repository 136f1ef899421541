//! Serving the table to browsers, as the calls see it.
//!
//! The server itself (HTTP, WebSockets, who joined) lives in the `houserule-host` crate, so the
//! engine never links a web server. A front end that can serve installs one with
//! [`crate::front::App::install_server`] (the port is [`crate::front::TableServer`]): the
//! desktop app installs a server the GM starts and stops from the Players panel; `houserule
//! serve` installs the one it runs, which the calls may look at but not stop. This module holds
//! what the calls `hosting`, `host_start` and `host_stop` take and answer.
//!
//! Guarantees: a server serves the campaign in play and nothing else — opening or creating
//! another campaign stops it first; removing a player ends their join link before their
//! connections are closed, so a browser that reconnects by itself is refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where the table is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reach {
    /// Every network this computer is on (players on other machines).
    #[default]
    Network,
    /// This computer only (players in a browser here, or through a tunnel the GM set up).
    ThisComputer,
}

/// How to start serving.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct HostStart {
    #[serde(default)]
    pub reach: Reach,
    /// The port; without it the last one used, else [`DEFAULT_PORT`], else any free one.
    #[serde(default)]
    pub port: Option<u16>,
}

/// Opening a running table to the network, or closing it to other computers.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SetReach {
    pub reach: Reach,
}

/// The port the desktop app serves on when it is free, so links made last time still work.
pub const DEFAULT_PORT: u16 = 7787;

/// Someone connected to the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Visitor {
    /// The connection's number (for this run of the server).
    pub id: u64,
    /// Who joined (`player:ann`, `gm`); none while the page has not joined yet.
    pub who: Option<String>,
    /// The address the connection comes from.
    pub from: String,
    /// When it connected (RFC 3339, UTC).
    pub since: String,
}

/// The table being served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Serving {
    /// The address players open (join links are this with `#join=TOKEN`).
    pub url: String,
    /// Other addresses of this computer the table answers on.
    pub also: Vec<String>,
    pub reach: Reach,
    /// When serving started (RFC 3339, UTC).
    pub since: String,
    /// Whether the GM can stop it from the table (not when `houserule serve` runs it).
    pub stoppable: bool,
    /// Whether the GM can open it to the network, or close it to other computers again, while
    /// it runs (a table started on this computer only).
    pub switchable: bool,
    /// Connections open now, oldest first.
    pub connected: Vec<Visitor>,
    /// Something the GM should know (a busy port, no network address found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
