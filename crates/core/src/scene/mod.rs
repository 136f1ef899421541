//! Scenes: maps the GM prepares, each with an optional background image, a [`grid`], tokens
//! and [`fog`]; one of them is shown to the players.
//!
//! A [`Token`] stands for a table entity (its name, owner and visibility come from the entity)
//! or is a free marker with a label. Scenes are table state like any other: changed only by
//! [`crate::table::Change`]s (see `tx_scene`), folded from events, undone, and shown to a viewer
//! only through `view::scenes_view`, which leaves out hidden tokens, tokens under fog and every
//! scene but the shown one for a player.
//!
//! Guarantee: [`Scenes::is_empty`] tables are not serialised at all, so a table made before
//! scenes existed hashes as it always did.

pub mod fog;
pub mod grid;

use fog::Fog;
use grid::{Cell, Grid};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A scene's background image: the digest of the stored image and its size in pixels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Background {
    /// The image's digest (hex SHA-256), as the campaign file stores it.
    pub digest: String,
    pub width: u32,
    pub height: u32,
}

/// What the GM sets on a scene as a whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SceneHead {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
    pub grid: Grid,
    /// Every player may move every token they may see (not only their own).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub players_move_any: bool,
}

/// A token on a scene.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Token {
    /// The entity it stands for; none for a free marker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// A free marker's label (a token of an entity shows the entity's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The cell of its top-left corner (its only cell when its size is 1).
    pub cell: Cell,
    /// How many cells it spans across (and down).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub size: u32,
    /// The digest of its image, if it has its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Hidden by the GM: no player sees it (but its owner).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl Token {
    /// The cells it covers (a square of `size` cells from its corner; on a hex grid its cell).
    pub fn cells(&self, grid: &Grid) -> Vec<Cell> {
        if grid.kind == grid::GridKind::Hex || self.size <= 1 {
            return vec![self.cell];
        }
        let n = self.size as i32;
        (0..n)
            .flat_map(|dy| (0..n).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| Cell(self.cell.0 + dx, self.cell.1 + dy))
            .collect()
    }
}

/// One move a token made: its path (the first cell where it stood) and the round it was in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Move {
    pub token: String,
    pub round: u64,
    pub path: Vec<Cell>,
}

/// One scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scene {
    pub head: SceneHead,
    /// Tokens by id, in the order they were placed.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub tokens: IndexMap<String, Token>,
    #[serde(default, skip_serializing_if = "is_clear")]
    pub fog: Fog,
    /// The moves made in the latest round anything moved (older rounds are let go).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<Move>,
}

fn is_clear(f: &Fog) -> bool {
    *f == Fog::default()
}

impl Scene {
    pub fn new(head: SceneHead) -> Scene {
        Scene { head, tokens: IndexMap::new(), fog: Fog::default(), moves: Vec::new() }
    }

    /// This token's moves in `round`, oldest first.
    pub fn moves_of<'a>(&'a self, token: &'a str, round: u64) -> impl Iterator<Item = &'a Move> + 'a {
        self.moves.iter().filter(move |m| m.token == token && m.round == round)
    }

    /// Records a move; moves of earlier rounds are let go.
    pub fn record(&mut self, m: Move) {
        self.moves.retain(|old| old.round >= m.round);
        self.moves.push(m);
    }
}

/// The scenes of a table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Scenes {
    /// Every prepared scene by id, in the order they were made.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub scenes: IndexMap<String, Scene>,
    /// The scene the players see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
}

impl Scenes {
    pub fn is_empty(&self) -> bool {
        *self == Scenes::default()
    }

    /// The scene and token a token id names (token ids are unique across scenes).
    pub fn find_token(&self, token: &str) -> Option<(&str, &Scene, &Token)> {
        self.scenes.iter().find_map(|(id, s)| s.tokens.get(token).map(|t| (id.as_str(), s, t)))
    }

    /// The token that stands for an entity on the scene shown, or else on any scene.
    pub fn token_of(&self, entity: &str) -> Option<(&str, &str)> {
        let shown = self.shown.as_deref().and_then(|id| self.scenes.get_key_value(id));
        shown
            .and_then(|(sid, s)| token_in(sid, s, entity))
            .or_else(|| self.scenes.iter().find_map(|(sid, s)| token_in(sid, s, entity)))
    }
}

fn token_in<'a>(sid: &'a str, s: &'a Scene, entity: &str) -> Option<(&'a str, &'a str)> {
    s.tokens.iter().find(|(_, t)| t.entity.as_deref() == Some(entity)).map(|(tid, _)| (sid, tid.as_str()))
}
