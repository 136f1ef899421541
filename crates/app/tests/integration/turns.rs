//! The turn tracker through real actions on a campaign file: turns pass in initiative order
//! with the rules' hooks called, an undo brings the tracker back exactly as it was, the file
//! verifies, and nothing a player receives — their view, their log, what their own actions
//! answer — holds a hidden NPC's place in the order.

use crate::support::{campaign_file, params, plugin, verified};
use houserule_app::request::ActRequest;
use houserule_app::Campaign;
use houserule_core::Role;
use serde_json::{json, Value};

const MANIFEST: &str = r#"
[actions.ambush]
who = ["gm"]
params.name = { type = "text", secret = true }

[actions.fight]
who = ["gm"]

[actions.initiative]
who = ["gm"]
params.character = { type = "entity", kind = "character", secret = true }
params.n = { type = "int" }

[actions.done]
who = ["gm", "player"]

[actions.hold]
who = ["gm", "owner"]
owner_param = "character"
params.character = { type = "entity", kind = "character" }

[hooks]
turn_start = "on_turn_start"
turn_end = "on_turn_end"
round_end = "on_round"
"#;

const RULES: &str = r#"
fn ambush(t, p) { t.create("character", p.name, #{ visibility: "gm" }); }
fn fight(t, p) { t.start_encounter(t.entities("character")); }
fn initiative(t, p) { t.set_initiative(p.character, p.n); }
fn done(t, p) {
    let who = t.turn();
    if !t.is_gm() && t.owner(who) != t.player() { t.refuse("only the GM or the player whose turn it is ends it"); }
    t.advance_turn();
}
fn hold(t, p) { t.hold_turn(p.character); }
fn on_turn_start(t, id) { t.set_var("starts", t.get_var("starts", 0) + 1, "gm"); }
fn on_turn_end(t, id) { t.set_var("ends", t.get_var("ends", 0) + 1, "gm"); }
fn on_round(t, round) { t.say(`Round ${round} is over.`); }
"#;

fn act(c: &mut Campaign, role: &Role, action: &str, p: Value) -> Result<Value, String> {
    let acted = c.act(role, &ActRequest::new(action, &params(p))).map_err(|e| e.to_string())?;
    Ok(json!({"event": acted.event, "result": acted.result}))
}

fn ann() -> Role {
    Role::Player("ann".into())
}

/// A table with Mack (ann's), Dutch (bob's) and a sniper only the GM knows of, fighting:
/// Dutch's turn, the first.
fn fight(path: &std::path::Path) -> Campaign {
    let mut c = campaign_file(&plugin(MANIFEST, RULES), path);
    let gm = Role::Gm;
    act(&mut c, &gm, "make", json!({"name": "Mack", "owner": "ann"})).unwrap();
    act(&mut c, &gm, "make", json!({"name": "Dutch", "owner": "bob"})).unwrap();
    act(&mut c, &gm, "ambush", json!({"name": "Sniper Zyx"})).unwrap();
    act(&mut c, &gm, "fight", json!({})).unwrap();
    for (who, n) in [("mack", 12), ("dutch", 15), ("sniper_zyx", 14)] {
        act(&mut c, &gm, "initiative", json!({"character": who, "n": n})).unwrap();
    }
    act(&mut c, &gm, "done", json!({})).unwrap();
    c
}

fn current(c: &Campaign) -> Option<String> {
    c.table().turns.current.clone()
}

#[test]
fn turns_pass_in_order_through_actions_and_an_undo_puts_the_tracker_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = fight(&dir.path().join("turns.houserule"));
    assert_eq!(current(&c).as_deref(), Some("dutch"));
    let refused = act(&mut c, &ann(), "done", json!({})).unwrap_err();
    assert!(refused.contains("the player whose turn it is"), "{refused}");
    let bob = Role::Player("bob".into());
    act(&mut c, &bob, "done", json!({})).unwrap();
    assert_eq!(current(&c).as_deref(), Some("sniper_zyx"), "the sniper (14) after Dutch (15)");
    let before = c.table().clone();
    act(&mut c, &Role::Gm, "done", json!({})).unwrap();
    assert_eq!(current(&c).as_deref(), Some("mack"), "Mack (12) last in the round");
    act(&mut c, &ann(), "done", json!({})).unwrap();
    assert_eq!((c.table().turns.round, current(&c).as_deref()), (2, Some("dutch")), "round 2 starts at the top");
    assert_eq!(c.table().round, 1, "the round_end moment counted the round");
    c.undo(&Role::Gm, Some(c.head().0 - 2)).unwrap();
    assert_eq!(c.table().turns, before.turns, "the undo puts the tracker back exactly");
    assert_eq!(c.table().vars, before.vars, "and what the hooks counted");
    let report = verified(&c);
    assert!(report.ok, "the file verifies: {report:?}");
}

#[test]
fn a_player_never_receives_a_hidden_npcs_place_in_the_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = fight(&dir.path().join("hidden.houserule"));
    let mut received = vec![act(&mut c, &Role::Player("bob".into()), "done", json!({})).unwrap()];
    assert_eq!(current(&c).as_deref(), Some("sniper_zyx"));
    received.push(act(&mut c, &ann(), "hold", json!({"character": "mack"})).unwrap());
    received.push(json!(c.view(&ann())));
    received.push(json!(c.log(&ann(), 1).unwrap()));
    let text = serde_json::to_string(&received).unwrap();
    assert!(!text.contains("sniper") && !text.contains("Zyx"), "ann received the sniper: {text}");
    let view = c.view(&ann());
    let order: Vec<&str> = view.turns.order.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(order, ["dutch", "mack"], "ann sees the order without the sniper");
    assert_eq!(view.turns.current, None, "and no one's turn while it is the sniper's");
    let gm = c.view(&Role::Gm);
    assert_eq!(gm.turns.current.as_deref(), Some("sniper_zyx"), "the GM sees whose turn it is");
    assert_eq!(gm.turns.order.len(), 3);
    let line = houserule_core::render::turn_line(&view).unwrap();
    assert_eq!(line, "turn order, round 1: no one's turn you can see — Dutch (acted), Mack (holds)");
    let line = houserule_core::render::turn_line(&gm).unwrap();
    assert!(line.starts_with("turn order, round 1: Sniper Zyx's turn — Dutch (acted), ▶ Sniper Zyx, Mack"), "{line}");
}

