//! `houserule simulate`: run an action many times and summarise its results.

use super::{key_values, role, Outcome};
use crate::output::{self, Failure, Simulated, Summary};
use houserule_app::folders;
use houserule_app::lab::summarise;
use houserule_app::scenario::Runner;
use houserule_core::scenario::Scenario;
use houserule_core::{ErrorCode, Limits, PluginSource};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};

pub const MAX_TIMES: u64 = 1_000_000;

/// What `houserule simulate` is asked.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// The plugin folder.
    dir: PathBuf,
    action: String,
    /// A scenario file whose actions set up the table first.
    #[arg(long)]
    setup: Option<PathBuf>,
    #[arg(long = "as", default_value = "gm", value_name = "gm|player:NAME")]
    role: String,
    #[arg(long = "param", short = 'p', value_name = "KEY=VALUE")]
    params: Vec<String>,
    #[arg(long, default_value_t = 10_000)]
    times: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn simulate(json: bool, args: &SimulateArgs) -> Outcome {
    let SimulateArgs { dir, action, setup, role: who, params, times, seed } = args;
    let (dir, times, seed) = (dir.as_path(), *times, *seed);
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
