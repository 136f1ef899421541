//! `houserule undo` and `houserule correct`: a GM takes a mistake back, and the log keeps it.

use crate::support::{generic_campaign, houserule, json};
use serde_json::Value;

#[test]
fn undo_voids_the_last_action_and_correct_sets_a_value_with_a_reason() {
    let (_d, f) = generic_campaign();
    json(&["act", &f, "create_character", "-p", "name=Gandolf", "-p", "owner=ann"], 0, "act");
    json(&["act", &f, "give_tokens", "-p", "character=gandolf", "-p", "n=5"], 0, "act");
    let before = json(&["view", &f], 0, "view");
    let rolled = json(&["act", &f, "roll", "-p", "expr=3d6"], 0, "act");
    let undone = json(&["undo", &f], 0, "log-entry");
    assert_eq!(undone["kind"], "undo");
    assert_eq!(undone["detail"]["voided"], serde_json::json!([rolled["event"]["seq"]]));
    let log = json(&["log", &f], 0, "log");
    let voided: Vec<&Value> = log.as_array().unwrap().iter().filter(|e| e["voided_by"] == undone["seq"]).collect();
    assert_eq!(voided.len(), 1, "the roll stays in the log, voided");
    assert!(houserule(&["log", &f]).stdout.contains("[voided: undone by"), "the text log says so too");
    let after = json(&["view", &f], 0, "view");
    assert_eq!(after["entities"], before["entities"], "the table is as it was before the roll");
    let again = json(&["act", &f, "roll", "-p", "expr=3d6"], 0, "act");
    let counter = |e: &Value| {
        e["event"]["items"].as_array().unwrap().iter().find(|i| i["type"] == "roll").unwrap()["roll"]["source"]
            ["generated"]["counter"]
            .as_u64()
    };
    assert!(counter(&again) > counter(&rolled), "a voided roll's counter is never used again");

    let refused = houserule(&["correct", &f, "--pool", "gandolf.tokens=-3", "--reason", "oops"]);
    assert_eq!(refused.code, 1, "the engine's own checks hold: {}", refused.stdout);
    let fixed = json(&["correct", &f, "--pool", "gandolf.tokens=2", "--reason", "misread the sheet"], 0, "log-entry");
    assert_eq!(fixed["kind"], "correction");
    assert!(fixed.to_string().contains("misread the sheet"), "{fixed}");
    let view = json(&["view", &f], 0, "view");
    assert_eq!(view["entities"]["gandolf"]["pools"]["tokens"]["count"], 2);
    let secret =
        json(&["correct", &f, "--field", "gandolf.gm_notes=afraid of kittens", "--reason", "kittens"], 0, "log-entry");
    assert_eq!(secret["kind"], "correction");
    let ann_log = houserule(&["log", &f, "--as", "player:ann", "--json"]).stdout;
    assert!(!ann_log.contains("kittens"), "a GM-only value's correction and its reason stay the GM's");
    json(&["undo", &f, "--to", "1"], 0, "log-entry");
    assert!(json(&["view", &f], 0, "view")["entities"].as_object().unwrap().is_empty(), "back to the start");
    let v = json(&["verify", &f], 0, "verify");
    assert_eq!(v["ok"], true, "{v}");
    let inside = houserule(&["undo", &f, "--to", "3"]);
    assert_eq!(inside.code, 1);
    assert!(inside.stderr.contains("already taken back"), "{}", inside.stderr);
}
