//! Attacks at the edges, where a file meets the engine: objects SQLite would run planted in a
//! campaign file, a validly chained log that carries more than an action may make, rows in the
//! `secrets` table this machine never wrote, and links where a file is read or written.

use super::{memory_stayed_bounded, refused, says};
use crate::support::{init, params, plugin};
use houserule_app::campaign::log_page;
use houserule_app::request::ActRequest;
use houserule_app::share::share;
use houserule_app::store::Store;
use houserule_app::verify::{own_seeds, verify};
use houserule_app::{invites, Campaign, NewCampaign};
use houserule_core::entity::Entity;
use houserule_core::event::{self, Body, Event, EventKind, Header, Item};
use houserule_core::table::Change;
use houserule_core::{ErrorCode, Role, Visibility};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A played campaign file in `dir`.
fn played(dir: &Path) -> PathBuf {
    init();
    let path = dir.join("c.houserule");
    let source = plugin("", "");
    let mut c = Campaign::create(
        Some(&path),
        NewCampaign {
            name: "c".into(),
            ruleset: &source,
            settings: Default::default(),
            seed: Some(5),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .unwrap();
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf", "owner": "ann"})))).unwrap();
    c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 2})))).unwrap();
    path
}

fn copy_of(original: &Path, name: &str) -> PathBuf {
    let p = original.with_file_name(name);
    std::fs::copy(original, &p).unwrap();
    p
}

fn sql(path: &Path, statement: &str) {
    rusqlite::Connection::open(path).unwrap().execute_batch(statement).unwrap();
}

fn events_in(path: &Path) -> i64 {
    rusqlite::Connection::open(path).unwrap().query_row("SELECT COUNT(*) FROM events", [], |r| r.get(0)).unwrap()
}

#[test]
fn objects_houserule_does_not_create_are_refused_never_run_and_never_copied() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    let attacks = [
        (
            "trigger_that_eats_every_new_event",
            "CREATE TRIGGER wipe AFTER INSERT ON events BEGIN DELETE FROM events WHERE seq = NEW.seq; END;",
            "trigger `wipe`",
        ),
        (
            "trigger_that_plants_a_join_link",
            "CREATE TRIGGER seat AFTER UPDATE ON meta BEGIN INSERT OR REPLACE INTO secrets VALUES ('invite:eve', 'x'); END;",
            "trigger `seat`",
        ),
        ("view_over_the_secrets", "CREATE VIEW leak AS SELECT * FROM secrets;", "view `leak`"),
        ("extra_table", "CREATE TABLE payload (x); INSERT INTO payload VALUES ('hello');", "table `payload`"),
        ("virtual_table", "CREATE VIRTUAL TABLE words USING fts5(x);", "virtual table `words`"),
        ("extra_column", "ALTER TABLE events ADD COLUMN note TEXT;", "column `note"),
    ];
    for (attack, statement, named) in attacks {
        let p = copy_of(&original, &format!("{attack}.houserule"));
        sql(&p, statement);
        let before = events_in(&p);
        let r = refused(attack, || Campaign::open(&p).map(|c| c.info()).map_err(|e| e.report()));
        says(&r, &[named], attack);
        assert_eq!(r.code, ErrorCode::BadFile, "{attack}: {r:?}");
        let e = Store::open(&p).err().unwrap_or_else(|| panic!("{attack}: verify must not read the file"));
        assert!(e.to_string().contains(named), "{attack}: {e}");
        for role in [None, Some(Role::Player("ann".into()))] {
            let out = dir.path().join(format!("{attack}-{}.houserule", role.is_some()));
            let shared = share(&p, &out, role.as_ref());
            assert!(shared.is_err(), "{attack}: a file with {named} is not shared");
            assert!(!out.exists(), "{attack}: no copy is left behind");
        }
        assert_eq!(events_in(&p), before, "{attack}: nothing was written to the file");
        memory_stayed_bounded(attack);
    }
}

