//! The table: the whole state of a campaign, and the changes that build it.
//!
//! State is only ever modified by [`Table::apply`] with a [`Change`]. The campaign log records
//! the changes each action made, so the state after any event is the fold of the changes before
//! it; a transaction applies its changes to a working copy with the same function, which is why
//! a committed action and a replayed log always agree.

use crate::deck::{Deck, DeckError, DeckPart};
use crate::entity::{Entity, Field};
use crate::handout::Handout;
use crate::picture::Picture;
use crate::pool::{Counts, Pool, PoolRef};
use crate::scene::fog::Fog;
use crate::scene::grid::Cell;
use crate::scene::{Move, Scene, SceneHead, Scenes, Token};
use crate::traits::{self, Trait};
use crate::turns::{Seat, TurnError, Turns};
use crate::visibility::Visibility;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The state of a campaign.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Table {
    /// Rounds ended so far (advanced by a ruleset's `end_round`).
    #[serde(default)]
    pub round: u64,
    /// The ruleset settings in force.
    #[serde(default)]
    pub settings: IndexMap<String, Value>,
    /// Table-level pools (Momentum, Threat, a white bag …).
    #[serde(default)]
    pub pools: IndexMap<String, Pool>,
    #[serde(default)]
    pub entities: IndexMap<String, Entity>,
    /// Table-level values a ruleset keeps (the current challenge, a GM's tally …).
    #[serde(default)]
    pub vars: IndexMap<String, Field>,
    /// Counter of the next roll generated from the campaign seed.
    #[serde(default)]
    pub next_roll: u64,
    /// The sources of the rules in force, by digest: `ruleset/NAME` and `house/NAME` → the
    /// SHA-256 of the file's name and text. Part of the state, so every snapshot and the hash
    /// chain commit to the rules a campaign is played with.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, String>,
    /// The players the GM lets type in their own dice over the network (a player at the GM's
    /// own computer is the GM's business). Public, like every table permission.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub typed_dice: std::collections::BTreeSet<String>,
    /// Whether a participant of the turn order whom a player may not see is shown to them as
    /// "someone" in their place (the GM's choice; left out when not). Public, like every table
    /// permission; left out while off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub someone_in_turns: bool,
    /// The turn tracker: who takes part in the encounter, in what order, whose turn it is.
    /// Left out while idle, so a table made before turns existed hashes as it always did.
    #[serde(default, skip_serializing_if = "Turns::is_idle")]
    pub turns: Turns,
    /// Decks of cards by name (draw pile, discards, hands). Left out while there are none.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub decks: IndexMap<String, Deck>,
    /// The scenes the GM prepared and the one shown to players. Left out while there are none,
    /// so a table made before scenes existed hashes as it always did.
    #[serde(default, skip_serializing_if = "Scenes::is_empty")]
    pub scenes: Scenes,
    /// The pictures imported into the campaign, by digest (their bytes are in the file, not
    /// here). Left out while there are none, so a table made before pictures hashes as it did.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pictures: BTreeMap<String, Picture>,
    /// The GM's handouts by id, in the order they were written. Left out while there are none.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub handouts: IndexMap<String, Handout>,
}

