//! Attacks that come as campaign files and shared copies: rules swapped under a verified log,
//! stored names that would write outside a folder, and rows no reader should trust.

use super::{memory_stayed_bounded, refused, says};
use crate::support::{init, params, plugin};
use houserule_app::request::ActRequest;
use houserule_app::share::{share, SharedCopy};
use houserule_app::store::Store;
use houserule_app::verify::{own_seeds, verify};
use houserule_app::{folders, Campaign, NewCampaign};
use houserule_core::{ErrorCode, ErrorReport, HouseRule, Role};
use serde_json::json;
use std::path::{Path, PathBuf};

/// A played campaign with a house rule, written to `dir`.
fn played(dir: &Path) -> PathBuf {
    init();
    let path = dir.join("c.houserule");
    let source = plugin("", "");
    let house = vec![HouseRule {
        name: "kind.rhai".into(),
        source: "fn gain(t, p) { t.add(\"momentum\", p.n); t.pool(\"momentum\") }".into(),
    }];
    let mut c = Campaign::create(
        Some(&path),
        NewCampaign {
            name: "c".into(),
            ruleset: &source,
            settings: Default::default(),
            seed: Some(3),
            limits: Default::default(),
            house_rules: house,
        },
    )
    .unwrap();
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf", "owner": "ann"})))).unwrap();
    c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 2})))).unwrap();
    path
}

fn sql(path: &Path, statement: &str) {
    rusqlite::Connection::open(path).unwrap().execute_batch(statement).unwrap();
}

/// Opening must be refused, and verify must fail on the named check.
fn open_refused(attack: &str, path: &Path, words: &[&str], check: &str) -> ErrorReport {
    let r = refused(attack, || Campaign::open(path).map(|c| c.info()).map_err(|e| e.report()));
    says(&r, words, attack);
    assert!(matches!(r.code, ErrorCode::BadFile | ErrorCode::Storage), "{attack}: {r:?}");
    if let Ok(store) = Store::open(path) {
        let report = verify(&store, &own_seeds(&store));
        let failed = report.checks.iter().find(|c| !c.ok).unwrap_or_else(|| panic!("{attack}: verify must fail"));
        assert_eq!(failed.name, check, "{attack}: {failed:?}");
    }
    memory_stayed_bounded(attack);
    r
}

#[test]
fn rules_swapped_under_a_verified_log_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    let copy = |name: &str| -> PathBuf {
        let p = dir.path().join(name);
        std::fs::copy(&original, &p).unwrap();
        p
    };
    let swapped = copy("swapped.houserule");
    sql(&swapped, "UPDATE blobs SET content = content || '\nfn gain(t, p) { t.add(\"momentum\", 6) }' WHERE hash = (SELECT hash FROM sources WHERE path = 'rules.rhai')");
    let r = open_refused("swapped_ruleset_script", &swapped, &["ruleset/rules.rhai is not the text"], "rules");
    assert!(r.message.contains("rules check failed"), "{}", r.message);

    // The rules compile while the file is checked; swapped rules that never finish compiling
    // are refused for the swap, at once, and their worker is stopped.
    let looping = copy("looping.houserule");
    sql(
        &looping,
        "UPDATE blobs SET content = 'loop { }' WHERE hash = (SELECT hash FROM sources WHERE path = 'rules.rhai')",
    );
    let r = open_refused("swapped_for_a_loop", &looping, &["ruleset/rules.rhai is not the text"], "rules");
    assert!(r.message.contains("rules check failed"), "{}", r.message);

    let gone = copy("gone.houserule");
    sql(&gone, "DELETE FROM sources WHERE layer = 'house'");
    open_refused("deleted_house_rule", &gone, &["house/kind.rhai is missing"], "rules");

    let extra = copy("extra.houserule");
    sql(&extra, "INSERT INTO blobs VALUES ('abc', 'fn make(t, p) { }'); INSERT INTO sources VALUES ('house', 'sneaky.rhai', 'abc')");
    open_refused("added_house_rule", &extra, &["house/sneaky.rhai is in the file"], "rules");

    let manifest = copy("manifest.houserule");
    sql(&manifest, "UPDATE blobs SET content = replace(content, 'cap = 6', 'cap = 600') WHERE hash = (SELECT hash FROM sources WHERE path = 'plugin.toml')");
    open_refused("swapped_manifest", &manifest, &["ruleset/plugin.toml"], "rules");

    // The untouched file still opens and verifies.
    let c = Campaign::open(&original).unwrap();
    assert!(crate::support::verified(&c).ok);
}

