//! The odds of an expression: its exact distribution where convolution can work it out, a
//! simulation (with a confidence interval) where it cannot.
//!
//! Exact covers sums, differences and products of independent parts; dice terms with rerolls,
//! `min`/`max`, explosions of every kind (followed to the same depth limit as a roll, the
//! chance of hitting it reported as `stopped`), success and failure counting, critical ranges
//! and sorting (which change nothing), and keep/drop over identical dice (an order-statistics
//! recurrence); groups of one dice term that keep or count its dice, with numbers added to each
//! (`{3d20+5}>=21`); and groups that sum or count whole rolls or keep the best (or worst) one of
//! them (a Savage Worlds trait die with its wild die). The distribution is of the total, as a
//! roll's: a success count with the arithmetic around it. What is left — unique dice, keep/drop
//! of dice that explode into dice of their own, keeping several of a group's rolls, or a computation
//! over its work budget — is simulated from a fixed seed, so the same expression always gets
//! the same answer. Probabilities below 1e-18 are pruned from the tails.

use super::parse::{Expr, Group, Node, Op};
use super::roll::{floor_div, roll, MAX_EXPLODE_DEPTH};
use super::source::{seed_from_number, SeededStream};
use super::term::{Counting, DiceTerm, ExplodeKind, Keep};
use super::RollSource;
use std::collections::BTreeMap;

/// Most elementary steps an exact computation may take before simulation takes over.
pub const WORK_LIMIT: u64 = 200_000_000;
/// Widest range of totals an exact distribution may span.
pub const MAX_SPAN: i64 = 2_000_000;
/// Rolls a simulation makes.
pub const SAMPLES: u64 = 100_000;
const PRUNE: f64 = 1e-18;

/// A distribution over whole numbers: `p[i]` is the chance of `lo + i`. Its chances may add up
/// to less than 1: the rest is the chance a limit stopped the roll.
#[derive(Debug, Clone, PartialEq)]
pub struct Dist {
    pub lo: i64,
    pub p: Vec<f64>,
}

impl Dist {
    pub fn point(v: i64) -> Dist {
        Dist { lo: v, p: vec![1.0] }
    }
    fn empty() -> Dist {
        Dist { lo: 0, p: Vec::new() }
    }
    pub fn mass(&self) -> f64 {
        self.p.iter().sum()
    }
    /// `(value, chance)` for every value with a chance.
    pub fn table(&self) -> Vec<(i64, f64)> {
        self.p.iter().enumerate().filter(|(_, p)| **p > 0.0).map(|(i, p)| (self.lo + i as i64, *p)).collect()
    }
    fn from_map(map: BTreeMap<i64, f64>) -> Option<Dist> {
        let (Some((&lo, _)), Some((&hi, _))) = (map.first_key_value(), map.last_key_value()) else {
            return Some(Dist::empty());
        };
        if hi - lo > MAX_SPAN {
            return None;
        }
        let mut p = vec![0.0; (hi - lo + 1) as usize];
        for (v, q) in map {
            p[(v - lo) as usize] += q;
        }
        Some(Dist { lo, p }.pruned())
    }
    fn pruned(mut self) -> Dist {
        let start = self.p.iter().position(|q| *q > PRUNE).unwrap_or(self.p.len());
        let end = self.p.iter().rposition(|q| *q > PRUNE).map_or(start, |i| i + 1);
        self.p = self.p[start..end.max(start)].to_vec();
        self.lo += start as i64;
        self
    }
    fn scaled(mut self, by: f64) -> Dist {
        self.p.iter_mut().for_each(|q| *q *= by);
        self
    }
    /// Adds `other` (the chances are summed, not convolved).
    fn mix(&mut self, other: &Dist) {
        if other.p.is_empty() {
            return;
        }
        if self.p.is_empty() {
            *self = other.clone();
            return;
        }
        let lo = self.lo.min(other.lo);
        let hi = (self.lo + self.p.len() as i64).max(other.lo + other.p.len() as i64);
        let mut p = vec![0.0; (hi - lo) as usize];
        for (i, q) in self.p.iter().enumerate() {
            p[(self.lo - lo) as usize + i] += q;
        }
        for (i, q) in other.p.iter().enumerate() {
            p[(other.lo - lo) as usize + i] += q;
        }
        *self = Dist { lo, p };
    }
    fn map(&self, f: impl Fn(i64) -> i64) -> Option<Dist> {
        let mut out = BTreeMap::new();
        for (v, q) in self.table() {
            *out.entry(f(v)).or_insert(0.0) += q;
        }
        Dist::from_map(out)
    }
}

