//! Pictures: the GM's import, and each viewer's picture by key (see `campaign::pictures`).
//!
//! A masked background is made once per map key — the key changes whenever the picture, the
//! fog or the viewer does — and kept for the next ask ([`Masks`]: the few most recent), so a
//! fog is masked again only when it changes.

use super::App;
use crate::calls::{As, Caller, ImportPicture, Imported, PictureData, PictureKey, SceneDrawing};
use crate::campaign::pictures::{self as campaign_pictures, wanted, Wanted, NOT_YOURS};
use base64::Engine;
use houserule_core::{ErrorCode, ErrorReport};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// How many masked backgrounds are kept.
const KEPT: usize = 16;

/// The masked backgrounds made lately, by map key.
#[derive(Default)]
pub(super) struct Masks {
    made: Mutex<VecDeque<(String, Arc<Vec<u8>>)>>,
}

impl Masks {
    fn get(&self, key: &str) -> Option<Arc<Vec<u8>>> {
        let made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        made.iter().find(|(k, _)| k == key).map(|(_, b)| b.clone())
    }

    fn keep(&self, key: &str, bytes: Arc<Vec<u8>>) {
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        made.retain(|(k, _)| k != key);
        made.push_front((key.to_string(), bytes));
        made.truncate(KEPT);
    }
}

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

pub(super) fn import(app: &App, caller: &Caller, p: ImportPicture) -> Result<Imported, ErrorReport> {
    let bytes = b64().decode(p.data.as_bytes()).map_err(|e| {
        ErrorReport::new(ErrorCode::BadParam, format!("{}: the file's bytes are not base64 ({e})", p.name))
            .with_param("data")
    })?;
    let session = app.session()?;
    let (entry, digest) = session.import_picture(&caller.role, &p.name, &bytes).map_err(|e| e.report())?;
    let picture = session
        .now()
        .table
        .pictures
        .get(&digest)
        .cloned()
        .ok_or_else(|| ErrorReport::new(ErrorCode::Internal, "the picture was imported but is not on the table"))?;
    Ok(Imported { digest, picture, entry })
}

pub(super) fn picture(app: &App, caller: &Caller, p: PictureKey) -> Result<PictureData, ErrorReport> {
    let now = app.now()?;
    let not_yours = || ErrorReport::new(ErrorCode::Forbidden, NOT_YOURS).with_param("key");
    let want = wanted(&now.table, &caller.role, &p.key).ok_or_else(not_yours)?;
    let (width, height) = (want.picture().width, want.picture().height);
    // A masked picture is made once per map key; a whole one is read as stored.
    let masked = matches!(want, Wanted::Masked { .. });
    let (mime, bytes) = match app.shared.pictures.get(&p.key).filter(|_| masked) {
        Some(kept) => ("image/png", kept),
        None => {
            let (mime, bytes) = app.reading(&now, |s| want.bytes(s).map_err(|e| storage(&e)))?;
            let bytes = Arc::new(bytes);
            if masked {
                app.shared.pictures.keep(&p.key, bytes.clone());
            }
            (mime, bytes)
        }
    };
    Ok(PictureData { mime: mime.into(), width, height, data: b64().encode(bytes.as_slice()) })
}

pub(super) fn scene_picture(app: &App, caller: &Caller, p: As) -> Result<Option<SceneDrawing>, ErrorReport> {
    let role = caller.acting_as(p.role.as_deref())?;
    let now = app.now()?;
    let drawn = app.reading(&now, |s| {
        campaign_pictures::scene_picture(&now.table, s, &role)
            .map_err(|e| ErrorReport::new(ErrorCode::BadFile, format!("the scene could not be drawn: {e}")))
    })?;
    Ok(drawn.map(|(scene, d)| SceneDrawing {
        scene,
        width: d.width,
        height: d.height,
        legend: d.legend,
        data: b64().encode(&d.png),
    }))
}

fn storage(e: &crate::store::StoreError) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, e.to_string())
}
