//! rulesets, new, actions, act, view, log, verify, demo.

use crate::support::{generic_campaign, houserule, json};

#[test]
fn rulesets_lists_the_bundled_ones() {
    let v = json(&["rulesets"], 0, "rulesets");
    let generic = v.as_array().unwrap().iter().find(|r| r["id"] == "generic").expect("generic is listed");
    assert_eq!(generic["version"], "1.0.0");
    assert_eq!(generic["name"], "Generic table");
}

#[test]
fn new_creates_a_file_and_refuses_to_overwrite_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.houserule").display().to_string();
    let v =
        json(&["new", &file, "--ruleset", "generic", "--set", "starting_tokens=5", "--name", "Road trip"], 0, "new");
    assert_eq!(v["campaign"]["name"], "Road trip");
    assert_eq!(v["campaign"]["seed_commitment"].as_str().unwrap().len(), 64);
    let e = json(&["new", &file, "--ruleset", "generic"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("already exists"), "{e}");
    let other = dir.path().join("y.houserule").display().to_string();
    let e = json(&["new", &other, "--ruleset", "generic", "--set", "starting_tokens=lots"], 1, "error");
    assert!(
        e["error"]["message"].as_str().unwrap().contains("setting 'starting_tokens': expected a whole number"),
        "{e}"
    );
    assert!(!std::path::Path::new(&other).exists(), "a refused campaign leaves no file behind");
    let e = json(&["new", &other, "--ruleset", "chess"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("no ruleset 'chess'"), "{e}");
}

#[test]
fn act_prints_every_face_and_refusals_name_the_problem() {
    let (_d, f) = generic_campaign();
    json(
        &["act", &f, "create_character", "-p", "name=Gandolf", "-p", "owner=ann", "-p", "traits=Magic!,Fireball"],
        0,
        "act",
    );
    let out = json(&["act", &f, "roll", "--as", "player:ann", "-p", "expr=4d6kh3", "--dice", "2,5,1,5"], 0, "act");
    assert_eq!(out["result"]["total"], 12);
    let roll = out["event"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "roll")
        .expect("the roll is in the outcome");
    let faces: Vec<i64> =
        roll["roll"]["terms"][0]["dice"].as_array().unwrap().iter().map(|d| d["face"].as_i64().unwrap()).collect();
    assert_eq!(faces, vec![2, 5, 1, 5], "every face is kept, dropped ones too");
    assert_eq!(roll["roll"]["source"], "forced", "typed-in dice are marked forced");

    let text = houserule(&["act", &f, "roll", "--as", "player:ann", "-p", "expr=2d6", "--dice", "3,4"]);
    assert_eq!(text.code, 0);
    assert!(text.stdout.contains("2d6 [3, 4] = 7 (forced)"), "{}", text.stdout);

    let e = json(
        &["act", &f, "add_trait", "--as", "player:bo", "-p", "character=gandolf", "-p", "trait=Cowardice"],
        1,
        "error",
    );
    assert_eq!(e["error"]["code"], "forbidden");
    let e = json(&["act", &f, "roll", "-p", "expr=2d6+"], 1, "error");
    assert_eq!(e["error"]["code"], "bad_param");
    assert!(e["error"]["message"].as_str().unwrap().contains("column 4"), "{e}");
    let e = json(&["act", &f, "spend_token", "-p", "character=gandolf", "-p", "n=9"], 1, "error");
    assert_eq!(e["error"]["code"], "refused");
    assert!(e["error"]["message"].as_str().unwrap().contains("gandolf.tokens cannot go below 0"), "{e}");
    let e = json(&["act", &f, "roll", "-p", "expr=2d6", "--dice", "3"], 1, "error");
    assert_eq!(e["error"]["code"], "dice");
    let r = houserule(&["act", &f, "roll", "-p", "expr=2d6", "--dice", "3"]);
    assert!(r.stderr.contains("needs a 2nd die"), "{}", r.stderr);
}

#[test]
fn actions_offer_what_the_viewer_may_do() {
    let (_d, f) = generic_campaign();
    json(
        &["act", &f, "create_character", "-p", "name=Gandolf", "-p", "owner=ann", "-p", "traits=Magic!,Fireball"],
        0,
        "act",
    );
    json(&["act", &f, "create_character", "-p", "name=Frody", "-p", "owner=bo"], 0, "act");
    let gm = json(&["actions", &f], 0, "actions");
    let ann = json(&["actions", &f, "--as", "player:ann"], 0, "actions");
    let names = |v: &serde_json::Value| {
        v.as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert!(names(&gm).contains(&"create_pool".to_string()));
    assert!(!names(&ann).contains(&"create_pool".to_string()), "a GM-only action is not offered to a player");
    let trait_roll = ann.as_array().unwrap().iter().find(|a| a["name"] == "trait_roll").unwrap();
    let character = trait_roll["params"].as_array().unwrap().iter().find(|p| p["name"] == "character").unwrap();
    let ids: Vec<&str> =
        character["choices"]["values"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["gandolf"], "ann may roll only for her own character");
    let tr = trait_roll["params"].as_array().unwrap().iter().find(|p| p["name"] == "trait").unwrap();
    assert_eq!(tr["choices"]["by_entity"]["gandolf"], serde_json::json!(["Magic!", "Fireball"]));
}

#[test]
fn views_and_logs_show_each_viewer_only_what_they_may_see() {
    let (_d, f) = generic_campaign();
    json(&["act", &f, "create_character", "-p", "name=Frody", "-p", "owner=bo"], 0, "act");
    json(&["act", &f, "create_npc", "-p", "name=Crunch", "-p", "gm_notes=Afraid of fire"], 0, "act");
    json(&["act", &f, "create_pool", "-p", "name=Doom", "-p", "visibility=gm", "-p", "initial=4"], 0, "act");
    json(
        &["act", &f, "secret_roll", "--as", "player:bo", "-p", "expr=1d20", "-p", "label=sneak", "--dice", "17"],
        0,
        "act",
    );
    let gm = json(&["view", &f], 0, "view");
    assert_eq!(gm["pools"]["doom"]["count"], 4);
    assert_eq!(gm["entities"]["crunch"]["fields"]["gm_notes"], "Afraid of fire");
    let ann = json(&["view", &f, "--as", "player:ann"], 0, "view");
    assert!(ann["pools"]["doom"]["count"].is_null(), "a GM-only pool's count is not in a player's view");
    assert!(ann["entities"]["crunch"]["fields"].get("gm_notes").is_none());
    let ann_log = serde_json::to_string(&json(&["log", &f, "--as", "player:ann"], 0, "log")).unwrap();
    assert!(
        !ann_log.contains("Afraid of fire") && !ann_log.contains("\"sneak\""),
        "ann's log hides GM notes and bo's secret roll: {ann_log}"
    );
    let bo_log = serde_json::to_string(&json(&["log", &f, "--as", "player:bo"], 0, "log")).unwrap();
    assert!(bo_log.contains("\"sneak\""), "bo sees his own secret roll");
    let text = houserule(&["view", &f, "--as", "player:ann"]);
    assert!(text.stdout.contains("Doom: (not shown)"), "{}", text.stdout);
}

#[test]
fn verify_passes_a_played_file_and_fails_an_edited_one() {
    let (_d, f) = generic_campaign();
    json(&["act", &f, "create_character", "-p", "name=Frody", "-p", "owner=bo"], 0, "act");
    json(&["act", &f, "roll", "-p", "expr=3d6"], 0, "act");
    json(&["act", &f, "roll", "-p", "expr=3d6", "--dice", "1,2,3"], 0, "act");
    let v = json(&["verify", &f], 0, "verify");
    assert_eq!(v["ok"], true);
    assert_eq!(v["rolls_recomputed"], 1, "the generated roll is recomputed from the seed");
    assert_eq!(v["rolls_forced"], 1);
    {
        let conn = rusqlite::Connection::open(&f).unwrap();
        conn.execute("UPDATE events SET items = replace(items, '\"face\":1', '\"face\":6') WHERE seq = 4", []).unwrap();
    }
    let v = json(&["verify", &f], 1, "verify");
    let chain = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "chain").unwrap();
    assert_eq!(chain["ok"], false);
    assert_eq!(chain["event"], 4, "the edited event is named: {chain}");
    let r = houserule(&["view", &f]);
    assert_eq!(r.code, 1, "an edited file is refused when opened");
    assert!(r.stderr.contains("event 4 was edited"), "{}", r.stderr);
}

#[test]
fn demo_plays_a_campaign_and_is_repeatable() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let first = json(&["demo", &d], 0, "demo");
    assert!(first["log"].as_array().unwrap().len() >= 10, "the demo plays several actions");
    let second = json(&["demo", &d], 0, "demo");
    assert_eq!(first["campaign"]["events"], second["campaign"]["events"], "running the demo again replaces it");
    json(&["verify", &format!("{d}/demo.houserule")], 0, "verify");
    let text = houserule(&["demo", &d]);
    assert!(text.stdout.contains("Frody spends 1 token(s)"), "{}", text.stdout);
}

#[test]
fn the_fumbles_demo_is_a_challenge_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    json(&["demo", &d, "--ruleset", "fumbles"], 0, "demo");
    let file = format!("{d}/fumbles-demo.houserule");
    json(&["verify", &file], 0, "verify");
    let view = json(&["view", &file, "--as", "player:ann"], 0, "view");
    let band = &view["entities"]["goblin_war_band"];
    assert_eq!(band["fields"]["status"], "active", "{band}");
    assert_eq!(band["fields"]["turn"], 2, "the second turn is under way");
    assert!(
        band["fields"]["cr"].as_i64().unwrap() < band["fields"]["cr_start"].as_i64().unwrap(),
        "the heroes have hurt the war band: {band}"
    );
    let refused = houserule(&["demo", &d, "--ruleset", "stones"]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("Stones has no demo (rulesets with one: fumbles, generic)"), "{}", refused.stderr);
}