/// Counts work against [`WORK_LIMIT`].
struct Budget(u64);

impl Budget {
    fn spend(&mut self, steps: u64) -> Option<()> {
        self.0 = self.0.checked_add(steps)?;
        (self.0 <= WORK_LIMIT).then_some(())
    }

    /// The distribution of `a + b`.
    fn add(&mut self, a: &Dist, b: &Dist) -> Option<Dist> {
        if a.p.is_empty() || b.p.is_empty() {
            return Some(Dist::empty());
        }
        self.spend(a.p.len() as u64 * b.p.len() as u64)?;
        if a.p.len() + b.p.len() > MAX_SPAN as usize {
            return None;
        }
        let mut p = vec![0.0; a.p.len() + b.p.len() - 1];
        for (i, x) in a.p.iter().enumerate() {
            if *x == 0.0 {
                continue;
            }
            for (j, y) in b.p.iter().enumerate() {
                p[i + j] += x * y;
            }
        }
        Some(Dist { lo: a.lo + b.lo, p }.pruned())
    }

    /// The distribution of the sum of `n` independent copies of `a`.
    fn power(&mut self, a: &Dist, mut n: u32) -> Option<Dist> {
        let mut out = Dist::point(0);
        let mut base = a.clone();
        while n > 0 {
            if n & 1 == 1 {
                out = self.add(&out, &base)?;
            }
            n >>= 1;
            if n > 0 {
                base = self.add(&base, &base)?;
            }
        }
        Some(out)
    }

    /// The distribution of `f(a, b)` for independent `a` and `b`.
    fn combine(&mut self, a: &Dist, b: &Dist, f: impl Fn(i64, i64) -> Option<i64>) -> Option<Dist> {
        self.spend(a.p.len() as u64 * b.p.len() as u64)?;
        let mut out = BTreeMap::new();
        for (x, p) in a.table() {
            for (y, q) in b.table() {
                *out.entry(f(x, y)?).or_insert(0.0) += p * q;
            }
        }
        Dist::from_map(out)
    }
}

/// The exact distribution of an expression's total, or `None` where it must be simulated.
pub fn exact(expr: &Expr) -> Option<Dist> {
    exact_within(expr, WORK_LIMIT)
}

/// [`exact`] within `limit` elementary steps (at most [`WORK_LIMIT`]).
pub fn exact_within(expr: &Expr, limit: u64) -> Option<Dist> {
    node(&expr.root, &mut Budget(WORK_LIMIT - limit.min(WORK_LIMIT)))
}

fn node(n: &Node, b: &mut Budget) -> Option<Dist> {
    match n {
        Node::Number(v) => Some(Dist::point(*v)),
        Node::Dice(d) => term(d, b),
        Node::Group(g) => group(g, b),
        Node::Neg(inner) => node(inner, b)?.map(|v| -v),
        Node::Op { op, left, right, .. } => {
            let l = node(left, b)?;
            let r = node(right, b)?;
            match op {
                Op::Add => b.add(&l, &r),
                Op::Sub => b.add(&l, &r.map(|v| -v)?),
                Op::Mul => b.combine(&l, &r, i64::checked_mul),
                Op::Div => b.combine(&l, &r, floor_div),
            }
        }
    }
}

fn group(g: &Group, b: &mut Budget) -> Option<Dist> {
    if g.keep.is_none() && !g.counting.is_set() {
        let mut out = Dist::point(0);
        for item in &g.items {
            let item = node(item, b)?;
            out = b.add(&out, &item)?;
        }
        return Some(out);
    }
    if g.items.len() == 1 {
        // One roll of one dice term, with numbers that go to each die: the group keeps or
        // counts its dice, each counted as if the condition took the numbers off instead.
        let (terms, offset) = g.items[0].pooled();
        let [d] = terms.as_slice() else { return None };
        if offset != 0 && !g.counting.counts() {
            return None;
        }
        let mut d = (*d).clone();
        d.keep = g.keep;
        d.counting = g.counting.shifted(-offset);
        return term(&d, b);
    }
    if let Some(keep) = g.keep {
        // Keeping one of several independent rolls: the highest (or lowest) of them, whose
        // chances come from the product of their cumulative ones. Keeping more is simulated.
        if keep.kept_of(g.items.len() as u32) != 1 {
            return None;
        }
        let items = g.items.iter().map(|item| node(item, b)).collect::<Option<Vec<Dist>>>()?;
        let kept = best_of(&items, keep.keeps_highest(), b)?;
        return if g.counting.is_set() { kept.map(|v| g.counting.score(v).unwrap_or(v)) } else { Some(kept) };
    }
    let mut out = Dist::point(0);
    for item in &g.items {
        let scores = node(item, b)?.map(|v| g.counting.score(v).unwrap_or(v))?;
        out = b.add(&out, &scores)?;
    }
    Some(out)
}

