//! Any bytes opened as a campaign file: opening, viewing, logging and verifying never panic —
//! a bad file is refused with an error.
#![no_main]

use houserule_engine::{verify, Campaign, Role};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("fuzzed.houserule");
    std::fs::write(&path, data).expect("write the input");
    if let Ok(store) = houserule_engine::store::Store::open(&path) {
        let _ = verify::verify(&store, &verify::own_seeds(&store));
    }
    if let Ok(c) = Campaign::open(&path) {
        let _ = c.view(&Role::Gm);
        let _ = c.log(&Role::Player("ann".into()), 1);
        let _ = c.verify();
    }
});
