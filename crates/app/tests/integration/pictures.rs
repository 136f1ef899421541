//! Pictures through the app's calls, as the GM's desktop and players' browsers make them: an
//! import is checked whole and kept with its event; a player is given the shown scene's
//! background only as a masked picture made for them (no fogged pixel in it) and never the GM's
//! picture by its digest; `verify` finds a swapped or planted picture; a refused import keeps
//! nothing.

use crate::support::{ask, browser, create_in, desktop};
use base64::Engine;
use houserule_app::front::App;
use houserule_core::Role;
use image::{Rgba, RgbaImage};
use serde_json::{json, Value};
use std::path::Path;

const RED: Rgba<u8> = Rgba([200, 30, 30, 255]);
const GREEN: Rgba<u8> = Rgba([30, 200, 30, 255]);

fn b64() -> base64::engine::GeneralPurpose {
    base64::engine::general_purpose::STANDARD
}

/// A 200×100 map: its left half red, its right half green (the secret room).
fn map_png() -> Vec<u8> {
    let img = RgbaImage::from_fn(200, 100, |x, _| if x < 100 { RED } else { GREEN });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn import(app: &App, name: &str, bytes: &[u8]) -> Result<Value, houserule_core::ErrorReport> {
    ask(app, &desktop(Role::Gm), "import_picture", json!({"name": name, "data": b64().encode(bytes)}))
}

fn gm_op(app: &App, op: Value) {
    ask(app, &desktop(Role::Gm), "scene", op).expect("the GM's scene operation");
}

/// A table with the map as the shown scene's background, fogged but for cell 0,0.
fn table(file: &Path) -> (App, String) {
    crate::support::init();
    let app = App::default();
    create_in(&app, file, "generic", "pictures");
    let imported = import(&app, "cellar.png", &map_png()).expect("the map is imported");
    let digest = imported["digest"].as_str().unwrap().to_string();
    let bg = json!({"digest": digest, "width": 200, "height": 100});
    gm_op(
        &app,
        json!({"op": "create", "id": "cellar", "name": "Cellar", "background": bg,
        "grid": {"kind": "square", "size": 50.0, "unit": {"name": "square", "per_cell": 1.0}, "measure": "chebyshev"}}),
    );
    gm_op(&app, json!({"op": "show", "id": "cellar"}));
    gm_op(&app, json!({"op": "fog", "scene": "cellar", "on": true, "reveal": [[0, 0]]}));
    (app, digest)
}

fn decoded(answer: &Value) -> RgbaImage {
    let bytes = b64().decode(answer["data"].as_str().unwrap()).unwrap();
    image::load_from_memory(&bytes).unwrap().into_rgba8()
}

#[test]
fn a_player_gets_the_map_masked_and_never_the_whole_picture() {
    let dir = tempfile::tempdir().unwrap();
    let (app, digest) = table(&dir.path().join("t.houserule"));
    let ann = browser(Role::Player("ann".into()));
    let view = ask(&app, &ann, "view", json!({})).unwrap();
    let scene = &view["scenes"][0];
    assert!(scene.get("background").is_none(), "a player's view names no background digest");
    assert!(!view.to_string().contains(&digest), "the digest is nowhere in a player's view");
    let key = scene["map_key"].as_str().unwrap().to_string();
    let masked = decoded(&ask(&app, &ann, "picture", json!({"key": key})).unwrap());
    assert_eq!(masked.dimensions(), (200, 100));
    assert_eq!(masked.get_pixel(25, 25), &RED, "the revealed cell is the map");
    assert_eq!(masked.get_pixel(75, 25), &Rgba([0, 0, 0, 255]), "the fogged cell beside it is black");
    assert!(masked.pixels().all(|p| *p != GREEN), "no pixel of the secret room reaches the player");
    let refused = ask(&app, &ann, "picture", json!({"key": digest})).unwrap_err();
    assert!(refused.message.contains("no picture you may see"), "{}", refused.message);
    let nothing = ask(&app, &ann, "picture", json!({"key": "f".repeat(64)})).unwrap_err();
    assert_eq!(nothing.message, refused.message, "a key naming nothing is refused the same way");
    let whole = decoded(&ask(&app, &desktop(Role::Gm), "picture", json!({"key": digest})).unwrap());
    assert_eq!(whole.get_pixel(150, 50), &GREEN, "the GM sees the whole map");
    let denied = ask(&app, &ann, "import_picture", json!({"name": "x.png", "data": b64().encode(map_png())}));
    assert!(denied.is_err(), "a player imports nothing");
}

#[test]
fn revealing_more_changes_the_key_and_the_picture() {
    let dir = tempfile::tempdir().unwrap();
    let (app, _) = table(&dir.path().join("t.houserule"));
    let ann = browser(Role::Player("ann".into()));
    let key =
        |app: &App| ask(app, &ann, "view", json!({})).unwrap()["scenes"][0]["map_key"].as_str().unwrap().to_string();
    let before = key(&app);
    gm_op(&app, json!({"op": "fog", "scene": "cellar", "reveal": [[2, 0]]}));
    let after = key(&app);
    assert_ne!(before, after, "the key follows the fog");
    let masked = decoded(&ask(&app, &ann, "picture", json!({"key": after})).unwrap());
    assert_eq!(masked.get_pixel(125, 25), &GREEN, "the newly revealed cell shows");
    assert!(ask(&app, &ann, "picture", json!({"key": before})).is_err(), "an old key names nothing now");
}

#[test]
fn a_refused_import_keeps_nothing_and_says_which_file_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule");
    crate::support::init();
    let app = App::default();
    create_in(&app, &file, "generic", "refusals");
    let events = |app: &App| ask(app, &desktop(Role::Gm), "campaign", json!({})).unwrap()["events"].as_u64().unwrap();
    let before = events(&app);
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
    let e = import(&app, "evil.svg", svg).unwrap_err();
    assert!(e.message.starts_with("evil.svg: not a PNG, JPEG or WebP"), "{}", e.message);
    let mut cut = map_png();
    cut.truncate(cut.len() / 2);
    let e = import(&app, "cut.png", &cut).unwrap_err();
    assert!(e.message.contains("cut.png") && e.message.contains("cut short"), "{}", e.message);
    assert_eq!(events(&app), before, "no event for a refused picture");
    drop(app);
    let conn = rusqlite::Connection::open(&file).unwrap();
    let stored: i64 = conn.query_row("SELECT count(*) FROM pictures", [], |r| r.get(0)).unwrap_or(0);
    assert_eq!(stored, 0, "no bytes kept");
}

