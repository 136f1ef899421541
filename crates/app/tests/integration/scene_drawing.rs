//! The scene drawn as a picture (`scene_picture`, what `houserule scene --map`, a Matrix room
//! and a forum post get): a player's drawing shows their own token's picture and the revealed
//! map, and not one pixel of a hidden token's picture, of a token standing in the fog, or of the
//! map under the fog; its legend names no token they may not see. The GM's shows them all.

use crate::support::{ask, browser, create_in, desktop};
use base64::Engine;
use houserule_app::front::App;
use houserule_core::Role;
use image::{Rgba, RgbaImage};
use serde_json::{json, Value};

const GREEN: [u8; 3] = [10, 200, 10];
const BLUE: [u8; 3] = [20, 60, 220];
const MAGENTA: [u8; 3] = [210, 20, 200];
const ORANGE: [u8; 3] = [250, 140, 0];

fn png(w: u32, h: u32, [r, g, b]: [u8; 3]) -> String {
    let img = RgbaImage::from_pixel(w, h, Rgba([r, g, b, 255]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    base64::engine::general_purpose::STANDARD.encode(out.into_inner())
}

fn gm_asks(app: &App, method: &str, params: Value) -> Value {
    ask(app, &desktop(Role::Gm), method, params).unwrap_or_else(|e| panic!("{method}: {}", e.message))
}

fn import(app: &App, name: &str, w: u32, h: u32, colour: [u8; 3]) -> String {
    gm_asks(app, "import_picture", json!({"name": name, "data": png(w, h, colour)}))["digest"].as_str().unwrap().into()
}

/// The drawing `who` is given, decoded, with its legend.
fn drawing(app: &App, who: &Role) -> (RgbaImage, Vec<String>) {
    let got = ask(app, &browser(who.clone()), "scene_picture", json!({})).unwrap();
    let bytes = base64::engine::general_purpose::STANDARD.decode(got["data"].as_str().unwrap()).unwrap();
    let legend = got["legend"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect();
    (image::load_from_memory(&bytes).unwrap().into_rgba8(), legend)
}

/// How many pixels are (within 3 of) this colour, and where the furthest one lies.
fn pixels_of(img: &RgbaImage, c: [u8; 3]) -> (usize, (u32, u32)) {
    let near = |p: &Rgba<u8>| (0..3).all(|i| p.0[i].abs_diff(c[i]) <= 3);
    let hits: Vec<(u32, u32)> = img.enumerate_pixels().filter(|(_, _, p)| near(p)).map(|(x, y, _)| (x, y)).collect();
    let far = hits.iter().fold((0, 0), |(mx, my), &(x, y)| (mx.max(x), my.max(y)));
    (hits.len(), far)
}

#[test]
fn a_players_drawing_shows_only_what_they_see() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let app = App::default();
    create_in(&app, &dir.path().join("t.houserule"), "generic", "drawn");
    let act = |action: &str, params: Value| gm_asks(&app, "act", json!({"action": action, "params": params}));
    act("create_character", json!({"name": "Frody", "owner": "ann"}));
    act("create_npc", json!({"name": "Skulker", "hidden": true}));
    let map = import(&app, "yard.png", 700, 500, GREEN);
    let frody = import(&app, "frody.png", 40, 40, BLUE);
    let skulker = import(&app, "skulker.png", 40, 40, MAGENTA);
    let trap = import(&app, "trap.png", 40, 40, ORANGE);
    let scene = |op: Value| gm_asks(&app, "scene", op);
    scene(json!({"op": "create", "id": "yard", "name": "Yard"}));
    scene(json!({"op": "update", "id": "yard", "background": {"digest": map, "width": 700, "height": 500}}));
    let size = gm_asks(&app, "view", json!({}))["scenes"][0]["grid"]["size"].as_f64().unwrap();
    scene(json!({"op": "place", "scene": "yard", "id": "t-frody", "entity": "frody", "cell": [0, 0]}));
    scene(json!({"op": "token", "id": "t-frody", "image": frody}));
    scene(json!({"op": "place", "scene": "yard", "id": "t-sk", "entity": "skulker", "cell": [1, 1]}));
    scene(json!({"op": "token", "id": "t-sk", "image": skulker}));
    scene(json!({"op": "place", "scene": "yard", "id": "t-trap", "label": "Trap", "cell": [5, 4]}));
    scene(json!({"op": "token", "id": "t-trap", "image": trap}));
    // The fog leaves the 3×3 cells at the top left open.
    scene(json!({"op": "fog", "scene": "yard", "on": true}));
    scene(json!({"op": "fog", "scene": "yard", "polygon": [[0, 0], [3, 0], [3, 3], [0, 3]]}));
    scene(json!({"op": "show", "id": "yard"}));

    let open = (3.0 * size) as u32;
    for who in ["ann", "bo"] {
        let (img, legend) = drawing(&app, &Role::Player(who.into()));
        let (green, far) = pixels_of(&img, GREEN);
        assert!(green > 0, "{who} sees the open part of the map");
        assert!(far.0 < open && far.1 < open, "{who}: a map pixel at {far:?} lies under the fog (open to {open})");
        assert!(pixels_of(&img, BLUE).0 > 0, "{who} sees Frody's picture");
        assert_eq!(pixels_of(&img, MAGENTA).0, 0, "{who} sees not one pixel of hidden Skulker's picture");
        assert_eq!(pixels_of(&img, ORANGE).0, 0, "{who} sees not one pixel of the trap in the fog");
        let fogged = img.get_pixel((5.5 * size) as u32, (4.5 * size) as u32);
        assert_eq!(fogged.0, [0, 0, 0, 255], "{who}: a fogged cell is black");
        assert_eq!(legend, vec!["F Frody: column 1, row 1".to_string()], "{who}'s legend names what they see");
    }
    let (img, legend) = drawing(&app, &Role::Gm);
    for (colour, what) in [(BLUE, "Frody"), (ORANGE, "the trap")] {
        assert!(pixels_of(&img, colour).0 > 0, "the GM sees {what}'s picture");
    }
    // The GM sees hidden Skulker faded over the map: a mix of his picture and the green.
    let middle = img.get_pixel((1.5 * size) as u32, (1.5 * size) as u32).0;
    assert!(middle[0] > 100 && middle[2] > 100, "the GM sees Skulker's picture, faded: {middle:?}");
    assert!(legend.contains(&"S Skulker: column 2, row 2 (players do not see it)".to_string()), "{legend:?}");
    assert_eq!(legend.len(), 3, "the GM's legend names every token: {legend:?}");
}