/// The distribution of the highest (`highest`) or lowest of independent rolls.
fn best_of(items: &[Dist], highest: bool, b: &mut Budget) -> Option<Dist> {
    let lo = items.iter().map(|d| d.lo).min()?;
    let hi = items.iter().map(|d| d.lo + d.p.len() as i64 - 1).max()?;
    if hi - lo > MAX_SPAN {
        return None;
    }
    b.spend(items.len() as u64 * (hi - lo + 1) as u64)?;
    // below(v): the chance a roll is at most v (highest) or at least v (lowest).
    let reach = |d: &Dist, v: i64| -> f64 {
        d.table().iter().filter(|(x, _)| if highest { *x <= v } else { *x >= v }).map(|(_, q)| q).sum()
    };
    let mut out = BTreeMap::new();
    let mut before = 0.0;
    let values: Vec<i64> = if highest { (lo..=hi).collect() } else { (lo..=hi).rev().collect() };
    for v in values {
        let all: f64 = items.iter().map(|d| reach(d, v)).product();
        if all - before > 0.0 {
            out.insert(v, all - before);
        }
        before = all;
    }
    Dist::from_map(out)
}

/// The chance of each face a die settles on, once its rerolls are done.
pub fn settled_faces(t: &DiceTerm) -> Vec<(i64, f64)> {
    let all: Vec<i64> = (t.sides.min()..=t.sides.max()).collect();
    let n = all.len() as f64;
    match t.reroll {
        None => all.iter().map(|f| (*f, 1.0 / n)).collect(),
        Some(r) if r.once => {
            let rerolled = all.iter().filter(|f| r.on.holds(**f)).count() as f64 / n;
            all.iter().map(|f| (*f, f64::from(u8::from(!r.on.holds(*f))) / n + rerolled / n)).collect()
        }
        Some(_) => {
            let settled = t.settled_faces();
            let m = settled.len() as f64;
            settled.into_iter().map(|f| (f, 1.0 / m)).collect()
        }
    }
}

/// The distribution of `Σ per_die(value)` over one die and the extra dice it explodes into.
fn chain(t: &DiceTerm, faces: &[(i64, f64)], per_die: &dyn Fn(i64) -> i64, b: &mut Budget) -> Option<Dist> {
    let explode = t.explode?;
    let penalty = i64::from(matches!(explode.kind, ExplodeKind::Penetrate | ExplodeKind::CompoundPenetrate));
    let once = explode.kind == ExplodeKind::Once;
    // What the extra dice from depth k on add, given that the k-th extra die is drawn.
    let mut rest = Dist::empty(); // beyond the limit: the roll is stopped
    for _depth in (1..=MAX_EXPLODE_DEPTH).rev() {
        let mut here = Dist::empty();
        for &(f, q) in faces {
            let own = Dist::point(per_die(t.clamp(f) - penalty));
            let next = if explode.on.holds(f) && !once { b.add(&own, &rest)? } else { own };
            here.mix(&next.scaled(q));
            b.spend(here.p.len() as u64)?;
        }
        rest = here.pruned();
        if once {
            break;
        }
    }
    let mut out = Dist::empty();
    for &(f, q) in faces {
        let own = Dist::point(per_die(t.clamp(f)));
        let next = if explode.on.holds(f) { b.add(&own, &rest)? } else { own };
        out.mix(&next.scaled(q));
    }
    Some(out.pruned())
}

fn term(t: &DiceTerm, b: &mut Budget) -> Option<Dist> {
    if t.unique {
        return None;
    }
    let faces = settled_faces(t);
    let score = |v: i64| t.counting.score(v).unwrap_or(v);
    let separate = t.explode.is_some_and(|e| !matches!(e.kind, ExplodeKind::Compound | ExplodeKind::CompoundPenetrate));
    if separate {
        if t.keep.is_some() {
            return None;
        }
        let one = chain(t, &faces, &score, b)?;
        return b.power(&one, t.count);
    }
    // One unit per die: its value (a compounding chain's sum).
    let unit = if t.explode.is_some() {
        chain(t, &faces, &|v| v, b)?
    } else {
        Dist::from_map(faces.iter().fold(BTreeMap::new(), |mut m, (f, q)| {
            *m.entry(t.clamp(*f)).or_insert(0.0) += q;
            m
        }))?
    };
    match t.keep {
        None => b.power(&unit.map(score)?, t.count),
        Some(keep) => kept(&unit, t.count, keep, &t.counting, b),
    }
}

