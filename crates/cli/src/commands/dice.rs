//! `houserule roll`.

use super::Outcome;
use crate::output::{self, Failure, RollStats, Rolled};
use houserule_app::campaign::fresh_seed;
use houserule_core::dice::seed_from_number;
use houserule_core::dice::{self, Forced, RollSource, SeededStream};
use houserule_core::ErrorCode;
use std::collections::BTreeMap;

pub const MAX_TIMES: u32 = 100_000;

pub fn roll(
    json: bool,
    expr: &str,
    seed: Option<u64>,
    faces: Option<&str>,
    times: u32,
    dialect: Option<&str>,
) -> Outcome {
    if times == 0 || times > MAX_TIMES {
        return Err(Failure::new(ErrorCode::BadParam, format!("--times must be 1 to {MAX_TIMES}")));
    }
    let dialect = super::odds::dialect(dialect)?;
    let parsed = dice::parse_in(expr, dialect).map_err(|e| Failure::new(ErrorCode::Dice, format!("'{expr}': {e}")))?;
    let mut rolls = Vec::new();
    match faces {
        Some(list) => {
            let list = Forced::parse_list(list).map_err(|e| Failure::new(ErrorCode::Dice, format!("--dice: {e}")))?;
            let mut forced = Forced::new(list);
            for _ in 0..times {
                rolls.push(
                    dice::roll(&parsed, &mut forced, RollSource::Forced)
                        .map_err(|e| Failure::new(ErrorCode::Dice, e.to_string()))?,
                );
            }
            forced.finish().map_err(|e| Failure::new(ErrorCode::Dice, e.to_string()))?;
        }
        None => {
            let seed = seed.map(seed_from_number).unwrap_or_else(fresh_seed);
            for counter in 0..u64::from(times) {
                let mut stream = SeededStream::for_roll(&seed, counter, None);
                rolls.push(
                    dice::roll(&parsed, &mut stream, RollSource::Generated { counter, entropy: None })
                        .map_err(|e| Failure::new(ErrorCode::Dice, e.to_string()))?,
                );
            }
        }
    }
    let totals: Vec<i64> = rolls.iter().map(|r| r.successes.unwrap_or(r.total)).collect();
    let mut histogram: BTreeMap<i64, u64> = BTreeMap::new();
    for t in &totals {
        *histogram.entry(*t).or_default() += 1;
    }
    let stats = RollStats {
        min: totals.iter().copied().min().unwrap_or(0),
        max: totals.iter().copied().max().unwrap_or(0),
        mean: totals.iter().sum::<i64>() as f64 / totals.len() as f64,
        histogram: histogram.into_iter().collect(),
    };
    if json {
        rolls.truncate(1000);
        output::json(&Rolled { expr: parsed.source.clone(), times, rolls, stats });
        return Ok(true);
    }
    if times <= 20 {
        for r in &rolls {
            crate::say!("{}", r.summary());
        }
    }
    if times > 1 {
        crate::say!("{times} rolls of {}: min {}, max {}, mean {:.2}", parsed.source, stats.min, stats.max, stats.mean);
        if times > 20 {
            let most = stats.histogram.iter().map(|(_, n)| *n).max().unwrap_or(1);
            for (total, n) in &stats.histogram {
                let bar = "█".repeat(((*n as f64 / most as f64) * 40.0).round() as usize);
                crate::say!("{total:>6} {:>6.2}% {bar}", *n as f64 * 100.0 / times as f64);
            }
        }
    }
    Ok(true)
}
