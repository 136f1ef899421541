//! Scenes through a campaign file: the GM prepares a scene, players move their own tokens and
//! nobody else's, the rules' `move` hook sees each move (and refuses one, keeping nothing), an
//! undo puts a token back, the file verifies, and a hidden token never reaches a player.

use crate::support::{campaign_file, params, plugin, verified};
use houserule_app::campaign::SceneOp;
use houserule_app::request::ActRequest;
use houserule_app::Campaign;
use houserule_core::scene::grid::Cell;
use houserule_core::Role;
use serde_json::json;

const MANIFEST: &str = r#"
[scene]
unit = "inch"
per_cell = 1

[hooks]
move = "on_move"
"#;

const RULES: &str = r#"
fn on_move(t, m) {
    if m.length > 3.0 { t.refuse(`a move is at most 3" (Pace); this one is ${m.length}"`); }
    let ran = 0.0;
    for past in t.moves_this_round(m.token) { ran += past.length; }
    t.set_var("moved", ran);
    t.set_var("straight", m.straight);
}
"#;

fn ann() -> Role {
    Role::Player("ann".into())
}

fn street(path: &std::path::Path) -> Campaign {
    let mut c = campaign_file(&plugin(MANIFEST, RULES), path);
    for (name, owner) in [("Mack", "ann"), ("Dutch", "bob")] {
        c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": name, "owner": owner})))).unwrap();
    }
    let gm = Role::Gm;
    let op = |v: serde_json::Value| serde_json::from_value::<SceneOp>(v).unwrap();
    c.scene(&gm, op(json!({"op": "create", "id": "street", "name": "Street"}))).unwrap();
    c.scene(&gm, op(json!({"op": "show", "id": "street"}))).unwrap();
    for (id, x) in [("mack", 0), ("dutch", 5)] {
        c.scene(&gm, op(json!({"op": "place", "scene": "street", "id": id, "entity": id, "cell": [x, 0]}))).unwrap();
    }
    let hidden =
        json!({"op": "place", "scene": "street", "id": "zyx_ambusher", "label": "Zyx", "cell": [9, 9], "hidden": true});
    c.scene(&gm, op(hidden)).unwrap();
    c
}

fn cell(c: &Campaign, token: &str) -> Cell {
    c.table().scenes.find_token(token).unwrap().2.cell
}

#[test]
fn a_new_scene_takes_the_rulesets_unit() {
    let dir = tempfile::tempdir().unwrap();
    let c = street(&dir.path().join("unit.houserule"));
    let grid = &c.table().scenes.scenes["street"].head.grid;
    assert_eq!((grid.unit.name.as_str(), grid.unit.per_cell), ("inch", 1.0), "the manifest's [scene] unit");
}

#[test]
fn a_player_moving_someone_elses_token_is_refused_and_nothing_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = street(&dir.path().join("others.houserule"));
    let (head, table) = (c.head().0, c.table().clone());
    let err = c.move_token(&ann(), "dutch", vec![Cell(5, 0), Cell(4, 0)]).unwrap_err();
    assert!(err.to_string().contains("ann may move only their own tokens"), "said why: {err}");
    assert_eq!((c.head().0, c.table()), (head, &table), "no event, no change");
}

#[test]
fn the_move_hook_sees_each_move_and_a_refused_move_keeps_nothing_and_undo_puts_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = street(&dir.path().join("moves.houserule"));
    let before = c.table().clone();
    c.move_token(&ann(), "mack", vec![Cell(0, 0), Cell(1, 0), Cell(2, 0)]).unwrap();
    assert_eq!(cell(&c, "mack"), Cell(2, 0), "Mack moved");
    assert_eq!(c.table().vars["moved"].value, json!(2.0), "the hook measured 2 inches");
    assert_eq!(c.table().vars["straight"].value, json!(true), "in a straight line");
    let head = c.head().0;
    let err = c.move_token(&ann(), "mack", vec![Cell(2, 0), Cell(6, 0)]).unwrap_err();
    assert!(err.to_string().contains("at most 3\" (Pace)"), "the rule's reason: {err}");
    assert_eq!((c.head().0, cell(&c, "mack")), (head, Cell(2, 0)), "the refused move kept nothing");
    c.move_token(&ann(), "mack", vec![Cell(2, 0), Cell(3, 1)]).unwrap();
    assert_eq!(c.table().vars["moved"].value, json!(3.0), "this round's moves add up");
    assert_eq!(c.table().vars["straight"].value, json!(true));
    c.undo(&Role::Gm, Some(head - 1)).unwrap();
    assert_eq!(c.table().scenes, before.scenes, "undo puts Mack back where he stood, his moves forgotten");
    let report = verified(&c);
    assert!(report.ok, "the file verifies: {report:?}");
}

#[test]
fn a_hidden_token_never_reaches_a_player() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = street(&dir.path().join("hidden.houserule"));
    c.move_token(&Role::Gm, "zyx_ambusher", vec![Cell(9, 9), Cell(8, 8)]).unwrap();
    let received = json!([c.view(&ann()), c.log(&ann(), 1).unwrap()]);
    let text = serde_json::to_string(&received).unwrap();
    for secret in ["zyx", "Zyx", "[9,9]", "[8,8]"] {
        assert!(!text.contains(secret), "ann received {secret}: {text}");
    }
    let view = c.view(&ann());
    let seen: Vec<&str> = view.scenes[0].tokens.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(seen, ["mack", "dutch"], "ann sees the two heroes only");
    assert_eq!(c.view(&Role::Gm).scenes[0].tokens.len(), 3, "the GM sees the ambusher too");
}

#[test]
fn a_player_log_leaves_out_scene_work_they_see_nothing_of() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = street(&dir.path().join("quiet.houserule"));
    let op = |v: serde_json::Value| serde_json::from_value::<SceneOp>(v).unwrap();
    let before = c.log(&ann(), 1).unwrap().len();
    c.scene(&Role::Gm, op(json!({"op": "create", "id": "vault", "name": "Vault"}))).unwrap();
    c.scene(&Role::Gm, op(json!({"op": "fog", "scene": "vault", "on": true, "reveal": [[1, 1]]}))).unwrap();
    let log = c.log(&ann(), 1).unwrap();
    let empty: Vec<String> = log
        .iter()
        .filter(|e| e.items.is_empty() && e.actor.as_ref().is_some_and(|a| a.is_gm()))
        .map(|e| format!("#{} {:?}", e.seq, e.action))
        .collect();
    assert!(empty.is_empty(), "ann's log lists GM scene work she sees nothing of: {empty:?}");
    assert_eq!(log.len(), before, "nothing new for ann");
    assert!(c.log(&Role::Gm, 1).unwrap().len() > before, "the GM's log has it");
}
