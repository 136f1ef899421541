//! Any bytes opened as a campaign file: opening, viewing, logging and verifying never panic —
//! a bad file is refused with an error.
#![no_main]

use houserule_app::{verify, Campaign};
use houserule_core::Role;
use libfuzzer_sys::fuzz_target;

/// Campaigns run their rules in a sandbox worker; this fuzz binary cannot be one, so it starts
/// the `houserule` CLI as its workers (`HOUSERULE_WORKER`, default `../target/debug/houserule`:
/// build it first).
fn workers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let program = std::env::var_os("HOUSERULE_WORKER").map(std::path::PathBuf::from).unwrap_or_else(|| "../target/debug/houserule".into());
        houserule_app::sandbox::use_program(program);
    });
}


fuzz_target!(|data: &[u8]| {
    workers();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("fuzzed.houserule");
    std::fs::write(&path, data).expect("write the input");
    if let Ok(store) = houserule_app::store::Store::open(&path) {
        let _ = verify::verify(&store, &verify::own_seeds(&store));
    }
    if let Ok(c) = Campaign::open(&path) {
        let _ = c.view(&Role::Gm);
        let _ = c.log(&Role::Player("ann".into()), 1);
        let _ = c.verify();
    }
});
