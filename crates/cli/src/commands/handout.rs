//! `houserule handout`: the GM's handouts from the terminal. Without `--op` it lists the
//! handouts a viewer may read (the GM's: every one, with who reads it; `--as player:NAME`:
//! exactly what that player's view holds) and their text; with `--op` it does one of the GM's
//! handout operations as the `handout` call takes it.

use super::campaign::open;
use super::{role, Outcome};
use crate::output::{self, Failure};
use houserule_app::campaign::HandoutOp;
use houserule_core::handout::HandoutView;
use houserule_core::{ErrorCode, Role};
use std::path::Path;

/// Lists the handouts `viewer` may read, or (with `op`) does a GM handout operation.
pub fn handout(json: bool, file: &Path, viewer: Option<&str>, op: Option<&str>) -> Outcome {
    let mut c = open(file)?;
    if let Some(op) = op {
        let op: HandoutOp = serde_json::from_str(op)
            .map_err(|e| Failure::new(ErrorCode::BadParam, format!("--op: not a handout operation ({e})")))?;
        let entry = c.handout(&Role::Gm, op).map_err(Failure::from)?;
        if json {
            output::json(&entry);
        } else {
            output::entry(&entry);
        }
        return Ok(true);
    }
    let who = viewer.map(role).transpose()?.unwrap_or(Role::Gm);
    let handouts = c.view(&who).handouts;
    if json {
        output::json(&handouts);
        return Ok(true);
    }
    if handouts.is_empty() {
        crate::say!("No handout{}.", if who.is_gm() { " yet" } else { " has been shown to this viewer" });
    }
    handouts.iter().for_each(|h| show(h, who.is_gm()));
    Ok(true)
}

fn show(h: &HandoutView, gm: bool) {
    let readers = match (h.everyone, h.readers.is_empty()) {
        (true, _) => "everyone reads it".to_string(),
        (false, true) => "nobody reads it yet".to_string(),
        (false, false) => format!("read by {}", h.readers.join(", ")),
    };
    let picture = if h.picture.is_some() { ", with a picture" } else { "" };
    if gm {
        crate::say!("{} ({}): {readers}{picture}", h.title, h.id);
    } else {
        crate::say!("{}{picture}", h.title);
    }
    h.text.lines().for_each(|l| output::line(format_args!("  {l}")));
}
