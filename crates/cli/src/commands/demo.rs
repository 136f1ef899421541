//! `houserule demo`: a ruleset's demo campaign, played from its scenario file and printed.

use super::Outcome;
use crate::output::{self, Demo, Failure};
use crate::rulesets;
use houserule_app::scenario::play;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::scenario::Scenario;
use houserule_core::{ErrorCode, Role};
use std::path::PathBuf;

/// Where a ruleset's demo is written: `generic` as `demo.houserule`, others as `ID-demo.houserule`.
fn file_name(ruleset: &str) -> String {
    if ruleset == "generic" {
        "demo.houserule".into()
    } else {
        format!("{ruleset}-demo.houserule")
    }
}

/// Plays a ruleset's demo scenario (`plugins/ID/tests/demo.toml`, which `houserule test` runs
/// too) into a new campaign file in DIR, replacing one made before.
pub fn demo(json_out: bool, dir: Option<PathBuf>, ruleset_id: &str) -> Outcome {
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    let catalog = rulesets::catalog();
    let ruleset = catalog
        .get(ruleset_id)
        .ok_or_else(|| Failure::new(ErrorCode::UnknownRuleset, format!("there is no ruleset '{ruleset_id}'")))?;
    let with_demos: Vec<&str> = catalog.rulesets.iter().filter(|r| r.demo.is_some()).map(|r| r.id.as_str()).collect();
    let text = ruleset.demo.as_deref().ok_or_else(|| {
        Failure::new(
            ErrorCode::UnknownRuleset,
            format!("{} has no demo (rulesets with one: {})", ruleset.name, with_demos.join(", ")),
        )
    })?;
    let scenario = Scenario::parse(&format!("{ruleset_id}/tests/demo.toml"), text)
        .map_err(|e| Failure::new(ErrorCode::BadFile, e.to_string()))?;
    std::fs::create_dir_all(&dir).map_err(|e| Failure::new(ErrorCode::Io, format!("{}: {e}", dir.display())))?;
    let file = file_name(ruleset_id);
    let path = dir.join(&file);
    let replaced = path.exists();
    for p in [path.clone(), dir.join(format!("{file}-wal")), dir.join(format!("{file}-shm"))] {
        let _ = std::fs::remove_file(p);
    }
    let new = NewCampaign {
        name: scenario.name.clone(),
        ruleset: &ruleset.source,
        settings: scenario.settings.clone(),
        seed: Some(scenario.seed.unwrap_or(42)),
        limits: Default::default(),
        house_rules: vec![],
    };
    let mut c = Campaign::create(Some(&path), new)?;
    play(&mut c, &scenario).map_err(|e| Failure::new(ErrorCode::Refused, format!("the demo does not play: {e}")))?;
    let log = c.log(&Role::Gm, 1)?;
    if json_out {
        output::json(&Demo { path: path.clone(), campaign: c.info(), log });
        return Ok(true);
    }
    for e in &log {
        crate::output::entry(e);
        crate::say!();
    }
    let info = c.info();
    crate::say!(
        "{} {} — {} events on {} {}.",
        if replaced { "Replaced" } else { "Created" },
        path.display(),
        info.events,
        info.ruleset.name,
        info.ruleset.version
    );
    crate::say!("Try:");
    crate::say!("  houserule view {} --as player:bo      # what Frody's player sees", path.display());
    crate::say!("  houserule actions {} --as player:ann  # what Gandolf's player may do", path.display());
    crate::say!("  houserule verify {}                   # check the hash chain and every roll", path.display());
    Ok(true)
}
