//! `houserule scene` and `houserule move`: the GM prepares a scene from the terminal, a player
//! moves their token, and what a player is shown (text or `--json`) holds nothing of a hidden
//! NPC's token — not even that it exists, when they try to move it.

use crate::support::{houserule, json};

fn ok(args: &[&str]) -> String {
    let r = houserule(args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r.stdout
}

#[test]
fn a_scene_from_the_terminal_shows_each_viewer_only_what_they_may_see() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("yard.houserule").display().to_string();
    json(&["new", &f, "--ruleset", "generic"], 0, "new");
    ok(&["act", &f, "create_character", "-p", "name=Frody", "-p", "owner=bo"]);
    ok(&["act", &f, "create_npc", "-p", "name=Skulker", "-p", "hidden=true"]);
    for op in [
        r#"{"op":"create","id":"yard","name":"The Yard"}"#,
        r#"{"op":"place","scene":"yard","id":"frody","entity":"frody","cell":[1,1]}"#,
        r#"{"op":"place","scene":"yard","id":"zq_lurk","entity":"skulker","cell":[4,2]}"#,
        r#"{"op":"show","id":"yard"}"#,
        r#"{"op":"fog","scene":"yard","on":true,"reveal":[[1,1],[2,1],[3,1]]}"#,
    ] {
        ok(&["scene", &f, "--op", op]);
    }
    ok(&["move", &f, "frody", "1,1", "3,1", "--as", "player:bo"]);

    let gm = ok(&["scene", &f]);
    assert!(gm.contains("Skulker at column 5, row 3, players do not see it"), "{gm}");
    assert!(gm.contains("Frody (bo) at column 4, row 2"), "the move is on the map: {gm}");
    let bo = ok(&["scene", &f, "--as", "player:bo"]);
    assert!(bo.contains("# . . F #"), "bo sees the revealed cells and the fog: {bo}");
    let bo_json = ok(&["scene", &f, "--as", "player:bo", "--json"]);
    for secret in ["Skulker", "skulker", "zq_lurk", "[4,2]", "[\n        4,\n        2"] {
        assert!(!bo.contains(secret) && !bo_json.contains(secret), "bo is shown {secret}: {bo}\n{bo_json}");
    }

    // Trying to move the hidden token tells bo no more than trying a token that does not exist.
    let hidden = houserule(&["move", &f, "zq_lurk", "4,2", "4,3", "--as", "player:bo"]);
    let missing = houserule(&["move", &f, "zq_none", "4,2", "4,3", "--as", "player:bo"]);
    assert_eq!((hidden.code, missing.code), (1, 1));
    assert_eq!(hidden.stderr.replace("zq_lurk", "ID"), missing.stderr.replace("zq_none", "ID"), "the same refusal");
    let bad = houserule(&["move", &f, "frody", "3", "--as", "player:bo"]);
    assert!(bad.stderr.contains("'3' is not a cell (write x,y"), "{}", bad.stderr);
    json(&["verify", &f], 0, "verify");
}
