//! `houserule scene FILE --import PICTURE` and `houserule scene FILE --map OUT`: pictures from
//! the terminal. An import is the GM's, checked and kept exactly as the app's import is; the map
//! written is the shown scene's background as the viewer may see it — for a player, the masked
//! picture the app would send them, never the GM's whole one.

use super::campaign::open;
use super::{role, Outcome};
use crate::output::{self, Failure};
use houserule_app::campaign::pictures::{wanted, NOT_YOURS};
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

/// Writes the background of the scene shown to `viewer` (the GM: the first scene, or the shown
/// one) as they may see it.
pub fn map(json: bool, file: &Path, viewer: Option<&str>, out: &Path) -> Outcome {
    let who = viewer.map(role).transpose()?.unwrap_or(Role::Gm);
    let c = open(file)?;
    let table = c.table();
    let scenes = scenes_view(table, &who);
    let scene = scenes.iter().find(|s| s.shown).or(scenes.first());
    let none = || Failure::new(ErrorCode::BadParam, "--map: no scene with a background to show");
    let scene = scene.ok_or_else(none)?;
    let key = match (&scene.background, &scene.map_key) {
        (Some(bg), _) => bg.digest.clone(),
        (None, Some(k)) => k.clone(),
        (None, None) => return Err(none()),
    };
    let want = wanted(table, &who, &key).ok_or_else(|| Failure::new(ErrorCode::Forbidden, NOT_YOURS))?;
    let (_, bytes) = want.bytes(c.store()).map_err(|e| Failure::new(ErrorCode::BadFile, e.to_string()))?;
    std::fs::write(out, &bytes).map_err(|e| io(out, e))?;
    if json {
        output::json(&serde_json::json!({ "scene": scene.id, "out": out, "bytes": bytes.len() }));
    } else {
        crate::say!("Wrote {} ({} bytes): {} as {} sees it.", out.display(), bytes.len(), scene.name, who);
    }
    Ok(true)
}

fn io(path: &Path, e: std::io::Error) -> Failure {
    Failure::new(ErrorCode::Io, format!("{}: {e}", path.display()))
}
