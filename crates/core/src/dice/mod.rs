//! Dice: expressions, sources of faces, and roll results that keep every face.
//!
//! A roll never loses information: each die records its face, whether it was kept or dropped,
//! whether it exploded or was added by an explosion, whether it counted as a success, and any
//! marks a ruleset put on it (critical, complication …). Faces come from a [`DiceSource`]: either
//! the campaign's committed seed (see [`source::SeededStream`]) or faces given in advance
//! ([`source::Forced`]) for tests and for players who roll physical dice. [`odds`] gives an
//! expression's exact distribution where convolution can, and a simulation otherwise;
//! [`dialect`] says how forms that Roll20 and Foundry VTT read differently are read.

pub mod count;
pub mod dialect;
pub mod odds;
pub mod parse;
pub mod roll;
pub mod source;
pub mod term;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use dialect::Dialect;
pub use parse::{parse, parse_in, Cmp, Expr};
pub use roll::roll;
pub use source::{seed_commitment, seed_from_number, DiceSource, Entropy, Forced, SeededStream};

/// What went wrong with a dice expression or a roll. `column` is 1-based; 0 means the problem
/// is not tied to a place in the expression (a forced face that ran out, say).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, thiserror::Error)]
#[error("{}", self.describe())]
pub struct DiceError {
    pub column: usize,
    pub message: String,
}

impl DiceError {
    pub fn at(column: usize, message: impl Into<String>) -> Self {
        DiceError { column, message: message.into() }
    }
    pub fn general(message: impl Into<String>) -> Self {
        DiceError { column: 0, message: message.into() }
    }
    fn describe(&self) -> String {
        if self.column > 0 {
            format!("column {}: {}", self.column, self.message)
        } else {
            self.message.clone()
        }
    }
}

/// The kind of die: numbered faces 1..=N, a Fudge die (−1, 0, +1) or a percentile die (1..=100).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Sides {
    Number(u32),
    Fudge,
    Percentile,
}

crate::string_schema!(Sides, "Sides", "^d([0-9]+|F|%)$", "The kind of die: d6, d20, dF (Fudge) or d% (percentile)");

impl Sides {
    pub fn min(self) -> i64 {
        match self {
            Sides::Fudge => -1,
            _ => 1,
        }
    }
    pub fn max(self) -> i64 {
        match self {
            Sides::Number(n) => n as i64,
            Sides::Fudge => 1,
            Sides::Percentile => 100,
        }
    }
    /// Number of distinct faces.
    pub fn faces(self) -> u32 {
        (self.max() - self.min() + 1) as u32
    }
    pub fn contains(self, face: i64) -> bool {
        (self.min()..=self.max()).contains(&face)
    }
}

impl std::fmt::Display for Sides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sides::Number(n) => write!(f, "d{n}"),
            Sides::Fudge => write!(f, "dF"),
            Sides::Percentile => write!(f, "d%"),
        }
    }
}

impl From<Sides> for String {
    fn from(s: Sides) -> String {
        s.to_string()
    }
}

impl TryFrom<String> for Sides {
    type Error = DiceError;
    fn try_from(s: String) -> Result<Self, DiceError> {
        match s.as_str() {
            "dF" | "df" => Ok(Sides::Fudge),
            "d%" => Ok(Sides::Percentile),
            other => other
                .strip_prefix('d')
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|n| *n >= 1)
                .map(Sides::Number)
                .ok_or_else(|| DiceError::general(format!("'{other}' is not a die such as d6, dF or d%"))),
        }
    }
}

/// One die as rolled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Die {
    pub sides: Sides,
    pub face: i64,
    /// False when a keep/drop modifier dropped this die.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub kept: bool,
    /// This die met the explode condition and caused another die to be rolled.
    #[serde(default, skip_serializing_if = "is_false")]
    pub exploded: bool,
    /// This die was added by an explosion.
    #[serde(default, skip_serializing_if = "is_false")]
    pub bonus: bool,
    /// Set when the term counts successes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
    /// What the die counts for when that is not its face: raised by `min`, lowered by `max`,
    /// one less on a penetrating extra die, the whole chain on a compounding die.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<i64>,
    /// This face was rerolled (it counts for nothing; the next die replaces it).
    #[serde(default, skip_serializing_if = "is_false")]
    pub rerolled: bool,
    /// This face was added into the compounding die before it (it counts through that die).
    #[serde(default, skip_serializing_if = "is_false")]
    pub compounded: bool,
    /// This die met the term's failure condition.
    #[serde(default, skip_serializing_if = "is_false")]
    pub failure: bool,
    /// This face is in the term's critical range (`crit`, Roll20's `cs`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub critical: bool,
    /// This face is in the term's fumble range (`fumble`, Roll20's `cf`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fumble: bool,
    /// Marks a ruleset put on the die, such as "critical" or "complication".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<String>,
}

