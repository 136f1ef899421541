//! The pictures a player's copy carries: exactly those the player's view names and the
//! `picture` call would give that player — the shown map with every fogged pixel black (made on
//! the GM's machine, never the whole map), and the images of the tokens, the portraits of the
//! entities and the pictures of the handouts they see. Nothing else of the campaign's pictures
//! is written to the copy. A masked map is stored under the digest of its own bytes (so `verify`
//! holds it to them), with the map key it answers for in the copy's `copy_pictures` fact.

use crate::campaign::pictures::wanted;
use crate::store::{Store, StoreError};
use houserule_core::table::Table;
use houserule_core::view::View;
use houserule_core::Role;
use std::collections::{BTreeMap, BTreeSet};

/// The copy's fact that maps a masked map's key to the digest of the picture stored for it.
pub const MASKED_KEY: &str = "copy_pictures";

/// Every picture key a view names: map keys, token images, portraits, handout pictures.
pub fn keys(view: &View) -> BTreeSet<String> {
    let scenes =
        view.scenes.iter().flat_map(|s| s.map_key.iter().chain(s.tokens.iter().filter_map(|t| t.image.as_ref())));
    let portraits = view.entities.values().filter_map(|e| e.portrait.as_ref());
    let handouts = view.handouts.iter().filter_map(|h| h.picture.as_ref());
    scenes.chain(portraits).chain(handouts).cloned().collect()
}

/// Writes into `copy` (inside its write) the pictures `role` may be given for the keys `view`
/// names, read from `store`; returns each masked map's key with the digest stored for it.
pub fn carry(
    table: &Table,
    store: &Store,
    view: &View,
    role: &Role,
    copy: &mut Store,
) -> Result<BTreeMap<String, String>, StoreError> {
    let mut masked = BTreeMap::new();
    for key in keys(view) {
        // The view and `wanted` agree by construction; a key `wanted` refuses is not carried.
        let Some(want) = wanted(table, role, &key) else { continue };
        let (_, bytes) = want.bytes(store)?;
        let digest = copy.put_picture(&bytes)?;
        if digest != key {
            masked.insert(key, digest);
        }
    }
    copy.pictures_kept();
    Ok(masked)
}
