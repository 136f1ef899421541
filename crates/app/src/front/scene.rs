//! Scenes: the GM's scene operations and a token's move (see `campaign::scene`).

use super::App;
use crate::calls::{Caller, MoveToken};
use crate::campaign::SceneOp;
use houserule_core::view::LogEntry;
use houserule_core::ErrorReport;

pub(super) fn scene(app: &App, caller: &Caller, op: SceneOp) -> Result<LogEntry, ErrorReport> {
    app.session()?.scene(&caller.role, op).map_err(|e| e.report())
}

pub(super) fn move_token(app: &App, caller: &Caller, p: MoveToken) -> Result<LogEntry, ErrorReport> {
    app.session()?.move_token(&caller.role, &p.token, p.path).map_err(|e| e.report())
}
