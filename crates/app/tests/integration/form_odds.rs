//! A form's odds are asked of the rules without anything being kept: what an odds function
//! does to its copy of the table (spending a Fudge Point to work out a +1) is thrown away, and
//! the sandbox worker never builds the next action on it — not even when the next event is
//! one the worker did not stage (a GM's correction).

use crate::support::{campaign, params};
use houserule_app::catalog;
use houserule_app::request::ActRequest;
use houserule_app::undo::Correction;
use houserule_app::Campaign;
use houserule_core::Role;
use serde_json::{json, Map};

fn fudge_points(c: &Campaign) -> i64 {
    let view = serde_json::to_value(c.view(&Role::Gm)).unwrap();
    view["entities"]["max_danger"]["pools"]["fudge_points"]["count"].as_i64().unwrap_or(-1)
}

#[test]
fn asking_the_odds_keeps_nothing_and_is_never_built_on() {
    let mut c = campaign(&catalog::default_catalog().get("fudge-firefight").unwrap().source);
    let ann = Role::Player("ann".into());
    c.act(
        &Role::Gm,
        &ActRequest::new(
            "create_character",
            &params(json!({"name": "Max Danger", "owner": "ann", "traits": {"Shooting": "Great"}})),
        ),
    )
    .unwrap();
    assert_eq!(fudge_points(&c), 3);
    let check =
        params(json!({"character": "max_danger", "trait": "Shooting", "difficulty": "Good", "fudge_points": 2}));
    let odds = c.odds(&ann, "check", &check).unwrap();
    assert!((odds.lines[0].chance.unwrap() - 80.0 / 81.0).abs() < 1e-9, "Great+2 against Good: all but -4: {odds:?}");
    assert_eq!(fudge_points(&c), 3, "asking spends nothing");
    // An event the worker did not stage, then an action: it must start from the real table.
    let note = Correction::Field { entity: "max_danger".into(), field: "notes".into(), value: Some(json!("steady")) };
    c.correct(&Role::Gm, &note, "a note").unwrap();
    let plain = params(json!({"character": "max_danger", "trait": "Shooting", "difficulty": "Good"}));
    c.act(&ann, &ActRequest::new("check", &plain).with_dice(Some(vec![0, 0, 0, 0]))).unwrap();
    assert_eq!(fudge_points(&c), 3, "the check spent no point, and the odds' spending was never committed");
    let spend =
        params(json!({"character": "max_danger", "trait": "Shooting", "difficulty": "Good", "fudge_points": 1}));
    c.act(&ann, &ActRequest::new("check", &spend).with_dice(Some(vec![0, 0, 0, 0]))).unwrap();
    assert_eq!(fudge_points(&c), 2, "a real spend counts from the real table");
}

#[test]
fn odds_refuse_what_the_caller_may_not_do_and_say_nothing_of_an_unfilled_form() {
    let mut c = campaign(&catalog::default_catalog().get("fumbles").unwrap().source);
    c.act(
        &Role::Gm,
        &ActRequest::new("create_character", &params(json!({"name": "Gandolf", "owner": "ann", "traits": ["Magic!"]}))),
    )
    .unwrap();
    let bo = Role::Player("bo".into());
    let asked = params(json!({"character": "gandolf", "traits": ["Magic!"]}));
    assert!(c.odds(&bo, "trait_check", &asked).is_err(), "bo may not roll for Gandolf, so may not ask either");
    let ann = Role::Player("ann".into());
    let empty = c.odds(&ann, "trait_check", &Map::new()).unwrap();
    assert!(empty.lines.is_empty() && empty.refused.is_none(), "no character yet: nothing to say");
    let e = c.odds(&ann, "create_character", &Map::new()).unwrap_err();
    assert!(e.to_string().contains("no odds"), "{e}");
}
