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

/// A picture of one colour, written to `dir/name`; answers its path.
fn picture(dir: &std::path::Path, name: &str, w: u32, h: u32, rgb: [u8; 3]) -> String {
    let path = dir.join(name);
    image::RgbaImage::from_pixel(w, h, image::Rgba([rgb[0], rgb[1], rgb[2], 255])).save(&path).unwrap();
    path.display().to_string()
}

/// Imports a picture and answers its digest (the last word `--import` prints).
fn import(file: &str, path: &str) -> String {
    ok(&["scene", file, "--import", path]).split_whitespace().last().unwrap().to_string()
}

/// How many pixels of a PNG are (within 3 of) this colour.
fn pixels_of(png: &std::path::Path, rgb: [u8; 3]) -> usize {
    let img = image::open(png).unwrap_or_else(|e| panic!("{}: {e}", png.display())).into_rgba8();
    img.pixels().filter(|p| (0..3).all(|i| p.0[i].abs_diff(rgb[i]) <= 3)).count()
}

#[test]
fn a_post_attaches_the_map_as_the_public_sees_it() {
    const GREEN: [u8; 3] = [10, 200, 10];
    const MAGENTA: [u8; 3] = [210, 20, 200];
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("yard.houserule").display().to_string();
    json(&["new", &f, "--ruleset", "generic"], 0, "new");
    ok(&["act", &f, "create_character", "-p", "name=Frody", "-p", "owner=bo"]);
    ok(&["act", &f, "create_npc", "-p", "name=Skulker", "-p", "hidden=true"]);
    let map = import(&f, &picture(dir.path(), "yard.png", 500, 500, GREEN));
    let face = import(&f, &picture(dir.path(), "skulker.png", 40, 40, MAGENTA));
    let background =
        format!(r#"{{"op":"update","id":"yard","background":{{"digest":"{map}","width":500,"height":500}}}}"#);
    let skulker_face = format!(r#"{{"op":"token","id":"zq_lurk","image":"{face}"}}"#);
    for op in [
        r#"{"op":"create","id":"yard","name":"The Yard"}"#,
        &background,
        r#"{"op":"place","scene":"yard","id":"frody","entity":"frody","cell":[0,0]}"#,
        r#"{"op":"place","scene":"yard","id":"zq_lurk","entity":"skulker","cell":[1,0]}"#,
        &skulker_face,
        r#"{"op":"fog","scene":"yard","on":true,"reveal":[[0,0],[1,0]]}"#,
    ] {
        ok(&["scene", &f, "--op", op]);
    }
    ok(&["act", &f, "narrate", "-p", "text=The gate creaks."]);
    let out = dir.path().join("post-map.png");
    let refused = houserule(&["post", &f, "--map", &out.display().to_string()]);
    assert!(refused.code != 0 && refused.stderr.contains("no scene is shown"), "{}", refused.stderr);
    assert!(!out.exists(), "nothing is written when the post is refused");
    ok(&["scene", &f, "--op", r#"{"op":"show","id":"yard"}"#]);

    let md = ok(&["post", &f, "--map", &out.display().to_string()]);
    assert!(md.contains("![Map: The Yard](post-map.png)") && md.contains("- F Frody: column 1, row 1"), "{md}");
    for secret in ["Skulker", "skulker", "zq_lurk", "column 2"] {
        assert!(!md.contains(secret), "the post names the hidden token ({secret}): {md}");
    }
    let green = pixels_of(&out, GREEN);
    assert!(green > 0, "the revealed cells show the map");
    assert!(green < 500 * 500 / 10, "the fogged map is black in the post's picture ({green} map pixels)");
    assert_eq!(pixels_of(&out, MAGENTA), 0, "not one pixel of the hidden token's picture");
    let bb = ok(&["post", &f, "--format", "bbcode", "--map", &out.display().to_string()]);
    assert!(bb.contains("[img]post-map.png[/img]\n[list]\n[*]F Frody: column 1, row 1\n[/list]"), "{bb}");

    let copy = dir.path().join("bo.houserule").display().to_string();
    ok(&["share", &f, &copy, "--for", "player:bo"]);
    let from_copy = houserule(&["post", &copy, "--map", &dir.path().join("c.png").display().to_string()]);
    assert!(from_copy.code != 0 && from_copy.stderr.contains("from the campaign file"), "{}", from_copy.stderr);
}
