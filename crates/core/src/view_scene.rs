//! Scenes as one viewer sees them.
//!
//! The GM sees every scene whole. A player sees only the scene shown to the players, and of it
//! only the tokens that are not hidden, whose entity they may see and (when the fog is on) that
//! stand on a revealed cell — but always their own tokens. A player's scene carries no
//! background digest: it carries an opaque key, a hash of the digest, the fog and the viewer,
//! which changes whenever the map or the fog does and names the masked image made for them.
//!
//! Guarantee: nothing of a token a player may not see — its id, label, entity, cell — is in
//! that player's [`SceneView`] (the redaction property test holds it to that).

use crate::scene::fog::Fog;
use crate::scene::grid::{Cell, Grid};
use crate::scene::{Background, Scene, Token};
use crate::table::Table;
use crate::visibility::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A token as a viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenView {
    pub id: String,
    /// The entity it stands for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// What to call it: the entity's name, or a free marker's label.
    pub name: String,
    /// The player who owns its entity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    pub cell: Cell,
    pub size: u32,
    /// The picture it shows: its own, else its entity's portrait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Hidden from the players (only the GM, and the token's owner, see it).
    pub hidden: bool,
    /// Players other than its owner do not see it: it is hidden, or its entity is not public.
    #[serde(default)]
    pub unseen: bool,
}

/// A scene as a viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SceneView {
    pub id: String,
    pub name: String,
    pub grid: Grid,
    /// The background image (the GM's view only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background: Option<Background>,
    /// The key of the background as this viewer may see it, fog blacked out (a player's view of
    /// a scene with a background): changes whenever the map or the fog does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_key: Option<String>,
    /// The fog and its revealed areas.
    pub fog: Fog,
    /// The tokens the viewer may see, in the order they were placed.
    pub tokens: Vec<TokenView>,
    /// The scene shown to the players.
    pub shown: bool,
    /// Players may move any token they see.
    pub players_move_any: bool,
}

/// The key of a background as `role` sees it through `fog`.
pub fn map_key(bg: &Background, fog: &Fog, role: &Role) -> String {
    let mut h = Sha256::new();
    h.update(b"houserule map key\0");
    h.update(bg.digest.as_bytes());
    h.update([0]);
    h.update(serde_json::to_vec(fog).expect("a fog serialises"));
    h.update([0]);
    h.update(serde_json::to_vec(role).expect("a role serialises"));
    hex::encode(h.finalize())
}

/// Whether `role` may see this token on this scene.
pub fn sees_token(table: &Table, scene: &Scene, token: &Token, role: &Role) -> bool {
    if role.is_gm() {
        return true;
    }
    let entity = token.entity.as_deref().and_then(|e| table.entities.get(e));
    if let (Some(e), Role::Player(p)) = (entity, role) {
        if e.owner.as_deref() == Some(p.as_str()) {
            return true;
        }
    }
    let entity_seen = match (&token.entity, entity) {
        (None, _) => true,
        (Some(_), Some(e)) => role.sees(e.visibility, e.owner.as_deref()),
        (Some(_), None) => false,
    };
    !token.hidden
        && entity_seen
        && token.cells(&scene.head.grid).iter().any(|c| scene.fog.is_revealed(&scene.head.grid, *c))
}

/// The scenes `role` may see: all of them for the GM, the shown one (if any) for anyone else.
pub fn scenes_view(table: &Table, role: &Role) -> Vec<SceneView> {
    let shown = table.scenes.shown.as_deref();
    table
        .scenes
        .scenes
        .iter()
        .filter(|(id, _)| role.is_gm() || shown == Some(id.as_str()))
        .map(|(id, s)| {
            let tokens = s
                .tokens
                .iter()
                .filter(|(_, t)| sees_token(table, s, t, role))
                .map(|(tid, t)| token_view(table, tid, t))
                .collect();
            let (background, map_key) = match (&s.head.background, role.is_gm()) {
                (Some(bg), true) => (Some(bg.clone()), None),
                (Some(bg), false) => (None, Some(map_key(bg, &s.fog, role))),
                (None, _) => (None, None),
            };
            SceneView {
                id: id.clone(),
                name: s.head.name.clone(),
                grid: s.head.grid.clone(),
                background,
                map_key,
                fog: s.fog.clone(),
                tokens,
                shown: shown == Some(id.as_str()),
                players_move_any: s.head.players_move_any,
            }
        })
        .collect()
}

fn token_view(table: &Table, id: &str, t: &Token) -> TokenView {
    let entity = t.entity.as_deref().and_then(|e| table.entities.get(e));
    TokenView {
        id: id.to_string(),
        entity: t.entity.clone(),
        name: entity.map(|e| e.name.clone()).or_else(|| t.label.clone()).unwrap_or_else(|| id.to_string()),
        owner: entity.and_then(|e| e.owner.clone()),
        cell: t.cell,
        size: t.size,
        image: t.image.clone().or_else(|| entity.and_then(|e| e.portrait.clone())),
        hidden: t.hidden,
        unseen: t.hidden || entity.is_some_and(|e| e.visibility != crate::visibility::Visibility::Public),
    }
}
