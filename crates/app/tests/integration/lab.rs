//! The balance lab as the app runs it: the same answer for a seed however its runs are split
//! into rounds, followed and stopped by the GM while the table plays on, and the GM's alone.

use crate::support::{campaign, init, params};
use houserule_app::calls::{Call, Caller};
use houserule_app::catalog;
use houserule_app::front::App;
use houserule_app::lab::{self, LabProgress, LabState};
use houserule_app::request::ActRequest;
use houserule_app::Rules;
use houserule_core::dice::seed_from_number;
use houserule_core::{ErrorCode, Role};
use serde_json::{json, Value};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

const GANDOLF: &str = r#"{"name": "Gandolf", "owner": "ann", "traits": ["IQ of 180", "Magic!", "Barrier", "Fireball", "Levitate", "Scorching Hellfire", "pyromaniac", "dead-pan snarker", "wizard staff"]}"#;
const WAR_BAND: &str = r#"{"name": "Goblin war band", "cr": 6, "toughness": 2, "smash": 1}"#;

#[test]
fn the_lab_gives_the_same_runs_whatever_its_rounds() {
    let source = catalog::default_catalog().get("fumbles").unwrap().source.clone();
    let mut c = campaign(&source);
    c.act(&Role::Gm, &ActRequest::new("create_character", &params(serde_json::from_str(GANDOLF).unwrap()))).unwrap();
    c.act(&Role::Gm, &ActRequest::new("start_challenge", &params(serde_json::from_str(WAR_BAND).unwrap()))).unwrap();
    let setups = c.lab_setups();
    assert_eq!(setups.len(), 1, "no house rules: the ruleset alone");
    let seed = seed_from_number(7);
    let mut rounds = Vec::new();
    let never = AtomicBool::new(false);
    let played = lab::play(&setups, seed, 250, &never, |so_far| rounds.push(so_far[0].len())).unwrap();
    assert_eq!(rounds, vec![100, 200, 250], "progress after each round");
    // The same 250 runs asked of fresh rules in one go.
    let rules = Rules::load(&source, &[], &Default::default()).unwrap();
    let mut whole = Vec::new();
    rules.lab(&setups[0].table, seed, 0, 250, |b| whole.extend(b)).unwrap();
    assert_eq!(played[0], whole, "rounds change nothing");
    // And the last 50 alone are the last 50 of the whole.
    let mut tail = Vec::new();
    rules.lab(&setups[0].table, seed, 200, 50, |b| tail.extend(b)).unwrap();
    assert_eq!(tail, whole[200..], "run i's dice depend on i, not on where it was played");
    assert!(whole.iter().any(|o| o["turns"] != whole[0]["turns"]), "the runs differ from each other");
}

fn progress(app: &App, gm: &Caller, call: &str) -> LabProgress {
    serde_json::from_value(app.ask::<Value>(gm, Call::read(call, json!({})).unwrap()).unwrap()).unwrap()
}

