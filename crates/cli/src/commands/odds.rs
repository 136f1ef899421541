//! `houserule odds`: an expression's exact distribution (or a simulation, said so, with a
//! confidence interval), and the chance to meet a target.

use super::Outcome;
use crate::output::{self, Failure};
use houserule_core::dice::odds::{self, Method};
use houserule_core::dice::{self, Dialect};
use houserule_core::ErrorCode;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `houserule odds --json`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct OddsReport {
    pub expr: String,
    pub dialect: Dialect,
    /// `exact` (worked out by convolution) or `simulation`.
    pub method: String,
    /// How many rolls a simulation made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    pub mean: f64,
    /// The chance a roll is stopped by a limit (a runaway explosion) and has no total.
    pub stopped: f64,
    /// Every total that can come up, lowest first.
    pub table: Vec<OddsRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetOdds>,
}

/// One total and its chances.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct OddsRow {
    pub total: i64,
    pub chance: f64,
    /// The chance of this total or more.
    pub at_least: f64,
}

/// The chance to meet a target.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TargetOdds {
    /// The target: a total of at least this.
    pub at_least: i64,
    pub chance: f64,
    /// A 95% confidence interval, when simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
}

/// Reads `--dialect`.
pub fn dialect(name: Option<&str>) -> Result<Dialect, Failure> {
    match name {
        None => Ok(Dialect::default()),
        Some(n) => Dialect::from_name(n).ok_or_else(|| {
            Failure::new(ErrorCode::BadParam, format!("--dialect must be houserule or roll20, not '{n}'"))
        }),
    }
}

pub fn odds(json: bool, expr: &str, target: Option<i64>, dialect_name: Option<&str>) -> Outcome {
    let dialect = dialect(dialect_name)?;
    let parsed = dice::parse_in(expr, dialect).map_err(|e| Failure::new(ErrorCode::Dice, format!("'{expr}': {e}")))?;
    let o = odds::odds(&parsed);
    let mut above = 1.0 - o.stopped;
    let table: Vec<OddsRow> = o
        .table
        .iter()
        .map(|(total, chance)| {
            let row = OddsRow { total: *total, chance: *chance, at_least: above.max(0.0) };
            above -= chance;
            row
        })
        .collect();
    let target = target.map(|t| TargetOdds {
        at_least: t,
        chance: o.at_least(t),
        interval: o.interval(t).map(|(lo, hi)| [lo, hi]),
    });
    let samples = match o.method {
        Method::Exact => None,
        Method::Simulation { samples } => Some(samples),
    };
    let report = OddsReport {
        expr: parsed.source.clone(),
        dialect,
        method: if samples.is_some() { "simulation" } else { "exact" }.into(),
        samples,
        mean: o.mean(),
        stopped: o.stopped,
        table,
        target,
    };
    if json {
        output::json(&report);
        return Ok(true);
    }
    match report.samples {
        None => crate::say!("{}: exact odds (mean {:.4})", report.expr, report.mean),
        Some(n) => crate::say!(
            "{}: no exact form for this expression; simulated from {n} rolls (mean {:.4})",
            report.expr,
            report.mean
        ),
    }
    crate::say!("{:>7}  {:<14} {}", "total", "chance", "at least");
    for row in &report.table {
        crate::say!("{:>7}  {:<14} {}", row.total, chance(row.chance), chance(row.at_least));
    }
    if report.stopped > 0.0 {
        crate::say!("stopped by a limit: {}", chance(report.stopped));
    }
    if let Some(t) = &report.target {
        match t.interval {
            None => crate::say!("chance of {} or more: {}", t.at_least, chance(t.chance)),
            Some([lo, hi]) => crate::say!(
                "chance of {} or more: {} (95% confidence interval {} to {})",
                t.at_least,
                chance(t.chance),
                chance(lo),
                chance(hi)
            ),
        }
    }
    Ok(true)
}

/// A chance with up to ten decimals and no trailing zeros: `0.7734375`.
fn chance(p: f64) -> String {
    let s = format!("{p:.10}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.to_string()
    }
}
