//! What a form says: help texts that quote a rule's number follow the rules in force (a house
//! rule that changes the number changes the text), quotes that cannot be shown are refused
//! with their place, only actions that roll offer dice by hand, and a `player` parameter offers
//! the table's players and refuses a known player's name in other capitals.

use crate::support::{campaign, params, plugin};
use houserule_app::request::ActRequest;
use houserule_app::Campaign;
use houserule_core::house::HouseRules;
use houserule_core::{HouseRule, Role};
use serde_json::json;

const QUOTING: &str = r#"
[actions.check]
who = ["gm"]
help = "A die per trait; {success_face}+ is a success ({{not a quote}})."
rolls = "a d6 per trait"
params.pool = { type = "int", min = 1, help = "At most {most_dice} dice." }

[actions.adopt]
who = ["gm"]
params.owner = { type = "player" }
"#;

const QUOTED: &str = r#"
fn success_face() { 4 }
fn most_dice() { 7 }
fn check(t, p) { success_face() }
fn adopt(t, p) { t.create("character", "Pet", #{ owner: p.owner }); }
"#;

fn form(c: &Campaign, name: &str) -> houserule_core::view::ActionForm {
    c.actions(&Role::Gm).into_iter().find(|f| f.name == name).expect("the form is offered")
}

#[test]
fn a_help_text_quotes_the_rules_in_force() {
    let mut c = campaign(&plugin(QUOTING, QUOTED));
    let check = form(&c, "check");
    assert_eq!(check.help.as_deref(), Some("A die per trait; 4+ is a success ({not a quote})."));
    assert_eq!(check.params[0].spec.help.as_deref(), Some("At most 7 dice."));
    assert_eq!(check.rolls.as_deref(), Some("a d6 per trait"));
    assert_eq!(form(&c, "adopt").rolls, None, "an action that rolls nothing offers no hand dice");

    let rule = HouseRule { name: "easier.rhai".into(), source: "fn success_face() { original() - 1 }".into() };
    c.reload(Some(&Role::Gm), None, Some(HouseRules { scripts: vec![rule], settings_text: None })).unwrap();
    assert_eq!(form(&c, "check").help.as_deref(), Some("A die per trait; 3+ is a success ({not a quote})."));
}

#[test]
fn quotes_that_cannot_be_shown_are_refused_with_their_place() {
    for (rules, says_what) in [
        ("fn most_dice() { [1, 2] }", "actions.check.params.pool.help"),
        ("fn most_dice() { let s = \"x\"; s.pad(60, 'y'); s }", "at most 40 characters"),
        ("fn most_dice() { throw \"no\" }", "no"),
        ("", "no script defines most_dice()"),
    ] {
        let source = plugin(QUOTING, &QUOTED.replace("fn most_dice() { 7 }", rules));
        let e = houserule_app::Rules::load(&source, &[], &Default::default()).expect_err("refused");
        assert!(e.to_string().contains(says_what), "{rules}: {e}");
    }
    let broken = QUOTING.replace("{success_face}+", "{success_face+");
    let e = houserule_app::Rules::load(&plugin(&broken, QUOTED), &[], &Default::default()).expect_err("refused");
    assert!(e.to_string().contains("actions.check.help"), "the text with the broken brace is named: {e}");
}

#[test]
fn a_player_parameter_refuses_a_known_name_in_other_capitals() {
    let mut c = campaign(&plugin(QUOTING, QUOTED));
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf", "owner": "ann"})))).unwrap();
    let offered = form(&c, "adopt").params[0].choices.clone();
    assert_eq!(serde_json::to_value(offered).unwrap(), json!({"from": "players", "values": ["ann"]}));
    let e = c.act(&Role::Gm, &ActRequest::new("adopt", &params(json!({"owner": "Ann"})))).unwrap_err().report();
    assert!(e.message.contains("did you mean 'ann'") && e.param.as_deref() == Some("owner"), "{e:?}");
    c.act(&Role::Gm, &ActRequest::new("adopt", &params(json!({"owner": "bo"})))).expect("a new player is fine");
}