#[test]
fn a_full_copy_carries_only_what_houserule_reads() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    sql(&original, "INSERT INTO meta VALUES ('payload', 'planted'); INSERT INTO secrets VALUES ('planted', 'x');");
    let out = dir.path().join("full.houserule");
    share(&original, &out, None).unwrap();
    let conn = rusqlite::Connection::open(&out).unwrap();
    let planted: i64 = conn
        .query_row(
            "SELECT (SELECT COUNT(*) FROM meta WHERE key = 'payload') + (SELECT COUNT(*) FROM secrets WHERE key = 'planted')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(planted, 0, "rows Houserule does not read are not copied");
    let store = Store::open(&out).unwrap();
    let report = verify(&store, &own_seeds(&store));
    assert!(report.ok && report.events == 3, "{report:?}");
    drop(store);
    let c = Campaign::open(&out).unwrap();
    assert_eq!(c.info().events, 3, "the copy opens and plays");
}

/// Appends an event with `items` to the file, chained as Houserule chains them: whoever holds
/// a file can do this (the chain is not a signature), so what it carries must be checked.
fn forge(path: &Path, items: Vec<Item>) -> u64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    let (seq, prev): (i64, Vec<u8>) = conn
        .query_row("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    let prev: event::Hash = prev.try_into().unwrap();
    let seq = seq as u64 + 1;
    let header = Header {
        seq,
        prev: hex::encode(prev),
        at: event::rfc3339(0),
        kind: EventKind::Action,
        actor: Some(Role::Gm),
        action: Some("gain".into()),
        detail: None,
        state: None,
    };
    let e = Event { header, items };
    let hash = e.hash(&prev).unwrap();
    conn.execute(
        "INSERT INTO events (seq, hash, header, items, commitments) VALUES (?1, ?2, ?3, ?4, ?5)",
        rusqlite::params![
            seq as i64,
            hash.to_vec(),
            e.header_json(),
            serde_json::to_string(&e.items).unwrap(),
            e.commitments().unwrap()
        ],
    )
    .unwrap();
    seq
}

fn public(body: Body) -> Item {
    Item::new(body, Visibility::Public, None, None)
}

fn named(name: &str) -> Item {
    let entity = Entity {
        id: "mallory".into(),
        kind: "character".into(),
        name: name.into(),
        owner: None,
        visibility: Visibility::Public,
        fields: Default::default(),
        traits: vec![],
        pools: Default::default(),
        portrait: None,
    };
    public(Body::Change { change: Change::Create { entity } })
}

#[test]
fn a_chained_log_that_carries_more_than_an_action_may_make_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    let attacks: Vec<(&str, Vec<Item>, &[&str])> = vec![
        ("narration_of_twenty_megabytes", vec![public(Body::Say { text: "x".repeat(20 << 20) })], &["bytes"]),
        ("a_narration_line_over_its_cap", vec![public(Body::Say { text: "x".repeat(9 * 1024) })], &["narration"]),
        (
            "more_items_than_an_event_holds",
            (0..5_001).map(|_| public(Body::Say { text: "x".into() })).collect(),
            &["5000", "commitments"],
        ),
        ("a_value_over_its_cap", vec![public(Body::Result { value: json!("y".repeat(70_000)) })], &["65536"]),
        ("a_name_that_writes_to_the_terminal", vec![named("Bob\u{1b}]0;owned\u{7}")], &["U+001B", "control"]),
        ("a_name_that_forges_a_log_line", vec![named("Bob\n#9 roll by gm [20]")], &["line break", "U+000A"]),
        ("narration_that_turns_text_around", vec![public(Body::Say { text: "evil\u{202e}txt".into() })], &["U+202E"]),
    ];
    for (attack, items, words) in attacks {
        let p = copy_of(&original, &format!("{attack}.houserule"));
        let seq = forge(&p, items);
        let r = refused(attack, || Campaign::open(&p).map(|c| c.info()).map_err(|e| e.report()));
        says(&r, words, attack);
        says(&r, &[&format!("event {seq}")], attack);
        let store = Store::open(&p).unwrap();
        let report = verify(&store, &own_seeds(&store));
        let failed = report.checks.iter().find(|c| !c.ok).unwrap_or_else(|| panic!("{attack}: verify must fail"));
        assert_eq!((failed.name.as_str(), failed.event), ("caps", Some(seq)), "{attack}: {failed:?}");
        let page = log_page(&store, &Default::default(), &Role::Gm, 1, u64::MAX, 50);
        assert!(page.is_err(), "{attack}: a log page does not show what the file may not carry");
        memory_stayed_bounded(attack);
    }
}

