//! `houserule scene` and `houserule move`: the map from the terminal. `scene` draws each scene a
//! viewer may see in text (the GM's, or `--as player:NAME` for exactly what that player's view
//! holds) and, with `--op`, does one of the GM's scene operations as the `scene` call takes it;
//! `move` moves a token along a path of cells through the ruleset's `move` hook. What is drawn
//! is the engine's view for that viewer: a token or cell the viewer may not see is not in it.

use super::campaign::open;
use super::{role, Outcome};
use crate::output::{self, Failure};
use houserule_app::campaign::SceneOp;
use houserule_core::dice::Entropy;
use houserule_core::scene::grid::{Cell, GridKind};
use houserule_core::view_scene::SceneView;
use houserule_core::{ErrorCode, Role};
use std::path::Path;

/// Shows the scenes `viewer` may see, or (with `op`) does a GM scene operation.
pub fn scene(json: bool, file: &Path, viewer: Option<&str>, op: Option<&str>) -> Outcome {
    let mut c = open(file)?;
    if let Some(op) = op {
        let op: SceneOp = serde_json::from_str(op)
            .map_err(|e| Failure::new(ErrorCode::BadParam, format!("--op: not a scene operation ({e})")))?;
        let entry = c.scene(&Role::Gm, op).map_err(Failure::from)?;
        if json {
            output::json(&entry);
        } else {
            output::entry(&entry);
        }
        return Ok(true);
    }
    let who = viewer.map(role).transpose()?.unwrap_or(Role::Gm);
    let scenes = c.view(&who).scenes;
    if json {
        output::json(&scenes);
    } else if scenes.is_empty() {
        crate::say!("No scene to show{}.", if who.is_gm() { " yet" } else { ": the GM shows none to the players" });
    }
    if !json {
        scenes.iter().for_each(|s| draw(s, who.is_gm()));
    }
    Ok(true)
}

/// Moves `token` along `cells` ("x,y" each; the first where it stands) as `viewer`.
pub fn move_token(json: bool, file: &Path, token: &str, cells: &[String], viewer: Option<&str>) -> Outcome {
    let path = cells.iter().map(|c| cell(c)).collect::<Result<Vec<Cell>, Failure>>()?;
    let who = viewer.map(role).transpose()?.unwrap_or(Role::Gm);
    let mut c = open(file)?;
    let entry = c.move_token_with(&who, token, path, None, Some(Entropy::fresh()), None).map_err(Failure::from)?;
    if json {
        output::json(&entry);
    } else {
        output::entry(&entry);
    }
    Ok(true)
}

fn cell(text: &str) -> Result<Cell, Failure> {
    let bad = || Failure::new(ErrorCode::BadParam, format!("PATH: '{text}' is not a cell (write x,y as in 3,2)"));
    let (x, y) = text.split_once(',').ok_or_else(bad)?;
    Ok(Cell(x.trim().parse().map_err(|_| bad())?, y.trim().parse().map_err(|_| bad())?))
}

/// A scene in text: its grid, a map of its cells (a token's first letter where it stands, `#`
/// where the fog hides the map from players — shaded `:` for the GM, who sees under it — `.`
/// elsewhere) and its tokens by name.
fn draw(s: &SceneView, gm: bool) {
    let g = &s.grid;
    let shape = if g.kind == GridKind::Hex { "hex" } else { "square" };
    let shown = if s.shown { ", shown to the players" } else { "" };
    let fog = if s.fog.on { "; fog on" } else { "" };
    crate::say!("{}{shown}: {shape} grid, one cell is {} {}{fog}", s.name, g.unit.per_cell, g.unit.name);
    let cells = s.tokens.iter().map(|t| t.cell).chain(s.fog.cells.iter().copied());
    let (w, h) = cells.fold((8, 5), |(w, h), c| (w.max(c.0 + 2), h.max(c.1 + 2)));
    let (w, h) = (w.min(60), h.min(40));
    for y in 0..h {
        let indent = if g.kind == GridKind::Hex { " ".repeat(y as usize) } else { String::new() };
        let row: Vec<String> = (0..w).map(|x| mark(s, Cell(x, y), gm)).collect();
        output::line(format_args!("  {indent}{}", row.join(" ")));
    }
    for t in &s.tokens {
        let owner = t.owner.as_deref().map(|o| format!(" ({o})")).unwrap_or_default();
        let unseen = if gm && t.unseen { ", players do not see it" } else { "" };
        crate::say!(
            "  {} {}{owner} at column {}, row {}{unseen}",
            initial(&t.name),
            t.name,
            t.cell.0 + 1,
            t.cell.1 + 1
        );
    }
}

fn mark(s: &SceneView, c: Cell, gm: bool) -> String {
    if let Some(t) = s.tokens.iter().find(|t| t.cell == c) {
        return initial(&t.name);
    }
    let fogged = s.fog.on && !s.fog.cells.contains(&c);
    match (fogged, gm) {
        (true, true) => ":".into(),
        (true, false) => "#".into(),
        _ => ".".into(),
    }
}

fn initial(name: &str) -> String {
    name.chars().find(|c| c.is_alphanumeric()).map(|c| c.to_uppercase().to_string()).unwrap_or_else(|| "?".into())
}
