//! The map, for the rules: a token's cell, distances in the scene's unit measured as the
//! ruleset's manifest says, the tokens within a radius, the cells along a line, this round's
//! moves of a token, and moving a token (a Push, a Throw).
//!
//! These calls see every token, hidden ones too (the rules must: a grenade hits the hidden
//! sniper as well); what a script tells a player is its own choice, as everywhere.

use super::{reg, Fallible, Handle};
use crate::scene::grid::{self, Cell, Grid};
use crate::tx::Tx;
use rhai::{Array, Dynamic, Engine, Map, FLOAT, INT};

fn cell_value(c: Cell) -> Dynamic {
    let a: Array = vec![(c.0 as INT).into(), (c.1 as INT).into()];
    a.into()
}

fn err<T>(msg: impl Into<String>) -> Fallible<T> {
    Err(msg.into().into())
}

/// A cell from `[x, y]`.
fn cell_of(d: &Dynamic) -> Fallible<Cell> {
    let Some(a) = d.read_lock::<Array>() else { return err("a cell is an array [x, y]") };
    let n = |v: &Dynamic| v.as_int().ok().and_then(|n| i32::try_from(n).ok());
    match a.as_slice() {
        [x, y] => match (n(x), n(y)) {
            (Some(x), Some(y)) => Ok(Cell(x, y)),
            _ => err("a cell is two whole numbers [x, y]"),
        },
        _ => err("a cell is an array [x, y]"),
    }
}

/// The grid of the scene a token stands on, and its cell.
fn placed(tx: &Tx, token: &str) -> Fallible<(Grid, Cell)> {
    let (scene, t, tok) = tx.table.scenes.find_token(token).ok_or_else(|| format!("there is no token '{token}'"))?;
    let _ = scene;
    Ok((t.head.grid.clone(), tok.cell))
}

/// A place: a token id, or a cell `[x, y]` on the scene shown to players.
fn place(tx: &Tx, d: &Dynamic) -> Fallible<(Grid, Cell, Option<String>)> {
    if d.is_string() {
        let id = d.to_string();
        let (g, c) = placed(tx, &id)?;
        return Ok((g, c, Some(id)));
    }
    let c = cell_of(d)?;
    let shown = tx.table.scenes.shown.as_deref().and_then(|s| tx.table.scenes.scenes.get(s));
    let grid = shown.ok_or("a cell is measured on the scene shown to players, and none is shown")?.head.grid.clone();
    Ok((grid, c, None))
}

fn within(h: &Handle, centre: Dynamic, radius: FLOAT) -> Fallible<Array> {
    h.read(|tx| {
        let (g, c, own) = place(tx, &centre)?;
        let scene = match &own {
            Some(id) => tx.table.scenes.find_token(id).map(|(_, s, _)| s),
            None => tx.table.scenes.shown.as_deref().and_then(|s| tx.table.scenes.scenes.get(s)),
        };
        let Some(scene) = scene else { return Ok(Array::new()) };
        let reach = radius / g.unit.per_cell;
        let mut found: Vec<(f64, Map)> = Vec::new();
        for (id, t) in &scene.tokens {
            if own.as_deref() == Some(id.as_str()) {
                continue;
            }
            let d = t.cells(&g).iter().map(|x| g.cells_between(c, *x)).fold(f64::INFINITY, f64::min);
            if d <= reach {
                let mut m = Map::new();
                m.insert("id".into(), id.clone().into());
                m.insert("entity".into(), t.entity.clone().unwrap_or_default().into());
                m.insert("distance".into(), (d * g.unit.per_cell).into());
                found.push((d, m));
            }
        }
        found.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(found.into_iter().map(|(_, m)| Dynamic::from(m)).collect())
    })
}

pub(super) fn register(engine: &mut Engine) {
    register_reading(engine);
    register_measuring(engine);
    register_moving(engine);
}

fn register_reading(engine: &mut Engine) {
    reg!(
        engine,
        "token_of",
        &["t: Table", "entity: String", "String"],
        "The token that stands for an entity (on the scene shown to players, else on any scene), or \"\".",
        |h: &mut Handle, entity: &str| h
            .read(|tx| { tx.table.scenes.token_of(entity).map(|(_, t)| t.to_string()).unwrap_or_default() })
    );
    reg!(
        engine,
        "token_cell",
        &["t: Table", "token: String", "Array"],
        "A token's cell [x, y] (its top-left cell when it spans several).",
        |h: &mut Handle, token: &str| -> Fallible<Dynamic> {
            h.read(|tx| placed(tx, token).map(|(_, c)| cell_value(c)))
        }
    );
    reg!(
        engine,
        "moves_this_round",
        &["t: Table", "token: String", "Array"],
        "This round's moves of a token, oldest first: [#{token, entity, round, path, length, straight}], the length in the scene's unit, straight when the cells it crossed are those along the line between its ends.",
        |h: &mut Handle, token: &str| -> Fallible<Array> {
            h.with(|tx| {
                let (scene, _) = tx.token(token)?;
                let round = tx.move_round();
                let moves: Vec<_> = tx.scene(&scene)?.moves_of(token, round).cloned().collect();
                moves.iter().map(|m| tx.move_facts(m).map(|v| super::to_dynamic(&v))).collect()
            })
        }
    );
}

fn register_measuring(engine: &mut Engine) {
    reg!(
        engine,
        "distance",
        &["t: Table", "from: ?", "to: ?", "f64"],
        "The distance between two places (each a token id or a cell [x, y]), in the scene's unit, measured as the scene's grid measures (a token of several cells: from its top-left cell).",
        |h: &mut Handle, a: Dynamic, b: Dynamic| -> Fallible<FLOAT> {
            h.read(|tx| {
                let (g, from, _) = place(tx, &a)?;
                let (_, to, _) = place(tx, &b)?;
                Ok(g.distance(from, to))
            })
        }
    );
    reg!(
        engine,
        "tokens_within",
        &["t: Table", "centre: ?", "radius: f64", "Array"],
        "The tokens within a radius (in the scene's unit) of a token or a cell, nearest first, the centre token left out: [#{id, entity, distance}]. A token counts by its nearest cell. Hidden tokens are included.",
        |h: &mut Handle, centre: Dynamic, radius: FLOAT| -> Fallible<Array> { within(h, centre, radius) }
    );
    reg!(
        engine,
        "cells_along",
        &["t: Table", "from: ?", "to: ?", "Array"],
        "The cells along the straight line between two places (token ids or cells), both ends included, each step to an adjacent cell.",
        |h: &mut Handle, a: Dynamic, b: Dynamic| -> Fallible<Array> {
            h.read(|tx| {
                let (g, from, _) = place(tx, &a)?;
                let (_, to, _) = place(tx, &b)?;
                Ok(grid::line(g.kind, from, to).into_iter().map(cell_value).collect())
            })
        }
    );
}

fn register_moving(engine: &mut Engine) {
    reg!(
        engine,
        "move_token",
        &["t: Table", "token: String", "path: Array", "()"],
        "Moves a token along a path of cells [[x, y], …] whose first cell is where it stands (a Push, a Throw); recorded as one of this round's moves. The move hook is not called again.",
        |h: &mut Handle, token: &str, path: Array| -> Fallible<()> {
            let cells = path.iter().map(cell_of).collect::<Fallible<Vec<Cell>>>()?;
            h.with(|tx| tx.move_token(token, cells).map(|_| ()))
        }
    );
}
