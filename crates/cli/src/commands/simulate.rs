//! `houserule simulate`: run an action many times and summarise its results.

use super::{key_values, role, Outcome};
use crate::output::{self, Failure, Simulated, Summary};
use houserule_app::folders;
use houserule_app::scenario::Runner;
use houserule_core::scenario::Scenario;
use houserule_core::{ErrorCode, Limits, PluginSource};
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

pub const MAX_TIMES: u64 = 1_000_000;

#[allow(clippy::too_many_arguments)]
pub fn simulate(
    json: bool,
    dir: &Path,
    action: &str,
    setup: Option<&Path>,
    who: &str,
    params: &[String],
    times: u64,
    seed: u64,
) -> Outcome {
    let (limits, source) = plugin_for_runs(dir, times, MAX_TIMES)?;
    let setup = match setup {
        Some(p) => read_setup(p, dir, &limits)?,
        None => Scenario {
            name: "simulation".into(),
            description: None,
            seed: None,
            settings: IndexMap::new(),
            house_rules: vec![],
            loaded_house_rules: vec![],
            steps: vec![],
        },
    };
    let campaign =
        Runner::new(source, limits).prepare(&setup).map_err(|m| Failure::new(ErrorCode::Refused, m.to_string()))?;
    let raw = key_values(params, "--param")?;
    let mut results = Vec::new();
    campaign.simulate(&role(who)?, action, &raw, seed, times, |batch| results.extend(batch))?;
    let summary = summarise(&results);
    let out = Simulated { action: action.to_string(), times, seed, results: summary };
    if json {
        output::json(&out);
        return Ok(true);
    }
    crate::say!("{times} runs of {action} (seed {seed}):");
    for (key, s) in &out.results {
        match s {
            Summary::Flag { yes, rate } => crate::say!("  {key}: true {yes} times ({:.3}%)", rate * 100.0),
            Summary::Number { min, max, mean, .. } => crate::say!("  {key}: min {min}, max {max}, mean {mean:.4}"),
            Summary::Text { counts } => {
                let parts: Vec<String> =
                    counts.iter().map(|(v, n)| format!("{v} {:.2}%", *n as f64 * 100.0 / times as f64)).collect();
                crate::say!("  {key}: {}", parts.join(", "));
            }
        }
    }
    Ok(true)
}

/// Checks `--times` (1 to `max`) and reads the plugin folder the runs use.
pub fn plugin_for_runs(dir: &Path, times: u64, max: u64) -> Result<(Limits, PluginSource), Failure> {
    if times == 0 || times > max {
        return Err(Failure::new(ErrorCode::BadParam, format!("--times must be 1 to {max}")));
    }
    let limits = Limits::default();
    let source =
        folders::read_plugin(dir, &limits).map_err(|e| Failure::new(ErrorCode::InvalidPlugin, e.to_string()))?;
    Ok((limits, source))
}

/// Reads a set-up scenario (its house rules relative to the plugin folder `dir`).
pub fn read_setup(path: &Path, dir: &Path, limits: &Limits) -> Result<Scenario, Failure> {
    folders::read_scenario(path, &path.display().to_string(), dir, limits)
        .map_err(|e| Failure::new(ErrorCode::BadFile, e.to_string()))
}

/// Summarises each key of the results (a result that is not a map counts as key "result").
pub fn summarise(results: &[Value]) -> IndexMap<String, Summary> {
    let mut columns: IndexMap<String, Vec<&Value>> = IndexMap::new();
    for r in results {
        match r {
            Value::Object(m) => {
                for (k, v) in m {
                    columns.entry(k.clone()).or_default().push(v);
                }
            }
            other => columns.entry("result".into()).or_default().push(other),
        }
    }
    columns
        .into_iter()
        .map(|(k, vals)| {
            let n = vals.len() as f64;
            let s = if vals.iter().all(|v| v.is_boolean()) {
                let yes = vals.iter().filter(|v| v.as_bool() == Some(true)).count() as u64;
                Summary::Flag { yes, rate: yes as f64 / n }
            } else if vals.iter().all(|v| v.is_number()) {
                let xs: Vec<f64> = vals.iter().filter_map(|v| v.as_f64()).collect();
                let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
                for x in &xs {
                    *hist.entry(x.round() as i64).or_default() += 1;
                }
                Summary::Number {
                    min: xs.iter().copied().fold(f64::INFINITY, f64::min),
                    max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    mean: xs.iter().sum::<f64>() / n,
                    histogram: hist.into_iter().collect(),
                }
            } else {
                let mut counts: BTreeMap<String, u64> = BTreeMap::new();
                for v in &vals {
                    *counts.entry(houserule_core::render::value(v)).or_default() += 1;
                }
                Summary::Text { counts: counts.into_iter().collect() }
            };
            (k, s)
        })
        .collect()
}
