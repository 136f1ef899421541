//! Hooks: before an action, after a roll, at the end of a round.

use crate::support::{campaign, params, plugin};
use houserule_app::request::ActRequest;
use houserule_core::{ActError, Role};
use serde_json::json;

const HOOKED: &str = r#"
[actions.strike]
who = ["gm"]
params.n = { type = "int", default = 2 }

[actions.close_round]
who = ["gm"]

[hooks]
before_action = "guard"
after_roll = "count_sixes"
round_end = "tidy_up"
"#;

const HOOK_RULES: &str = r#"
fn guard(t, action, p) {
    if action == "strike" && p.n > 5 { t.refuse("FATIGUE: no more than 5 dice in a strike"); }
}
fn count_sixes(t, roll) {
    let sixes = roll.faces.filter(|f| f == 6).len();
    if sixes > 0 {
        t.set_var("sixes", t.get_var("sixes", 0) + sixes);
        // A roll inside the hook does not call the hook again.
        t.roll("1d6", #{ label: "bonus" });
    }
}
fn tidy_up(t, round) {
    t.set_var("last_round", round);
    t.say(`Round ${round} ends.`);
}
fn strike(t, p) { t.roll(`${p.n}d6`).total }
fn close_round(t, p) { t.end_round() }
"#;

#[test]
fn before_action_can_refuse() {
    crate::support::init();
    let mut c = campaign(&plugin(HOOKED, HOOK_RULES));
    let err = c.act(&Role::Gm, &ActRequest::new("strike", &params(json!({"n": 6})))).unwrap_err();
    assert!(matches!(&err, ActError::Refused(e) if e.message == "FATIGUE: no more than 5 dice in a strike"), "{err}");
    assert_eq!(c.info().events, 1, "a refused action leaves no event");
}

#[test]
fn after_roll_sees_every_roll_once() {
    crate::support::init();
    let mut c = campaign(&plugin(HOOKED, HOOK_RULES));
    // Two sixes; the hook's own bonus roll (a 6 too) must not trigger it again.
    c.act(&Role::Gm, &ActRequest::new("strike", &params(json!({"n": 3}))).with_dice(Some(vec![6, 2, 6, 6]))).unwrap();
    assert_eq!(c.view(&Role::Gm).vars["sixes"], json!(2));
    c.act(&Role::Gm, &ActRequest::new("strike", &params(json!({"n": 2}))).with_dice(Some(vec![1, 2]))).unwrap();
    assert_eq!(c.view(&Role::Gm).vars["sixes"], json!(2), "no six, no change");
}

#[test]
fn round_end_runs_when_a_round_ends() {
    crate::support::init();
    let mut c = campaign(&plugin(HOOKED, HOOK_RULES));
    let out = c.act(&Role::Gm, &ActRequest::new("close_round", &params(json!({})))).unwrap();
    assert_eq!(out.result, json!(1));
    let v = c.view(&Role::Gm);
    assert_eq!(v.round, 1);
    assert_eq!(v.vars["last_round"], json!(1));
}
