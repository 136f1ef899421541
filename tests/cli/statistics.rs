//! Rule statistics: simulated rolls of a bundled ruleset against exact probabilities.

use crate::support::{json, repo};
use serde_json::Value;

/// P(an acing d`sides` totals at least `target`): faces below the maximum stand; the maximum
/// adds another roll of the same die.
fn p_at_least(sides: u32, target: i64) -> f64 {
    if target <= 1 {
        return 1.0;
    }
    let s = f64::from(sides);
    let max = i64::from(sides);
    let standing = (1..max).filter(|f| *f >= target).count() as f64 / s;
    standing + p_at_least(sides, target - max) / s
}

/// Simulates `trait_roll` `times` times and returns (success rate, rate of at least one raise,
/// critical-failure rate).
fn simulate(character: &str, trait_name: &str, times: u64) -> (f64, f64, f64) {
    let dir = repo().join("plugins/savage-worlds");
    let setup = dir.join("tests/stats_setup.toml");
    let v = json(
        &[
            "simulate",
            &dir.display().to_string(),
            "trait_roll",
            "--setup",
            &setup.display().to_string(),
            "-p",
            &format!("character={character}"),
            "-p",
            &format!("trait={trait_name}"),
            "--times",
            &times.to_string(),
            "--seed",
            "2026",
        ],
        0,
        "simulate",
    );
    let r = &v["results"];
    let rate = |k: &str| r[k]["rate"].as_f64().unwrap_or_else(|| panic!("{k} is a true/false result: {r}"));
    let no_raise = r["raises"]["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h[0] == 0)
        .map(|h| h[1].as_u64().unwrap())
        .unwrap_or(0);
    (rate("success"), 1.0 - no_raise as f64 / times as f64, rate("critical_failure"))
}

/// Passes when the simulated rate is within four standard errors of the exact one (a fair
/// roller fails this about once in 16 000 runs; a wrong rule fails it at once).
fn close(what: &str, got: f64, exact: f64, times: u64) {
    let tolerance = 4.0 * (exact * (1.0 - exact) / times as f64).sqrt();
    assert!(
        (got - exact).abs() <= tolerance,
        "{what}: simulated {got:.5}, exact {exact:.5} (tolerance ±{tolerance:.5} at {times} rolls)"
    );
}

#[test]
fn savage_worlds_trait_rolls_match_the_exact_odds() {
    // A Wild Card rolls the trait die and a wild d6 and keeps the better; TN 4, a raise at 8.
    let wild = |sides: u32| {
        let success = 1.0 - (1.0 - p_at_least(sides, 4)) * (1.0 - p_at_least(6, 4));
        let raise = 1.0 - (1.0 - p_at_least(sides, 8)) * (1.0 - p_at_least(6, 8));
        let crit = 1.0 / (f64::from(sides) * 6.0);
        (success, raise, crit)
    };
    // The case: 100 000 rolls of a d6 trait with a wild d6, TN 4, aces.
    let (s, r, c) = simulate("wanda", "spirit", 100_000);
    let (es, er, ec) = wild(6);
    assert!((es - 0.75).abs() < 1e-12 && (er - 335.0 / 1296.0).abs() < 1e-12, "the exact odds themselves");
    close("Wild Card d6 success", s, es, 100_000);
    close("Wild Card d6 raise", r, er, 100_000);
    close("Wild Card d6 critical failure", c, ec, 100_000);

    let (s, r, c) = simulate("wanda", "fighting", 20_000);
    let (es, er, ec) = wild(4);
    assert!((es - 5.0 / 8.0).abs() < 1e-12 && (er - 111.0 / 576.0).abs() < 1e-12, "the exact odds themselves");
    close("Wild Card d4 success", s, es, 20_000);
    close("Wild Card d4 raise", r, er, 20_000);
    close("Wild Card d4 critical failure", c, ec, 20_000);

    // An Extra rolls no wild die and never critically fails.
    let (s, r, c) = simulate("grunt", "notice", 20_000);
    close("Extra d6 success", s, p_at_least(6, 4), 20_000);
    close("Extra d6 raise", r, p_at_least(6, 8), 20_000);
    assert_eq!(c, 0.0, "an Extra has no wild die, so no critical failure");
}

#[test]
fn every_bundled_ruleset_passes_its_scenarios() {
    let mut dirs: Vec<_> = std::fs::read_dir(repo().join("plugins"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("plugin.toml").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "the six bundled rulesets are there");
    for dir in dirs {
        let v: Value = json(&["test", &dir.display().to_string()], 0, "test");
        assert_eq!(v["failed"], 0, "{}: {v}", dir.display());
        assert!(v["passed"].as_u64().unwrap() >= 3, "{} has scenarios", dir.display());
    }
}
