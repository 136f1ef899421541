//! Rolling a parsed expression against a [`DiceSource`].
//!
//! Dice are drawn in the order the expression lists them; a die's rerolls and extra dice come
//! straight after it. Every face drawn stays in the result: rerolled faces (`rerolled`), extra
//! dice of an explosion (`bonus`), faces compounded into the die before them (`compounded`),
//! dropped dice (`kept: false`). For each die, in order: it is drawn and rerolled while its
//! reroll condition (or, for a unique term, an earlier die's face) says so; its face counts
//! for itself raised by `min` and lowered by `max`; if its face meets the explode condition
//! another die is drawn the same way. Then keep/drop ranks the dice by what they count for
//! (ties: the earlier die ranks higher), successes and failures are counted on the kept ones,
//! critical and fumble ranges mark faces, and `s`/`sd` sorts what is shown. A group of one roll
//! pools its dice this way, each counted with the numbers the roll adds (`{3d20+5}>=21`); a
//! group of several rolls keeps and counts whole rolls, a plain number among them being a roll
//! of its own (`{1d4, 4}kh1` is 4 on a 2). A term that counts is worth its count, and the
//! arithmetic around it applies as to any term: the total is the whole expression.
//!
//! Nothing runs without bound: a chain of explosions stops with an error after
//! [`MAX_EXPLODE_DEPTH`] extra dice, one die's rerolls after [`MAX_REROLLS`], and a whole roll
//! after [`MAX_DRAWN`] faces; arithmetic that would overflow is an error too.

use super::parse::{Group, Node, Op};
use super::term::{Counting, DiceTerm, ExplodeKind, Keep};
use super::{DiceError, DiceSource, Die, Roll, RollSource, TermRoll};

/// Most extra dice one exploding die may chain.
pub const MAX_EXPLODE_DEPTH: u32 = 100;
/// Most times one die may be rerolled.
pub const MAX_REROLLS: u32 = 100;
/// Most faces one roll may draw, rerolls and explosions included.
pub const MAX_DRAWN: usize = 20_000;

/// Rolls `expr`, taking faces from `source`.
pub fn roll(expr: &super::Expr, source: &mut dyn DiceSource, origin: RollSource) -> Result<Roll, DiceError> {
    let mut roller = Roller { source, drawn: 0, terms: Vec::new(), successes: None };
    let total = roller.eval(&expr.root, "")?;
    Ok(Roll {
        expr: expr.source.clone(),
        label: None,
        source: origin,
        terms: roller.terms,
        total,
        successes: roller.successes,
        dialect: expr.dialect,
    })
}

/// What keep/drop and counting rank: a die with its rerolled faces and the faces compounded
/// into it, or a whole roll of a group (`head` is then `usize::MAX`). A roll may have no dice
/// at all (`{1d4, 4}kh1`), so whether it is kept is its own flag, not its dice's.
struct Unit {
    dice: Vec<Die>,
    head: usize,
    value: i64,
    kept: bool,
}

struct Roller<'a> {
    source: &'a mut dyn DiceSource,
    drawn: usize,
    terms: Vec<TermRoll>,
    successes: Option<i64>,
}

fn too_large() -> DiceError {
    DiceError::general("the total is too large to work out")
}

