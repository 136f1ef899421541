//! Pictures in a campaign: the GM's import, one event committed with the picture's bytes, and
//! which picture a viewer may be given for a key.
//!
//! Guarantees: an import decodes the image whole within the bounds before anything is written
//! (see `crate::pictures`); its bytes and the event that names their digest are written in one
//! transaction, so either both are in the file or neither is. A viewer other than the GM is
//! given a picture only through what they may see: the masked background of the scene shown to
//! them (by its map key) or the image of a token they see. Asked for anything else — a
//! background's own digest, a hidden token's image, a key that names nothing — the answer is the
//! same refusal, so it tells nothing of what exists.

use super::{Campaign, CampaignError};
use crate::pictures::{self, scene, PictureRefused};
use crate::store::pictures::digest_of;
use crate::store::{Store, StoreError};
use houserule_core::picture::Picture;
use houserule_core::table::Table;
use houserule_core::view::{self, LogEntry};
use houserule_core::view_scene::{scenes_view, sees_token};
use houserule_core::Role;

/// What a viewer is to be given for a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Wanted {
    /// A picture as stored, by digest.
    Whole { digest: String, picture: Picture },
    /// A background with every fogged pixel black: the picture and the revealed areas in its pixels.
    Masked { digest: String, picture: Picture, revealed: Vec<Vec<(f64, f64)>> },
}

impl Wanted {
    pub fn picture(&self) -> &Picture {
        match self {
            Wanted::Whole { picture, .. } | Wanted::Masked { picture, .. } => picture,
        }
    }

    /// The bytes to give and their media type: the stored picture, or for a masked one the PNG
    /// made for the viewer (front ends keep these by map key; the command line makes them once).
    pub fn bytes(&self, store: &Store) -> Result<(&'static str, Vec<u8>), StoreError> {
        let (Wanted::Whole { digest, picture } | Wanted::Masked { digest, picture, .. }) = self;
        let stored = store.picture(digest)?;
        let bytes = stored.ok_or_else(|| StoreError::Corrupt(format!("the picture {digest} is not in the file")))?;
        match self {
            Wanted::Whole { .. } => Ok((picture.format.mime(), bytes)),
            Wanted::Masked { revealed, .. } => pictures::mask(&picture.name, &bytes, revealed)
                .map(|png| ("image/png", png))
                .map_err(|e| StoreError::Corrupt(e.to_string())),
        }
    }
}

/// The refusal for any key a viewer may not be given a picture for.
pub const NOT_YOURS: &str = "there is no picture you may see under this key";

impl Campaign {
    /// Imports a picture (the GM only): checks it whole, then stores it and the event that adds
    /// it to the table in one transaction. Returns the event (none when the campaign already
    /// holds these very bytes: nothing is written) and the picture's digest.
    pub fn import_picture(
        &mut self,
        actor: &Role,
        file: &str,
        bytes: &[u8],
    ) -> Result<(Option<LogEntry>, String), CampaignError> {
        let action = "picture_import";
        let mut tx = self.gm_tx(actor, action, "only the GM imports pictures")?;
        let digest = digest_of(bytes);
        if self.table.pictures.contains_key(&digest) {
            return Ok((None, digest));
        }
        let picture =
            pictures::check(file, bytes).map_err(|e: PictureRefused| CampaignError::Refused(e.to_string()))?;
        tx.add_picture(&digest, picture.clone()).map_err(super::gm_ops::refused)?;
        let line = format!("The GM imports the picture {file} ({}×{} pixels).", picture.width, picture.height);
        let staged = Self::gm_staged(actor, action, tx, line)?;
        self.store.begin_write()?;
        let written = self.store.put_picture(bytes).map_err(CampaignError::from).and_then(|_| self.commit(staged));
        if let Err(e) = self.store.end_write(written.is_ok()) {
            if let (Ok(_), Some(path)) = (&written, self.path()) {
                // The commit did not reach the file: what this copy holds is read from it again.
                *self = Campaign::open(&path)?;
            }
            return Err(e.into());
        }
        let (header, items) = written?;
        self.store.pictures_kept();
        Ok((Some(view::log_entry(&header, &items, &hex::encode(self.head.1), actor)), digest))
    }
}

/// What `role` may be given for `key` on this table, if anything.
pub fn wanted(table: &Table, role: &Role, key: &str) -> Option<Wanted> {
    if role.is_gm() {
        let picture = table.pictures.get(key)?.clone();
        return Some(Wanted::Whole { digest: key.to_string(), picture });
    }
    // A portrait is seen with its entity (on its card and its tokens).
    let portrayed = table.entities.values().filter(|e| role.sees(e.visibility, e.owner.as_deref()));
    if portrayed.filter_map(|e| e.portrait.as_deref()).any(|d| d == key) {
        let picture = table.pictures.get(key)?.clone();
        return Some(Wanted::Whole { digest: key.to_string(), picture });
    }
    let read = table.handouts.values().filter(|h| h.seen_by(role));
    if read.filter_map(|h| h.picture.as_deref()).any(|d| d == key) {
        let picture = table.pictures.get(key)?.clone();
        return Some(Wanted::Whole { digest: key.to_string(), picture });
    }
    for sv in scenes_view(table, role) {
        let scene = table.scenes.scenes.get(&sv.id)?;
        if let (Some(mk), Some(bg)) = (&sv.map_key, &scene.head.background) {
            if mk == key {
                let picture = table.pictures.get(&bg.digest)?.clone();
                let revealed = scene.fog.revealed_polygons(&scene.head.grid);
                return Some(Wanted::Masked { digest: bg.digest.clone(), picture, revealed });
            }
        }
        let seen = scene.tokens.values().filter(|t| sees_token(table, scene, t, role));
        if seen.filter_map(|t| t.image.as_deref()).any(|d| d == key) {
            let picture = table.pictures.get(key)?.clone();
            return Some(Wanted::Whole { digest: key.to_string(), picture });
        }
    }
    None
}

/// The scene `role` is shown — a player (or the public) the one shown to the players, the GM the
/// shown one or else the first — drawn as they see it, from only what `wanted` gives them; none
/// when they are shown no scene.
/// Returns the scene's name with the drawing.
pub fn scene_picture(
    table: &Table,
    store: &Store,
    role: &Role,
) -> Result<Option<(String, scene::Drawn)>, PictureRefused> {
    let scenes = scenes_view(table, role);
    let Some(shown) = scenes.iter().find(|s| s.shown).or(scenes.first()) else { return Ok(None) };
    let picture = |key: &str| wanted(table, role, key).and_then(|w| w.bytes(store).ok()).map(|(_, bytes)| bytes);
    scene::draw(shown, role.is_gm(), &picture).map(|d| Some((shown.name.clone(), d)))
}
