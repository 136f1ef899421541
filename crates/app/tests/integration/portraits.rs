//! Portraits through the app's calls: the GM gives an entity a portrait; whoever sees the entity
//! sees it on its card and on its tokens without a picture of their own, and may fetch it; a
//! player who does not see the entity learns nothing of it (not its digest in any view, table or
//! log, nor the picture by digest); a token's own picture stands before the portrait; undo takes
//! a portrait back; nobody but the GM sets one.

use crate::support::{ask, browser, create_in, desktop};
use base64::Engine;
use houserule_app::front::App;
use houserule_core::Role;
use image::{Rgba, RgbaImage};
use serde_json::{json, Value};

fn png(colour: [u8; 4]) -> String {
    let img = RgbaImage::from_pixel(40, 40, Rgba(colour));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    base64::engine::general_purpose::STANDARD.encode(out.into_inner())
}

fn gm() -> houserule_app::calls::Caller {
    desktop(Role::Gm)
}

fn import(app: &App, name: &str, colour: [u8; 4]) -> String {
    let got = ask(app, &gm(), "import_picture", json!({"name": name, "data": png(colour)})).unwrap();
    got["digest"].as_str().unwrap().to_string()
}

fn scene(app: &App, op: Value) -> Result<Value, houserule_core::ErrorReport> {
    ask(app, &gm(), "scene", op)
}

/// All a viewer is told: their view, their table and their log.
fn everything(app: &App, who: &Role) -> String {
    let caller = browser(who.clone());
    let view = ask(app, &caller, "view", json!({})).unwrap();
    let table = ask(app, &caller, "table", json!({})).unwrap();
    let log = ask(app, &caller, "log", json!({"from": 1, "limit": 500})).unwrap();
    format!("{view}{table}{log}")
}

/// A street with Frody (ann's, public) and the Skulker (GM only), a token each, shown.
fn street(app: &App, file: &std::path::Path) {
    crate::support::init();
    create_in(app, file, "generic", "portraits");
    ask(app, &gm(), "act", json!({"action": "create_character", "params": {"name": "Frody", "owner": "ann"}})).unwrap();
    ask(app, &gm(), "act", json!({"action": "create_npc", "params": {"name": "Skulker", "hidden": true}})).unwrap();
    scene(app, json!({"op": "create", "id": "street", "name": "Street"})).unwrap();
    scene(app, json!({"op": "place", "scene": "street", "id": "t-frody", "entity": "frody", "cell": [0, 0]})).unwrap();
    scene(app, json!({"op": "place", "scene": "street", "id": "t-skulker", "entity": "skulker", "cell": [2, 0]}))
        .unwrap();
    scene(app, json!({"op": "show", "id": "street"})).unwrap();
}

#[test]
fn a_portrait_is_seen_with_its_entity_and_by_nobody_else() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::default();
    street(&app, &dir.path().join("t.houserule"));
    let frody = import(&app, "frody.png", [200, 150, 90, 255]);
    let skulker = import(&app, "skulker.png", [20, 20, 60, 255]);
    scene(&app, json!({"op": "portrait", "entity": "frody", "picture": frody})).unwrap();
    scene(&app, json!({"op": "portrait", "entity": "skulker", "picture": skulker})).unwrap();

    for who in ["ann", "bo"] {
        let player = Role::Player(who.into());
        let view = ask(&app, &browser(player.clone()), "view", json!({})).unwrap();
        assert_eq!(view["entities"]["frody"]["portrait"], json!(frody), "{who} sees Frody's portrait on his card");
        let token = &view["scenes"][0]["tokens"][0];
        assert_eq!((&token["id"], &token["image"]), (&json!("t-frody"), &json!(frody)), "and on his token");
        assert!(ask(&app, &browser(player.clone()), "picture", json!({"key": frody})).is_ok(), "{who} fetches it");
        assert!(!everything(&app, &player).contains(&skulker), "nothing tells {who} of the Skulker's portrait");
        let refused = ask(&app, &browser(player), "picture", json!({"key": skulker})).unwrap_err();
        assert!(refused.message.contains("no picture you may see"), "{}", refused.message);
    }

    // A token's own picture stands before its entity's portrait.
    let own = import(&app, "frody-token.png", [90, 200, 90, 255]);
    scene(&app, json!({"op": "token", "id": "t-frody", "image": own})).unwrap();
    let view = ask(&app, &browser(Role::Player("ann".into())), "view", json!({})).unwrap();
    assert_eq!(view["scenes"][0]["tokens"][0]["image"], json!(own));
    // Taken off again (null), the token shows the portrait.
    scene(&app, json!({"op": "token", "id": "t-frody", "image": null})).unwrap();
    let view = ask(&app, &browser(Role::Player("ann".into())), "view", json!({})).unwrap();
    assert_eq!(view["scenes"][0]["tokens"][0]["image"], json!(frody));
}

#[test]
fn only_the_gm_sets_a_portrait_and_undo_takes_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let app = App::default();
    street(&app, &dir.path().join("t.houserule"));
    let frody = import(&app, "frody.png", [200, 150, 90, 255]);
    let ann = browser(Role::Player("ann".into()));
    let refused = ask(&app, &ann, "scene", json!({"op": "portrait", "entity": "frody", "picture": frody})).unwrap_err();
    assert!(refused.message.contains("GM"), "{}", refused.message);
    let nothing = scene(&app, json!({"op": "portrait", "entity": "frody", "picture": "a".repeat(64)})).unwrap_err();
    assert!(nothing.message.contains("import it first"), "{}", nothing.message);
    let nobody = scene(&app, json!({"op": "portrait", "entity": "nobody", "picture": frody})).unwrap_err();
    assert!(nobody.message.contains("no entity 'nobody'"), "{}", nobody.message);

    scene(&app, json!({"op": "portrait", "entity": "frody", "picture": frody})).unwrap();
    assert_eq!(ask(&app, &ann, "view", json!({})).unwrap()["entities"]["frody"]["portrait"], json!(frody));
    ask(&app, &gm(), "undo", json!({})).unwrap();
    let view = ask(&app, &ann, "view", json!({})).unwrap();
    assert!(view["entities"]["frody"].get("portrait").is_none(), "undone: {}", view["entities"]["frody"]);
    assert!(view["scenes"][0]["tokens"][0].get("image").is_none(), "the token shows no portrait either");
}
