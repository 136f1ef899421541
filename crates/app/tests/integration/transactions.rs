//! Actions are transactions: all of an action's changes are committed, or none are.

use crate::support::{campaign, campaign_file, params, plugin};
use houserule_app::request::ActRequest;
use houserule_app::Campaign;
use houserule_core::{ActError, Role};
use serde_json::json;

const HALFWAY: &str = r#"
[actions.halfway]
who = ["gm"]
params.character = { type = "entity", kind = "character" }
"#;

const HALFWAY_RULES: &str = r#"
fn halfway(t, p) {
    t.add("momentum", 3);
    t.set(p.character, "wounded", true);
    t.roll("2d6");
    t.take(p.character + ".hero", 1);
    t.take(p.character + ".hero", 1);   // the hero point is gone: this refuses the whole action
}
"#;

#[test]
fn a_failing_action_changes_neither_state_nor_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.houserule");
    let source = plugin(HALFWAY, HALFWAY_RULES);
    let mut c = campaign_file(&source, &path);
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Frody"})))).unwrap();
    let view_before = serde_json::to_value(c.view(&Role::Gm)).unwrap();
    let file_events = c.store().event_count().unwrap();
    let roll_counter = c.table().next_roll;

    let err = c.act(&Role::Gm, &ActRequest::new("halfway", &params(json!({"character": "frody"})))).unwrap_err();
    let ActError::Refused(e) = &err else { panic!("expected a refusal, got {err:?}") };
    assert!(e.message.contains("frody.hero cannot go below 0"), "{e}");
    let line = source.files["rules.rhai"].lines().nth(e.line - 1).unwrap_or_default();
    assert!(
        line.contains("this refuses the whole action"),
        "the refusal points at the second take, not at {line:?}: {e}"
    );

    assert_eq!(serde_json::to_value(c.view(&Role::Gm)).unwrap(), view_before, "memory state unchanged");
    assert_eq!(c.store().event_count().unwrap(), file_events, "no event written");
    assert_eq!(c.table().next_roll, roll_counter, "the refused roll does not consume the dice counter");
    drop(c);
    let reopened = Campaign::open(&path).unwrap();
    assert_eq!(
        serde_json::to_value(reopened.view(&Role::Gm)).unwrap(),
        view_before,
        "the file holds the state before the refused action"
    );
}

#[test]
fn a_committed_action_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.houserule");
    let source = plugin("", "");
    let mut c = campaign_file(&source, &path);
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Frody", "owner": "bo"})))).unwrap();
    let out = c
        .act(&Role::Player("bo".into()), &ActRequest::new("gain", &params(json!({"character": "Frody", "n": 4}))))
        .unwrap();
    assert_eq!(out.result, json!(4));
    let view = serde_json::to_value(c.view(&Role::Gm)).unwrap();
    drop(c);
    let c = Campaign::open(&path).unwrap();
    assert_eq!(serde_json::to_value(c.view(&Role::Gm)).unwrap(), view);
    assert!(!dir.path().join(".t.houserule.creating").exists(), "no temporary file is left behind");
}

#[test]
fn permissions_are_checked_before_scripts_run() {
    crate::support::init();
    let mut c = campaign(&plugin("", ""));
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Frody", "owner": "bo"})))).unwrap();
    let err = c
        .act(&Role::Player("al".into()), &ActRequest::new("gain", &params(json!({"character": "frody", "n": 1}))))
        .unwrap_err();
    assert!(matches!(&err, ActError::Forbidden { reason } if reason.contains("only bo, who plays Frody")), "{err}");
    let err = c.act(&Role::Player("bo".into()), &ActRequest::new("make", &params(json!({"name": "X"})))).unwrap_err();
    assert!(matches!(&err, ActError::Forbidden { reason } if reason.contains("only the GM")), "{err}");
    let err = c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "frody", "n": -1})))).unwrap_err();
    assert_eq!(err.to_string(), "parameter 'n': -1 is below the minimum of 0");
    let err = c.act(&Role::Gm, &ActRequest::new("fly", &params(json!({})))).unwrap_err();
    assert!(matches!(err, ActError::UnknownAction { .. }));
}

#[test]
fn caps_refuse_and_report_the_rule() {
    crate::support::init();
    let mut c = campaign(&plugin("", ""));
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Frody"})))).unwrap();
    let err = c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "frody", "n": 7})))).unwrap_err();
    assert!(err.to_string().contains("momentum holds at most 6"), "{err}");
}

#[test]
fn forced_dice_are_checked_against_what_was_rolled() {
    crate::support::init();
    let source = plugin("[actions.two]\nwho = [\"gm\"]\n", "fn two(t, p) { t.roll(\"2d6\").total }");
    let mut c = campaign(&source);
    let out = c.act(&Role::Gm, &ActRequest::new("two", &params(json!({}))).with_dice(Some(vec![3, 4]))).unwrap();
    assert_eq!(out.result, json!(7));
    let err = c.act(&Role::Gm, &ActRequest::new("two", &params(json!({}))).with_dice(Some(vec![3]))).unwrap_err();
    assert!(matches!(&err, ActError::Dice(e) if e.message.contains("2nd die")), "{err}");
    let err = c.act(&Role::Gm, &ActRequest::new("two", &params(json!({}))).with_dice(Some(vec![3, 4, 5]))).unwrap_err();
    assert!(matches!(&err, ActError::Dice(e) if e.message.contains("rolled only 2")), "{err}");
    let err = c.act(&Role::Gm, &ActRequest::new("two", &params(json!({}))).with_dice(Some(vec![3, 9]))).unwrap_err();
    assert!(matches!(&err, ActError::Dice(e) if e.message.contains("cannot come up on a d6")), "{err}");
    assert_eq!(c.info().events, 2, "only the creation and the one good roll are in the log");
}

/// What another program writes to the file is announced to a session's followers once, in
/// order and before the session's own next event — whichever path read it in: the session's
/// own look, or an action's catching up on the way to its commit.
#[test]
fn other_writers_events_are_announced_once_and_in_order() {
    use houserule_app::session::{Session, SessionEvent};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.houserule");
    drop(campaign_file(&plugin("", ""), &path));
    let session = Session::new(Campaign::open(&path).unwrap());
    let heard = session.subscribe();
    let mut other = Campaign::open(&path).unwrap();
    let make = |c: &mut Campaign, name: &str| {
        c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": name})))).unwrap().event.seq
    };
    let (first, _) = (make(&mut other, "Ann"), make(&mut other, "Bo"));
    // Read in by a path that tells nobody (as an action's retry does): still announced later.
    session.campaign().catch_up().unwrap();
    let third = make(&mut other, "Cy");
    session.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Dee"})))).unwrap();
    session.catch_up().unwrap();
    let told: Vec<SessionEvent> = heard.try_iter().collect();
    let Some(SessionEvent::Written { from, to }) = told.first() else { panic!("first told: {told:?}") };
    assert_eq!((*from, *to), (first, third), "every other writer's event, in one range: {told:?}");
    assert!(
        matches!(told.get(1), Some(SessionEvent::Committed { seq, .. }) if *seq == third + 1),
        "the session's own action is told after them: {told:?}"
    );
    assert_eq!(told.len(), 2, "nothing is told twice: {told:?}");
}
