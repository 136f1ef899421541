//! A campaign file that was edited outside Houserule is caught: by `verify`, check by check,
//! and when it is opened.

use crate::support::{params, plugin};
use houserule_app::calls::{Call, Caller};
use houserule_app::request::ActRequest;
use houserule_app::store::Store;
use houserule_app::verify::{own_seeds, verify};
use houserule_app::{Campaign, NewCampaign};
use houserule_core::Role;
use indexmap::IndexMap;
use serde_json::json;
use std::path::{Path, PathBuf};

fn played(dir: &Path) -> PathBuf {
    let path = dir.join("t.houserule");
    let source = plugin("[actions.strike]\nwho = [\"gm\"]\n", "fn strike(t, p) { t.roll(\"3d6\").total }");
    let mut c = Campaign::create(
        Some(&path),
        NewCampaign {
            name: "t".into(),
            ruleset: &source,
            settings: IndexMap::new(),
            seed: Some(11),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .unwrap();
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Frody"})))).unwrap();
    for _ in 0..4 {
        c.act(&Role::Gm, &ActRequest::new("strike", &params(json!({})))).unwrap();
    }
    path
}

fn failed_check(path: &Path) -> (String, Option<u64>) {
    let store = Store::open(path).unwrap();
    let report = verify(&store, &own_seeds(&store));
    assert!(!report.ok, "the edit must be found");
    let c = report.checks.iter().find(|c| !c.ok).unwrap();
    (c.name.clone(), c.event)
}

fn sql(path: &Path, statement: &str) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(statement).unwrap();
}

#[test]
fn an_untouched_file_verifies() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());
    let store = Store::open(&path).unwrap();
    let report = verify(&store, &own_seeds(&store));
    assert!(report.ok, "{report:?}");
    assert_eq!(report.rolls_recomputed, 4);
}

#[test]
fn edited_deleted_and_reordered_events_are_found() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());

    sql(&path, "UPDATE events SET header = replace(header, '\"gm\"', '\"player:mallory\"') WHERE seq = 3");
    assert_eq!(failed_check(&path), ("chain".into(), Some(3)), "an edited header");
    assert!(Campaign::open(&path).is_err(), "and the file is refused when opened");

    let path = played(&dir.path().join("b").tap_mkdir());
    sql(&path, "DELETE FROM events WHERE seq = 4");
    assert_eq!(failed_check(&path), ("chain".into(), Some(4)), "a deleted event");

    let path = played(&dir.path().join("c").tap_mkdir());
    sql(&path, "UPDATE events SET seq = 100 WHERE seq = 3; UPDATE events SET seq = 3 WHERE seq = 4; UPDATE events SET seq = 4 WHERE seq = 100;");
    let (check, at) = failed_check(&path);
    assert_eq!((check.as_str(), at), ("chain", Some(3)), "swapped events");

    let path = played(&dir.path().join("d").tap_mkdir());
    sql(&path, "UPDATE events SET items = replace(items, '\"face\":', '\"face\":1') WHERE seq = 5");
    assert_eq!(failed_check(&path), ("chain".into(), Some(5)), "an edited roll");
    let err = Campaign::open(&path).err().expect("an edited item is refused on open");
    assert!(err.to_string().contains("event 5 was edited"), "{err}");
}

#[test]
fn a_rewritten_chain_with_a_changed_roll_fails_the_dice_check() {
    crate::support::init();
    // Someone edits a roll and recomputes every hash after it: the chain checks, the dice don't.
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());
    let store = Store::open(&path).unwrap();
    let mut rows = Vec::new();
    store
        .each_event(1, |r| {
            rows.push(r);
            Ok(())
        })
        .unwrap();
    drop(store);
    let mut prev = houserule_core::event::GENESIS;
    let conn = rusqlite::Connection::open(&path).unwrap();
    for row in rows {
        let mut items = row.parse_items().unwrap();
        if row.seq == 4 {
            for item in items.iter_mut() {
                if let Some(houserule_core::event::Body::Roll { roll }) = &mut item.body {
                    // Every die to another face: a roll of three sixes must change too.
                    for d in roll.terms[0].dice.iter_mut() {
                        d.face = if d.face == 6 { 5 } else { 6 };
                    }
                    roll.total = roll.terms[0].dice.iter().map(|d| d.face).sum();
                }
            }
        }
        let mut header = row.parse_header().unwrap();
        header.prev = hex::encode(prev);
        let ev = houserule_core::event::Event { header, items };
        let commitments = ev.commitments().unwrap();
        let header_json = ev.header_json();
        let hash = houserule_core::event::event_hash(&prev, row.seq, &header_json, &commitments);
        conn.execute(
            "UPDATE events SET hash = ?1, header = ?2, items = ?3, commitments = ?4 WHERE seq = ?5",
            rusqlite::params![
                hash.to_vec(),
                header_json,
                serde_json::to_string(&ev.items).unwrap(),
                commitments,
                row.seq as i64
            ],
        )
        .unwrap();
        prev = hash;
    }
    drop(conn);
    assert_eq!(failed_check(&path), ("dice".into(), Some(4)), "the changed roll does not come from the committed seed");
}

#[test]
fn a_newer_schema_is_refused_with_a_clear_message() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());
    sql(&path, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    let err = Campaign::open(&path).err().expect("refused");
    assert!(err.to_string().contains("made by a newer Houserule (campaign schema 99"), "{err}");
    std::fs::write(dir.path().join("notes.houserule"), "this is not a campaign").unwrap();
    let err = Campaign::open(&dir.path().join("notes.houserule")).err().expect("refused");
    assert!(err.to_string().contains("not a Houserule campaign file"), "{err}");
}

