//! A field the GM keeps to themselves shows a player nothing of itself, not even its name
//! (issue 35, point 8): set on a player's own character through the generic ruleset's "Set a
//! note or value", its name is in neither that player's view nor their log, nor in a copy of
//! the file shared with them; a field set for everyone is theirs to read, name and value.

use crate::support::{bundled, init, params};
use houserule_app::request::ActRequest;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::Role;
use indexmap::IndexMap;
use serde_json::json;

const HIDDEN: &str = "Doom clock zq";

#[test]
fn a_gm_only_field_on_a_players_character_shows_them_nothing_of_itself() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fields.houserule");
    let generic = bundled().into_iter().find(|(id, _, _)| id == "generic").unwrap().2;
    let new = NewCampaign {
        name: "fields".into(),
        ruleset: &generic,
        settings: IndexMap::new(),
        seed: Some(1),
        limits: Default::default(),
        house_rules: vec![],
    };
    let mut c = Campaign::create(Some(&path), new).unwrap();
    let gm = Role::Gm;
    c.act(&gm, &ActRequest::new("create_character", &params(json!({"name": "Frody", "owner": "ann"})))).unwrap();
    let id = c.table().entities.values().find(|e| e.name == "Frody").unwrap().id.clone();
    for (field, visibility) in [(HIDDEN, "gm"), ("Mood", "public")] {
        let p = json!({"entity": id, "field": field, "value": "three of six", "visibility": visibility});
        c.act(&gm, &ActRequest::new("set_field", &params(p))).unwrap();
    }
    let ann = Role::Player("ann".into());
    let seen = serde_json::to_string(&(c.view(&ann), c.log(&ann, 1).unwrap())).unwrap();
    assert!(!seen.contains(HIDDEN), "ann is shown the GM's field by name");
    assert!(seen.contains("Mood"), "ann reads the field set for everyone");
    drop(c);
    let copy = dir.path().join("ann.houserule");
    houserule_app::share::share(&path, &copy, Some(&ann)).unwrap();
    assert!(!String::from_utf8_lossy(&std::fs::read(&copy).unwrap()).contains(HIDDEN), "ann's copy names it");
}
