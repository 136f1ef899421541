//! What a file carries besides its events is held to the bounds Houserule itself writes
//! (issue 35, point 3): a fact of the campaign, a secret row, a script text and a snapshot of
//! the table, each planted far over its bound, is refused on open and by `verify` with what it
//! is and the bound, before its text is read — never read into memory, never used.

use crate::support::{init, params, plugin};
use houserule_app::request::ActRequest;
use houserule_app::store::Store;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::Role;
use indexmap::IndexMap;
use serde_json::json;
use std::path::{Path, PathBuf};

/// A small campaign file, closed.
fn small(dir: &Path) -> PathBuf {
    let path = dir.join("small.houserule");
    let source = plugin("", "");
    let new = NewCampaign {
        name: "small".into(),
        ruleset: &source,
        settings: IndexMap::new(),
        seed: Some(3),
        limits: Default::default(),
        house_rules: vec![],
    };
    let mut c = Campaign::create(Some(&path), new).unwrap();
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Frody"})))).unwrap();
    path
}

/// Plants `statement`, whose `?1` is a text of `bytes` bytes made inside SQLite.
fn plant(path: &Path, statement: &str, bytes: u64) {
    let conn = rusqlite::Connection::open(path).unwrap();
    let text = format!("printf('%.*c', {bytes}, 'x')");
    conn.execute_batch(&statement.replace("?1", &text)).unwrap();
}

const BIG: u64 = 80 << 20;

/// Each part planted over its bound, and the words its refusal must hold.
fn plantings() -> Vec<(&'static str, &'static str, u64, &'static str)> {
    vec![
        ("a fact", "UPDATE meta SET value = ?1 WHERE key = 'name'", BIG, "`name`"),
        ("a secret row", "INSERT INTO secrets (key, value) VALUES ('invite:mallory', ?1)", BIG, "invite:mallory"),
        (
            "a script",
            "UPDATE blobs SET content = ?1 WHERE hash = (SELECT hash FROM sources WHERE path = 'rules.rhai')",
            4 << 20,
            "rules.rhai",
        ),
        ("a snapshot", "INSERT OR REPLACE INTO snapshots (seq, state) VALUES (1, ?1)", BIG, "snapshot"),
    ]
}

#[test]
fn a_part_over_its_bound_is_refused_on_open_and_by_verify_before_it_is_read() {
    init();
    for (what, statement, bytes, named) in plantings() {
        let dir = tempfile::tempdir().unwrap();
        let path = small(dir.path());
        plant(&path, statement, bytes);
        let opened = Campaign::open(&path).map(|_| ()).map_err(|e| e.to_string());
        let error = opened.expect_err(&format!("{what} of {bytes} bytes is refused on open"));
        assert!(
            error.contains(named) && error.contains("bytes"),
            "{what}: the refusal names it and the bound: {error}"
        );
        assert!(error.contains("more than Houserule"), "{what}: the refusal says it is over the bound: {error}");
        let store = Store::open(&path).unwrap();
        let report = houserule_app::verify::verify(&store, &Default::default());
        assert!(!report.ok, "{what}: verify does not call the file sound: {report:?}");
        let failed: Vec<String> = report.checks.iter().filter(|c| !c.ok).map(|c| c.detail.clone()).collect();
        assert!(failed.iter().any(|d| d.contains(named)), "{what}: verify names it: {failed:?}");
    }
}
