//! A valid campaign with one column replaced by the fuzz input — an event's header or items, a
//! meta value, a carried script, a snapshot — then opened, viewed, logged and verified. Reaches
//! the JSON, hash-chain, replay and script checks that byte-level fuzzing of the file rarely
//! gets past SQLite to. Nothing may panic: a bad file is refused.
#![no_main]

use houserule_app::request::ActRequest;
use houserule_app::{verify, Campaign, NewCampaign};
use houserule_core::{PluginSource, Role};
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

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A small played campaign, made once; each run works on a copy.
fn template() -> &'static Vec<u8> {
    static FILE: OnceLock<Vec<u8>> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.houserule");
        let mut files = BTreeMap::new();
        files.insert("plugin.toml".to_string(), include_str!("../../plugins/generic/plugin.toml").to_string());
        files.insert("rules.rhai".to_string(), include_str!("../../plugins/generic/rules.rhai").to_string());
        let source = PluginSource { files };
        let mut c = Campaign::create(Some(&path), NewCampaign { name: "f".into(), ruleset: &source, settings: Default::default(), seed: Some(1), limits: Default::default(), house_rules: vec![] }).unwrap();
        for (action, params) in [("create_character", r#"{"name":"Frody","owner":"bo","traits":["pan"]}"#), ("roll", r#"{"expr":"3d6"}"#), ("create_pool", r#"{"name":"Doom","visibility":"gm","initial":3}"#)] {
            let p: serde_json::Value = serde_json::from_str(params).unwrap();
            c.act(&Role::Gm, &ActRequest::new(action, p.as_object().unwrap())).unwrap();
        }
        drop(c);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "journal_mode", "DELETE").unwrap();
        drop(conn);
        std::fs::read(&path).unwrap()
    })
}

const TARGETS: &[&str] = &[
    "UPDATE events SET header = ?1 WHERE seq = 2",
    "UPDATE events SET items = ?1 WHERE seq = 2",
    "UPDATE events SET items = ?1 WHERE seq = 3",
    "UPDATE events SET header = ?1 WHERE seq = 1",
    "UPDATE meta SET value = ?1 WHERE key = 'settings'",
    "UPDATE meta SET value = ?1 WHERE key = 'schema_version'",
    "UPDATE blobs SET content = ?1 WHERE hash = (SELECT hash FROM sources WHERE path = 'rules.rhai')",
    "UPDATE blobs SET content = ?1 WHERE hash = (SELECT hash FROM sources WHERE path = 'plugin.toml')",
    "INSERT INTO snapshots (seq, state) VALUES (4, ?1)",
    "UPDATE secrets SET value = ?1 WHERE key = 'seed'",
];

fuzz_target!(|data: &[u8]| {
    workers();
    let Some((&which, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzzed.houserule");
    std::fs::write(&path, template()).unwrap();
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        let _ = conn.execute(TARGETS[which as usize % TARGETS.len()], [text]);
    }
    if let Ok(store) = houserule_app::store::Store::open(&path) {
        let _ = verify::verify(&store, &verify::own_seeds(&store));
    }
    if let Ok(mut c) = Campaign::open(&path) {
        let _ = c.view(&Role::Player("bo".into()));
        let _ = c.log(&Role::Gm, 1);
        let p = serde_json::json!({"expr": "2d6"});
        let _ = c.act(&Role::Gm, &ActRequest::new("roll", p.as_object().unwrap()));
    }
});
