//! Scenes in a campaign: the GM's scene operations and a token's move, each one event.
//!
//! A GM operation ([`SceneOp`]) is built in, as permissions are: a transaction, its changes, a
//! GM-only line, one event (an action `scene`, so undo takes it back like any action). A move
//! is an action `move` anyone may ask for: who may move the token is checked first; the token
//! is moved here, then the ruleset's `move` hook runs in the sandbox over the moved table, and
//! what it did is replayed here (re-applied and re-checked, not trusted). A refusal — by the
//! permission, the path or the rules — commits nothing.

use super::{Campaign, CampaignError};
use crate::campaign::append::Append;
use crate::chat::Bridged;
use crate::sandbox::TableId;
use houserule_core::action::{ActError, Call, Staged};
use houserule_core::dice::Entropy;
use houserule_core::event::EventKind;
use houserule_core::scene::fog::{Fog, Point};
use houserule_core::scene::grid::{Cell, Grid};
use houserule_core::scene::{Background, SceneHead, Token};
use houserule_core::tx::{Tx, TxError};
use houserule_core::view::{self, LogEntry, View};
use houserule_core::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One thing the GM does to the scenes, their tokens and the portraits they show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum SceneOp {
    /// Makes a scene; without a grid, the ruleset's (its `[scene]` table).
    Create {
        id: String,
        name: String,
        #[serde(default)]
        grid: Option<Grid>,
        #[serde(default)]
        background: Option<Background>,
    },
    /// Changes what is given of a scene.
    Update {
        id: String,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        grid: Option<Grid>,
        #[serde(default)]
        background: Option<Background>,
        #[serde(default)]
        players_move_any: Option<bool>,
    },
    /// Removes a scene and its tokens.
    Remove { id: String },
    /// Shows a scene to the players, or none.
    Show {
        #[serde(default)]
        id: Option<String>,
    },
    /// Places a token: of an entity, or a free marker with a label.
    Place {
        scene: String,
        id: String,
        #[serde(default)]
        entity: Option<String>,
        #[serde(default)]
        label: Option<String>,
        cell: Cell,
        #[serde(default)]
        size: Option<u32>,
        #[serde(default)]
        image: Option<String>,
        #[serde(default)]
        hidden: bool,
    },
    /// Changes what is given of a token (not its cell: a token moves by a move). An entity or
    /// image given as `null` is taken off (the token becomes a free marker, or shows its
    /// entity's portrait); one left out stays.
    Token {
        id: String,
        #[serde(default)]
        hidden: Option<bool>,
        #[serde(default, deserialize_with = "given")]
        entity: Option<Option<String>>,
        #[serde(default)]
        size: Option<u32>,
        #[serde(default, deserialize_with = "given")]
        image: Option<Option<String>>,
    },
    /// Sets an entity's portrait (a picture the campaign holds, by digest), or with none takes
    /// it off. Whoever sees the entity sees its portrait, on its card and on its tokens that
    /// have no picture of their own.
    Portrait {
        entity: String,
        #[serde(default)]
        picture: Option<String>,
    },
    /// Removes a token.
    RemoveToken { id: String },
    /// Turns a scene's fog on or off, reveals cells or a polygon (in grid units), covers cells,
    /// or (`cover_all`) covers everything revealed.
    Fog {
        scene: String,
        #[serde(default)]
        on: Option<bool>,
        #[serde(default)]
        reveal: Vec<Cell>,
        #[serde(default)]
        cover: Vec<Cell>,
        #[serde(default)]
        polygon: Option<Vec<Point>>,
        #[serde(default)]
        cover_all: bool,
    },
}

/// A field given, even as `null` (`Some(None)`), apart from one left out (`None`).
fn given<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

