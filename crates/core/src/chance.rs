//! The chance of success an action form shows before anything is rolled.
//!
//! An action may name an odds function in its manifest (`odds = "task_odds"`). Called like the
//! action, `(t, p)`, over a copy of the table that is thrown away, it rolls nothing and returns
//! what the action is about to roll: `()` (nothing yet: the form is not filled in), one map, or
//! a list of at most [`MAX_LINES`] maps, each one of
//! - `#{ label, expr, target }` — a dice expression in Houserule's dialect (`typed: true` for
//!   one a person typed, read in the campaign's), and the total to meet; without `target` the
//!   form shows the average. The engine works the chance out: exactly by convolution where it
//!   can, otherwise by a stated simulation with its confidence interval ([`crate::dice::odds`]),
//!   both within budgets small enough to answer while a player types;
//! - `#{ label, chance }` — a chance the ruleset worked out itself (for rolls no expression
//!   describes, such as 2d20 where a die under the focus counts twice), a number from 0 to 1.
//!
//! Either may name its `outcome`: the key of the action's result that says whether what the
//! line foretells happened (a true/false for a chance, a number for an average). That ties a
//! shown chance to what the rules decide, so a test can play the action itself with every
//! roll of the dice and check the chance (`crates/app/tests/integration/odds_truth.rs`).
//!
//! What a script returns is checked like everything else it sends: a wrong key, a chance out
//! of range or too many lines is an error naming the line and the key.

use crate::dice::{self, odds, Dialect};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// Most lines one form shows.
pub const MAX_LINES: usize = 4;
/// Most elementary steps of an exact computation for a form (a tenth of `houserule odds`').
pub const WORK_LIMIT: u64 = odds::WORK_LIMIT / 10;
/// Rolls of a simulation for a form (fewer for many dice: see [`DICE_BUDGET`]).
pub const SAMPLES: u64 = 20_000;
/// Most dice a form's simulation rolls in all.
pub const DICE_BUDGET: u64 = 400_000;
const MAX_LABEL: usize = 120;

/// How a chance was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChanceMethod {
    /// Worked out exactly from the dice.
    Exact,
    /// Estimated from simulated rolls (see `interval`).
    Simulation,
    /// Worked out by the ruleset's script.
    Ruleset,
}

/// One line of a form's odds.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Chance {
    pub label: String,
    /// The dice expression, when the engine worked the chance out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expr: Option<String>,
    /// The total to meet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<i64>,
    /// The chance of meeting the target (or of success, from the ruleset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chance: Option<f64>,
    /// A 95% confidence interval for `chance`, when simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<(f64, f64)>,
    /// The average total, when the engine worked it out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    pub method: ChanceMethod,
    /// The key of the action's result this line foretells (never shown: it ties the chance to
    /// what the rules decide, for the tests).
    #[serde(skip)]
    #[schemars(skip)]
    pub outcome: Option<String>,
}

/// What is wrong with what an odds function returned: too many lines, or which line and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OddsError {
    #[error("an odds function returns at most {MAX_LINES} lines, not {0}")]
    TooMany(usize),
    #[error("odds line {line}: {problem}")]
    Line { line: usize, problem: String },
}