impl Die {
    /// A die as it first comes up: kept, nothing else happened to it yet.
    pub fn new(sides: Sides, face: i64) -> Die {
        Die {
            sides,
            face,
            kept: true,
            exploded: false,
            bonus: false,
            success: None,
            value: None,
            rerolled: false,
            compounded: false,
            failure: false,
            critical: false,
            fumble: false,
            marks: Vec::new(),
        }
    }
}

fn successes(n: i64) -> String {
    format!("{n} success{}", if n == 1 { "" } else { "es" })
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}

/// One term of a rolled expression: a group of dice or a constant. With `*`, `/` and brackets
/// the terms still list every die, and `value` is what the term brings to its own bracket (the
/// roll's `total` is the whole expression worked out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TermRoll {
    /// The term as written, with its sign: `+4d6kh3`, `-2`.
    pub term: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<Die>,
    /// What the term adds to the total (negative for a subtracted term).
    pub value: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successes: Option<i64>,
}

/// Where the faces of a roll came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RollSource {
    /// Derived from the campaign's committed seed, this roll counter and the entropy the acting
    /// side supplied (none on rolls made before entropy was recorded).
    Generated {
        counter: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        entropy: Option<Entropy>,
    },
    /// Faces typed in or given in advance (physical dice, scenario tests). Never passed off as
    /// generated.
    Forced,
}

/// A complete roll: the expression, every die, and the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Roll {
    pub expr: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub source: RollSource,
    pub terms: Vec<TermRoll>,
    pub total: i64,
    /// Total successes, when any term counts successes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successes: Option<i64>,
    /// The dialect the expression was read in (left out for Houserule's own).
    #[serde(default, skip_serializing_if = "Dialect::is_default")]
    pub dialect: Dialect,
}

impl Roll {
    /// Every die of the roll, in the order rolled.
    pub fn dice(&self) -> impl Iterator<Item = &Die> {
        self.terms.iter().flat_map(|t| t.dice.iter())
    }

    /// Faces of the kept dice, in order.
    pub fn kept_faces(&self) -> Vec<i64> {
        self.dice().filter(|d| d.kept).map(|d| d.face).collect()
    }

    /// Marks every kept die whose face satisfies `cmp` with `mark`.
    pub fn mark(&mut self, mark: &str, cmp: Cmp) {
        for die in self.terms.iter_mut().flat_map(|t| t.dice.iter_mut()) {
            if die.kept && cmp.holds(die.face) && !die.marks.iter().any(|m| m == mark) {
                die.marks.push(mark.to_string());
            }
        }
    }

    /// The expression as this roll read it, to roll it again (verification, replay).
    pub fn parsed(&self) -> Result<Expr, DiceError> {
        parse_in(&self.expr, self.dialect)
    }

    /// The result in words: the total, and the successes when the roll counts them — `4
    /// successes`, or `6 (4 successes)` when arithmetic around the count (`7d6cs>=4+2`) makes
    /// the total something else. The total is always what the roll comes to.
    pub fn result(&self) -> String {
        match self.successes {
            Some(s) if s == self.total => successes(s),
            Some(s) => format!("{} ({})", self.total, successes(s)),
            None => self.total.to_string(),
        }
    }

    /// A compact one-line rendering: `4d6kh3 [5, 4, 3, (1)] = 12`. A rerolled face shows as
    /// `~1`, a compounded one as `+6`, a counted value other than the face as `1→2`.
    pub fn summary(&self) -> String {
        let faces: Vec<String> = self
            .dice()
            .map(|d| {
                let f = match d.sides {
                    Sides::Fudge => match d.face {
                        1 => "+".to_string(),
                        -1 => "-".to_string(),
                        _ => "0".to_string(),
                    },
                    _ => d.face.to_string(),
                };
                let f = match d.value {
                    Some(v) if !d.compounded && v != d.face => format!("{f}→{v}"),
                    _ => f,
                };
                let f = if d.exploded { format!("{f}!") } else { f };
                if d.rerolled {
                    format!("~{f}")
                } else if d.compounded {
                    format!("+{f}")
                } else if d.kept {
                    f
                } else {
                    format!("({f})")
                }
            })
            .collect();
        let result = self.result();
        let forced = if self.source == RollSource::Forced { " (forced)" } else { "" };
        format!("{} [{}] = {}{}", self.expr, faces.join(", "), result, forced)
    }
}
