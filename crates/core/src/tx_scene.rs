//! Scene operations on a transaction: making, changing, showing and removing scenes; placing,
//! changing and removing tokens; fog; portraits (shown on tokens); and moving a token along a path.
//!
//! Each operation is [`Change`]s made through [`Tx::change`], so it is held to the caps, logged
//! with the visibility `Table::change_visibility` gives it (a hidden token's changes reach the GM
//! only), undone and folded like any other change. Each refuses with the reason and changes
//! nothing when it does not fit. Who may move a token is [`Tx::may_move`]'s to say.

use crate::caps::scene::{MAX_SCENES, MAX_TOKENS};
use crate::picture::{Picture, MAX_PICTURES};
use crate::scene::fog::Fog;
use crate::scene::grid::Cell;
use crate::scene::{Move, Scene, SceneHead, Token};
use crate::table::Change;
use crate::tx::{Tx, TxError};
use crate::visibility::Role;

fn rule(msg: impl Into<String>) -> TxError {
    TxError::Rule(msg.into())
}

impl Tx {
    /// The scene with this id.
    pub fn scene(&self, id: &str) -> Result<&Scene, TxError> {
        self.table.scenes.scenes.get(id).ok_or_else(|| rule(format!("there is no scene '{id}'")))
    }

    /// The scene a token is on, and the token.
    pub fn token(&self, id: &str) -> Result<(String, Token), TxError> {
        self.table
            .scenes
            .find_token(id)
            .map(|(s, _, t)| (s.to_string(), t.clone()))
            .ok_or_else(|| rule(format!("there is no token '{id}'")))
    }

    /// Puts an imported picture on the table (the app stored its bytes under `digest`).
    pub fn add_picture(&mut self, digest: &str, picture: Picture) -> Result<(), TxError> {
        if self.table.pictures.contains_key(digest) {
            return Err(rule(format!("the picture {} is already in the campaign", picture.name)));
        }
        if self.table.pictures.len() >= MAX_PICTURES {
            return Err(rule(format!("a campaign holds at most {MAX_PICTURES} pictures")));
        }
        self.change(Change::Picture { digest: digest.to_string(), picture: Some(picture) })
    }

    /// A picture a scene or token names is one the campaign holds (for a background, of the size given).
    fn check_pictures(&self, head: Option<&SceneHead>, image: Option<&str>) -> Result<(), TxError> {
        let known = |d: &str| {
            self.table
                .pictures
                .get(d)
                .ok_or_else(|| rule(format!("there is no picture {d} in the campaign: import it first")))
        };
        if let Some(bg) = head.and_then(|h| h.background.as_ref()) {
            let p = known(&bg.digest)?;
            if (p.width, p.height) != (bg.width, bg.height) {
                return Err(rule(format!(
                    "the picture {} is {}×{} pixels, not {}×{}",
                    p.name, p.width, p.height, bg.width, bg.height
                )));
            }
        }
        image.map_or(Ok(()), |d| known(d).map(|_| ()))
    }

    /// Sets an entity's portrait to a picture the campaign holds, or with none takes it off.
    pub fn set_portrait(&mut self, entity: &str, picture: Option<String>) -> Result<(), TxError> {
        if !self.table.entities.contains_key(entity) {
            return Err(rule(format!("there is no entity '{entity}'")));
        }
        self.check_pictures(None, picture.as_deref())?;
        self.change(Change::Portrait { entity: entity.to_string(), picture })
    }

    /// Makes a new scene.
    pub fn create_scene(&mut self, id: &str, head: SceneHead) -> Result<(), TxError> {
        self.check_pictures(Some(&head), None)?;
        if self.table.scenes.scenes.contains_key(id) {
            return Err(rule(format!("a scene '{id}' already exists")));
        }
        if self.table.scenes.scenes.len() >= MAX_SCENES {
            return Err(rule(format!("a table holds at most {MAX_SCENES} scenes: remove one first")));
        }
        self.change(Change::Scene { scene: id.to_string(), head: Some(head) })
    }

    /// Sets what a scene is (name, background, grid, who may move what).
    pub fn update_scene(&mut self, id: &str, head: SceneHead) -> Result<(), TxError> {
        self.scene(id)?;
        self.check_pictures(Some(&head), None)?;
        self.change(Change::Scene { scene: id.to_string(), head: Some(head) })
    }

    /// Removes a scene and every token on it.
    pub fn remove_scene(&mut self, id: &str) -> Result<(), TxError> {
        let tokens: Vec<String> = self.scene(id)?.tokens.keys().cloned().collect();
        for t in tokens {
            self.change(Change::Token { scene: id.to_string(), id: t, token: None })?;
        }
        self.change(Change::Scene { scene: id.to_string(), head: None })
    }