/// Reads what an odds function returned and works out each line's chance. `dialect` is the
/// campaign's, for expressions marked `typed`.
pub fn lines(returned: &Value, dialect: Dialect) -> Result<Vec<Chance>, OddsError> {
    let items: Vec<&Value> = match returned {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    if items.len() > MAX_LINES {
        return Err(OddsError::TooMany(items.len()));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| line(v, dialect).map_err(|problem| OddsError::Line { line: i + 1, problem }))
        .collect()
}

fn line(v: &Value, dialect: Dialect) -> Result<Chance, String> {
    let Value::Object(m) = v else {
        return Err("is not a map such as #{ label: \"Attack\", expr: \"3d6cs>=4\", target: 1 }".into());
    };
    for k in m.keys() {
        if !["label", "expr", "target", "chance", "typed", "outcome"].contains(&k.as_str()) {
            return Err(format!(
                "has no key '{k}' (use label, expr, target, typed, outcome, or label, chance and outcome)"
            ));
        }
    }
    let outcome = match m.get("outcome") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(_) => return Err("outcome is the name of a key of the action's result (text)".into()),
    };
    let label = match m.get("label") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.chars().take(MAX_LABEL).collect(),
        Some(_) => return Err("label is text".into()),
    };
    let target = match m.get("target") {
        None | Some(Value::Null) => None,
        Some(t) => Some(t.as_i64().ok_or("target is a whole number")?),
    };
    match (m.get("expr"), m.get("chance")) {
        (Some(Value::String(expr)), None) => {
            let typed = matches!(m.get("typed"), Some(Value::Bool(true)));
            let parsed = dice::parse_in(expr, if typed { dialect } else { Dialect::Houserule })
                .map_err(|e| format!("'{expr}': {}", e.message))?;
            let o = match odds::exact_within(&parsed, WORK_LIMIT) {
                Some(d) => odds::Odds::from_dist(d),
                None => {
                    let per_roll = u64::from(parsed.dice_count().max(1));
                    odds::simulate(&parsed, (DICE_BUDGET / per_roll).clamp(200, SAMPLES))
                }
            };
            let method = if o.method == odds::Method::Exact { ChanceMethod::Exact } else { ChanceMethod::Simulation };
            Ok(Chance {
                label,
                expr: Some(expr.clone()),
                target,
                chance: target.map(|t| o.at_least(t)),
                interval: target.and_then(|t| o.interval(t)),
                mean: Some(o.mean()),
                method,
                outcome,
            })
        }
        (None, Some(c)) => {
            let c = c.as_f64().filter(|c| (0.0..=1.0).contains(c)).ok_or("chance is a number from 0 to 1")?;
            Ok(Chance {
                label,
                expr: None,
                target,
                chance: Some(c),
                interval: None,
                mean: None,
                method: ChanceMethod::Ruleset,
                outcome,
            })
        }
        (Some(_), None) => Err("expr is a dice expression (text)".into()),
        _ => Err("needs expr (a dice expression) or chance (0 to 1), not both".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_are_worked_out_from_dice_or_taken_from_the_ruleset() {
        let l = lines(
            &json!([{"label": "Attack", "expr": "3d6cs>=4", "target": 1}, {"label": "Task", "chance": 0.25}]),
            Dialect::Roll20,
        )
        .unwrap();
        assert_eq!(l[0].chance, Some(0.875), "a ruleset's own cs reads as Houserule's in any campaign");
        assert_eq!(l[0].method, ChanceMethod::Exact);
        assert_eq!(l[1].method, ChanceMethod::Ruleset);
        let named = lines(&json!({"chance": 0.5, "outcome": "holds"}), Dialect::Houserule).unwrap();
        assert_eq!(named[0].outcome.as_deref(), Some("holds"), "a line keeps the result key it foretells");
        assert_eq!(lines(&Value::Null, Dialect::Houserule).unwrap(), vec![]);
        let typed = lines(&json!({"expr": "10d10>=8", "target": 3, "typed": true}), Dialect::Roll20).unwrap();
        assert!(typed[0].chance.unwrap() > 0.5, "a typed expression is read in the campaign's dialect");
        let mean = lines(&json!({"expr": "2d6"}), Dialect::Houserule).unwrap();
        assert_eq!(mean[0].chance, None, "no target, no chance");
        assert!((mean[0].mean.unwrap() - 7.0).abs() < 1e-9, "2d6 averages 7");
    }

    #[test]
    fn a_bad_line_names_itself_and_what_is_wrong() {
        let e =
            lines(&json!([{"expr": "2d6"}, {"expr": "2d6", "tagret": 7}]), Dialect::Houserule).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("tagret"), "{e}");
        let e = lines(&json!({"chance": 1.5}), Dialect::Houserule).unwrap_err().to_string();
        assert!(e.contains("0 to 1"), "{e}");
        let e = lines(&json!([{}, {}, {}, {}, {}]), Dialect::Houserule).unwrap_err().to_string();
        assert!(e.contains("at most 4"), "{e}");
        let e = lines(&json!({"expr": "2d6>7"}), Dialect::Houserule).unwrap_err().to_string();
        assert!(e.contains("'>=7'"), "{e}");
        let e = lines(&json!({"chance": 0.5, "outcome": 3}), Dialect::Houserule).unwrap_err().to_string();
        assert!(e.contains("outcome is the name"), "{e}");
    }

    #[test]
    fn a_heavy_expression_is_simulated_within_the_forms_budget() {
        let l = lines(&json!({"expr": "1000d1000", "target": 500_000}), Dialect::Houserule).unwrap();
        assert_eq!(l[0].method, ChanceMethod::Simulation);
        assert!(l[0].interval.is_some());
    }
}
