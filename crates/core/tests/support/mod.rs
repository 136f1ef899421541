//! What the dice tests share: rolling an expression every way its dice can fall.
//!
//! [`walk`] rolls the real roller once for each sequence of faces, depth first, so the totals it
//! reports are the roller's own, each with the chance of its sequence. Sequences longer than the
//! depth limit are left out and their chance reported, so a caller can bound what an explosion
//! that never ends costs; a walk over more sequences than its limit gives up (`None`).

#![allow(dead_code)]

use houserule_core::dice::{parse_in, roll, Dialect, DiceError, DiceSource, RollSource, Sides};
use std::collections::BTreeMap;

/// A source that hands out the faces of one sequence, extending it with the lowest face of each
/// die it has not reached yet.
struct Walk {
    path: Vec<(u32, u32)>,
    pos: usize,
    limit: usize,
}

impl DiceSource for Walk {
    fn face(&mut self, sides: Sides) -> Result<i64, DiceError> {
        if self.pos == self.path.len() {
            if self.pos >= self.limit {
                return Err(DiceError::general("deeper than the walk goes"));
            }
            self.path.push((0, sides.faces()));
        }
        let (c, _) = self.path[self.pos];
        self.pos += 1;
        Ok(sides.min() + i64::from(c))
    }
}

/// Every way the dice of a walk fell: the chance of each total, and the chance left out (rolls
/// deeper than the limit, or stopped by one of the roller's own limits).
pub struct Walked {
    pub totals: BTreeMap<i64, f64>,
    pub lost: f64,
}

/// Rolls `expr` every way its dice can fall, at most `depth` faces deep and over at most
/// `sequences` sequences (`None` past that).
pub fn walk(expr: &str, dialect: Dialect, depth: usize, sequences: usize) -> Option<Walked> {
    let e = parse_in(expr, dialect).unwrap_or_else(|err| panic!("{expr} should parse: {err}"));
    let mut out = Walked { totals: BTreeMap::new(), lost: 0.0 };
    let mut path = Vec::new();
    for _ in 0..sequences {
        let mut w = Walk { path, pos: 0, limit: depth };
        let result = roll(&e, &mut w, RollSource::Forced);
        path = w.path;
        path.truncate(w.pos);
        let p: f64 = path.iter().map(|(_, n)| 1.0 / f64::from(*n)).product();
        match result {
            Ok(r) => *out.totals.entry(r.total).or_insert(0.0) += p,
            Err(_) => out.lost += p,
        }
        if !next(&mut path) {
            return Some(out);
        }
    }
    None
}

/// Moves `path` on to the next sequence; false when every one was walked.
fn next(path: &mut Vec<(u32, u32)>) -> bool {
    while let Some((c, n)) = path.pop() {
        if c + 1 < n {
            path.push((c + 1, n));
            return true;
        }
    }
    false
}
