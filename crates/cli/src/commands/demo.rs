//! `houserule demo`: a small campaign on the generic ruleset, played and printed.

use super::Outcome;
use crate::output::{self, Demo, Failure};
use crate::rulesets;
use houserule_engine::{render, Campaign, NewCampaign, Role};
use serde_json::{json, Value};
use std::path::PathBuf;

/// A Fumbles challenge in progress: two heroes, the goblin war band, a turn played and the next
/// one begun.
fn fumbles_script() -> Vec<(&'static str, &'static str, Value, Option<Vec<i64>>)> {
    vec![
        ("gm", "create_character", json!({"name": "Gandolf", "owner": "ann", "achilles_heel": "exhausted quickly", "stress_explosion": "really big Ego",
            "traits": ["IQ of 180", "Magic!", "Barrier", "Fireball", "Levitate", "Scorching Hellfire", "pyromaniac", "dead-pan snarker", "wizard staff"]}), None),
        ("gm", "create_character", json!({"name": "Frody", "owner": "bo", "achilles_heel": "second breakfast", "stress_explosion": "panics",
            "traits": ["agility", "halfling fortitude", "small size", "frying pan", "quick reflexes", "makes a mean curry"]}), None),
        ("gm", "start_challenge", json!({"name": "Goblin war band", "cr": 6, "toughness": 2, "smash": 1}), None),
        ("gm", "add_capstone", json!({"challenge": "goblin_war_band", "at": 3, "note": "The goblin chieftain arrives on a war boar."}), None),
        ("player:ann", "challenge_roll", json!({"character": "gandolf", "attack": ["Fireball", "Scorching Hellfire", "pyromaniac", "dead-pan snarker"], "defense": ["Levitate", "Magic!", "Barrier"]}), Some(vec![4, 6, 2, 5, 5, 1, 3])),
        ("player:bo", "challenge_roll", json!({"character": "frody", "attack": ["frying pan"], "defense": ["agility", "small size", "quick reflexes", "halfling fortitude"]}), Some(vec![6, 4, 2, 5, 6])),
        ("gm", "end_turn", json!({}), None),
        ("player:ann", "challenge_roll", json!({"character": "gandolf", "attack": ["Fireball", "IQ of 180", "wizard staff"], "defense": ["Barrier", "Levitate", "Magic!"]}), Some(vec![5, 6, 4, 4, 3, 6])),
    ]
}

/// The demo's actions: (role, action, params).
fn script() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("gm", "create_character", json!({"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Fireball", "Levitate"]})),
        ("gm", "create_character", json!({"name": "Frody", "owner": "bo", "traits": ["Frying pan", "Halfling luck"]})),
        ("gm", "create_npc", json!({"name": "Crunch", "traits": ["Cleaver"], "gm_notes": "Afraid of fire."})),
        ("player:ann", "add_trait", json!({"character": "Gandolf", "trait": "Wizardry", "rating": 3})),
        ("player:ann", "trait_roll", json!({"character": "Gandolf", "trait": "Wizardry", "target": 12})),
        ("player:bo", "roll", json!({"expr": "2d6", "label": "dodge the cleaver"})),
        ("player:bo", "spend_token", json!({"character": "Frody", "reason": "Halfling luck: roll again"})),
        ("player:bo", "roll", json!({"expr": "2d6", "label": "dodge again"})),
        ("gm", "create_pool", json!({"name": "Doom", "initial": 0, "cap": 10, "visibility": "gm"})),
        ("gm", "move_tokens", json!({"from": "bank", "to": "doom", "n": 2})),
        ("gm", "end_round", json!({})),
    ]
}

pub fn demo(json_out: bool, dir: Option<PathBuf>, ruleset_id: &str) -> Outcome {
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&dir).map_err(|e| Failure::new("io", format!("{}: {e}", dir.display())))?;
    let (file, name) = match ruleset_id {
        "generic" => ("demo.houserule", "Demo: the road to the city"),
        "fumbles" => ("fumbles-demo.houserule", "Demo: the goblin barbecue"),
        other => return Err(Failure::new("unknown_ruleset", format!("there is a demo for generic and fumbles, not '{other}'"))),
    };
    let path = dir.join(file);
    let replaced = path.exists();
    for p in [path.clone(), dir.join(format!("{file}-wal")), dir.join(format!("{file}-shm"))] {
        let _ = std::fs::remove_file(p);
    }
    let catalog = rulesets::catalog();
    let ruleset = catalog.get(ruleset_id).ok_or_else(|| Failure::new("unknown_ruleset", format!("the {ruleset_id} ruleset is missing")))?;
    let mut c = Campaign::create(
        Some(&path),
        NewCampaign { name: name.into(), ruleset: &ruleset.source, settings: Default::default(), seed: Some(42), limits: Default::default(), house_rules: vec![] },
    )?;
    let steps: Vec<(&str, &str, Value, Option<Vec<i64>>)> = match ruleset_id {
        "fumbles" => fumbles_script(),
        _ => script().into_iter().map(|(w, a, p)| (w, a, p, None)).collect(),
    };
    for (who, action, params, dice) in steps {
        let role = Role::parse(who).expect("demo roles are valid");
        c.act(&role, action, params.as_object().expect("an object"), dice)?;
    }
    let log = c.log(&Role::Gm, 1)?;
    if json_out {
        output::json(&Demo { path: path.clone(), campaign: c.info(), log });
        return Ok(true);
    }
    for e in &log {
        println!("{}\n", render::entry(e));
    }
    let info = c.info();
    println!("{} {} — {} events on {} {}.", if replaced { "Replaced" } else { "Created" }, path.display(), info.events, info.ruleset.name, info.ruleset.version);
    println!("Try:");
    println!("  houserule view {} --as player:bo      # what Frody's player sees", path.display());
    println!("  houserule actions {} --as player:ann  # what Gandolf's player may do", path.display());
    println!("  houserule verify {}                   # check the hash chain and every roll", path.display());
    Ok(true)
}