impl Roller<'_> {
    /// The value of `node`; its terms are recorded, the first one written after `prefix`
    /// (`""`, `+`, `-`, `*` or `/`).
    fn eval(&mut self, node: &Node, prefix: &str) -> Result<i64, DiceError> {
        match node {
            Node::Number(n) => {
                let term = if prefix.is_empty() { n.to_string() } else { format!("{prefix}{n}") };
                let value = if prefix == "-" { -n } else { *n };
                self.terms.push(TermRoll { term, dice: Vec::new(), value, successes: None });
                Ok(*n)
            }
            Node::Dice(d) => {
                let units = self.units(d)?;
                let t =
                    finish(&d.describe(), units, Ranking { keep: d.keep, counting: &d.counting, offset: 0 }, d.sort);
                Ok(self.record(t, prefix))
            }
            Node::Group(g) => self.group(g, prefix),
            Node::Neg(inner) => self.eval(inner, "-")?.checked_neg().ok_or_else(too_large),
            Node::Op { op, left, right, column } => {
                let l = self.eval(left, prefix)?;
                let sign = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                };
                let r = self.eval(right, sign)?;
                match op {
                    Op::Add => l.checked_add(r),
                    Op::Sub => l.checked_sub(r),
                    Op::Mul => l.checked_mul(r),
                    Op::Div if r == 0 => {
                        return Err(DiceError::at(*column, "the divisor came out as 0"));
                    }
                    Op::Div => floor_div(l, r),
                }
                .ok_or_else(too_large)
            }
        }
    }

    /// Records a finished term after `prefix`; returns its value.
    fn record(&mut self, mut t: TermRoll, prefix: &str) -> i64 {
        let value = t.value;
        t.term = format!("{prefix}{}", t.term);
        if prefix == "-" {
            t.value = -t.value;
        }
        if let Some(s) = t.successes {
            *self.successes.get_or_insert(0) += if prefix == "-" { -s } else { s };
        }
        self.terms.push(t);
        value
    }

    fn group(&mut self, g: &Group, prefix: &str) -> Result<i64, DiceError> {
        if g.keep.is_none() && !g.counting.is_set() {
            let mut total: i64 = 0;
            for (i, item) in g.items.iter().enumerate() {
                let v = self.eval(item, if i == 0 { prefix } else { "+" })?;
                total = total.checked_add(v).ok_or_else(too_large)?;
            }
            return Ok(total);
        }
        let mut offset = 0;
        let units = if g.items.len() == 1 {
            // One roll: its dice are pooled and kept or counted one by one, each with the
            // numbers the roll adds (`{3d20+5}>=21`).
            let (terms, numbers) = g.items[0].pooled();
            offset = numbers;
            let mut units = Vec::new();
            for d in terms {
                units.extend(self.units(d)?);
            }
            units
        } else {
            // Several rolls: each is kept or counted whole.
            let mut units = Vec::new();
            for item in &g.items {
                let mut sub =
                    Roller { source: &mut *self.source, drawn: self.drawn, terms: Vec::new(), successes: None };
                let value = sub.eval(item, "")?;
                self.drawn = sub.drawn;
                let dice: Vec<Die> = sub.terms.into_iter().flat_map(|t| t.dice).collect();
                units.push(Unit { dice, head: usize::MAX, value, kept: true });
            }
            units
        };
        let t = finish(&g.text, units, Ranking { keep: g.keep, counting: &g.counting, offset }, None);
        Ok(self.record(t, prefix))
    }

    /// Rolls every die of a term (rerolls and explosions included), before keep/drop.
    fn units(&mut self, t: &DiceTerm) -> Result<Vec<Unit>, DiceError> {
        let mut units = Vec::with_capacity(t.count as usize);
        let mut used = Vec::new();
        for _ in 0..t.count {
            let mut dice = Vec::new();
            let face = self.settle(t, &mut dice, &used)?;
            used.push(face);
            let mut unit = self.start_unit(t, dice, face, 0);
            let Some(explode) = t.explode else {
                units.push(unit);
                continue;
            };
            let penalty = i64::from(matches!(explode.kind, ExplodeKind::Penetrate | ExplodeKind::CompoundPenetrate));
            let mut last = face;
            let mut depth = 0;
            while explode.on.holds(last) && (explode.kind != ExplodeKind::Once || depth == 0) {
                if let Some(d) = unit.dice.last_mut() {
                    d.exploded = true;
                }
                depth += 1;
                if depth > MAX_EXPLODE_DEPTH {
                    return Err(DiceError::general(format!(
                        "a {} exploded more than {MAX_EXPLODE_DEPTH} times in a row; the roll was stopped",
                        t.sides
                    )));
                }
                let mut dice = Vec::new();
                last = self.settle(t, &mut dice, &[])?;
                if matches!(explode.kind, ExplodeKind::Compound | ExplodeKind::CompoundPenetrate) {
                    let mut die = Die::new(t.sides, last);
                    die.bonus = true;
                    die.compounded = true;
                    dice.push(die);
                    unit.dice.extend(dice);
                    unit.value = unit.value.saturating_add(t.clamp(last) - penalty);
                    let head = &mut unit.dice[unit.head];
                    head.value = Some(unit.value);
                } else {
                    units.push(unit);
                    unit = self.start_unit(t, dice, last, penalty);
                    unit.dice[unit.head].bonus = true;
                }
            }
            units.push(unit);
        }
        Ok(units)
    }

    /// A unit whose counting die shows `face` (after the rerolled faces in `dice`).
    fn start_unit(&self, t: &DiceTerm, mut dice: Vec<Die>, face: i64, penalty: i64) -> Unit {
        let value = t.clamp(face) - penalty;
        let mut die = Die::new(t.sides, face);
        if value != face {
            die.value = Some(value);
        }
        die.critical = t.critical.is_some_and(|c| c.holds(face));
        die.fumble = t.fumble.is_some_and(|c| c.holds(face));
        dice.push(die);
        Unit { head: dice.len() - 1, dice, value, kept: true }
    }

    /// Draws one die, rerolling while the term says so; rerolled faces go into `dice`.
    fn settle(&mut self, t: &DiceTerm, dice: &mut Vec<Die>, used: &[i64]) -> Result<i64, DiceError> {
        let mut rerolled_once = false;
        for _ in 0..=MAX_REROLLS {
            self.drawn += 1;
            if self.drawn > MAX_DRAWN {
                return Err(DiceError::general(format!("the roll drew more than {MAX_DRAWN} dice; it was stopped")));
            }
            let face = self.source.face(t.sides)?;
            let reroll = t.reroll.is_some_and(|r| r.on.holds(face) && !(r.once && rerolled_once));
            let duplicate = t.unique && used.contains(&face);
            if !reroll && !duplicate {
                return Ok(face);
            }
            rerolled_once |= reroll;
            let mut die = Die::new(t.sides, face);
            die.kept = false;
            die.rerolled = true;
            dice.push(die);
        }
        Err(DiceError::general(format!(
            "a {} was rerolled more than {MAX_REROLLS} times in a row; the roll was stopped",
            t.sides
        )))
    }
}