#[test]
fn the_gm_follows_and_stops_a_lab_while_the_table_plays_on() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let app = App::new(None);
    crate::support::create_in(&app, &dir.path().join("lab.houserule"), "fumbles", "lab");
    let gm = crate::support::browser(Role::Gm);
    let act = |action: &str, p: &str| {
        let call = json!({"action": action, "params": serde_json::from_str::<Value>(p).unwrap()});
        app.ask::<Value>(&gm, Call::read("act", call).unwrap())
    };
    // Nothing set up yet: the lab says there is no scene, in words.
    let started = progress(&app, &gm, "lab_start");
    assert_eq!(started.state, LabState::Running);
    let deadline = Instant::now() + Duration::from_secs(60);
    let failed = loop {
        let p = progress(&app, &gm, "lab");
        if p.state != LabState::Running || Instant::now() > deadline {
            break p;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    match &failed.state {
        LabState::Failed { message } => assert!(message.contains("no scene to play"), "{message}"),
        other => panic!("a lab with no scene must fail clearly, not {other:?}"),
    }

    act("create_character", GANDOLF).unwrap();
    act("start_challenge", WAR_BAND).unwrap();
    crate::support::ask(
        &app,
        &crate::support::desktop(Role::Gm),
        "save_house_rule",
        json!({"name": "three-up.rhai", "text": "fn success_face() { original() - 1 }"}),
    )
    .unwrap();
    let player = crate::support::browser(Role::Player("ann".into()));
    let refused = app.ask::<Value>(&player, Call::read("lab_start", json!({})).unwrap()).unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden, "the lab is the GM's");
    let bad = app.ask::<Value>(&gm, Call::read("lab_start", json!({"times": 0})).unwrap()).unwrap_err();
    assert_eq!(bad.param.as_deref(), Some("times"));

    let started: LabProgress = serde_json::from_value(
        app.ask::<Value>(&gm, Call::read("lab_start", json!({"times": 100000, "seed": 3})).unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(started.sides.len(), 2, "the ruleset alone and with the campaign's house rule");
    assert_eq!(started.sides[1].house_rules, vec!["three-up.rhai".to_string()]);
    // Some runs are played, then the table takes an action while the lab goes on.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let p = progress(&app, &gm, "lab");
        if p.sides[1].runs > 0 {
            break;
        }
        assert!(p.state == LabState::Running && Instant::now() < deadline, "the lab made no progress: {p:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let acted = Instant::now();
    act("challenge_roll", r#"{"character": "gandolf", "attack": ["Magic!", "Fireball"], "defense": ["Barrier"]}"#)
        .unwrap();
    assert!(acted.elapsed() < Duration::from_secs(1), "an action does not wait for the lab: {:?}", acted.elapsed());
    assert_eq!(progress(&app, &gm, "lab").state, LabState::Running);
    progress(&app, &gm, "lab_stop");
    let deadline = Instant::now() + Duration::from_secs(30);
    let stopped = loop {
        let p = progress(&app, &gm, "lab");
        if p.state != LabState::Running {
            break p;
        }
        assert!(Instant::now() < deadline, "the lab did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(stopped.state, LabState::Stopped);
    let (alone, with) = (&stopped.sides[0], &stopped.sides[1]);
    assert!(alone.runs < 100000 && alone.runs == with.runs, "both sides stop at the same round: {alone:?} {with:?}");
    assert!(
        with.win_interval.0 > alone.win_interval.1,
        "successes on 3+ win more often: {:?} vs {:?}",
        with.win_interval,
        alone.win_interval
    );
    assert!(matches!(alone.outcomes.get("turns"), Some(lab::Summary::Number { .. })), "turns as a histogram");
}

#[test]
fn a_run_longer_than_the_parent_waits_for_a_reply_still_plays_to_its_end() {
    // Each step stays well inside the deadline, but a run of 40 of them takes longer than the
    // parent waits for one reply (deadline + grace): the worker must say it is still playing.
    let source = crate::support::plugin(
        "[actions.wait]\nwho = [\"gm\"]\n",
        r#"
        fn wait(t, p) {
            let x = 0;
            for i in 0..300000 { x += i; }
            t.set_var("steps", t.get_var("steps", 0) + 1);
        }
        fn lab_turn(t) { if t.get_var("steps", 0) >= 40 { () } else { [#{ action: "wait", "as": "gm", params: #{} }] } }
        fn lab_outcome(t) { #{ won: true, turns: t.get_var("steps", 0) } }
        "#,
    );
    let c = campaign(&source);
    let setup = c.lab_setup();
    let limits = setup.limits.clone();
    let never = AtomicBool::new(false);
    let started = Instant::now();
    let played = lab::play(&[setup], seed_from_number(1), 1, &never, |_| {}).unwrap();
    assert!(
        started.elapsed() > limits.deadline + limits.grace,
        "the run is long enough to matter: {:?}",
        started.elapsed()
    );
    assert_eq!(played[0][0]["turns"], 40);
}
