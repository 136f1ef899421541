//! The balance lab works on every real table: each bundled ruleset's lab policy is played from
//! many tables — every scenario file's end state, a table part-way through each file, and that
//! table stirred by a few random actions the forms allow — and no move of the policy is refused
//! and every run ends before the turn cap. A run that does hit the cap is counted and told.
//!
//! The rulesets come from the repository's plugins folder (those with a lab policy), so a new
//! ruleset's policy is held to this without anyone listing it here.

use crate::odds_truth::scenario_campaign;
use crate::random_play::{random_action, Dice, PLAYERS};
use crate::support::{bundled, campaign, init, plugin};
use houserule_app::folders;
use houserule_app::lab::{LabSide, MAX_TURNS, UNFINISHED};
use houserule_app::request::ActRequest;
use houserule_app::Campaign;
use houserule_core::dice::seed_from_number;
use houserule_core::scenario::Scenario;
use houserule_core::table::Table;
use houserule_core::{Limits, Role};
use serde_json::Value;

/// Runs of the lab from each table.
const RUNS: u64 = 3;
/// Random actions stirred into a table part-way through a scenario.
const STIRS: usize = 6;

/// Where a table came from, for the failure message.
struct Generated {
    what: String,
    table: Table,
}

/// Takes a few random actions the forms allow, as the GM or a player; refusals are skipped.
fn stir(c: &mut Campaign, dice: &mut Dice) {
    for _ in 0..STIRS {
        let role = match dice.below(3) {
            0 => Role::Gm,
            i => Role::Player(PLAYERS[i - 1].into()),
        };
        let forms: Vec<_> = c.actions(&role).into_iter().filter(|f| !f.name.starts_with("end_")).collect();
        if let Some((action, params)) = random_action(&forms, dice) {
            let _ = c.act(&role, &ActRequest::new(&action, &params));
        }
    }
}

/// The tables one scenario gives: part-way, part-way stirred, and at its end.
fn tables(source: &houserule_core::PluginSource, file: &str, scenario: &Scenario, dice: &mut Dice) -> Vec<Generated> {
    let mut c = scenario_campaign(source, scenario);
    let middle = dice.below(scenario.steps.len().max(1)) + 1;
    let mut out = Vec::new();
    for (i, step) in scenario.steps.iter().enumerate() {
        replay(&mut c, std::slice::from_ref(step));
        if i + 1 == middle && middle < scenario.steps.len() {
            out.push(Generated { what: format!("{file} after step {middle}"), table: c.table().clone() });
            let mut stirred = scenario_campaign(source, scenario);
            replay(&mut stirred, &scenario.steps[..middle]);
            stir(&mut stirred, dice);
            out.push(Generated {
                what: format!("{file} after step {middle}, stirred"),
                table: stirred.table().clone(),
            });
        }
    }
    out.push(Generated { what: format!("{file} at its end"), table: c.table().clone() });
    out
}

fn replay(c: &mut Campaign, steps: &[houserule_core::scenario::Step]) {
    for step in steps {
        if let (Some(action), Ok(role)) = (&step.act, Role::parse(step.role.as_deref().unwrap_or("gm"))) {
            let _ = c.act(&role, &ActRequest::new(action, &step.params).with_dice(step.dice.clone()));
        }
    }
}

/// Plays the lab from one table; `Err` says what went wrong. A table with no scene on it is
/// not a failure: the policy says so before its first move.
fn lab_from(c: &Campaign, g: &Generated, seed: u64) -> Result<(), String> {
    let mut outcomes: Vec<Value> = Vec::new();
    match c.rules().lab(&g.table, seed_from_number(seed), 0, RUNS, |b| outcomes.extend(b)) {
        Err(e) if e.to_string().contains("no scene to play") => return Ok(()),
        Err(e) => return Err(format!("{}: the lab stopped: {e}", g.what)),
        Ok(()) => {}
    }
    let side = LabSide::of(&[], &outcomes);
    if side.unfinished > 0 {
        return Err(format!("{}: {} of {RUNS} runs were cut off at {MAX_TURNS} turns", g.what, side.unfinished));
    }
    Ok(())
}

#[test]
fn every_lab_policy_plays_every_table_to_its_end_within_the_rules() {
    init();
    let mut failures = Vec::new();
    let mut played = 0;
    for (id, dir, source) in bundled() {
        let scenarios = folders::read_scenarios(&dir, &Limits::default()).expect("the scenarios read");
        let mut dice = Dice(0x5eed_0000 + id.len() as u64);
        for (file, scenario) in &scenarios {
            let c = scenario_campaign(&source, scenario);
            if !c.rules().has_function("lab_turn", 1) {
                break;
            }
            for g in tables(&source, &format!("{id}/{file}"), scenario, &mut dice) {
                played += 1;
                if let Err(e) = lab_from(&c, &g, played) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(played > 100, "the lab was played from many tables, not {played}");
    assert!(failures.is_empty(), "lab policies that break the rules or never end:\n{}", failures.join("\n"));
}

/// A policy that never ends its scene.
const ENDLESS: &str = r#"
fn lab_turn(t) { [#{ tally: #{ waited: 1 } }] }
fn lab_outcome(t) { #{ won: false, unfinished: false } }
"#;

#[test]
fn a_run_cut_off_at_the_turn_cap_is_counted_whatever_the_policy_says() {
    init();
    let c = campaign(&plugin("", ENDLESS));
    let mut outcomes = Vec::new();
    c.rules().lab(c.table(), seed_from_number(1), 0, 2, |b| outcomes.extend(b)).unwrap();
    assert!(outcomes.iter().all(|o| o[UNFINISHED] == Value::Bool(true)), "the engine's word stands: {outcomes:?}");
    let side = LabSide::of(&[], &outcomes);
    assert_eq!(side.unfinished, 2, "both runs are counted as cut off");
    assert_eq!(outcomes[0]["waited"], MAX_TURNS, "the policy played to the cap");
}