/// The sum of the scores of the kept dice among `n` dice with values distributed as `unit`:
/// dice are placed value by value in keep order, `C(left, j) q^j` ways for `j` of them.
fn kept(unit: &Dist, n: u32, keep: Keep, counting: &Counting, b: &mut Budget) -> Option<Dist> {
    let k = keep.kept_of(n) as usize;
    let n = n as usize;
    let mut values = unit.table();
    if keep.keeps_highest() {
        values.reverse();
    }
    b.spend((values.len() * n * n) as u64)?;
    let mut dp: Vec<Dist> = vec![Dist::empty(); n + 1];
    dp[0] = Dist::point(0);
    for (v, q) in values {
        let score = counting.score(v).unwrap_or(v);
        let mut next: Vec<Dist> = vec![Dist::empty(); n + 1];
        for (m, here) in dp.iter().enumerate() {
            if here.p.is_empty() {
                continue;
            }
            let mut ways = 1.0f64; // C(n - m, j) q^j
            for j in 0..=(n - m) {
                if j > 0 {
                    ways *= q * (n - m - j + 1) as f64 / j as f64;
                }
                if ways == 0.0 {
                    break;
                }
                let taken = j.min(k.saturating_sub(m)) as i64;
                let shifted = Dist { lo: here.lo + taken * score, p: here.p.clone() }.scaled(ways);
                b.spend(shifted.p.len() as u64)?;
                next[m + j].mix(&shifted);
            }
        }
        dp = next.into_iter().map(Dist::pruned).collect();
    }
    Some(dp.swap_remove(n))
}

/// How the odds were found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    Exact,
    Simulation { samples: u64 },
}

/// An expression's odds.
#[derive(Debug, Clone, PartialEq)]
pub struct Odds {
    pub method: Method,
    /// `(total, chance)`, lowest total first.
    pub table: Vec<(i64, f64)>,
    /// The chance a roll is stopped by a limit (a runaway explosion) and has no total.
    pub stopped: f64,
}

impl Odds {
    /// Exact odds from a distribution.
    pub fn from_dist(d: Dist) -> Odds {
        Odds { method: Method::Exact, stopped: (1.0 - d.mass()).max(0.0), table: d.table() }
    }

    /// The chance the total is at least `target`.
    pub fn at_least(&self, target: i64) -> f64 {
        self.table.iter().filter(|(v, _)| *v >= target).map(|(_, p)| p).sum()
    }

    /// A 95% confidence interval (Wilson's) for [`Odds::at_least`], when simulated.
    pub fn interval(&self, target: i64) -> Option<(f64, f64)> {
        let Method::Simulation { samples } = self.method else { return None };
        Some(wilson(self.at_least(target), samples))
    }

    pub fn mean(&self) -> f64 {
        let mass: f64 = self.table.iter().map(|(_, p)| p).sum();
        self.table.iter().map(|(v, p)| *v as f64 * p).sum::<f64>() / mass.max(f64::MIN_POSITIVE)
    }
}

/// Wilson's 95% confidence interval for a rate `p` seen in `n` trials.
pub fn wilson(p: f64, n: u64) -> (f64, f64) {
    let n = n.max(1) as f64;
    let z = 1.959_963_984_540_054_f64;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The odds of `expr`: exact where possible, else [`SAMPLES`] simulated rolls.
pub fn odds(expr: &Expr) -> Odds {
    match exact(expr) {
        Some(d) => Odds::from_dist(d),
        None => simulate(expr, SAMPLES),
    }
}

/// The odds of `expr` from `samples` rolls of a fixed seed.
pub fn simulate(expr: &Expr, samples: u64) -> Odds {
    let seed = seed_from_number(0x0dd5);
    let mut counts: BTreeMap<i64, u64> = BTreeMap::new();
    let mut stopped = 0u64;
    for k in 0..samples {
        let mut stream = SeededStream::for_roll(&seed, k, None);
        match roll(expr, &mut stream, RollSource::Generated { counter: k, entropy: None }) {
            Ok(r) => *counts.entry(r.total).or_default() += 1,
            Err(_) => stopped += 1,
        }
    }
    let n = samples.max(1) as f64;
    Odds {
        method: Method::Simulation { samples },
        table: counts.into_iter().map(|(v, c)| (v, c as f64 / n)).collect(),
        stopped: stopped as f64 / n,
    }
}