#[test]
fn verify_finds_a_swapped_or_planted_picture() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule");
    let (app, digest) = table(&file);
    drop(app);
    let report = |f: &Path| {
        let c = houserule_app::Campaign::open(f).unwrap();
        crate::support::verified(&c)
    };
    let ok = report(&file);
    assert!(ok.ok, "{:?}", ok.checks);
    assert!(ok.checks.iter().any(|c| c.name == "pictures" && c.detail.starts_with("1 picture")));
    let swapped = dir.path().join("swapped.houserule");
    std::fs::copy(&file, &swapped).unwrap();
    let conn = rusqlite::Connection::open(&swapped).unwrap();
    let other = RgbaImage::from_pixel(200, 100, RED);
    let mut bytes = std::io::Cursor::new(Vec::new());
    other.write_to(&mut bytes, image::ImageFormat::Png).unwrap();
    conn.execute("UPDATE pictures SET bytes = ?1 WHERE digest = ?2", rusqlite::params![bytes.get_ref(), digest])
        .unwrap();
    drop(conn);
    let bad = houserule_app::verify::verify(&houserule_app::store::Store::open(&swapped).unwrap(), &Default::default());
    let check = bad.checks.iter().find(|c| c.name == "pictures").unwrap();
    assert!(!check.ok && check.detail.contains("bytes were changed"), "{check:?}");
    let planted = dir.path().join("planted.houserule");
    std::fs::copy(&file, &planted).unwrap();
    let conn = rusqlite::Connection::open(&planted).unwrap();
    let extra = b"not even a picture";
    let d = houserule_app::store::pictures::digest_of(extra);
    conn.execute("INSERT INTO pictures (digest, bytes) VALUES (?1, ?2)", rusqlite::params![d, extra]).unwrap();
    drop(conn);
    let bad = houserule_app::verify::verify(&houserule_app::store::Store::open(&planted).unwrap(), &Default::default());
    let check = bad.checks.iter().find(|c| c.name == "pictures").unwrap();
    assert!(!check.ok && check.detail.contains("no event added"), "{check:?}");
}

