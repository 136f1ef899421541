//! Handouts (issue 32, point 6): until the GM reveals one to a player, nothing of it — title,
//! text, id, picture — reaches that player by any path: their view, their log, the picture
//! call, a copy of the file made for them. Revealed to one player, it stays out of every other
//! player's reach; revealed to everyone, a public thread reads it too; undo takes a reveal
//! back. A player cannot write or reveal one, and a handout that does not fit commits nothing.

use crate::support::{ask, browser, create_in, desktop};
use base64::Engine;
use houserule_app::front::App;
use houserule_core::Role;
use serde_json::{json, Value};
use std::path::Path;

const TITLE: &str = "Qx the duke's letter";
const TEXT: &str = "Meet me at the *old mill* at zb midnight.";

fn png() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(40, 30, |x, y| image::Rgba([(x * 6) as u8, (y * 8) as u8, 90, 255]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// Everything a player's browser may ask of the table: the view, the table with its log page,
/// and the log.
fn seen_by(app: &App, role: &Role) -> String {
    let who = browser(role.clone());
    let view = ask(app, &who, "view", json!({})).unwrap();
    let table = ask(app, &who, "table", json!({})).unwrap();
    let log = ask(app, &who, "log", json!({"from": 1, "limit": 500})).unwrap();
    format!("{view}\n{table}\n{log}")
}

/// The bytes of a SQLite file and its side files, as they would travel.
fn file_bytes(path: &Path) -> String {
    let mut bytes = std::fs::read(path).unwrap();
    for side in ["-wal", "-journal"] {
        bytes.extend(std::fs::read(format!("{}{side}", path.display())).unwrap_or_default());
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn leaks(text: &str, id: &str, digest: &str) -> Vec<&'static str> {
    let parts = [("title", "Qx the duke"), ("text", "zb midnight"), ("id", id), ("picture", digest)];
    parts.into_iter().filter(|(_, p)| text.contains(p)).map(|(what, _)| what).collect()
}

fn handout(app: &App, op: Value) -> Result<Value, houserule_core::ErrorReport> {
    ask(app, &desktop(Role::Gm), "handout", op)
}

#[test]
fn an_unrevealed_handout_reaches_no_player_by_any_path() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("handouts.houserule");
    let app = App::default();
    create_in(&app, &file, "generic", "handouts");
    let gm = desktop(Role::Gm);
    let data = base64::engine::general_purpose::STANDARD.encode(png());
    let imported = ask(&app, &gm, "import_picture", json!({"name": "seal.png", "data": data})).unwrap();
    let digest = imported["digest"].as_str().unwrap().to_string();
    handout(&app, json!({"op": "write", "title": TITLE, "text": TEXT, "picture": digest})).unwrap();
    let gm_view = ask(&app, &gm, "view", json!({})).unwrap();
    let id = gm_view["handouts"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(gm_view["handouts"][0]["title"], TITLE);

    let (ann, bo) = (Role::Player("ann".into()), Role::Player("bo".into()));
    for who in [&ann, &bo, &Role::Public] {
        assert_eq!(leaks(&seen_by(&app, who), &id, &digest), Vec::<&str>::new(), "{who} learns of the handout");
    }
    let refused = ask(&app, &browser(ann.clone()), "picture", json!({"key": digest})).unwrap_err();
    assert!(refused.message.contains("no picture you may see"), "{}", refused.message);

    handout(&app, json!({"op": "reveal", "id": id, "players": ["ann"]})).unwrap();
    let anns = seen_by(&app, &ann);
    assert!(anns.contains(TITLE) && anns.contains(TEXT), "ann reads the handout shown to her");
    assert!(anns.contains("The GM shows you the handout"), "ann's log tells her it was shown");
    assert!(ask(&app, &browser(ann.clone()), "picture", json!({"key": digest})).is_ok(), "ann gets its picture");
    assert_eq!(leaks(&seen_by(&app, &bo), &id, &digest), Vec::<&str>::new(), "bo learns of ann's handout");
    assert!(ask(&app, &browser(bo.clone()), "picture", json!({"key": digest})).is_err());

    let bos_copy = dir.path().join("bo.houserule");
    houserule_app::share::share(&file, &bos_copy, Some(&bo)).unwrap();
    assert_eq!(leaks(&file_bytes(&bos_copy), &id, &digest), Vec::<&str>::new(), "bo's copy of the file holds it");
    let anns_copy = dir.path().join("ann.houserule");
    houserule_app::share::share(&file, &anns_copy, Some(&ann)).unwrap();
    assert!(file_bytes(&anns_copy).contains(TITLE), "ann's copy keeps what she was shown");
    let opened = houserule_app::share::SharedCopy::open(&bos_copy).unwrap();
    assert!(opened.verify().ok, "bo's copy still verifies");

    ask(&app, &gm, "undo", json!({})).unwrap();
    assert_eq!(leaks(&seen_by(&app, &ann).replace(TITLE, "").replace(TEXT, ""), &id, &digest), Vec::<&str>::new());
    assert!(!ask(&app, &browser(ann.clone()), "view", json!({})).unwrap().to_string().contains(TITLE), "undone");
    assert!(
        ask(&app, &browser(ann.clone()), "picture", json!({"key": digest})).is_err(),
        "undo takes the picture back"
    );

    handout(&app, json!({"op": "reveal", "id": id, "everyone": true})).unwrap();
    let public = ask(&app, &browser(Role::Public), "view", json!({})).unwrap();
    assert_eq!(public["handouts"][0]["text"], TEXT, "a handout shown to everyone is the public's to read");
    assert!(public["handouts"][0]["readers"].as_array().unwrap().is_empty());
}

#[test]
fn only_the_gm_writes_and_a_handout_that_does_not_fit_commits_nothing() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let app = App::default();
    create_in(&app, &dir.path().join("refused.houserule"), "generic", "refused");
    let gm = desktop(Role::Gm);
    let head = |app: &App| ask(app, &gm, "view", json!({})).unwrap()["campaign"]["events"].clone();
    let before = head(&app);
    let ann = browser(Role::Player("ann".into()));
    let write = json!({"op": "write", "title": "Mine", "text": "x"});
    let e = ask(&app, &ann, "handout", write).unwrap_err();
    assert!(e.message.to_lowercase().contains("gm"), "{}", e.message);
    let e = handout(&app, json!({"op": "write", "title": "Map", "picture": "a".repeat(64)})).unwrap_err();
    assert!(e.message.contains("import it first"), "{}", e.message);
    let long = "y".repeat(houserule_core::handout::MAX_TEXT_BYTES + 1);
    let e = handout(&app, json!({"op": "write", "title": "Long", "text": long})).unwrap_err();
    assert!(e.message.contains("at most 32768"), "{}", e.message);
    let e = handout(&app, json!({"op": "write", "title": "Two\nlines"})).unwrap_err();
    assert!(e.message.contains("title"), "{}", e.message);
    let e = handout(&app, json!({"op": "reveal", "id": "h-none", "everyone": true})).unwrap_err();
    assert!(e.message.contains("no handout 'h-none'"), "{}", e.message);
    assert_eq!(head(&app), before, "no refused handout is in the log");
}