    /// Shows a scene to the players (or none).
    pub fn show_scene(&mut self, id: Option<&str>) -> Result<(), TxError> {
        if let Some(id) = id {
            self.scene(id)?;
        }
        self.change(Change::ShowScene { scene: id.map(str::to_string) })
    }

    /// Places a new token on a scene.
    pub fn place_token(&mut self, scene: &str, id: &str, token: Token) -> Result<(), TxError> {
        let s = self.scene(scene)?;
        if s.tokens.len() >= MAX_TOKENS {
            return Err(rule(format!("a scene holds at most {MAX_TOKENS} tokens: remove one first")));
        }
        if self.table.scenes.find_token(id).is_some() {
            return Err(rule(format!("a token '{id}' already exists")));
        }
        self.check_pictures(None, token.image.as_deref())?;
        if let Some(e) = &token.entity {
            self.entity(e)?;
        } else if token.label.is_none() {
            return Err(rule("a free marker needs a label (or give the token an entity)"));
        }
        self.change(Change::Token { scene: scene.to_string(), id: id.to_string(), token: Some(token) })
    }

    /// Sets what a token is (hidden or not, its entity, size, image) without moving it: a token's
    /// cell changes only by [`Tx::move_token`].
    pub fn update_token(&mut self, id: &str, token: Token) -> Result<(), TxError> {
        let (scene, old) = self.token(id)?;
        if token.cell != old.cell {
            return Err(rule(format!("token '{id}' moves only by a move")));
        }
        self.check_pictures(None, token.image.as_deref())?;
        if let Some(e) = &token.entity {
            self.entity(e)?;
        }
        self.change(Change::Token { scene, id: id.to_string(), token: Some(token) })
    }

    /// Removes a token.
    pub fn remove_token(&mut self, id: &str) -> Result<(), TxError> {
        let (scene, _) = self.token(id)?;
        self.change(Change::Token { scene, id: id.to_string(), token: None })
    }

    /// Sets a scene's fog.
    pub fn set_fog(&mut self, scene: &str, fog: Fog) -> Result<(), TxError> {
        if self.scene(scene)?.fog == fog {
            return Ok(());
        }
        self.change(Change::Fog { scene: scene.to_string(), fog })
    }

    /// The round moves are counted in: the encounter's while one runs, else the table's.
    pub fn move_round(&self) -> u64 {
        if self.table.turns.active {
            self.table.turns.round
        } else {
            self.table.round
        }
    }

    /// Whether `role` may move this token: the GM always; a player a token of an entity they
    /// own, or any token they may see when the scene lets players move any.
    pub fn may_move(&self, role: &Role, token: &str) -> Result<(), TxError> {
        let (scene, t) = self.token(token)?;
        let Role::Player(p) = role else {
            return if role.is_gm() { Ok(()) } else { Err(rule("only the GM and the players move tokens")) };
        };
        let entity = t.entity.as_deref().and_then(|e| self.table.entities.get(e));
        if entity.is_some_and(|e| e.owner.as_deref() == Some(p.as_str())) {
            return Ok(());
        }
        if self.scene(&scene)?.head.players_move_any && self.table.scenes.shown.as_deref() == Some(scene.as_str()) {
            return Ok(());
        }
        Err(rule(format!("{p} may move only their own tokens (the GM may allow more)")))
    }

    /// What the rules are told of a move: `token`, `entity` (\"\" for a marker), `round`, `path`
    /// (cells as `[x, y]`), `length` in the scene's unit and whether it was `straight`.
    pub fn move_facts(&self, m: &Move) -> Result<serde_json::Value, TxError> {
        let (scene, token) = self.token(&m.token)?;
        let grid = &self.scene(&scene)?.head.grid;
        Ok(serde_json::json!({
            "token": m.token,
            "entity": token.entity.unwrap_or_default(),
            "round": m.round,
            "path": m.path.iter().map(|c| [c.0, c.1]).collect::<Vec<_>>(),
            "length": grid.path_length(&m.path),
            "straight": grid.is_straight(&m.path),
        }))
    }

    /// Moves a token along a path whose first cell is where it stands; records the move for
    /// this round. Returns the move.
    pub fn move_token(&mut self, id: &str, path: Vec<Cell>) -> Result<Move, TxError> {
        let (scene, token) = self.token(id)?;
        crate::caps::scene::path(&path)?;
        if path.first() != Some(&token.cell) {
            let c = token.cell;
            return Err(rule(format!("a move's path starts where the token stands ({},{})", c.0, c.1)));
        }
        let end = *path.last().expect("a checked path has a cell");
        let round = self.move_round();
        let moved = Token { cell: end, ..token };
        self.change(Change::Token { scene: scene.clone(), id: id.to_string(), token: Some(moved) })?;
        self.change(Change::Moved { scene, token: id.to_string(), round, path: path.clone() })?;
        Ok(Move { token: id.to_string(), round, path })
    }
}

#[cfg(test)]
#[path = "tx_scene_tests.rs"]
mod tests;