impl SceneOp {
    /// Applies the operation to a transaction; returns the GM's line about it.
    fn apply(self, tx: &mut Tx) -> Result<String, TxError> {
        match self {
            SceneOp::Create { id, name, grid, background } => {
                let grid = grid.unwrap_or_else(|| tx.manifest.scene.grid());
                tx.create_scene(&id, SceneHead { name: name.clone(), background, grid, players_move_any: false })?;
                Ok(format!("The GM prepares scene {name}."))
            }
            SceneOp::Update { id, name, grid, background, players_move_any } => {
                let mut head = tx.scene(&id)?.head.clone();
                head.name = name.unwrap_or(head.name);
                head.grid = grid.unwrap_or(head.grid);
                head.background = background.or(head.background);
                head.players_move_any = players_move_any.unwrap_or(head.players_move_any);
                let name = head.name.clone();
                tx.update_scene(&id, head)?;
                Ok(format!("The GM changes scene {name}."))
            }
            SceneOp::Remove { id } => {
                let name = tx.scene(&id)?.head.name.clone();
                tx.remove_scene(&id).map(|_| format!("The GM removes scene {name}."))
            }
            SceneOp::Show { id } => {
                tx.show_scene(id.as_deref())?;
                match id {
                    Some(id) => Ok(format!("The GM shows the players {}.", tx.scene(&id)?.head.name)),
                    None => Ok("The GM shows the players no scene.".into()),
                }
            }
            SceneOp::Place { scene, id, entity, label, cell, size, image, hidden } => {
                let what = entity.as_deref().and_then(|e| tx.table.entities.get(e)).map(|e| e.name.clone());
                let what = what.or_else(|| label.clone()).unwrap_or_else(|| id.clone());
                let token = Token { entity, label, cell, size: size.unwrap_or(1), image, hidden };
                tx.place_token(&scene, &id, token)?;
                let on = tx.scene(&scene)?.head.name.clone();
                Ok(format!("The GM places {what} on {on}, column {} row {}.", cell.0 + 1, cell.1 + 1))
            }
            SceneOp::Token { id, hidden, entity, size, image } => {
                let (_, old) = tx.token(&id)?;
                let token = Token {
                    hidden: hidden.unwrap_or(old.hidden),
                    entity: entity.unwrap_or(old.entity.clone()),
                    size: size.unwrap_or(old.size),
                    image: image.unwrap_or(old.image.clone()),
                    ..old
                };
                tx.update_token(&id, token)?;
                Ok(format!("The GM changes token {id}."))
            }
            SceneOp::Portrait { entity, picture } => {
                let name = tx.table.entities.get(&entity).map(|e| e.name.clone()).unwrap_or_else(|| entity.clone());
                let had = picture.is_some();
                tx.set_portrait(&entity, picture)?;
                Ok(if had {
                    format!("The GM gives {name} a portrait.")
                } else {
                    format!("The GM takes {name}'s portrait off.")
                })
            }
            SceneOp::RemoveToken { id } => tx.remove_token(&id).map(|_| format!("The GM removes token {id}.")),
            SceneOp::Fog { scene, on, reveal, cover, polygon, cover_all } => {
                let mut fog =
                    if cover_all { Fog { on: true, ..Fog::default() } } else { tx.scene(&scene)?.fog.clone() };
                fog.on = on.unwrap_or(fog.on);
                fog.cells.extend(reveal);
                cover.iter().for_each(|c| {
                    fog.cells.remove(c);
                });
                fog.polygons.extend(polygon);
                tx.set_fog(&scene, fog)?;
                Ok(format!("The GM changes the fog on {}.", tx.scene(&scene)?.head.name))
            }
        }
    }

    /// The name the event's action carries.
    fn name(&self) -> &'static str {
        match self {
            SceneOp::Create { .. } => "scene_create",
            SceneOp::Update { .. } => "scene_update",
            SceneOp::Remove { .. } => "scene_remove",
            SceneOp::Show { .. } => "scene_show",
            SceneOp::Place { .. } => "token_place",
            SceneOp::Token { .. } | SceneOp::RemoveToken { .. } => "token_update",
            SceneOp::Fog { .. } => "fog",
            SceneOp::Portrait { .. } => "portrait",
        }
    }
}