#[test]
fn undo_takes_an_import_back_and_a_full_copy_carries_the_picture() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule");
    crate::support::init();
    let app = App::default();
    create_in(&app, &file, "generic", "undo");
    let digest = import(&app, "cellar.png", &map_png()).unwrap()["digest"].as_str().unwrap().to_string();
    ask(&app, &desktop(Role::Gm), "undo", json!({})).unwrap();
    let gone = ask(&app, &desktop(Role::Gm), "picture", json!({"key": digest}));
    assert!(gone.is_err(), "an undone import leaves the table");
    let again = import(&app, "cellar.png", &map_png());
    assert!(again.unwrap()["entry"].is_object(), "and can be imported again, as a new event");
    let twice = import(&app, "same-bytes.png", &map_png()).unwrap();
    assert!(twice["entry"].is_null(), "the same bytes again are the picture already kept: no event");
    drop(app);
    let copy = dir.path().join("copy.houserule");
    houserule_app::share::share(&file, &copy, None).unwrap();
    let c = houserule_app::Campaign::open(&copy).unwrap();
    assert!(c.store().picture(&digest).unwrap().is_some(), "the full copy carries the picture");
    assert!(crate::support::verified(&c).ok);
}

/// A player's copy carries the map as that player saw it (fogged pixels black) and the pictures
/// of what they see, and no other byte of the campaign's pictures: neither the whole map nor a
/// hidden token's picture is in the file, under any digest.
#[test]
fn a_players_copy_carries_only_the_pictures_that_player_sees() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule");
    let (app, map) = table(&file);
    let coin = RgbaImage::from_pixel(20, 20, Rgba([250, 210, 40, 255]));
    let trap = RgbaImage::from_pixel(20, 20, Rgba([90, 10, 120, 255]));
    let mut digests = vec![];
    for (name, img) in [("coin.png", coin), ("trap.png", trap)] {
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        digests.push(import(&app, name, &out.into_inner()).unwrap()["digest"].as_str().unwrap().to_string());
    }
    gm_op(
        &app,
        json!({"op": "place", "scene": "cellar", "id": "coin", "label": "Coin", "cell": [0, 0], "image": digests[0]}),
    );
    gm_op(
        &app,
        json!({"op": "place", "scene": "cellar", "id": "trap", "label": "Trap", "cell": [0, 1], "image": digests[1], "hidden": true}),
    );
    let ann = browser(Role::Player("ann".into()));
    let key = ask(&app, &ann, "view", json!({})).unwrap()["scenes"][0]["map_key"].as_str().unwrap().to_string();
    let seen = decoded(&ask(&app, &ann, "picture", json!({"key": key})).unwrap());
    drop(app);

    let copy = dir.path().join("ann.houserule");
    houserule_app::share::share(&file, &copy, Some(&Role::Player("ann".into()))).unwrap();
    let opened = houserule_app::share::SharedCopy::open(&copy).unwrap();
    assert!(opened.verify().ok, "the copy verifies: {:?}", opened.verify());
    let carried = opened.picture(&key).unwrap().expect("the copy carries ann's map");
    let carried = image::load_from_memory(&carried).unwrap().into_rgba8();
    assert_eq!(carried, seen, "the map in the copy is the one ann was given, pixel for pixel");
    assert!(opened.picture(&digests[0]).unwrap().is_some(), "the coin she sees is carried");
    assert!(opened.picture(&digests[1]).unwrap().is_none(), "the hidden trap is not");
    assert!(opened.picture(&map).unwrap().is_none(), "nor the GM's whole map");
    let mut stored = vec![];
    opened.store().each_picture(|d, bytes| stored.push((d.to_string(), bytes.to_vec()))).unwrap();
    assert_eq!(stored.len(), 2, "two pictures in the file: ann's map and the coin");
    for (d, bytes) in &stored {
        assert!(d != &map && d != &digests[1], "no stored picture is the map or the trap");
        let img = image::load_from_memory(bytes).unwrap().into_rgba8();
        assert!(img.pixels().all(|p| *p != GREEN), "no stored picture holds a pixel of the secret room");
    }
}