#[test]
fn the_gm_may_show_a_hidden_npc_to_players_as_someone_and_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = fight(&dir.path().join("someone.houserule"));
    act(&mut c, &Role::Player("bob".into()), "done", json!({})).unwrap();
    let told = c.set_someone_in_turns(&Role::Gm, true).unwrap();
    assert!(json!(told).to_string().contains("as someone"), "the table is told: {told:?}");
    let view = c.view(&ann());
    let seats: Vec<(&str, bool, bool)> = view.turns.order.iter().map(|s| (s.id.as_str(), s.someone, s.now)).collect();
    assert_eq!(
        seats,
        [("dutch", false, false), ("", true, true), ("mack", false, false)],
        "in the sniper's place, someone"
    );
    assert!(view.turns.someone_now && view.turns.current.is_none(), "it is someone's turn, not whose");
    assert!(view.turns.order[1].key.is_empty(), "someone's initiative is not told");
    let received = serde_json::to_string(&(json!(view), json!(c.log(&ann(), 1).unwrap()))).unwrap();
    assert!(!received.contains("sniper") && !received.contains("Zyx") && !received.contains("[14]"), "{received}");
    let line = houserule_core::render::turn_line(&c.view(&ann())).unwrap();
    assert_eq!(line, "turn order, round 1: someone else's turn — Dutch (acted), ▶ someone, Mack");

    let undone = c.undo(&Role::Gm, None);
    assert!(undone.is_ok(), "{undone:?}");
    assert!(c.table().someone_in_turns, "undo takes back the last action, never the GM's choice");
    c.set_someone_in_turns(&Role::Gm, false).unwrap();
    let view = c.view(&ann());
    assert_eq!(view.turns.order.len(), 2, "left out again");
    assert!(!view.turns.someone_now);
    let report = verified(&c);
    assert!(report.ok, "the file verifies: {report:?}");
}
