//! What every connection to a running server shares: the app it calls, the front end it
//! calls as, the GM's secret, the names it answers to, the join attempts it counts and who is
//! connected. Kept apart from the server so the protocol can read it without the server.

use crate::attempts;
use crate::visitors::Visitors;
use houserule_app::calls::Front;
use houserule_app::front::App;
use std::path::PathBuf;
use std::sync::Arc;

/// What every connection shares.
pub struct Shared {
    pub app: App,
    /// The front end every connection calls through: browsers of a server playing its file.
    pub front: Arc<Front>,
    pub secret: String,
    /// A folder to serve the UI from instead of the built-in copy.
    pub ui: Option<PathBuf>,
    /// Host names (besides IP addresses and `localhost`) the server answers to.
    pub names: Vec<String>,
    pub attempts: attempts::Attempts,
    pub visitors: Visitors,
}
