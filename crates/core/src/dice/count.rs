//! Counting successes and failures: what `cs`, `cf`, `df`, a bare comparison and `f` make a
//! term (or a group) worth, read in the campaign's dialect.
//!
//! A counting term is worth a score per die (or per roll of a group) instead of its value:
//! 1 for a success; for a failure −1 (`df`, Foundry's: whatever the die would count otherwise),
//! one success less (`f`, Roll20's: a die that both succeeds and fails counts 0), or 1 when the
//! term counts failures (`cf`). With `df` alone a die that does not fail keeps its value, as in
//! Foundry. In the Roll20 dialect `cs`/`cf` mark critical ranges instead. Comparisons follow the
//! dialect ([`super::dialect`]): Houserule's refuses `>N`/`<N` after Roll20's bare comparison and
//! `f`, saying how to write either meaning.

use super::dialect::Dialect;
use super::parse::{Cmp, Cursor};
use super::term::{once, required};
use super::{DiceError, Sides};
use serde::{Deserialize, Serialize};

/// What happens to failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Failures {
    /// `df<N` (Foundry's): a die that fails counts −1, whatever it would count otherwise (a
    /// success, or its value when nothing else is counted).
    Deduct(Cmp),
    /// `f<N` after a success count (Roll20's): each failure takes one success away, so a die that
    /// both succeeds and fails counts 0.
    Cancel(Cmp),
    /// `cf<N` (Houserule dialect): the term is worth the number of failures.
    Count(Cmp),
}

impl Failures {
    fn on(self) -> Cmp {
        match self {
            Failures::Deduct(c) | Failures::Cancel(c) | Failures::Count(c) => c,
        }
    }
}

/// Success and failure counting: when set, a die (or a group's roll) is worth its score, not
/// its value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counting {
    pub successes: Option<Cmp>,
    pub failures: Option<Failures>,
}

impl Counting {
    pub fn is_set(&self) -> bool {
        self.successes.is_some() || self.failures.is_some()
    }
    /// Whether the term is worth a count (of successes or failures) rather than values: all but
    /// `df` alone, where a die that does not fail still counts its value.
    pub fn counts(&self) -> bool {
        self.successes.is_some() || matches!(self.failures, Some(Failures::Count(_) | Failures::Cancel(_)))
    }
    /// What one die (or roll) of this value scores, or `None` when nothing is counted.
    pub fn score(&self, value: i64) -> Option<i64> {
        if !self.is_set() {
            return None;
        }
        let success = i64::from(self.successes.is_some_and(|c| c.holds(value)));
        Some(match self.failures {
            Some(Failures::Count(c)) => i64::from(c.holds(value)),
            Some(Failures::Deduct(c)) if c.holds(value) => -1,
            Some(Failures::Deduct(_)) if self.successes.is_none() => value,
            Some(Failures::Cancel(c)) => success - i64::from(c.holds(value)),
            Some(Failures::Deduct(_)) | None => success,
        })
    }
    pub fn is_failure(&self, value: i64) -> bool {
        self.failures.is_some_and(|f| f.on().holds(value))
    }
    /// The same counting of values `by` higher: `shifted(-5)` of `>=21` is `>=16`.
    pub fn shifted(&self, by: i64) -> Counting {
        let f = |c: Cmp| c.shifted(by);
        Counting {
            successes: self.successes.map(f),
            failures: self.failures.map(|x| match x {
                Failures::Deduct(c) => Failures::Deduct(f(c)),
                Failures::Cancel(c) => Failures::Cancel(f(c)),
                Failures::Count(c) => Failures::Count(f(c)),
            }),
        }
    }
    pub(super) fn describe(&self, dialect: Dialect) -> String {
        let mut s = String::new();
        match (self.successes, dialect) {
            (Some(c), Dialect::Roll20) => s.push_str(&c.to_string()),
            (Some(c), Dialect::Houserule) => s.push_str(&format!("cs{c}")),
            (None, _) => {}
        }
        match self.failures {
            Some(Failures::Deduct(c)) => s.push_str(&format!("df{c}")),
            Some(Failures::Cancel(c)) => s.push_str(&format!("f{c}")),
            Some(Failures::Count(c)) => s.push_str(&format!("cf{c}")),
            None => {}
        }
        s
    }
}

