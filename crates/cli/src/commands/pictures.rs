//! `houserule scene FILE --import PICTURE`, `--map OUT` and `--background OUT`: pictures from
//! the terminal. An import is the GM's, checked and kept exactly as the app's import is. The map
//! written is the shown scene as the viewer sees it — drawn with its grid, fog and tokens, or
//! (`--background`) its picture alone — made only from what the viewer may be given: for a
//! player, the masked picture the app would send them, never the GM's whole one, and only the
//! tokens they see (from a player's copy, what that player saw, as the copy carries it).

use super::campaign::open;
use super::{role, Outcome};
use crate::output::{self, Failure};
use houserule_app::campaign::pictures::{wanted, NOT_YOURS};
use houserule_app::campaign::{Campaign, CampaignError};
use houserule_app::pictures::scene;
use houserule_app::share::SharedCopy;
use houserule_core::view_scene::scenes_view;
use houserule_core::{ErrorCode, Role};
use std::path::Path;

/// Imports a picture into the campaign (as the GM).
pub fn import(json: bool, file: &Path, viewer: Option<&str>, picture: &Path) -> Outcome {
    let who = viewer.map(role).transpose()?.unwrap_or(Role::Gm);
    let name = picture.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let meta = std::fs::metadata(picture).map_err(|e| io(picture, e))?;
    if meta.len() > houserule_core::picture::MAX_BYTES {
        let why = format!(
            "{name}: {} bytes; a picture is at most {} bytes (25 MB)",
            meta.len(),
            houserule_core::picture::MAX_BYTES
        );
        return Err(Failure::new(ErrorCode::BadParam, why));
    }
    let bytes = std::fs::read(picture).map_err(|e| io(picture, e))?;
    let mut c = open(file)?;
    let (entry, digest) = c.import_picture(&who, &name, &bytes).map_err(Failure::from)?;
    if json {
        output::json(&serde_json::json!({ "digest": digest, "entry": entry }));
    } else {
        match &entry {
            Some(e) => output::entry(e),
            None => crate::say!("The campaign already holds this picture."),
        }
        crate::say!("Its digest (for a scene's background or a token's image): {digest}");
    }
    Ok(true)
}

/// What `--map` and `--background` write.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Picturing {
    /// The scene drawn: the map, the grid, the fog and the tokens the viewer sees.
    Scene,
    /// The map picture alone, as the viewer may see it.
    Background,
}

/// Writes the scene shown to `viewer` (the GM: the shown one, else the first) as they see it:
/// drawn whole, or its map picture alone. A player's copy gives what its player saw, as the copy
/// carries it.
pub fn map(json: bool, file: &Path, viewer: Option<&str>, out: &Path, what: Picturing) -> Outcome {
    let who = viewer.map(role).transpose()?.unwrap_or(Role::Gm);
    let none = || Failure::new(ErrorCode::BadParam, "no scene to show: make one with --op '{\"op\":\"create\",…}'");
    let no_map = |name: &str| Failure::new(ErrorCode::BadParam, format!("--background: {name} has no map picture"));
    let bad = |e: String| Failure::new(ErrorCode::BadFile, e);
    let (scene, who, copy, opened) = match Campaign::open(file) {
        Err(CampaignError::PlayerCopy { .. }) => {
            let copy = SharedCopy::open(file).map_err(|e| bad(e.to_string()))?;
            let scenes = &copy.view().scenes;
            let scene = scenes.iter().find(|s| s.shown).or(scenes.first()).ok_or_else(none)?.clone();
            let who = copy.for_role.clone();
            (scene, who, Some(copy), None)
        }
        opened => {
            let c = opened.map_err(Failure::from)?;
            let scenes = scenes_view(c.table(), &who);
            let scene = scenes.iter().find(|s| s.shown).or(scenes.first()).ok_or_else(none)?.clone();
            (scene, who, None, Some(c))
        }
    };
    // The bytes of a picture key the viewer may be given, and nothing else.
    let picture = |key: &str| -> Option<Vec<u8>> {
        match (&copy, &opened) {
            (Some(copy), _) => copy.picture(key).ok().flatten(),
            (_, Some(c)) => wanted(c.table(), &who, key)?.bytes(c.store()).ok().map(|(_, b)| b),
            _ => None,
        }
    };
    let (bytes, legend) = match what {
        Picturing::Scene => {
            let drawn = scene::draw(&scene, who.is_gm(), &picture).map_err(|e| bad(e.to_string()))?;
            (drawn.png, drawn.legend)
        }
        Picturing::Background => {
            let key =
                if who.is_gm() { scene.background.as_ref().map(|b| b.digest.clone()) } else { scene.map_key.clone() };
            let key = key.ok_or_else(|| no_map(&scene.name))?;
            let bytes = picture(&key).ok_or_else(|| Failure::new(ErrorCode::Forbidden, NOT_YOURS))?;
            (bytes, Vec::new())
        }
    };
    std::fs::write(out, &bytes).map_err(|e| io(out, e))?;
    if json {
        output::json(&serde_json::json!({ "scene": scene.id, "out": out, "bytes": bytes.len(), "legend": legend }));
    } else {
        crate::say!("Wrote {} ({} bytes): {} as {} sees it.", out.display(), bytes.len(), scene.name, who);
        legend.iter().for_each(|l| crate::say!("  {l}"));
    }
    Ok(true)
}

fn io(path: &Path, e: std::io::Error) -> Failure {
    Failure::new(ErrorCode::Io, format!("{}: {e}", path.display()))
}
