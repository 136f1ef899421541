//! `houserule demo`: a small campaign on the generic ruleset, played and printed.

use super::Outcome;
use crate::output::{self, Demo, Failure};
use crate::rulesets;
use houserule_engine::{render, Campaign, NewCampaign, Role};
use serde_json::{json, Value};
use std::path::PathBuf;

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

pub fn demo(json_out: bool, dir: Option<PathBuf>) -> Outcome {
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&dir).map_err(|e| Failure::new("io", format!("{}: {e}", dir.display())))?;
    let path = dir.join("demo.houserule");
    let replaced = path.exists();
    for p in [path.clone(), dir.join("demo.houserule-wal"), dir.join("demo.houserule-shm")] {
        let _ = std::fs::remove_file(p);
    }
    let catalog = rulesets::catalog();
    let ruleset = catalog.get("generic").ok_or_else(|| Failure::new("unknown_ruleset", "the generic ruleset is missing"))?;
    let mut c = Campaign::create(
        Some(&path),
        NewCampaign { name: "Demo: the road to the city".into(), ruleset: &ruleset.source, settings: Default::default(), seed: Some(42), limits: Default::default(), house_rules: vec![] },
    )?;
    for (who, action, params) in script() {
        let role = Role::parse(who).expect("demo roles are valid");
        c.act(&role, action, params.as_object().expect("an object"), None)?;
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
    println!("  houserule view {} --as player:bo      # what Frody's player sees (no GM notes, no Doom count)", path.display());
    println!("  houserule actions {} --as player:ann  # what Gandolf's player may do", path.display());
    println!("  houserule verify {}                   # check the hash chain and every roll", path.display());
    Ok(true)
}