/// `l / r` rounded down (towards minus infinity), `None` on overflow.
pub fn floor_div(l: i64, r: i64) -> Option<i64> {
    let q = l.checked_div(r)?;
    Some(if (l % r != 0) && ((l < 0) != (r < 0)) { q - 1 } else { q })
}

/// How a term's (or group's) units are kept and counted: `offset` is added to each unit's value
/// before it is counted (a pooled group's numbers).
struct Ranking<'c> {
    keep: Option<Keep>,
    counting: &'c Counting,
    offset: i64,
}

/// Keeps, counts and sorts a term's units, and sums it up.
fn finish(text: &str, mut units: Vec<Unit>, how: Ranking, sort: Option<super::term::Sort>) -> TermRoll {
    if let Some(keep) = how.keep {
        for i in dropped(&units, keep) {
            units[i].kept = false;
            for d in units[i].dice.iter_mut().filter(|d| !d.rerolled) {
                d.kept = false;
            }
        }
    }
    let counting = how.counting;
    let mut value: i64 = 0;
    for unit in units.iter_mut().filter(|u| u.kept) {
        let counted = unit.value.saturating_add(how.offset);
        match counting.score(counted) {
            Some(score) => {
                value = value.saturating_add(score);
                let success = counting.successes.map(|c| c.holds(counted));
                let failure = counting.is_failure(counted);
                let marked: Box<dyn Iterator<Item = &mut Die>> = match unit.dice.get_mut(unit.head) {
                    Some(d) => Box::new(std::iter::once(d)),
                    None => Box::new(unit.dice.iter_mut().filter(|d| d.kept)),
                };
                for d in marked {
                    d.success = success;
                    d.failure = failure;
                }
            }
            None => value = value.saturating_add(unit.value),
        }
    }
    match sort {
        Some(super::term::Sort::Ascending) => units.sort_by_key(|u| u.value),
        Some(super::term::Sort::Descending) => units.sort_by_key(|u| std::cmp::Reverse(u.value)),
        None => {}
    }
    let successes = counting.counts().then_some(value);
    TermRoll { term: text.to_string(), dice: units.into_iter().flat_map(|u| u.dice).collect(), value, successes }
}

