//! An ordinary open checks only what is new since this machine last checked the file (see
//! `houserule_app::checked`). Attacked here: an edit to anything the table is built from is
//! still caught on open; an edit before that is caught by `verify`; a stamp this machine did not
//! make (another key, another campaign, moved to another event) buys nothing; and a page of the
//! log is exactly that slice of the whole log.

use crate::support::{init, params, plugin};
use houserule_app::checked;
use houserule_app::request::ActRequest;
use houserule_app::store::{Store, SNAPSHOT_EVERY};
use houserule_app::verify::{own_seeds, verify};
use houserule_app::{Campaign, NewCampaign};
use houserule_core::Role;
use indexmap::IndexMap;
use proptest::prelude::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// How many events the played file has: past two snapshots, and some after the last.
const EVENTS: u64 = 2 * SNAPSHOT_EVERY + 150;

/// A file played to [`EVENTS`] events, made once; each test works on its own copy.
fn played() -> &'static Path {
    static FILE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &FILE
        .get_or_init(|| {
            init();
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("long.houserule");
            let source = plugin("[actions.strike]\nwho = [\"gm\"]\n", "fn strike(t, p) { t.roll(\"3d6\").total }");
            let mut c = Campaign::create(
                Some(&path),
                NewCampaign {
                    name: "long".into(),
                    ruleset: &source,
                    settings: IndexMap::new(),
                    seed: Some(5),
                    limits: Default::default(),
                    house_rules: vec![],
                },
            )
            .unwrap();
            c.store().connection().pragma_update(None, "synchronous", "OFF").unwrap();
            c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Frody"})))).unwrap();
            while c.info().events < EVENTS {
                c.act(&Role::Gm, &ActRequest::new("strike", &params(json!({})))).unwrap();
            }
            drop(c);
            (dir, path)
        })
        .1
}

/// A copy of the played file, opened once here (a copy is a new file: its first open checks
/// it in full and stamps it).
fn copy(dir: &Path) -> PathBuf {
    let to = dir.join("copy.houserule");
    std::fs::copy(played(), &to).unwrap();
    drop(Campaign::open(&to).unwrap());
    to
}

fn sql(path: &Path, statement: &str) {
    rusqlite::Connection::open(path).unwrap().execute_batch(statement).unwrap();
}

/// Changes the time written in event `seq`'s header, leaving every stored hash as it was.
fn edit_header(path: &Path, seq: u64) {
    sql(path, &format!("UPDATE events SET header = replace(header, '\"at\":\"2', '\"at\":\"1') WHERE seq = {seq}"));
}

fn stamp_of(path: &Path) -> String {
    Store::open(path).unwrap().meta(checked::META_KEY).unwrap().expect("the file is stamped")
}

/// The first event an open with this machine's stamp recomputes the chain from.
fn recomputed_from(path: &Path) -> u64 {
    let store = Store::open(path).unwrap();
    let id = store.meta("campaign_id").unwrap().unwrap();
    let here = checked::Subject { campaign: &id, file: checked::identity(path) };
    let (stamped, _) = checked::read(here, &stamp_of(path)).expect("the stamp is this machine's");
    let head = store.head().unwrap().unwrap().0;
    stamped.min(store.snapshot_seq_before(head).unwrap().unwrap_or(1))
}

#[test]
fn the_file_is_stamped_at_its_snapshots_and_an_open_checks_from_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path());
    assert_eq!(recomputed_from(&path), 2 * SNAPSHOT_EVERY, "the stamp follows the snapshots");
    let c = Campaign::open(&path).unwrap();
    assert_eq!(c.info().events, EVENTS);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whichever event is edited, the edit is caught: on open if the table is built from it (or
    /// from what follows it), else by `verify`.
    #[test]
    fn an_edited_event_is_caught_on_open_or_by_verify(seq in 1..=EVENTS) {
        let dir = tempfile::tempdir().unwrap();
        let path = copy(dir.path());
        let from = recomputed_from(&path);
        edit_header(&path, seq);
        let opened = Campaign::open(&path);
        if seq >= from {
            prop_assert!(opened.is_err(), "event {seq} (>= {from}) was edited and the open did not notice");
        }
        drop(opened);
        let store = Store::open(&path).unwrap();
        prop_assert!(!verify(&store, &own_seeds(&store)).ok, "verify missed the edit of event {seq}");
    }
}