/// The digest a join link's token is kept as.
fn digest(token: &str) -> String {
    hex::encode(Sha256::digest(format!("houserule-invite-v1\0{token}").as_bytes()))
}

#[test]
fn a_join_link_this_machine_did_not_make_seats_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let p = played(dir.path());
    let token = "00112233445566778899aabbccddeeff00112233";
    let row = json!({ "digest": digest(token), "created": "2026-01-01T00:00:00Z" }).to_string();
    sql(&p, &format!("INSERT INTO secrets VALUES ('invite:mallory', '{row}')"));
    let store = Store::open(&p).unwrap();
    assert_eq!(invites::redeem(&store, token, "now").unwrap(), None, "a planted link lets nobody in");
    let listed = invites::list(&store).unwrap();
    let mallory = listed.iter().find(|i| i.player == "mallory").expect("the GM sees the planted link");
    let made_here = |i: &invites::Invite| serde_json::to_value(i).unwrap()["made_here"].as_bool();
    assert_eq!(made_here(mallory), Some(false), "{mallory:?}: marked as not made on this machine");
    let made = invites::create(&store, "ann", "now").unwrap();
    assert_eq!(invites::redeem(&store, &made.token, "now").unwrap().as_deref(), Some("ann"), "a link made here works");
    assert_eq!(made_here(invites::list(&store).unwrap().iter().find(|i| i.player == "ann").unwrap()), Some(true));
    // A row copied from a link made for another player names nobody either.
    let ann_row = store.secret("invite:ann").unwrap().unwrap();
    store.set_secret("invite:eve", &ann_row).unwrap();
    assert_eq!(
        invites::redeem(&store, &made.token, "now").unwrap().as_deref(),
        Some("ann"),
        "only ann's own row counts"
    );
    assert_eq!(made_here(invites::list(&store).unwrap().iter().find(|i| i.player == "eve").unwrap()), Some(false));
}

#[cfg(unix)]
#[test]
fn share_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let original = played(dir.path());
    let target = dir.path().join("elsewhere.txt");
    for (attack, link) in [("dangling_link", "out.houserule"), ("dangling_wal", "wal.houserule-wal")] {
        let link = dir.path().join(link);
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let out = dir.path().join(link.file_name().unwrap().to_string_lossy().trim_end_matches("-wal"));
        for role in [None, Some(Role::Player("ann".into()))] {
            assert!(share(&original, &out, role.as_ref()).is_err(), "{attack}: refused");
            assert!(!target.exists(), "{attack}: nothing was written through the link");
        }
        std::fs::remove_file(&link).unwrap();
    }
}

#[test]
fn a_script_cannot_store_text_that_writes_to_the_terminal() {
    let extra_manifest = "[actions.loud]\nwho = [\"gm\"]\nparams.how = { type = \"int\" }\n";
    let extra_rules = r#"
fn loud(t, p) {
    if p.how == 1 { t.create("character", "Bob\x1b]0;owned\x07"); }
    if p.how == 2 { t.say("fine\x1b[2J"); }
    if p.how == 3 { t.rename("gandolf", "Gan\n#9 roll by gm [20]"); }
    if p.how == 4 { t.add_trait("gandolf", "Mag\u202eic"); }
    if p.how == 5 { t.set_var("note", "a\x07"); }
}
"#;
    init();
    let dir = tempfile::tempdir().unwrap();
    let mut c = crate::support::campaign_file(&plugin(extra_manifest, extra_rules), &dir.path().join("l.houserule"));
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf"})))).unwrap();
    let before = super::snapshot(&c);
    for how in 1..=5 {
        let attack = format!("loud {how}");
        let r = refused(&attack, || {
            c.act(&Role::Gm, &ActRequest::new("loud", &params(json!({ "how": how })))).map_err(|e| e.report())
        });
        says(&r, &["U+001B", "U+000A", "U+202E", "U+0007"], &attack);
        super::intact(&c, &before, &attack);
    }
    for name in ["Bob\u{1b}[2J", "Bob\n#9 roll by gm [20]", "Bob\u{202e}"] {
        let r = refused(name, || {
            c.act(&Role::Gm, &ActRequest::new("make", &params(json!({ "name": name })))).map_err(|e| e.report())
        });
        assert_eq!(r.code, ErrorCode::BadParam, "{name}: refused at the door, before any script: {r:?}");
    }
}
