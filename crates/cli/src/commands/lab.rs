//! `houserule lab`: the balance lab ([`houserule_app::lab`]). Plays a whole scene (a Fumbles
//! challenge …) many times from a set-up scenario, or from a campaign's table as it stands, by
//! the ruleset's own policy (`lab_turn`/`lab_outcome`), under the ruleset alone and with house
//! rules (given, or the campaign's), side by side: win rate with its confidence interval,
//! turns to finish as a histogram, and the rest of each run's outcome. The runs are shared
//! between a sandbox worker per core; for a given seed the answer is always the same.

use super::simulate::{plugin_for_runs, read_setup};
use super::Outcome;
use crate::output::{self, Failure, LabReport};
use houserule_app::folders;
use houserule_app::lab::{LabSide, Setup, Summary, MAX_TIMES, MAX_TURNS, UNFINISHED};
use houserule_app::scenario::Runner;
use houserule_core::dice::seed_from_number;
use houserule_core::plugin::HouseRule;
use houserule_core::{ErrorCode, Limits};
use serde_json::Value;
use std::path::Path;

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

/// What the lab plays: the sides, and the name of the set-up.
fn setups(
    path: &Path,
    setup: Option<&Path>,
    house: Option<&Path>,
    times: u64,
) -> Result<(String, Vec<Setup>), Failure> {
    if path.is_file() {
        // A campaign: its table as it stands, under the ruleset alone and with its house rules.
        if setup.is_some() || house.is_some() {
            return Err(Failure::new(
                ErrorCode::BadParam,
                format!(
                    "{} is a campaign: the lab plays from its table, with and without its own house rules \
                     (--setup and --house-rules are for a plugin folder)",
                    path.display()
                ),
            ));
        }
        plugin_for_runs_check(times)?;
        let campaign = super::campaign::open(path)?;
        return Ok((format!("{} as it stands", path.display()), campaign.lab_setups()));
    }
    let setup = setup.ok_or_else(|| {
        Failure::new(
            ErrorCode::BadParam,
            format!("{} is a plugin folder: say which scene with --setup SCENARIO", path.display()),
        )
    })?;
    let (limits, source) = plugin_for_runs(path, times, MAX_TIMES)?;
    let scenario = read_setup(setup, path, &limits)?;
    let mut scenarios = vec![scenario.clone()];
    if let Some(h) = house {
        let (rules, settings) = house_rules(h, &limits)?;
        let mut with = scenario.clone();
        with.loaded_house_rules.extend(rules);
        with.settings.extend(settings);
        scenarios.push(with);
    }
    let mut sides = Vec::new();
    for s in &scenarios {
        let campaign = Runner::new(source.clone(), limits.clone())
            .prepare(s)
            .map_err(|m| Failure::new(ErrorCode::Refused, m.to_string()))?;
        sides.push(campaign.lab_setup());
    }
    Ok((scenario.name, sides))
}

fn plugin_for_runs_check(times: u64) -> Result<(), Failure> {
    if times == 0 || times > MAX_TIMES {
        return Err(Failure::new(ErrorCode::BadParam, format!("--times must be 1 to {MAX_TIMES}")));
    }
    Ok(())
}

pub fn lab(
    json: bool,
    path: &Path,
    setup: Option<&Path>,
    house: Option<&Path>,
    times: u64,
    seed: u64,
    csv: Option<&Path>,
) -> Outcome {
    let (name, sides) = setups(path, setup, house, times)?;
    // Progress on stderr, about once a second.
    let mut shown = std::time::Instant::now();
    let never = std::sync::atomic::AtomicBool::new(false);
    let played = houserule_app::lab::play(&sides, seed_from_number(seed), times, &never, |so_far| {
        if !json && shown.elapsed() >= std::time::Duration::from_secs(1) {
            let done: Vec<String> = so_far.iter().map(|o| o.len().to_string()).collect();
            crate::note!("{} of {times} runs", done.join(" and "));
            shown = std::time::Instant::now();
        }
    })?;
    let played: Vec<(LabSide, Vec<Value>)> =
        sides.iter().zip(played).map(|(s, o)| (LabSide::of(&s.house_rules, &o), o)).collect();
    if let Some(path) = csv {
        write_csv(path, &played)?;
    }
    let mut sides = played.into_iter().map(|(s, _)| s);
    let report =
        LabReport { setup: name, times, seed, ruleset: sides.next().expect("the ruleset's side"), house: sides.next() };
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
        crate::say!();
        crate::say!("{name}{rules}");
        crate::say!(
            "  won: {:.1}% (95%: {:.1}–{:.1}%)",
            s.win_rate * 100.0,
            s.win_interval.0 * 100.0,
            s.win_interval.1 * 100.0
        );
        if s.unfinished > 0 {
            crate::say!("  {}", unfinished_warning(s.unfinished, s.runs));
        }
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
                Summary::Flag { rate, .. } if key != "won" && key != UNFINISHED => {
                    crate::say!("  {key}: {:.1}%", rate * 100.0)
                }
                _ => {}
            }
        }
    }
}

/// The line that warns of runs cut off at the turn cap: they count as not won, so the win rate
/// says less than it seems.
fn unfinished_warning(unfinished: u64, runs: u64) -> String {
    let share = unfinished as f64 * 100.0 / runs.max(1) as f64;
    format!(
        "warning: {unfinished} of {runs} runs ({share:.1}%) were cut off unfinished at {MAX_TURNS} turns; \
         they count as not won, so the lab's policy never ended those scenes"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_with_runs_cut_off_says_how_many_in_words() {
        let line = unfinished_warning(3, 200);
        assert!(line.contains("3 of 200 runs (1.5%)") && line.contains("200 turns"), "{line}");
        assert!(!line.contains('_'), "words, not identifiers: {line}");
    }
}
