//! `houserule roll`: one roll, or many summed up in constant memory.
//!
//! Each roll's total is what the whole expression comes to — successes with any arithmetic
//! around them (`3d6cs>=4+2`) — and the statistics of `--times` are of those totals, as the
//! odds of `houserule odds` are. The statistics are kept as the rolls come (a histogram of the
//! totals, their least, greatest and sum), so a hundred thousand rolls take no more memory than
//! ten; each roll is listed only when few were asked for ([`LISTED_TEXT`], [`LISTED_JSON`]).

use super::Outcome;
use crate::output::{self, Failure, RollStats, Rolled};
use houserule_app::campaign::fresh_seed;
use houserule_core::dice::seed_from_number;
use houserule_core::dice::{self, DiceError, Expr, Forced, Roll, RollSource, SeededStream};
use houserule_core::ErrorCode;
use std::collections::BTreeMap;

pub const MAX_TIMES: u32 = 100_000;
/// Most rolls the text output lists one by one (above this, only their statistics).
pub const LISTED_TEXT: u32 = 20;
/// Most rolls `--json` lists one by one (above this, `rolls` is empty).
pub const LISTED_JSON: u32 = 1000;

/// The statistics of the totals seen so far.
#[derive(Default)]
struct Tally {
    min: Option<i64>,
    max: Option<i64>,
    sum: i128,
    count: u64,
    histogram: BTreeMap<i64, u64>,
}

impl Tally {
    fn add(&mut self, total: i64) {
        self.min = Some(self.min.map_or(total, |m| m.min(total)));
        self.max = Some(self.max.map_or(total, |m| m.max(total)));
        self.sum += i128::from(total);
        self.count += 1;
        *self.histogram.entry(total).or_default() += 1;
    }

    fn stats(self) -> RollStats {
        RollStats {
            min: self.min.unwrap_or(0),
            max: self.max.unwrap_or(0),
            mean: self.sum as f64 / self.count.max(1) as f64,
            histogram: self.histogram.into_iter().collect(),
        }
    }
}

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
    let listed = if json { LISTED_JSON } else { LISTED_TEXT };
    let (rolls, stats) = roll_times(&parsed, seed, faces, times, listed)?;
    if json {
        output::json(&Rolled { expr: parsed.source.clone(), times, rolls, stats });
        return Ok(true);
    }
    for r in &rolls {
        crate::say!("{}", r.summary());
    }
    if times > 1 {
        crate::say!("{times} rolls of {}: min {}, max {}, mean {:.2}", parsed.source, stats.min, stats.max, stats.mean);
        if times > LISTED_TEXT {
            let most = stats.histogram.iter().map(|(_, n)| *n).max().unwrap_or(1);
            for (total, n) in &stats.histogram {
                let bar = "█".repeat(((*n as f64 / most as f64) * 40.0).round() as usize);
                crate::say!("{total:>6} {:>6.2}% {bar}", *n as f64 * 100.0 / f64::from(times));
            }
        }
    }
    Ok(true)
}

/// Rolls `parsed` `times` times, from the faces given or from the seed (a fresh one without):
/// every roll when there are at most `listed` of them (none otherwise), and the statistics of
/// all of them. Nothing is returned when any roll fails.
fn roll_times(
    parsed: &Expr,
    seed: Option<u64>,
    faces: Option<&str>,
    times: u32,
    listed: u32,
) -> Result<(Vec<Roll>, RollStats), Failure> {
    let dice_error = |e: DiceError| Failure::new(ErrorCode::Dice, e.to_string());
    let mut tally = Tally::default();
    let mut rolls = Vec::new();
    let mut keep = |r: Roll| {
        tally.add(r.total);
        if times <= listed {
            rolls.push(r);
        }
    };
    match faces {
        Some(list) => {
            let list = Forced::parse_list(list).map_err(|e| Failure::new(ErrorCode::Dice, format!("--dice: {e}")))?;
            let mut forced = Forced::new(list);
            for _ in 0..times {
                keep(dice::roll(parsed, &mut forced, RollSource::Forced).map_err(dice_error)?);
            }
            forced.finish().map_err(dice_error)?;
        }
        None => {
            let seed = seed.map(seed_from_number).unwrap_or_else(fresh_seed);
            for counter in 0..u64::from(times) {
                let mut stream = SeededStream::for_roll(&seed, counter, None);
                let source = RollSource::Generated { counter, entropy: None };
                keep(dice::roll(parsed, &mut stream, source).map_err(dice_error)?);
            }
        }
    }
    Ok((rolls, tally.stats()))
}
