//! Inputs the fuzzers found (and the seeds they started from), replayed through the same code as
//! the fuzz targets in `fuzz/`: each must be handled without a panic — refused with an error
//! where it is bad.

use houserule_app::{verify, Campaign};
use houserule_core::dice::{self, Forced, RollSource};
use houserule_core::Role;
use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut out = Vec::new();
    for dir in ["regressions", "seeds"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) {
            out.extend(entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()));
        }
    }
    out.sort();
    out
}

#[test]
fn dice_parser_inputs() {
    crate::support::init();
    let files = inputs("dice_parser");
    assert!(!files.is_empty(), "the dice parser has fuzz inputs to replay");
    for f in files {
        let data = std::fs::read(&f).unwrap();
        let Ok(text) = std::str::from_utf8(&data) else { continue };
        if let Ok(expr) = dice::parse(text) {
            let faces: Vec<i64> = data.iter().map(|b| i64::from(*b % 24) - 2).collect();
            let _ = dice::roll(&expr, &mut Forced::new(faces), RollSource::Forced);
        }
    }
}

#[test]
fn open_campaign_inputs() {
    crate::support::init();
    let files = inputs("open_campaign");
    assert!(!files.is_empty(), "opening campaign files has fuzz inputs to replay");
    for f in files {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fuzzed.houserule");
        std::fs::copy(&f, &path).unwrap();
        if let Ok(store) = houserule_app::store::Store::open(&path) {
            let _ = verify::verify(&store, &verify::own_seeds(&store));
        }
        if let Ok(c) = Campaign::open(&path) {
            let _ = c.view(&Role::Gm);
            let _ = c.log(&Role::Player("ann".into()), 1);
            let _ = crate::support::verified(&c);
        }
    }
}