impl Campaign {
    /// Does one GM scene operation as one event (told to the GM only).
    pub fn scene(&mut self, actor: &Role, op: SceneOp) -> Result<LogEntry, CampaignError> {
        let action = op.name();
        self.gm_op(actor, action, "only the GM prepares scenes, tokens and fog", |tx| op.apply(tx))
    }

    /// Moves a token along `path` (its first cell where it stands) as `role`, with the rules'
    /// `move` hook, as one event; refused with the reason, committing nothing, when `role` may
    /// not move it, the path does not fit or the rules refuse.
    pub fn move_token(&mut self, role: &Role, token: &str, path: Vec<Cell>) -> Result<LogEntry, ActError> {
        self.move_token_with(role, token, path, None, None, None)
    }

    /// As [`Campaign::move_token`], with the dice the move hook rolls: faces given in advance
    /// (a scenario, dice rolled by hand), or the seed mixed with the mover's entropy; and, for a
    /// move a bridge took from a chat message, the message and the bridge's marks, committed
    /// with it.
    pub fn move_token_with(
        &mut self,
        role: &Role,
        token: &str,
        path: Vec<Cell>,
        forced: Option<Vec<i64>>,
        entropy: Option<Entropy>,
        bridged: Option<&Bridged>,
    ) -> Result<LogEntry, ActError> {
        let storage = |e: CampaignError| ActError::Storage(e.to_string());
        self.catch_up().map_err(storage)?;
        let dice = self.dice(forced, entropy)?;
        // A token the mover may not see is, to them, no token at all: the refusal must not tell
        // a hidden token's id from one that does not exist.
        let sees = |v: View| v.scenes.iter().any(|s| s.tokens.iter().any(|t| t.id == token));
        if !role.is_gm() && !sees(self.view(role)) {
            return Err(ActError::Forbidden { reason: format!("there is no token '{token}'") });
        }
        let mut tx = self.op_tx(role, "move", dice.clone());
        tx.may_move(role, token).map_err(|e| ActError::Forbidden { reason: e.to_string() })?;
        let params = [("token", Value::from(token)), ("path", serde_json::to_value(&path).expect("cells serialise"))];
        // Secret: a hidden or fogged token's id and path are nobody's but the GM's and the mover's
        // (what others may see of the move is the token's own change, by its visibility).
        for (name, value) in params {
            tx.record_param(name, value, true).map_err(ActError::from_tx)?;
        }
        let m = tx.move_token(token, path).map_err(ActError::from_tx)?;
        if let Some(hook) = self.rules.manifest.hooks.on_move.clone() {
            let facts = tx.move_facts(&m).map_err(ActError::from_tx)?;
            let id = TableId { campaign: self.token, seq: self.head.0 };
            let calls = [Call { function: hook, args: vec![facts] }];
            let reply = self.rules.stage_over(id, &tx.table, role, &calls, &dice)?;
            tx.replay(reply.items).map_err(ActError::from_tx)?;
            tx.finish_dice().map_err(ActError::Dice)?;
            let staged = Staged { tx, result: Value::Null, log: reply.log };
            return self.commit_move(role, staged, Some(id), bridged);
        }
        self.commit_move(role, Staged { tx, result: Value::Null, log: vec![] }, None, bridged)
    }

    fn commit_move(
        &mut self,
        role: &Role,
        staged: Staged,
        staged_on: Option<TableId>,
        bridged: Option<&Bridged>,
    ) -> Result<LogEntry, ActError> {
        let append = Append::new(EventKind::Action, Some(role.clone()), staged).action("move").bridged(bridged);
        let (header, items) = self.commit(append).map_err(|e| ActError::Storage(e.to_string()))?;
        if let Some(id) = staged_on {
            self.rules.committed(id);
        }
        Ok(view::log_entry(&header, &items, &hex::encode(self.head.1), role))
    }
}