trait TapMkdir {
    fn tap_mkdir(self) -> PathBuf;
}

impl TapMkdir for PathBuf {
    fn tap_mkdir(self) -> PathBuf {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

/// The app remembers log entries between pages (`houserule_app::entries`): an edit made to the
/// file after a page was read must still be caught on the next read, never covered by what was
/// remembered.
#[test]
fn an_edit_after_a_page_was_read_is_caught_on_the_next_read() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());
    let app = houserule_app::front::App::new(None);
    app.open(&path).unwrap();
    let read = || app.call(&gm(), Call::read("log", json!({"limit": 100})).unwrap());
    let first = read().expect("the untouched log reads");
    assert_eq!(read().unwrap(), first, "read again (remembered), the same");
    // The items of a roll are changed in place; the hash stays, so only the check catches it.
    sql(&path, "UPDATE events SET items = replace(items, '\"face\":', '\"face\":1') WHERE seq = 5");
    let e = read().expect_err("the edited event is reported, not shown");
    assert!(e.message.contains("event 5"), "{e:?}");
}

fn gm() -> Caller {
    crate::support::desktop(Role::Gm)
}

/// A page sent as text from remembered entries is the page read afresh: the same entries, an
/// undone one marked with its undo, for the GM and for a player alike.
#[test]
fn a_remembered_page_is_the_page_read_afresh() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());
    let app = houserule_app::front::App::new(None);
    app.open(&path).unwrap();
    let gm = gm();
    let page = |who: &Caller, method: &str| -> serde_json::Value {
        let call = Call::read(method, json!({"limit": 50})).unwrap();
        serde_json::from_str(&app.call(who, call).unwrap()).unwrap()
    };
    // The page read afresh, from the file, without anything remembered.
    let afresh = |role: &Role| -> serde_json::Value {
        let store = Store::open(&path).unwrap();
        let voided = app.now().unwrap().voided.clone();
        serde_json::to_value(houserule_app::campaign::log_page(&store, &voided, role, 1, u64::MAX, 50).unwrap())
            .unwrap()
    };
    for _ in 0..2 {
        assert_eq!(page(&gm, "log"), afresh(&Role::Gm));
    }
    app.call(&gm, Call::read("undo", json!({})).unwrap()).unwrap();
    let log = page(&gm, "log");
    let marked: Vec<&serde_json::Value> = log.as_array().unwrap().iter().filter(|e| e["voided_by"].is_u64()).collect();
    assert_eq!(marked.len(), 1, "the undone roll is marked, though it was remembered before the undo");
    assert_eq!(log, afresh(&Role::Gm));
    let table = page(&gm, "table");
    assert_eq!(table["log"], log, "the table's log is the same page");
    assert_eq!(table["view"], serde_json::to_value(app.now().unwrap().view(&Role::Gm)).unwrap());
    let ann = crate::support::browser(Role::Player("ann".into()));
    assert_eq!(page(&ann, "log"), afresh(&ann.role));
}

/// A bridge's actions roll with their message's entropy, recorded with the message's id; a GM
/// whose referee picked other entropy (to get faces it wants, knowing the seed) is caught by
/// `verify`, though the chain itself is sound.
#[test]
fn an_action_from_a_message_must_roll_with_the_messages_entropy() {
    use houserule_app::chat::{Bridged, ChatMessage};
    use houserule_core::dice::Entropy;
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());
    let origin = ChatMessage { via: "matrix".into(), room: "!table:hs".into(), event: "$ann-rolls".into() };
    let mut c = Campaign::open(&path).unwrap();
    let from = |message: ChatMessage| Bridged { message, marks: vec![] };
    let honest =
        c.act(&Role::Gm, &ActRequest::new("strike", &params(json!({}))).bridged(from(origin.clone()))).unwrap();
    assert_eq!(honest.event.detail.as_ref().unwrap()["origin"]["event"], "$ann-rolls");
    let store = Store::open(&path).unwrap();
    assert!(verify(&store, &own_seeds(&store)).ok, "the message's entropy verifies");
    drop(store);
    // The referee picks its own entropy for the next message's action.
    let forged = ChatMessage { event: "$bo-rolls".into(), ..origin };
    let picked =
        ActRequest::new("strike", &params(json!({}))).bridged(from(forged)).with_entropy(Some(Entropy([7; 32])));
    let acted = c.act(&Role::Gm, &picked).unwrap();
    drop(c);
    assert_eq!(failed_check(&path), ("dice".to_string(), Some(acted.event.seq)));
}

/// A bridge's marks (the Matrix room, who sits where, the referee's place) stay with the GM's
/// file: neither a full copy nor a player's copy carries them, so a copy is never refereed
/// into the same room a second time.
#[test]
fn no_copy_carries_a_bridges_marks() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let path = played(dir.path());
    let app = houserule_app::front::App::new(None);
    app.open(&path).unwrap();
    app.set_marks(&[("bridge.matrix.link", "{\"room\": \"!table:hs\"}"), ("bridge.matrix.posted", "5")]).unwrap();
    assert_eq!(app.mark("bridge.matrix.posted").unwrap().as_deref(), Some("5"));
    drop(app);
    for (name, role) in [("full.houserule", None), ("ann.houserule", Some(Role::Player("ann".into())))] {
        let out = dir.path().join(name);
        houserule_app::share::share(&path, &out, role.as_ref()).unwrap();
        let conn = rusqlite::Connection::open(&out).unwrap();
        let kept: i64 =
            conn.query_row("SELECT count(*) FROM meta WHERE key LIKE 'bridge.%'", [], |r| r.get(0)).unwrap();
        assert_eq!(kept, 0, "{name} carries the bridge's marks");
    }
}
