//! Pictures: the GM's import, and each viewer's picture by key (see `campaign::pictures`).
//!
//! A masked background is made once per map key — the key changes whenever the picture, the
//! fog or the viewer does — and kept for the next ask ([`Masks`]: the few most recent), so a
//! fog is masked again only when it changes.

use super::App;
use crate::calls::{Caller, ImportPicture, Imported, PictureData, PictureKey};
use crate::campaign::pictures::{wanted, Wanted, NOT_YOURS};
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
    // The same picture again is the one already kept: no second event.
    let known = crate::store::pictures::digest_of(&bytes);
    if let Some(picture) = session.now().table.pictures.get(&known).filter(|_| caller.role.is_gm()) {
        return Ok(Imported { digest: known, picture: picture.clone(), entry: None });
    }
    let (entry, digest) = session.import_picture(&caller.role, &p.name, &bytes).map_err(|e| e.report())?;
    let picture = session
        .now()
        .table
        .pictures
        .get(&digest)
        .cloned()
        .ok_or_else(|| ErrorReport::new(ErrorCode::Internal, "the picture was imported but is not on the table"))?;
    Ok(Imported { digest, picture, entry: Some(entry) })
}

pub(super) fn picture(app: &App, caller: &Caller, p: PictureKey) -> Result<PictureData, ErrorReport> {
    let now = app.now()?;
    let not_yours = || ErrorReport::new(ErrorCode::Forbidden, NOT_YOURS).with_param("key");
    let want = wanted(&now.table, &caller.role, &p.key).ok_or_else(not_yours)?;
    let (digest, picture) = match &want {
        Wanted::Whole { digest, picture } | Wanted::Masked { digest, picture, .. } => (digest, picture),
    };
    let (width, height) = (picture.width, picture.height);
    if let Wanted::Masked { revealed, .. } = &want {
        let masked = match app.shared.pictures.get(&p.key) {
            Some(m) => m,
            None => {
                let stored = app.reading(&now, |s| s.picture(digest).map_err(|e| storage(&e)))?;
                let bytes = stored.ok_or_else(not_yours)?;
                let made = crate::pictures::mask(&picture.name, &bytes, revealed)
                    .map_err(|e| ErrorReport::new(ErrorCode::Internal, e.to_string()))?;
                let made = Arc::new(made);
                app.shared.pictures.keep(&p.key, made.clone());
                made
            }
        };
        return Ok(PictureData { mime: "image/png".into(), width, height, data: b64().encode(masked.as_slice()) });
    }
    let bytes = app.reading(&now, |s| s.picture(digest).map_err(|e| storage(&e)))?.ok_or_else(not_yours)?;
    Ok(PictureData { mime: picture.format.mime().into(), width, height, data: b64().encode(bytes) })
}

fn storage(e: &crate::store::StoreError) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, e.to_string())
}