/// Reads a success or failure counting modifier; false when there is none at the cursor. In
/// the Roll20 dialect `cs`/`cf` are critical ranges (only for dice, passed as `dice` with the
/// term's critical and fumble ranges and its die).
pub(super) fn counting(
    p: &mut Cursor,
    counting: &mut Counting,
    dice: Option<(&mut Option<Cmp>, &mut Option<Cmp>, Sides)>,
    col: usize,
) -> Result<bool, DiceError> {
    if p.looking_at("cs") || p.looking_at("cf") {
        return count_or_mark(p, counting, dice, col);
    }
    if p.looking_at("df") {
        p.advance(2);
        once(counting.failures.is_some(), col, "the term already counts failures")?;
        counting.failures = Some(Failures::Deduct(required(p, "the failure condition", "df")?));
    } else if p.looking_at("f") && !p.looking_at("fumble") {
        p.advance(1);
        if counting.successes.is_none() {
            let example = if p.dialect == Dialect::Roll20 { "10d6>4f1" } else { "10d6>=4f1" };
            return Err(DiceError::at(
                col,
                format!("'f' takes a success away for each failure, so a success condition comes first: '{example}'"),
            ));
        }
        once(counting.failures.is_some(), col, "the term already counts failures")?;
        no_strict_conflict(p, col, "f", "takes a success away for each die of")?;
        counting.failures = Some(Failures::Cancel(required(p, "the failure condition", "f")?));
    } else if matches!(p.peek(), Some('>' | '<' | '=')) {
        once(counting.successes.is_some(), col, "the term already counts successes")?;
        no_strict_conflict(p, col, "", "counts each die (or roll) of")?;
        counting.successes = p.cmp("the success condition")?;
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// `cs`/`cf`: counting successes or failures (Houserule), or marking critical ranges (Roll20).
/// Without a condition they mean the die's highest face (`cs`) and its lowest (`cf`).
fn count_or_mark(
    p: &mut Cursor,
    counting: &mut Counting,
    dice: Option<(&mut Option<Cmp>, &mut Option<Cmp>, Sides)>,
    col: usize,
) -> Result<bool, DiceError> {
    let success = p.looking_at("cs");
    let word = if success { "cs" } else { "cf" };
    p.advance(2);
    let roll20 = p.dialect == Dialect::Roll20;
    if roll20 && dice.is_none() {
        return Err(DiceError::at(
            col,
            format!("'{word}' marks critical dice in the Roll20 dialect; a group has none"),
        ));
    }
    let what = match (roll20, success) {
        (true, _) => "the critical range",
        (false, true) => "the success condition",
        (false, false) => "the failure condition",
    };
    let cmp = match (p.cmp(what)?, &dice) {
        (Some(c), _) => c,
        (None, Some((_, _, sides))) => Cmp::Eq(if success { sides.max() } else { sides.min() }),
        (None, None) => {
            return Err(DiceError::at(p.col(), format!("expected a condition such as >=4 after '{word}'")));
        }
    };
    if let Some((critical, fumble, _)) = dice.filter(|_| roll20) {
        let slot = if success { critical } else { fumble };
        once(slot.is_some(), col, "the term already has that critical range")?;
        *slot = Some(cmp);
        return Ok(true);
    }
    if success {
        once(counting.successes.is_some(), col, "the term already counts successes")?;
        counting.successes = Some(cmp);
    } else {
        once(counting.failures.is_some(), col, "the term already counts failures")?;
        counting.failures = Some(Failures::Count(cmp));
    }
    if matches!(counting.failures, Some(Failures::Count(_))) && counting.successes.is_some() {
        return Err(DiceError::at(
            col,
            "'cf' makes the term the number of failures; to take failures off successes write 'df'",
        ));
    }
    Ok(true)
}

/// In Houserule's dialect, refuses `>N` or `<N` after a form only Roll20 spells (a bare
/// comparison, `f`, `!`, `!!`, `!p`, `ro`): Roll20 reads them as including N, while Houserule, as
/// Foundry, reads `>` and `<` as excluding it. `mark` is the form, `what` what it does.
pub(super) fn no_strict_conflict(p: &mut Cursor, col: usize, mark: &str, what: &str) -> Result<(), DiceError> {
    if p.dialect != Dialect::Houserule || !p.at_strict_comparison() {
        return Ok(());
    }
    let op = p.peek().unwrap_or('>');
    p.advance(1);
    let n = p.number().map_or(0, |(n, _)| i64::try_from(n).unwrap_or(i64::MAX));
    let (inclusive, strict_word, step) =
        if op == '>' { ("or more", "more than", 1) } else { ("or less", "less than", -1) };
    Err(DiceError::at(
        col,
        format!(
            "'{mark}{op}{n}' {what} {n} {inclusive} in Roll20, but Houserule reads '{op}' as '{strict_word}': \
             write '{mark}{op}={n}' for {n} {inclusive}, '{mark}{op}={}' for {strict_word} {n}, or switch the \
             campaign to the Roll20 dialect (setting dice_dialect = roll20)",
            n.saturating_add(step)
        ),
    ))
}
