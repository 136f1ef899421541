//! The bounds on scenes: how many scenes and tokens, how far out a cell may lie, how long a
//! path, how many corners a polygon and how many revealed areas, and that every number a grid
//! or polygon carries is finite and in range. [`change`] holds one change to them (what one
//! change may carry); the counts that depend on the table are held by the transaction.

use super::items::name;
use super::CapError;
use crate::scene::fog::Fog;
use crate::scene::grid::{Cell, Grid};
use crate::scene::{SceneHead, Token};
use crate::table::Change;

/// Scenes one table may hold.
pub const MAX_SCENES: usize = 64;
/// Tokens on one scene.
pub const MAX_TOKENS: usize = 500;
/// How far from the origin a cell may lie, in cells, either way.
pub const MAX_COORD: i32 = 100_000;
/// Cells in one move's path.
pub const MAX_PATH: usize = 256;
/// Corners of one revealed polygon.
pub const MAX_POLYGON_POINTS: usize = 256;
/// Revealed areas (cells and polygons together) on one scene.
pub const MAX_REVEALED: usize = 10_000;
/// A token spans at most this many cells across.
pub const MAX_TOKEN_SIZE: u32 = 20;
/// A cell is 4 to 2000 background pixels across.
pub const CELL_PIXELS: (f64, f64) = (4.0, 2000.0);
pub use crate::scene::grid::MAX_PER_CELL;

fn err(what: impl Into<String>, detail: impl Into<String>) -> CapError {
    CapError { what: what.into(), detail: detail.into() }
}

/// A cell lies within [`MAX_COORD`] of the origin.
pub fn cell(what: &str, c: Cell) -> Result<(), CapError> {
    if c.0.abs() > MAX_COORD || c.1.abs() > MAX_COORD {
        return Err(err(what, format!("cell {},{} lies further than {MAX_COORD} cells out", c.0, c.1)));
    }
    Ok(())
}

fn grid(g: &Grid) -> Result<(), CapError> {
    if !(g.size.is_finite() && g.size >= CELL_PIXELS.0 && g.size <= CELL_PIXELS.1) {
        return Err(err(
            "a grid's cell size",
            format!("{} pixels; from {} to {}", g.size, CELL_PIXELS.0, CELL_PIXELS.1),
        ));
    }
    if !(g.unit.per_cell.is_finite() && g.unit.per_cell > 0.0 && g.unit.per_cell <= MAX_PER_CELL) {
        return Err(err("a grid's unit", format!("{} per cell; more than 0, at most {MAX_PER_CELL}", g.unit.per_cell)));
    }
    name("a grid's unit name", &g.unit.name)
}

fn head(h: &SceneHead) -> Result<(), CapError> {
    name("a scene's name", &h.name)?;
    if let Some(b) = &h.background {
        name("a background's digest", &b.digest)?;
    }
    grid(&h.grid)
}

fn token(t: &Token) -> Result<(), CapError> {
    cell("a token's cell", t.cell)?;
    if t.size == 0 || t.size > MAX_TOKEN_SIZE {
        return Err(err("a token's size", format!("{} cells; from 1 to {MAX_TOKEN_SIZE}", t.size)));
    }
    t.entity.as_deref().map_or(Ok(()), |e| name("a token's entity", e))?;
    t.label.as_deref().map_or(Ok(()), |l| name("a token's label", l))?;
    t.image.as_deref().map_or(Ok(()), |i| name("a token's image", i))
}

/// A path has 1 to [`MAX_PATH`] cells, each in range.
pub fn path(p: &[Cell]) -> Result<(), CapError> {
    if p.is_empty() || p.len() > MAX_PATH {
        return Err(err("a move's path", format!("{} cells; from 1 to {MAX_PATH}", p.len())));
    }
    p.iter().try_for_each(|c| cell("a move's path", *c))
}

/// A fog's revealed areas are within the counts and every corner is a finite number in range.
pub fn fog(f: &Fog) -> Result<(), CapError> {
    let areas = f.cells.len() + f.polygons.len();
    if areas > MAX_REVEALED {
        return Err(err("a scene's fog", format!("{areas} revealed areas; at most {MAX_REVEALED}")));
    }
    f.cells.iter().try_for_each(|c| cell("a revealed cell", *c))?;
    for p in &f.polygons {
        if p.len() < 3 || p.len() > MAX_POLYGON_POINTS {
            return Err(err("a revealed polygon", format!("{} corners; from 3 to {MAX_POLYGON_POINTS}", p.len())));
        }
        let bound = f64::from(MAX_COORD);
        if let Some((x, y)) =
            p.iter().find(|(x, y)| !(x.is_finite() && y.is_finite() && x.abs() <= bound && y.abs() <= bound))
        {
            return Err(err("a revealed polygon", format!("corner {x},{y} is not a number within {MAX_COORD} cells")));
        }
    }
    Ok(())
}

/// One scene change is within the bounds; other changes pass.
pub fn change(c: &Change) -> Result<(), CapError> {
    match c {
        Change::Scene { scene, head: h } => {
            name("a scene's id", scene)?;
            h.as_ref().map_or(Ok(()), head)
        }
        Change::ShowScene { scene } => scene.as_deref().map_or(Ok(()), |s| name("a scene's id", s)),
        Change::Token { scene, id, token: t } => {
            name("a scene's id", scene)?;
            name("a token's id", id)?;
            t.as_ref().map_or(Ok(()), token)
        }
        Change::Moved { scene, token, path: p, .. } => {
            name("a scene's id", scene)?;
            name("a token's id", token)?;
            path(p)
        }
        Change::Moves { scene, moves } => {
            name("a scene's id", scene)?;
            moves.iter().try_for_each(|m| name("a token's id", &m.token).and_then(|_| path(&m.path)))
        }
        Change::Fog { scene, fog: f } => name("a scene's id", scene).and_then(|_| fog(f)),
        _ => Ok(()),
    }
}