/// One change to the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Change {
    Create {
        entity: Entity,
    },
    Remove {
        id: String,
    },
    Rename {
        id: String,
        name: String,
    },
    SetOwner {
        id: String,
        owner: Option<String>,
    },
    /// Changes who may see an entity.
    SetVisibility {
        id: String,
        visibility: Visibility,
    },
    /// Sets (or, with no value, removes) a field.
    Field {
        entity: String,
        field: String,
        value: Option<Value>,
        visibility: Visibility,
    },
    /// Adds a trait, or replaces the trait of the same name.
    Trait {
        entity: String,
        #[serde(rename = "trait")]
        value: Trait,
    },
    RemoveTrait {
        entity: String,
        name: String,
    },
    /// New counts of a pool (the old ones are kept for the log).
    Pool {
        pool: PoolRef,
        before: Counts,
        after: Counts,
    },
    /// Creates or redefines a pool (cap, floor, kinds).
    DefinePool {
        pool: PoolRef,
        def: Pool,
    },
    /// Removes a pool (an undo taking back the action that made it).
    RemovePool {
        pool: PoolRef,
    },
    Var {
        name: String,
        value: Option<Value>,
        visibility: Visibility,
    },
    Round {
        round: u64,
    },
    Setting {
        key: String,
        value: Value,
    },
    /// The rules now in force, by file digest.
    Rules {
        sources: BTreeMap<String, String>,
    },
    /// Whether a player may type in their own dice (the GM's decision, never a script's).
    TypedDice {
        player: String,
        allowed: bool,
    },
    /// Whether players see a participant of the turn order hidden from them as "someone" (the
    /// GM's decision, never a script's).
    SomeoneInTurns {
        shown: bool,
    },
    /// Starts (or ends) an encounter, and says which round of it this is.
    Encounter {
        active: bool,
        round: u64,
    },
    /// Sets, or with no seat removes, one participant's place in the turn order. Seen by those
    /// who may see the entity, so a hidden NPC's place stays the GM's.
    Seat {
        entity: String,
        seat: Option<Seat>,
    },
    /// Makes it someone's turn, or no one's. Seen by those who may see whose turn it is.
    Turn {
        entity: Option<String>,
    },
    /// Changes one part of a deck (its pile, its discards, a holder's hand), each seen by those
    /// who may see that part.
    Deck {
        deck: String,
        part: DeckPart,
    },
    /// Makes a scene or sets what it is (name, background, grid); with no head, removes it and
    /// its tokens. Seen by the GM only (players see the shown scene through the view).
    Scene {
        scene: String,
        head: Option<SceneHead>,
    },
    /// Shows a scene to the players, or none. GM only, as above.
    ShowScene {
        scene: Option<String>,
    },
    /// Places or changes a token, or with none removes it. Seen as its entity is, unless the
    /// token is hidden, fogged or on a scene players do not see: then by the GM only.
    Token {
        scene: String,
        id: String,
        token: Option<Token>,
    },
    /// A token moved along this path (its first cell where it stood) in this round: recorded for
    /// the rules, which measure a round's moves. Seen as the token's changes are.
    Moved {
        scene: String,
        token: String,
        round: u64,
        path: Vec<Cell>,
    },
    /// Sets a scene's record of moves back (an undo). GM only.
    Moves {
        scene: String,
        moves: Vec<Move>,
    },
    /// Sets a scene's fog. GM only.
    Fog {
        scene: String,
        fog: Fog,
    },
    /// Adds a picture the GM imported (its digest commits to its bytes), or with none takes it
    /// off the table (an undo; its bytes stay in the file). GM only: players reach a picture
    /// only through what they may see on a scene.
    Picture {
        digest: String,
        picture: Option<Picture>,
    },
    /// Sets an entity's portrait (a picture on the table), or with none takes it off. Seen as
    /// the entity is.
    Portrait {
        entity: String,
        picture: Option<String>,
    },
    /// Writes a handout (its text, picture and who it is revealed to), or with none removes it.
    /// GM only: a player reads a handout revealed to them in their view, and learns of it by
    /// the line the GM's action tells them.
    Handout {
        id: String,
        handout: Option<Handout>,
    },
}