/// A stamp made with another key — another machine's, or one written into the file by whoever
/// edited it — is ignored: the open checks every event and finds an edit anywhere.
#[test]
fn a_stamp_this_machine_did_not_make_buys_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (what, seq) in [("an early event", 3), ("the event just before the last snapshot", 2 * SNAPSHOT_EVERY - 1)] {
        let path = copy(dir.path());
        let store = Store::open(&path).unwrap();
        let id = store.meta("campaign_id").unwrap().unwrap();
        let (head, hash) = store.head().unwrap().unwrap();
        drop(store);
        edit_header(&path, seq);
        // The forger stamps the head with a key of their own.
        let here = checked::Subject { campaign: &id, file: checked::identity(&path) };
        let forged = checked::stamp_with(&[9u8; 32], here, head, &hash);
        sql(&path, &format!("UPDATE meta SET value = '{forged}' WHERE key = '{}'", checked::META_KEY));
        assert!(Campaign::open(&path).is_err(), "{what}: a forged stamp let an edited file open");
        std::fs::remove_file(&path).unwrap();
    }
}

/// This machine's own stamp, copied from another campaign or moved to another event, is not
/// this file's: the open checks in full.
#[test]
fn a_stamp_moved_between_files_or_events_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy(dir.path());
    let store = Store::open(&path).unwrap();
    let id = store.meta("campaign_id").unwrap().unwrap();
    let (head, hash) = store.head().unwrap().unwrap();
    drop(store);
    edit_header(&path, 10);
    let here = checked::Subject { campaign: &id, file: checked::identity(&path) };
    let other_campaign = checked::stamp(checked::Subject { campaign: "another campaign", ..here }, head, &hash)
        .expect("this machine has a key (a configuration folder)");
    let other_event = checked::stamp(here, 12, &[0u8; 32]).unwrap();
    let other_file = checked::stamp(checked::Subject { file: Some((0, 0)), ..here }, head, &hash).unwrap();
    for (what, stamp) in [
        ("another campaign's stamp", other_campaign),
        ("a stamp for another event's hash", other_event),
        ("another file's stamp", other_file),
    ] {
        sql(&path, &format!("UPDATE meta SET value = '{stamp}' WHERE key = '{}'", checked::META_KEY));
        assert!(Campaign::open(&path).is_err(), "{what} let an edited file open");
    }
}

/// A file without a stamp for it — never opened here, or a copy carrying its original's stamp
/// — is checked in full, then stamped: the next open recomputes from the latest snapshot.
#[test]
fn a_file_first_opened_here_is_checked_in_full_then_stamped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edited.houserule");
    std::fs::copy(played(), &path).unwrap();
    edit_header(&path, 7);
    assert!(Campaign::open(&path).is_err(), "a copy's stamp is not its own: every event is checked");
    let path = copy(dir.path());
    sql(&path, &format!("DELETE FROM meta WHERE key = '{}'", checked::META_KEY));
    edit_header(&path, 8);
    assert!(Campaign::open(&path).is_err(), "without a stamp every event is checked");
    let path = dir.path().join("clean.houserule");
    std::fs::copy(played(), &path).unwrap();
    sql(&path, &format!("DELETE FROM meta WHERE key = '{}'", checked::META_KEY));
    Campaign::open(&path).unwrap();
    if checked::machine_key().is_some() {
        assert_eq!(recomputed_from(&path), 2 * SNAPSHOT_EVERY);
    }
}

/// A page read by sequence number is exactly that slice of the whole log.
#[test]
fn a_log_page_is_that_slice_of_the_log() {
    let c = Campaign::open(played()).unwrap();
    let ann = Role::Player("ann".into());
    let whole = c.log(&ann, 1).unwrap();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 64, ..ProptestConfig::default() });
    runner
        .run(&(0..EVENTS + 5, 0..EVENTS + 5, 0usize..300), |(from, before, limit)| {
            let page = c.log_page(&ann, from, before, limit).unwrap();
            let slice: Vec<_> = whole.iter().filter(|e| e.seq >= from && e.seq < before).cloned().collect();
            let expected = &slice[slice.len().saturating_sub(limit)..];
            prop_assert_eq!(page.as_slice(), expected);
            Ok(())
        })
        .unwrap();
}
