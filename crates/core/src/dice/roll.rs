//! Rolling a parsed expression against a [`DiceSource`].
//!
//! Explosions add bonus dice to the same term (each counts for keep/drop and successes); a
//! chain of explosions from one die stops with an error after [`MAX_EXPLODE_DEPTH`] rerolls, so
//! no expression can run without bound.

use super::parse::{DiceTerm, Expr, Keep, Term};
use super::{DiceError, DiceSource, Die, Roll, RollSource, TermRoll};

/// Most rerolls one exploding die may chain.
pub const MAX_EXPLODE_DEPTH: u32 = 100;

/// Rolls `expr`, taking faces from `source`.
pub fn roll(expr: &Expr, source: &mut dyn DiceSource, origin: RollSource) -> Result<Roll, DiceError> {
    let mut terms = Vec::with_capacity(expr.terms.len());
    let mut total: i64 = 0;
    let mut successes: Option<i64> = None;
    for (i, term) in expr.terms.iter().enumerate() {
        let rolled = match term {
            Term::Constant(n) => TermRoll {
                term: if i == 0 { n.to_string() } else { format!("{n:+}") },
                dice: Vec::new(),
                value: *n,
                successes: None,
            },
            Term::Dice { negative, dice } => {
                let mut t = roll_term(dice, source)?;
                let sign = if *negative {
                    "-"
                } else if i == 0 {
                    ""
                } else {
                    "+"
                };
                t.term = format!("{sign}{}", t.term);
                if *negative {
                    t.value = -t.value;
                }
                if let Some(s) = t.successes {
                    *successes.get_or_insert(0) += if *negative { -s } else { s };
                }
                t
            }
        };
        total += rolled.value;
        terms.push(rolled);
    }
    Ok(Roll { expr: expr.source.clone(), label: None, source: origin, terms, total, successes })
}

fn roll_term(term: &DiceTerm, source: &mut dyn DiceSource) -> Result<TermRoll, DiceError> {
    let mut dice: Vec<Die> = Vec::with_capacity(term.count as usize);
    for _ in 0..term.count {
        let mut face = source.face(term.sides)?;
        let mut bonus = false;
        let mut depth = 0;
        loop {
            let explodes = term.explode.is_some_and(|c| c.holds(face));
            dice.push(Die {
                sides: term.sides,
                face,
                kept: true,
                exploded: explodes,
                bonus,
                success: None,
                marks: Vec::new(),
            });
            if !explodes {
                break;
            }
            depth += 1;
            if depth > MAX_EXPLODE_DEPTH {
                return Err(DiceError::general(format!(
                    "a {} exploded more than {MAX_EXPLODE_DEPTH} times in a row; the roll was stopped",
                    term.sides
                )));
            }
            face = source.face(term.sides)?;
            bonus = true;
        }
    }
    if let Some(keep) = term.keep {
        apply_keep(&mut dice, keep);
    }
    let (value, successes) = match term.successes {
        Some(cmp) => {
            let mut n = 0;
            for d in dice.iter_mut().filter(|d| d.kept) {
                let ok = cmp.holds(d.face);
                d.success = Some(ok);
                n += i64::from(ok);
            }
            (n, Some(n))
        }
        None => (dice.iter().filter(|d| d.kept).map(|d| d.face).sum(), None),
    };
    Ok(TermRoll { term: describe(term), dice, value, successes })
}

/// Marks dropped dice. Ties are broken by roll order: the earlier die ranks higher.
fn apply_keep(dice: &mut [Die], keep: Keep) {
    let mut order: Vec<usize> = (0..dice.len()).collect();
    // Highest first; stable sort keeps roll order among equal faces.
    order.sort_by(|&a, &b| dice[b].face.cmp(&dice[a].face));
    let n = dice.len();
    let dropped: Vec<usize> = match keep {
        Keep::Highest(k) => order.iter().skip(k as usize).copied().collect(),
        Keep::Lowest(k) => order.iter().rev().skip(k as usize).copied().collect(),
        Keep::DropHighest(k) => order.iter().take((k as usize).min(n)).copied().collect(),
        Keep::DropLowest(k) => order.iter().rev().take((k as usize).min(n)).copied().collect(),
    };
    for i in dropped {
        dice[i].kept = false;
    }
}

fn describe(t: &DiceTerm) -> String {
    let mut s = format!("{}{}", t.count, t.sides);
    if let Some(c) = t.explode {
        if c == super::Cmp::Ge(t.sides.max()) {
            s.push('!');
        } else {
            s.push_str(&format!("!{c}"));
        }
    }
    match t.keep {
        Some(Keep::Highest(k)) => s.push_str(&format!("kh{k}")),
        Some(Keep::Lowest(k)) => s.push_str(&format!("kl{k}")),
        Some(Keep::DropHighest(k)) => s.push_str(&format!("dh{k}")),
        Some(Keep::DropLowest(k)) => s.push_str(&format!("dl{k}")),
        None => {}
    }
    if let Some(c) = t.successes {
        s.push_str(&format!("cs{c}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::{parse, Forced, SeededStream, Sides};
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
        let r = forced("4d6dl1", &[3, 3, 6, 1]).unwrap();
        assert_eq!(r.total, 12);
        let r = forced("2d20kl1", &[14, 3]).unwrap();
        assert_eq!(r.total, 3);
        let r = forced("7d6cs>=4", &[4, 5, 6, 1, 2, 3, 4]).unwrap();
        assert_eq!(r.successes, Some(4));
        assert_eq!(r.total, 4);
        let r = forced("2d20cs<=12 + 1", &[12, 13]).unwrap();
        assert_eq!(r.successes, Some(1));
        assert_eq!(r.total, 2);
        let r = forced("4dF + 1", &[1, 1, -1, 0]).unwrap();
        assert_eq!(r.total, 2);
        let r = forced("2d6 - 1d4 - 2", &[3, 4, 2]).unwrap();
        assert_eq!(r.total, 3);
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
        let r = forced("2d10!>=9cs>=8", &[9, 3, 10, 1]).unwrap();
        assert_eq!(r.successes, Some(2), "9 and 10 succeed, 3 and 1 do not");
    }

    #[test]
    fn runaway_explosion_is_an_error_not_a_hang() {
        let faces = vec![6; 200];
        let e = forced("1d6!", &faces).unwrap_err();
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
        let _ = Sides::Fudge;
    }

    #[test]
    fn summary_shows_every_face() {
        let r = forced("4d6kh3", &[2, 5, 1, 5]).unwrap();
        assert_eq!(r.summary(), "4d6kh3 [2, 5, (1), 5] = 12 (forced)");
    }
}
