//! Scenes and handouts: the GM's scene and handout operations and a token's move (see
//! `campaign::scene`, `campaign::handouts`).

use super::App;
use crate::calls::{Caller, MeasurePath, Measured, MoveToken};
use crate::campaign::{HandoutOp, SceneOp};
use houserule_core::dice::Entropy;
use houserule_core::view::LogEntry;
use houserule_core::{ErrorCode, ErrorReport};

pub(super) fn scene(app: &App, caller: &Caller, op: SceneOp) -> Result<LogEntry, ErrorReport> {
    app.session()?.scene(&caller.role, op).map_err(|e| e.report())
}

pub(super) fn handout(app: &App, caller: &Caller, op: HandoutOp) -> Result<LogEntry, ErrorReport> {
    app.session()?.handout(&caller.role, op).map_err(|e| e.report())
}

/// A move's hook may roll (a running die): as with an action, a player's browser brings its own
/// entropy, a chat message its own (from the message), and elsewhere this machine's is used.
pub(super) fn move_token(app: &App, caller: &Caller, p: MoveToken) -> Result<LogEntry, ErrorReport> {
    let brings_own = p.entropy.is_some() || p.bridged.is_some();
    if !brings_own && caller.front.players_bring_entropy && !caller.role.is_gm() {
        return Err(ErrorReport::new(
            ErrorCode::BadRequest,
            "a player's move carries 32 fresh random bytes from their own device (entropy), so nobody can foresee \
             what it rolls; reload the page",
        ));
    }
    let from_message = p.bridged.as_ref().map(|b| b.message.entropy());
    let entropy = p.entropy.or(from_message).unwrap_or_else(Entropy::fresh);
    let session = app.session()?;
    session.move_token(&caller.role, &p.token, p.path, Some(entropy), p.bridged.as_ref()).map_err(|e| e.report())
}

pub(super) fn measure(_: &App, _: &Caller, p: MeasurePath) -> Result<Measured, ErrorReport> {
    houserule_core::caps::scene::path(&p.path)
        .map_err(|e| ErrorReport::new(ErrorCode::BadParam, e.to_string()).with_param("path"))?;
    let grid = &p.grid;
    if !(grid.unit.per_cell.is_finite() && grid.unit.per_cell > 0.0) {
        return Err(
            ErrorReport::new(ErrorCode::BadParam, "an amount per cell is more than 0").with_param("grid.unit.per_cell")
        );
    }
    Ok(Measured {
        cells: grid.path_cells(&p.path),
        length: grid.path_length(&p.path),
        unit: grid.unit.name.clone(),
        straight: grid.is_straight(&p.path),
    })
}