/// The units keep/drop leaves out. Ties are broken by roll order: the earlier one ranks higher.
fn dropped(units: &[Unit], keep: Keep) -> Vec<usize> {
    let mut order: Vec<usize> = (0..units.len()).collect();
    // Highest first; stable sort keeps roll order among equal values.
    order.sort_by(|&a, &b| units[b].value.cmp(&units[a].value));
    let n = units.len();
    match keep {
        Keep::Highest(k) => order.iter().skip(k as usize).copied().collect(),
        Keep::Lowest(k) => order.iter().rev().skip(k as usize).copied().collect(),
        Keep::DropHighest(k) => order.iter().take((k as usize).min(n)).copied().collect(),
        Keep::DropLowest(k) => order.iter().rev().take((k as usize).min(n)).copied().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse, Forced, SeededStream};
    use super::*;

    fn forced(expr: &str, faces: &[i64]) -> Result<Roll, DiceError> {
        let mut f = Forced::new(faces.iter().copied());
        let r = roll(&parse(expr).unwrap(), &mut f, RollSource::Forced)?;
        f.finish()?;
        Ok(r)
    }

    #[test]
    fn sums_keeps_and_counts() {
        let r = forced("4d6kh3", &[2, 5, 1, 5]).unwrap();
        assert_eq!(r.total, 12, "4d6kh3 on 2,5,1,5 keeps 5,5,2");
        assert_eq!(r.kept_faces(), vec![2, 5, 5]);
        assert_eq!(forced("4d6dl1", &[3, 3, 6, 1]).unwrap().total, 12);
        assert_eq!(forced("2d20kl1", &[14, 3]).unwrap().total, 3);
        let r = forced("7d6cs>=4", &[4, 5, 6, 1, 2, 3, 4]).unwrap();
        assert_eq!((r.successes, r.total), (Some(4), 4));
        let r = forced("2d20cs<=12 + 1", &[12, 13]).unwrap();
        assert_eq!((r.successes, r.total), (Some(1), 2));
        assert_eq!(forced("4dF + 1", &[1, 1, -1, 0]).unwrap().total, 2);
        assert_eq!(forced("2d6 - 1d4 - 2", &[3, 4, 2]).unwrap().total, 3);
    }

    #[test]
    fn explosions_chain_and_are_recorded() {
        let r = forced("1d6!", &[6, 6, 2]).unwrap();
        assert_eq!(r.total, 14);
        let dice: Vec<&Die> = r.dice().collect();
        assert_eq!(dice.len(), 3);
        assert!(dice[0].exploded && !dice[0].bonus);
        assert!(dice[1].exploded && dice[1].bonus);
        assert!(!dice[2].exploded && dice[2].bonus);
    }

    #[test]
    fn runaway_explosion_is_an_error_not_a_hang() {
        let e = forced("1d6!", &[6; 200]).unwrap_err();
        assert!(e.message.contains("more than 100 times"), "{}", e.message);
    }

    #[test]
    fn forced_dice_must_match_the_roll() {
        assert!(forced("2d6", &[3]).unwrap_err().message.contains("needs a 2nd die"));
        assert!(forced("2d6", &[3, 4, 5]).unwrap_err().message.contains("3 forced faces"));
        assert!(forced("1d6", &[0]).unwrap_err().message.contains("cannot come up on a d6"));
        assert!(forced("1dF", &[2]).unwrap_err().message.contains("dF"));
    }

    #[test]
    fn generated_rolls_are_fair_enough() {
        let seed = [1u8; 32];
        let mut counts = [0u32; 6];
        for k in 0..6000u64 {
            let mut s = SeededStream::for_roll(&seed, k, None);
            let r = roll(&parse("1d6").unwrap(), &mut s, RollSource::Generated { counter: k, entropy: None }).unwrap();
            counts[(r.total - 1) as usize] += 1;
        }
        for c in counts {
            assert!((850..1150).contains(&c), "each face should come up about 1000 times in 6000, got {counts:?}");
        }
    }

    #[test]
    fn summary_shows_every_face() {
        let r = forced("4d6kh3", &[2, 5, 1, 5]).unwrap();
        assert_eq!(r.summary(), "4d6kh3 [2, 5, (1), 5] = 12 (forced)");
        let r = forced("1d6r1min2", &[1, 1]).unwrap();
        assert_eq!(r.summary(), "1d6r1min2 [~1, 1→2] = 2 (forced)");
    }

    #[test]
    fn division_rounds_down() {
        assert_eq!(floor_div(7, 2), Some(3));
        assert_eq!(floor_div(-7, 2), Some(-4));
        assert_eq!(floor_div(7, -2), Some(-4));
        assert_eq!(floor_div(-7, -2), Some(3));
    }
}
