//! A form's chance is the chance of what the rules decide. Every odds line names the key of the
//! action's result it foretells (`outcome`); these tests play the action itself — its real
//! script, from the same table, with the same parameters — over every roll of its dice where
//! there are few enough (each run's dice forced), or over many generated rolls where there are
//! more, and hold the shown chance (or average) to what the runs give.
//!
//! The forms come from every bundled ruleset's scenario files: before each step that takes or
//! asks the odds of an action with an odds function, at the table as the scenario left it. The
//! rulesets are read from the repository's plugins folder, so a new ruleset or a new odds
//! function is checked without anyone listing it here.

use crate::support::{bundled, init, params, plugin};
use houserule_app::campaign::{Campaign, NewCampaign};
use houserule_app::folders;
use houserule_app::request::ActRequest;
use houserule_app::Rules;
use houserule_core::chance::Chance;
use houserule_core::dice::{seed_from_number, Forced, Sides};
use houserule_core::event::Body;
use houserule_core::plugin::PluginSource;
use houserule_core::scenario::Scenario;
use houserule_core::tx::DiceSupply;
use houserule_core::{Limits, Role};
use serde_json::{json, Map, Value};

/// Most dice combinations played one by one; a form with more is sampled.
const ENUMERATE_AT_MOST: u64 = 1_296;
/// Runs of a sampled form.
const SAMPLES: u64 = 3_000;
/// Forms checked per scenario file and action (the first ones: a file's later steps mostly
/// repeat its earlier forms on a table a little further on).
const FORMS_PER_FILE: usize = 4;
/// How many standard errors a sampled chance may stray (about one false alarm in 150,000).
const SIGMAS: f64 = 4.5;

/// What the runs of one form gave for one line's outcome, and how far the truth may be from it.
#[derive(Debug)]
struct Measured {
    value: f64,
    tolerance: f64,
}

/// The results of an action over its dice: each with its weight (the weights sum to one),
/// and whether every roll was played (exact) or they were sampled.
struct Runs {
    results: Vec<(f64, Value)>,
    exact: bool,
}

/// Plays the action over every roll of its dice when they are few, else samples it.
fn runs(c: &Campaign, role: &Role, action: &str, p: &Map<String, Value>) -> Result<Runs, String> {
    let probe = c
        .trial(role, action, p, &DiceSupply::Seeded { seed: seed_from_number(11), entropy: None })
        .map_err(|e| format!("the odds show a chance, but the action itself refuses: {e}"))?;
    let sides: Vec<Sides> = probe
        .items
        .iter()
        .filter_map(|i| match &i.body {
            Some(Body::Roll { roll }) => Some(roll.dice().map(|d| d.sides).collect::<Vec<_>>()),
            _ => None,
        })
        .flatten()
        .collect();
    let faces: Vec<Vec<i64>> = sides.iter().map(|s| (s.min()..=s.max()).collect()).collect();
    let combinations = faces.iter().try_fold(1u64, |n, f| n.checked_mul(f.len() as u64));
    if let Some(n) = combinations.filter(|n| *n <= ENUMERATE_AT_MOST) {
        if let Some(results) = every_roll(c, role, action, p, &faces, n) {
            return Ok(Runs { results, exact: true });
        }
    }
    let mut results = Vec::new();
    c.simulate(role, action, p, 5, SAMPLES, |batch| results.extend(batch.into_iter().map(|r| (1.0, r))))
        .map_err(|e| format!("the action could not be simulated: {e}"))?;
    let n = results.len() as f64;
    Ok(Runs { results: results.into_iter().map(|(_, r)| (1.0 / n, r)).collect(), exact: false })
}

/// Every roll of `faces` (one list per die), forced one after another; `None` when the dice
/// rolled depend on the faces (an exploding die), which is then sampled instead.
fn every_roll(
    c: &Campaign,
    role: &Role,
    action: &str,
    p: &Map<String, Value>,
    faces: &[Vec<i64>],
    n: u64,
) -> Option<Vec<(f64, Value)>> {
    let mut out = Vec::with_capacity(n as usize);
    for mut k in 0..n {
        let mut roll = Vec::with_capacity(faces.len());
        for f in faces {
            roll.push(f[(k % f.len() as u64) as usize]);
            k /= f.len() as u64;
        }
        let reply = c.trial(role, action, p, &DiceSupply::Forced(Forced::new(roll))).ok()?;
        out.push((1.0 / n as f64, reply.result));
    }
    Some(out)
}

/// What the runs say of one line: the share where its outcome is true, or its average.
fn measure(line: &Chance, runs: &Runs) -> Result<Measured, String> {
    let Some(key) = &line.outcome else {
        return Err(format!("line \"{}\" does not say which result it foretells (outcome)", line.label));
    };
    let mut sum = 0.0;
    let mut square = 0.0;
    for (w, r) in &runs.results {
        let x = match r.get(key) {
            Some(Value::Bool(b)) => f64::from(u8::from(*b)),
            Some(Value::Number(x)) if line.chance.is_none() => x.as_f64().unwrap_or(f64::NAN),
            other => {
                return Err(format!("line \"{}\": the result's '{key}' is {other:?}, not true or false", line.label))
            }
        };
        sum += w * x;
        square += w * x * x;
    }
    let shown_error = line.interval.map_or(0.0, |(lo, hi)| (hi - lo) / 2.0);
    let spread = if runs.exact {
        1e-6
    } else {
        let variance = (square - sum * sum).max(0.0);
        // A chance near 0 or 1 still allows a stray run or two.
        SIGMAS * (variance / runs.results.len() as f64).sqrt() + 2.0 / runs.results.len() as f64
    };
    Ok(Measured { value: sum, tolerance: spread + shown_error })
}

