//! `houserule lab`: the balance lab. Plays a whole scene (a Fumbles challenge …) many times
//! from a set-up scenario by the ruleset's own policy (`lab_turn`/`lab_outcome`), under the
//! ruleset alone and with house rules, side by side: win rate with its confidence interval,
//! turns to finish as a histogram, and the rest of each run's outcome. The runs are shared
//! between a sandbox worker per core; for a given seed the answer is always the same.

use super::simulate::{plugin_for_runs, read_setup, summarise};
use super::Outcome;
use crate::output::{self, Failure, LabReport, LabSide, Summary};
use houserule_app::folders;
use houserule_app::scenario::Runner;
use houserule_core::plugin::HouseRule;
use houserule_core::{ErrorCode, Limits};
use serde_json::Value;
use std::path::Path;

pub const MAX_TIMES: u64 = 100_000;

/// House rules from a `.rhai` file or a folder of them (its `settings.toml` too).
fn house_rules(path: &Path, limits: &Limits) -> Result<(Vec<HouseRule>, indexmap::IndexMap<String, Value>), Failure> {
    let bad = |m: String| Failure::new(ErrorCode::BadFile, format!("--house-rules {}: {m}", path.display()));
    if path.is_dir() {
        let h = folders::read_house_rules(path, limits.max_script_bytes).map_err(|e| bad(e.to_string()))?;
        let settings = h.setting_overrides().map_err(|e| bad(e.to_string()))?;
        return Ok((h.scripts, settings));
    }
    let source = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| "house.rhai".into());
    Ok((vec![HouseRule { name, source }], Default::default()))
}

#[allow(clippy::too_many_arguments)]
pub fn lab(
    json: bool,
    dir: &Path,
    setup: &Path,
    house: Option<&Path>,
    times: u64,
    seed: u64,
    csv: Option<&Path>,
) -> Outcome {
    let (limits, source) = plugin_for_runs(dir, times, MAX_TIMES)?;
    let scenario = read_setup(setup, dir, &limits)?;
    let mut sides = vec![(vec![], scenario.clone())];
    if let Some(path) = house {
        let (rules, settings) = house_rules(path, &limits)?;
        let mut with = scenario.clone();
        with.loaded_house_rules.extend(rules.iter().cloned());
        with.settings.extend(settings);
        sides.push((rules.iter().map(|r| r.name.clone()).collect::<Vec<_>>(), with));
    }
    let mut played = Vec::new();
    for (names, scenario) in &sides {
        let campaign = Runner::new(source.clone(), limits.clone())
            .prepare(scenario)
            .map_err(|m| Failure::new(ErrorCode::Refused, m.to_string()))?;
        let mut outcomes: Vec<Value> = Vec::with_capacity(times as usize);
        let label = if names.is_empty() { "the ruleset".to_string() } else { format!("with {}", names.join(", ")) };
        // Progress on stderr, about once a second (the first share's runs arrive as they are played).
        let mut shown = std::time::Instant::now();
        campaign.lab(seed, times, |batch| {
            outcomes.extend(batch);
            if !json && shown.elapsed() >= std::time::Duration::from_secs(1) {
                crate::note!("{label}: {} of {times} runs", outcomes.len());
                shown = std::time::Instant::now();
            }
        })?;
        let yes = outcomes.iter().filter(|o| o["won"] == Value::Bool(true)).count() as u64;
        let side = LabSide {
            house_rules: names.clone(),
            win_rate: yes as f64 / times as f64,
            win_interval: houserule_core::dice::odds::wilson(yes as f64 / times as f64, times),
            outcomes: summarise(&outcomes),
        };
        played.push((side, outcomes));
    }
    if let Some(path) = csv {
        write_csv(path, &played)?;
    }
    let mut sides = played.into_iter().map(|(s, _)| s);
    let report = LabReport {
        setup: scenario.name.clone(),
        times,
        seed,
        ruleset: sides.next().expect("the ruleset's side"),
        house: sides.next(),
    };
    if json {
        output::json(&report);
    } else {
        print_report(&report);
    }
    Ok(true)
}

/// One line per run: the side, the run's number, and each key of its outcome.
fn write_csv(path: &Path, played: &[(LabSide, Vec<Value>)]) -> Result<(), Failure> {
    let mut keys: Vec<String> = Vec::new();
    for (_, outcomes) in played {
        for o in outcomes {
            for k in o.as_object().into_iter().flat_map(|m| m.keys()) {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
    }
    let mut out = format!("side,run,{}\n", keys.join(","));
    for (side, outcomes) in played {
        let name = if side.house_rules.is_empty() { "ruleset".to_string() } else { side.house_rules.join("+") };
        for (i, o) in outcomes.iter().enumerate() {
            let cells: Vec<String> = keys.iter().map(|k| houserule_core::render::value(&o[k.as_str()])).collect();
            out.push_str(&format!("{name},{},{}\n", i + 1, cells.join(",")));
        }
    }
    std::fs::write(path, out).map_err(|e| Failure::new(ErrorCode::Io, format!("--csv {}: {e}", path.display())))
}

fn print_report(r: &LabReport) {
    crate::say!("{}: {} runs on each side (seed {})", r.setup, r.times, r.seed);
    let sides: Vec<(&str, &LabSide)> =
        std::iter::once(("the ruleset", &r.ruleset)).chain(r.house.as_ref().map(|h| ("with house rules", h))).collect();
    for (name, s) in &sides {
        let rules = if s.house_rules.is_empty() { String::new() } else { format!(" ({})", s.house_rules.join(", ")) };
        crate::say!(
            "\n{name}{rules}\n  won: {:.1}% (95%: {:.1}–{:.1}%)",
            s.win_rate * 100.0,
            s.win_interval.0 * 100.0,
            s.win_interval.1 * 100.0
        );
        for (key, summary) in &s.outcomes {
            match summary {
                Summary::Number { mean, histogram, .. } => {
                    crate::say!("  {key}: mean {mean:.2}");
                    if key == "turns" {
                        let most = histogram.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
                        for (v, n) in histogram {
                            let bar = "#".repeat(((*n as f64 / most as f64) * 40.0).ceil() as usize);
                            crate::say!("    {v:>3} {bar} {:.1}%", *n as f64 * 100.0 / r.times as f64);
                        }
                    }
                }
                Summary::Flag { rate, .. } if key != "won" => crate::say!("  {key}: {:.1}%", rate * 100.0),
                _ => {}
            }
        }
    }
}