/// A change that does not fit the table it is applied to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    #[error("there is no entity '{0}'")]
    NoEntity(String),
    #[error("an entity '{0}' already exists")]
    EntityExists(String),
    #[error("there is no pool '{0}'")]
    NoPool(String),
    /// `near`: the names of its traits nearest the one asked for (only those the asker may see).
    #[error("'{entity}' has no trait \"{name}\"{}", crate::names::did_you_mean(.near))]
    NoTrait { entity: String, name: String, near: Vec<String> },
    #[error("{0}")]
    Pool(#[from] crate::pool::PoolError),
    #[error("{0}")]
    Turn(#[from] TurnError),
    #[error("'{0}' has a place in the turn order: take it out of the order first")]
    Seated(String),
    #[error("{0}")]
    Deck(#[from] DeckError),
    #[error("'{0}' holds cards: discard them first")]
    HoldsCards(String),
    #[error("'{0}' has a token ('{1}') on a scene: remove the token first")]
    OnScene(String, String),
    #[error("there is no scene '{0}'")]
    NoScene(String),
    #[error("there is no token '{0}'")]
    NoToken(String),
    #[error("a token '{0}' already exists")]
    TokenExists(String),
    #[error("there is no picture {0} on the table")]
    NoPicture(String),
    #[error("there is no handout '{0}'")]
    NoHandout(String),
}

impl Table {
    pub fn entity(&self, id: &str) -> Result<&Entity, TableError> {
        self.entities.get(id).ok_or_else(|| TableError::NoEntity(id.to_string()))
    }

    fn entity_mut(&mut self, id: &str) -> Result<&mut Entity, TableError> {
        self.entities.get_mut(id).ok_or_else(|| TableError::NoEntity(id.to_string()))
    }

    /// Finds an entity by id, or else by exact name, or else by name ignoring case.
    pub fn resolve(&self, id_or_name: &str) -> Option<&Entity> {
        let t = id_or_name.trim();
        self.entities
            .get(t)
            .or_else(|| self.entities.values().find(|e| e.name == t))
            .or_else(|| self.entities.values().find(|e| e.name.eq_ignore_ascii_case(t)))
    }

    pub fn pool(&self, r: &PoolRef) -> Result<&Pool, TableError> {
        let found = match &r.entity {
            None => self.pools.get(&r.name),
            Some(e) => self.entity(e)?.pools.get(&r.name),
        };
        found.ok_or_else(|| TableError::NoPool(r.to_string()))
    }

    fn pool_mut(&mut self, r: &PoolRef) -> Result<&mut Pool, TableError> {
        let name = r.to_string();
        let found = match &r.entity {
            None => self.pools.get_mut(&r.name),
            Some(e) => self.entity_mut(e)?.pools.get_mut(&r.name),
        };
        found.ok_or(TableError::NoPool(name))
    }

    /// Who may see a change, and whose it is (for owner-only values).
    pub fn change_visibility(&self, change: &Change) -> (Visibility, Option<String>) {
        let of_entity = |id: &str| -> (Visibility, Option<String>) {
            match self.entities.get(id) {
                Some(e) => (e.visibility, e.owner.clone()),
                None => (Visibility::Public, None),
            }
        };
        match change {
            Change::Create { entity } => (entity.visibility, entity.owner.clone()),
            Change::Remove { id } | Change::Rename { id, .. } | Change::SetOwner { id, .. } => of_entity(id),
            Change::Portrait { entity, .. } => of_entity(entity),
            // Those who could see it before, or can now, learn of the change.
            Change::SetVisibility { id, visibility } => {
                let (v, o) = of_entity(id);
                (v.min(*visibility), o)
            }
            Change::Field { entity, visibility, .. } => {
                let (v, o) = of_entity(entity);
                (v.stricter(*visibility), o)
            }
            Change::Trait { entity, value } => {
                let (v, o) = of_entity(entity);
                (v.stricter(value.visibility), o)
            }
            Change::RemoveTrait { entity, name } => {
                let (v, o) = of_entity(entity);
                let tv = self
                    .entities
                    .get(entity)
                    .and_then(|e| traits::find(&e.traits, name))
                    .map(|t| t.visibility)
                    .unwrap_or_default();
                (v.stricter(tv), o)
            }
            Change::Pool { pool, .. } | Change::DefinePool { pool, .. } | Change::RemovePool { pool } => {
                let pv = match change {
                    Change::DefinePool { def, .. } => {
                        def.visibility.stricter(self.pool(pool).map(|p| p.visibility).unwrap_or_default())
                    }
                    _ => self.pool(pool).map(|p| p.visibility).unwrap_or_default(),
                };
                match &pool.entity {
                    Some(e) => {
                        let (v, o) = of_entity(e);
                        (v.stricter(pv), o)
                    }
                    None => (pv, None),
                }
            }
            Change::Var { name, visibility, .. } => {
                let old = self.vars.get(name).map(|f| f.visibility).unwrap_or_default();
                (visibility.stricter(old), None)
            }
            Change::Seat { entity, .. } | Change::Turn { entity: Some(entity) } => of_entity(entity),
            Change::Deck { part, .. } => {
                let holder = match part {
                    DeckPart::Hand { holder, .. } => self.entities.get(holder).map(|e| (e.visibility, e.owner.clone())),
                    _ => None,
                };
                part.visibility(holder)
            }
            Change::Round { .. }
            | Change::Setting { .. }
            | Change::Rules { .. }
            | Change::TypedDice { .. }
            | Change::SomeoneInTurns { .. }
            | Change::Encounter { .. }
            | Change::Turn { entity: None } => (Visibility::Public, None),
            Change::Token { scene, id, token } => self.token_visibility(scene, id, token.as_ref()),
            Change::Moved { scene, token, .. } => self.token_visibility(scene, token, None),
            Change::Scene { .. }
            | Change::ShowScene { .. }
            | Change::Moves { .. }
            | Change::Fog { .. }
            | Change::Picture { .. }
            | Change::Handout { .. } => (Visibility::Gm, None),
        }
    }

    /// Who may learn of a change to a token: the GM only when the token is (or becomes) hidden,
    /// when its scene is fogged or not shown to players; otherwise those who may see its entity
    /// (everyone, for a free marker).
    fn token_visibility(&self, scene: &str, id: &str, new: Option<&Token>) -> (Visibility, Option<String>) {
        let gm = (Visibility::Gm, None);
        let Some(s) = self.scenes.scenes.get(scene) else { return gm };
        if self.scenes.shown.as_deref() != Some(scene) || s.fog.on {
            return gm;
        }
        let old = s.tokens.get(id);
        if old.into_iter().chain(new).any(|t| t.hidden) {
            return gm;
        }
        match old.or(new).and_then(|t| t.entity.as_deref()) {
            Some(e) => match self.entities.get(e) {
                Some(e) => (e.visibility, e.owner.clone()),
                None => gm,
            },
            None => (Visibility::Public, None),
        }
    }

    fn scene_mut(&mut self, id: &str) -> Result<&mut Scene, TableError> {
        self.scenes.scenes.get_mut(id).ok_or_else(|| TableError::NoScene(id.to_string()))
    }

    fn apply_scene(&mut self, change: &Change) -> Result<(), TableError> {
        match change {
            Change::Scene { scene, head: Some(head) } => match self.scenes.scenes.get_mut(scene) {
                Some(s) => s.head = head.clone(),
                None => {
                    self.scenes.scenes.insert(scene.clone(), Scene::new(head.clone()));
                }
            },
            Change::Scene { scene, head: None } => {
                self.scenes.scenes.shift_remove(scene).ok_or_else(|| TableError::NoScene(scene.clone()))?;
                if self.scenes.shown.as_deref() == Some(scene) {
                    self.scenes.shown = None;
                }
            }
            Change::ShowScene { scene } => {
                if let Some(id) = scene {
                    self.scene_mut(id)?;
                }
                self.scenes.shown = scene.clone();
            }
            Change::Token { scene, id, token: Some(t) } => {
                if let Some((other, _, _)) = self.scenes.find_token(id) {
                    if other != scene {
                        return Err(TableError::TokenExists(id.clone()));
                    }
                }
                if let Some(e) = &t.entity {
                    self.entity(e)?;
                }
                self.scene_mut(scene)?.tokens.insert(id.clone(), t.clone());
            }
            Change::Token { scene, id, token: None } => {
                self.scene_mut(scene)?.tokens.shift_remove(id).ok_or_else(|| TableError::NoToken(id.clone()))?;
            }
            Change::Moved { scene, token, round, path } => {
                let s = self.scene_mut(scene)?;
                if !s.tokens.contains_key(token) {
                    return Err(TableError::NoToken(token.clone()));
                }
                s.record(Move { token: token.clone(), round: *round, path: path.clone() });
            }
            Change::Moves { scene, moves } => self.scene_mut(scene)?.moves = moves.clone(),
            Change::Fog { scene, fog } => self.scene_mut(scene)?.fog = fog.clone(),
            _ => unreachable!("apply_scene is given scene changes only"),
        }
        Ok(())
    }

    /// Applies one change, or refuses it without modifying anything.
    pub fn apply(&mut self, change: &Change) -> Result<(), TableError> {
        match change {
            Change::Create { entity } => {
                if self.entities.contains_key(&entity.id) {
                    return Err(TableError::EntityExists(entity.id.clone()));
                }
                self.entities.insert(entity.id.clone(), entity.clone());
            }
            Change::Remove { id } => {
                if self.turns.seats.contains_key(id) {
                    return Err(TableError::Seated(id.clone()));
                }
                if self.decks.values().any(|d| d.holds(id)) {
                    return Err(TableError::HoldsCards(id.clone()));
                }
                if let Some((_, tok)) = self.scenes.token_of(id) {
                    return Err(TableError::OnScene(id.clone(), tok.to_string()));
                }
                self.entities.shift_remove(id).ok_or_else(|| TableError::NoEntity(id.clone()))?;
            }
            Change::Rename { id, name } => self.entity_mut(id)?.name = name.clone(),
            Change::SetOwner { id, owner } => self.entity_mut(id)?.owner = owner.clone(),
            Change::SetVisibility { id, visibility } => self.entity_mut(id)?.visibility = *visibility,
            Change::Field { entity, field, value, visibility } => {
                let e = self.entity_mut(entity)?;
                match value {
                    Some(v) => {
                        e.fields.insert(field.clone(), Field { value: v.clone(), visibility: *visibility });
                    }
                    None => {
                        e.fields.shift_remove(field);
                    }
                }
            }
            Change::Trait { entity, value } => {
                let e = self.entity_mut(entity)?;
                match e.traits.iter().position(|t| t.name == value.name) {
                    Some(i) => e.traits[i] = value.clone(),
                    None => e.traits.push(value.clone()),
                }
            }
            Change::RemoveTrait { entity, name } => {
                let e = self.entity_mut(entity)?;
                let i = e.traits.iter().position(|t| &t.name == name).ok_or_else(|| TableError::NoTrait {
                    entity: entity.clone(),
                    name: name.clone(),
                    near: vec![],
                })?;
                e.traits.remove(i);
            }
            Change::Pool { pool, after, .. } => {
                let name = pool.to_string();
                let p = self.pool_mut(pool)?;
                p.check(&name, after)?;
                p.counts = after.clone();
            }
            Change::RemovePool { pool } => {
                let removed = match &pool.entity {
                    None => self.pools.shift_remove(&pool.name),
                    Some(e) => self.entity_mut(e)?.pools.shift_remove(&pool.name),
                };
                removed.ok_or_else(|| TableError::NoPool(pool.to_string()))?;
            }
            Change::DefinePool { pool, def } => match &pool.entity {
                None => {
                    self.pools.insert(pool.name.clone(), def.clone());
                }
                Some(e) => {
                    self.entity_mut(e)?.pools.insert(pool.name.clone(), def.clone());
                }
            },
            Change::Var { name, value, visibility } => match value {
                Some(v) => {
                    self.vars.insert(name.clone(), Field { value: v.clone(), visibility: *visibility });
                }
                None => {
                    self.vars.shift_remove(name);
                }
            },
            Change::Round { round } => self.round = *round,
            Change::Setting { key, value } => {
                self.settings.insert(key.clone(), value.clone());
            }
            Change::Rules { sources } => self.rules = sources.clone(),
            Change::TypedDice { player, allowed: true } => {
                self.typed_dice.insert(player.clone());
            }
            Change::TypedDice { player, allowed: false } => {
                self.typed_dice.remove(player);
            }
            Change::SomeoneInTurns { shown } => self.someone_in_turns = *shown,
            Change::Encounter { active, round } => {
                self.turns.active = *active;
                self.turns.round = *round;
            }
            Change::Seat { entity, seat } => {
                if seat.is_some() {
                    self.entity(entity)?;
                }
                self.turns.seat(entity, seat.as_ref())?;
            }
            Change::Turn { entity } => self.turns.set_current(entity.as_deref())?,
            Change::Deck { deck, part } => crate::deck::apply(&mut self.decks, deck, part)?,
            Change::Scene { .. }
            | Change::ShowScene { .. }
            | Change::Token { .. }
            | Change::Moved { .. }
            | Change::Moves { .. }
            | Change::Fog { .. } => self.apply_scene(change)?,
            Change::Picture { digest, picture: Some(p) } => {
                self.pictures.insert(digest.clone(), p.clone());
            }
            Change::Picture { digest, picture: None } => {
                self.pictures.remove(digest).ok_or_else(|| TableError::NoPicture(digest.clone()))?;
            }
            Change::Portrait { entity, picture } => {
                if let Some(d) = picture.as_ref().filter(|d| !self.pictures.contains_key(*d)) {
                    return Err(TableError::NoPicture(d.clone()));
                }
                self.entity_mut(entity)?.portrait = picture.clone();
            }
            Change::Handout { id, handout: Some(h) } => {
                if let Some(d) = h.picture.as_ref().filter(|d| !self.pictures.contains_key(*d)) {
                    return Err(TableError::NoPicture(d.clone()));
                }
                self.handouts.insert(id.clone(), h.clone());
            }
            Change::Handout { id, handout: None } => {
                self.handouts.shift_remove(id).ok_or_else(|| TableError::NoHandout(id.clone()))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hero(id: &str, owner: Option<&str>) -> Entity {
        Entity {
            id: id.into(),
            kind: "character".into(),
            name: id.into(),
            owner: owner.map(Into::into),
            visibility: Visibility::Public,
            fields: IndexMap::new(),
            traits: vec![],
            pools: IndexMap::new(),
            portrait: None,
        }
    }

    #[test]
    fn changes_fold_into_state() {
        let mut t = Table::default();
        t.apply(&Change::Create { entity: hero("gandolf", Some("ann")) }).unwrap();
        t.apply(&Change::Field {
            entity: "gandolf".into(),
            field: "mad".into(),
            value: Some(7.into()),
            visibility: Visibility::Public,
        })
        .unwrap();
        t.apply(&Change::Trait { entity: "gandolf".into(), value: Trait::named("Magic!") }).unwrap();
        t.apply(&Change::DefinePool {
            pool: PoolRef::parse("momentum").unwrap(),
            def: Pool::new(0, 0, Some(6), Visibility::Public),
        })
        .unwrap();
        let r = PoolRef::parse("momentum").unwrap();
        let after = t.pool(&r).unwrap().added("momentum", None, 3).unwrap();
        t.apply(&Change::Pool { pool: r.clone(), before: t.pool(&r).unwrap().counts.clone(), after }).unwrap();
        assert_eq!(t.pool(&r).unwrap().total(), 3);
        assert_eq!(t.entity("gandolf").unwrap().fields["mad"].value, Value::from(7));
        assert_eq!(t.resolve("GANDOLF").unwrap().id, "gandolf");
        assert!(matches!(t.apply(&Change::Create { entity: hero("gandolf", None) }), Err(TableError::EntityExists(_))));
        let bad = Change::Pool {
            pool: r.clone(),
            before: Counts::new(),
            after: [("token".to_string(), 9)].into_iter().collect(),
        };
        let before = t.clone();
        assert!(t.apply(&bad).is_err(), "a change past the cap is refused");
        assert_eq!(t, before, "a refused change leaves the table as it was");
    }
}