/// Checks every line a form shows against the action's own runs. `Ok(false)`: nothing shown.
pub fn check_form(c: &Campaign, role: &Role, action: &str, p: &Map<String, Value>) -> Result<bool, String> {
    // A form the rules cannot answer (a parameter the role may not use) shows no chance.
    let Ok(odds) = c.odds(role, action, p) else { return Ok(false) };
    if odds.lines.is_empty() || odds.refused.is_some() {
        return Ok(false);
    }
    let runs = runs(c, role, action, p)?;
    for line in &odds.lines {
        let shown = line.chance.or(line.mean).unwrap_or(f64::NAN);
        let m = measure(line, &runs)?;
        if (shown - m.value).abs() > m.tolerance || shown.is_nan() {
            let how = if runs.exact { "every roll played" } else { "sampled" };
            return Err(format!(
                "line \"{}\" shows {shown:.4}, but the rules give {:.4} ({how}, within {:.4})",
                line.label, m.value, m.tolerance
            ));
        }
    }
    Ok(true)
}

/// A campaign as a scenario file starts it (its settings, seed and house rules).
pub fn scenario_campaign(source: &PluginSource, scenario: &Scenario) -> Campaign {
    let rules = Rules::load(source, &scenario.loaded_house_rules, &Limits::default()).expect("the rules load");
    let new = NewCampaign {
        name: scenario.name.clone(),
        ruleset: source,
        settings: scenario.settings.clone(),
        seed: Some(scenario.seed.unwrap_or(1)),
        limits: Limits::default(),
        house_rules: scenario.loaded_house_rules.clone(),
    };
    Campaign::create_with(None, new, rules).expect("the scenario's campaign is made")
}

/// Plays one scenario, checking the form of every step that takes or asks about an action with
/// odds. Returns the actions whose forms showed a chance, and the failures.
fn check_scenario(source: &PluginSource, file: &str, scenario: &Scenario) -> (Vec<String>, Vec<String>) {
    let mut c = scenario_campaign(source, scenario);
    let (mut checked, mut failures) = (Vec::new(), Vec::new());
    for (i, step) in scenario.steps.iter().enumerate() {
        let Ok(role) = Role::parse(step.role.as_deref().unwrap_or("gm")) else { continue };
        let asked = step.odds.as_ref().or(step.act.as_ref());
        let has_odds = |a: &&String| c.rules().manifest.actions.get(*a).is_some_and(|s| s.odds.is_some());
        let few_yet = |a: &&String| checked.iter().filter(|c| c == a).count() < FORMS_PER_FILE;
        if let Some(action) = asked.filter(has_odds).filter(few_yet) {
            match check_form(&c, &role, action, &step.params) {
                Ok(true) => checked.push(action.clone()),
                Ok(false) => {}
                Err(e) => failures.push(format!("{file} step {}: {action}: {e}", i + 1)),
            }
        }
        if let Some(action) = &step.act {
            let _ = c.act(&role, &ActRequest::new(action, &step.params).with_dice(step.dice.clone()));
        }
    }
    (checked, failures)
}

#[test]
fn every_bundled_form_shows_the_chance_the_rules_decide() {
    init();
    let mut failures = Vec::new();
    for (id, dir, source) in bundled() {
        let scenarios = folders::read_scenarios(&dir, &Limits::default()).expect("the scenarios read");
        let mut shown = Vec::new();
        for (file, scenario) in &scenarios {
            let (checked, failed) = check_scenario(&source, &format!("{id}/{file}"), scenario);
            shown.extend(checked);
            failures.extend(failed);
        }
        let manifest = Rules::load(&source, &[], &Limits::default()).unwrap().manifest.clone();
        for (action, spec) in &manifest.actions {
            if spec.odds.is_some() && !shown.contains(action) {
                failures.push(format!("{id}: no scenario step shows a chance for {action}, so it is never checked"));
            }
        }
    }
    assert!(failures.is_empty(), "forms that show a chance the rules do not give:\n{}", failures.join("\n"));
}

/// A ruleset whose form says a d6 meets 4 half the time, while its action needs a 5.
const PLANTED: &str = r#"
fn guess_odds(t, p) { #{ label: "a d6 against 4", expr: "1d6", target: 4, outcome: "made" } }
fn guess(t, p) { let r = t.roll("1d6"); #{ made: r.total >= 5 } }
fn average_odds(t, p) { #{ label: "3d6", expr: "3d6", outcome: "total" } }
fn average(t, p) { let r = t.roll("3d6+1"); #{ total: r.total } }
fn unnamed_odds(t, p) { #{ label: "2d20", chance: 0.5 } }
fn unnamed(t, p) { t.roll("2d20"); #{} }
"#;
const PLANTED_ACTIONS: &str = r#"
[actions.guess]
who = ["gm"]
odds = "guess_odds"
[actions.average]
who = ["gm"]
odds = "average_odds"
[actions.unnamed]
who = ["gm"]
odds = "unnamed_odds"
"#;

#[test]
fn a_wrong_odds_function_is_caught_by_playing_the_action() {
    init();
    let c = crate::support::campaign(&plugin(PLANTED_ACTIONS, PLANTED));
    let none = params(json!({}));
    let e = check_form(&c, &Role::Gm, "guess", &none).unwrap_err();
    assert!(e.contains("shows 0.5000") && e.contains("0.3333") && e.contains("every roll played"), "{e}");
    let e = check_form(&c, &Role::Gm, "average", &none).unwrap_err();
    assert!(e.contains("shows 10.5000") && e.contains("11.5000"), "an average off by one is caught: {e}");
    let e = check_form(&c, &Role::Gm, "unnamed", &none).unwrap_err();
    assert!(e.contains("does not say which result"), "{e}");
}