#[test]
fn stored_names_that_are_paths_are_refused_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    for (attack, name) in [
        ("parent_path", "../../escape.rhai"),
        ("absolute_path", "/tmp/houserule-escape.rhai"),
        ("reserved_name", "con.rhai"),
        ("hidden_name", ".bashrc.rhai"),
    ] {
        let p = dir.path().join(format!("{attack}.houserule"));
        std::fs::copy(&original, &p).unwrap();
        sql(&p, &format!("UPDATE sources SET path = '{name}' WHERE layer = 'house'"));
        open_refused(attack, &p, &["house rule stored as"], "rules");
        // Even written through the folder code directly, the name is refused before anything is written.
        let target = dir.path().join(format!("{attack}-out"));
        let e = folders::write_house_rules(&target, &[(name.to_string(), "fn a() {}".into())]).unwrap_err();
        assert!(e.refused, "{attack}: {e}");
    }
    assert!(!Path::new("/tmp/houserule-escape.rhai").exists(), "nothing was written outside");
    assert!(!dir.path().parent().unwrap().join("escape.rhai").exists());
}

#[test]
fn rows_no_reader_should_trust_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases = [
        ("deeply_nested_items", format!("UPDATE events SET items = '{deep}' WHERE seq = 2"), "chain"),
        ("deeply_nested_header", format!("UPDATE events SET header = '{deep}' WHERE seq = 2"), "chain"),
        ("deeply_nested_snapshot", format!("INSERT INTO snapshots VALUES (3, '{deep}')"), "replay"),
        (
            "edited_event",
            "UPDATE events SET items = replace(items, '\"value\":2', '\"value\":5') WHERE seq = 3".into(),
            "chain",
        ),
        ("removed_event", "DELETE FROM events WHERE seq = 2".into(), "chain"),
    ];
    for (attack, statement, check) in cases {
        let p = dir.path().join(format!("{attack}.houserule"));
        std::fs::copy(&original, &p).unwrap();
        sql(&p, &statement);
        let r = refused(attack, || Campaign::open(&p).map(|c| c.info()).map_err(|e| e.report()));
        assert_eq!(r.code, ErrorCode::BadFile, "{attack}: {r:?}");
        let store = Store::open(&p).unwrap();
        let report = verify(&store, &own_seeds(&store));
        assert!(!report.ok, "{attack}: verify must fail");
        assert!(
            report.checks.iter().any(|c| !c.ok && c.name == check),
            "{attack}: the {check} check fails: {:?}",
            report.checks
        );
        memory_stayed_bounded(attack);
    }
}

#[test]
fn a_players_copy_with_swapped_rules_fails_verify() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    let copy = dir.path().join("ann.houserule");
    share(&original, &copy, Some(&Role::Player("ann".into()))).unwrap();
    assert!(SharedCopy::open(&copy).unwrap().verify().ok, "the honest copy verifies");
    sql(
        &copy,
        "UPDATE blobs SET content = content || ' ' WHERE hash = (SELECT hash FROM sources WHERE path = 'rules.rhai')",
    );
    let report = SharedCopy::open(&copy).unwrap().verify();
    let failed = report.checks.iter().find(|c| !c.ok).expect("the doctored copy fails");
    assert_eq!(failed.name, "rules");
    assert!(failed.detail.contains("ruleset/rules.rhai"), "{failed:?}");
}

/// A campaign file written by the first release (schema 1), kept as it was.
fn schema_one(dir: &Path) -> PathBuf {
    let p = dir.join("v1.houserule");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1-fumbles.houserule"), &p).unwrap();
    p
}

#[test]
fn a_schema_one_file_opens_migrates_and_verifies() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let p = schema_one(dir.path());
    let store = Store::open(&p).unwrap();
    assert_eq!(store.version(), 1);
    assert!(verify(&store, &own_seeds(&store)).ok, "the old file verifies as it is");
    drop(store);
    let mut c = Campaign::open(&p).unwrap();
    let last = c.log(&Role::Gm, 1).unwrap().pop().unwrap();
    assert_eq!(last.kind, houserule_core::event::EventKind::Migrated, "the upgrade is an event of its own");
    assert_eq!(c.store().version(), houserule_app::store::SCHEMA_VERSION);
    assert!(crate::support::verified(&c).ok, "{:?}", crate::support::verified(&c));
    c.act(&Role::Gm, &ActRequest::new("end_turn", &params(json!({})))).unwrap();
    drop(c);
    let again = Campaign::open(&p).unwrap();
    assert!(crate::support::verified(&again).ok);
    assert_eq!(
        again
            .log(&Role::Gm, 1)
            .unwrap()
            .iter()
            .filter(|e| e.kind == houserule_core::event::EventKind::Migrated)
            .count(),
        1,
        "migrated once"
    );
}

#[test]
fn a_schema_one_file_with_swapped_rules_is_refused_not_migrated() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let p = schema_one(dir.path());
    sql(
        &p,
        "UPDATE blobs SET content = content || ' ' WHERE hash = (SELECT hash FROM sources WHERE path = 'boss.rhai')",
    );
    open_refused("swapped_rules_in_an_old_file", &p, &["the ruleset's files are not the ones event"], "rules");
    assert_eq!(Store::open(&p).unwrap().version(), 1, "a refused file is not upgraded");
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let p2 = schema_one(&other);
    sql(&p2, "DELETE FROM sources WHERE layer = 'house'");
    open_refused(
        "deleted_house_rule_in_an_old_file",
        &p2,
        &["house/fumbles-boss-cheaper-affliction.rhai is missing"],
        "rules",
    );
}
