//! Dice terms and their modifiers: what `4d6r<2!!kh3cs>=5` asks for, read with column-exact
//! errors.
//!
//! A term's modifiers may come in any order and each at most once. Every condition is checked
//! here so that rolling cannot run away: an explosion or an endless reroll that every face
//! would trigger is refused, as is a unique roll of more dice than the die has faces. An
//! unknown modifier is refused at its column. Comparisons follow the dialect: in Roll20's, `>N`
//! and `<N` take in N; in Houserule's they do not, and after a form only Roll20 spells (a bare
//! comparison, `f`, `!`, `ro`) they are refused with both ways to write what was meant
//! ([`super::dialect`]).

use super::count::{counting, no_strict_conflict};
pub use super::count::{Counting, Failures};
use super::dialect::Dialect;
use super::parse::{Cmp, Cursor, Node, Op, MAX_CONSTANT};
use super::{DiceError, Sides};
use serde::{Deserialize, Serialize};

/// Keep or drop the highest or lowest dice of a term (or rolls of a group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Keep {
    Highest(u32),
    Lowest(u32),
    DropHighest(u32),
    DropLowest(u32),
}

impl Keep {
    /// How many of `n` are kept.
    pub fn kept_of(self, n: u32) -> u32 {
        match self {
            Keep::Highest(k) | Keep::Lowest(k) => k.min(n),
            Keep::DropHighest(k) | Keep::DropLowest(k) => n.saturating_sub(k),
        }
    }
    /// Whether the kept ones are the highest.
    pub fn keeps_highest(self) -> bool {
        matches!(self, Keep::Highest(_) | Keep::DropLowest(_))
    }
}

/// How an explosion adds dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExplodeKind {
    /// `!`, `x`: each extra die is a die of its own, and may explode again.
    Chain,
    /// `xo`: at most one extra die per die.
    Once,
    /// `!!`: the extra dice add into the die that exploded.
    Compound,
    /// `!p`: like `!`, but each extra die counts one less.
    Penetrate,
    /// `!!p`: compounding, each extra face counting one less.
    CompoundPenetrate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explode {
    pub on: Cmp,
    pub kind: ExplodeKind,
}

/// Rerolling a face that meets `on`: once, or until it no longer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reroll {
    pub on: Cmp,
    pub once: bool,
}

/// Display order of a term's dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sort {
    Ascending,
    Descending,
}

/// One dice term such as `4d6kh3` or `10d10!cs>=8`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceTerm {
    pub count: u32,
    pub sides: Sides,
    pub reroll: Option<Reroll>,
    pub unique: bool,
    pub explode: Option<Explode>,
    /// Each die counts at least / at most this much (its face is kept as rolled).
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub keep: Option<Keep>,
    pub counting: Counting,
    /// Faces marked as critical successes and failures (the value is unchanged).
    pub critical: Option<Cmp>,
    pub fumble: Option<Cmp>,
    pub sort: Option<Sort>,
    /// The dialect the term was read in (for describing it back).
    pub dialect: Dialect,
}

impl DiceTerm {
    fn new(count: u32, sides: Sides, dialect: Dialect) -> Self {
        DiceTerm {
            count,
            sides,
            reroll: None,
            unique: false,
            explode: None,
            min: None,
            max: None,
            keep: None,
            counting: Counting::default(),
            critical: None,
            fumble: None,
            sort: None,
            dialect,
        }
    }

    /// The faces a die can end on once rerolls that repeat are done.
    pub fn settled_faces(&self) -> Vec<i64> {
        (self.sides.min()..=self.sides.max())
            .filter(|f| !matches!(self.reroll, Some(Reroll { on, once: false }) if on.holds(*f)))
            .collect()
    }

    /// What a face counts for, after `min` and `max`.
    pub fn clamp(&self, face: i64) -> i64 {
        let v = self.min.map_or(face, |m| face.max(m));
        self.max.map_or(v, |m| v.min(m))
    }

    /// Bounds on the term's value (wide where explosions make it open-ended).
    pub fn bounds(&self) -> (i64, i64) {
        const WIDE: i64 = i64::MAX / 4;
        let n = i64::from(self.count);
        let scores: Vec<i64> = self
            .settled_faces()
            .into_iter()
            .map(|f| self.clamp(f))
            .map(|v| self.counting.score(v).unwrap_or(v))
            .collect();
        let lo = scores.iter().copied().min().unwrap_or(0);
        let hi = scores.iter().copied().max().unwrap_or(0);
        let (lo, hi) = match self.explode {
            // Any number of extra dice, each counting down to one less than a face (penetrating).
            Some(_) if self.counting.is_set() || lo <= 0 => (-WIDE, WIDE),
            Some(_) => (lo.saturating_mul(n), WIDE),
            None => (lo.saturating_mul(n), hi.saturating_mul(n)),
        };
        if self.keep.is_some() {
            (lo.min(0), hi.max(0))
        } else {
            (lo, hi)
        }
    }

    /// The term written out in its dialect: `4d6kh3`, `1d20crit>=19`, `10d10>=8` (Roll20) …
    pub fn describe(&self) -> String {
        let mut s = format!("{}{}", self.count, self.sides);
        if let Some(r) = self.reroll {
            let on = if r.on == Cmp::Eq(self.sides.min()) { String::new() } else { r.on.to_string() };
            s.push_str(if r.once { "ro" } else { "rr" });
            s.push_str(&on);
        }
        if self.unique {
            s.push('u');
        }
        if let Some(e) = self.explode {
            s.push_str(match e.kind {
                ExplodeKind::Chain => "!",
                ExplodeKind::Once => "xo",
                ExplodeKind::Compound => "!!",
                ExplodeKind::Penetrate => "!p",
                ExplodeKind::CompoundPenetrate => "!!p",
            });
            if e.on != Cmp::Ge(self.sides.max()) {
                s.push_str(&e.on.to_string());
            }
        }
        if let Some(m) = self.min {
            s.push_str(&format!("min{m}"));
        }
        if let Some(m) = self.max {
            s.push_str(&format!("max{m}"));
        }
        match self.keep {
            Some(Keep::Highest(k)) => s.push_str(&format!("kh{k}")),
            Some(Keep::Lowest(k)) => s.push_str(&format!("kl{k}")),
            Some(Keep::DropHighest(k)) => s.push_str(&format!("dh{k}")),
            Some(Keep::DropLowest(k)) => s.push_str(&format!("dl{k}")),
            None => {}
        }
        s.push_str(&self.counting.describe(self.dialect));
        if let Some(c) = self.critical {
            s.push_str(&format!("crit{c}"));
        }
        if let Some(c) = self.fumble {
            s.push_str(&format!("fumble{c}"));
        }
        match self.sort {
            Some(Sort::Ascending) => s.push('s'),
            Some(Sort::Descending) => s.push_str("sd"),
            None => {}
        }
        s
    }
}

/// Reads the modifiers after `NdS`.
pub(super) fn modifiers(p: &mut Cursor, count: u32, sides: Sides) -> Result<DiceTerm, DiceError> {
    let start = p.col();
    let mut cols = Columns { explode: start, reroll: start, unique: start, limits: start };
    let mut t = DiceTerm::new(count, sides, p.dialect);
    while let Some(c) = p.peek() {
        let col = p.col();
        let c = c.to_ascii_lowercase();
        if c == '!' || c == 'x' {
            cols.explode = col;
            once(t.explode.is_some(), col, "the term already explodes")?;
            t.explode = Some(explode(p, sides, col)?);
        } else if c == 'r' {
            cols.reroll = col;
            once(
                t.reroll.is_some(),
                col,
                "the term already rerolls: one reroll condition per term (several, as in Roll20's 'r2r4', are \
                 not supported)",
            )?;
            t.reroll = Some(reroll(p, sides, col)?);
        } else if c == 'k' || (c == 'd' && !p.looking_at("df")) {
            once(t.keep.is_some(), col, "only one keep or drop modifier is allowed per term")?;
            t.keep = Some(keep(p, col)?);
        } else if p.looking_at("crit") {
            once(t.critical.is_some(), col, "the term already has a critical range")?;
            p.advance(4);
            t.critical = Some(required(p, "the critical range", "crit")?);
        } else if p.looking_at("fumble") {
            once(t.fumble.is_some(), col, "the term already has a fumble range")?;
            p.advance(6);
            t.fumble = Some(required(p, "the fumble range", "fumble")?);
        } else if p.looking_at("min") || p.looking_at("max") {
            let is_min = p.looking_at("min");
            cols.limits = col;
            once(if is_min { t.min.is_some() } else { t.max.is_some() }, col, "the term already has that limit")?;
            p.advance(3);
            let v = signed_number(p, if is_min { "min" } else { "max" })?;
            if is_min {
                t.min = Some(v)
            } else {
                t.max = Some(v)
            }
        } else if c == 's' && !p.looking_at("sf") {
            once(t.sort.is_some(), col, "the term is already sorted")?;
            t.sort = Some(if p.looking_at("sd") {
                p.advance(2);
                Sort::Descending
            } else {
                p.advance(if p.looking_at("sa") { 2 } else { 1 });
                Sort::Ascending
            });
        } else if c == 'u' {
            cols.unique = col;
            once(t.unique, col, "the term is already unique")?;
            p.advance(1);
            t.unique = true;
        } else if !counting(p, &mut t.counting, Some((&mut t.critical, &mut t.fumble, sides)), col)? {
            if c.is_ascii_alphanumeric() || matches!(c, '>' | '<' | '=' | '!') {
                return Err(unknown(p, col));
            }
            break;
        }
    }
    check_term(&t, &cols)?;
    Ok(t)
}

/// Reads `!`, `!!`, `!p`, `!!p`, `x` or `xo` and its condition (the highest face by default).
fn explode(p: &mut Cursor, sides: Sides, col: usize) -> Result<Explode, DiceError> {
    let (kind, len) = [
        ("!!p", ExplodeKind::CompoundPenetrate),
        ("!!", ExplodeKind::Compound),
        ("!p", ExplodeKind::Penetrate),
        ("xo", ExplodeKind::Once),
        ("!", ExplodeKind::Chain),
        ("x", ExplodeKind::Chain),
    ]
    .into_iter()
    .find(|(word, _)| p.looking_at(word))
    .map(|(word, kind)| (kind, word.len()))
    .unwrap_or((ExplodeKind::Chain, 1));
    p.advance(len);
    if sides == Sides::Fudge {
        return Err(DiceError::at(col, "Fudge dice cannot explode"));
    }
    let roll20_only = p.text_since(col).starts_with('!').then_some("explodes on");
    let on = condition(p, col, roll20_only, "the explode condition")?.unwrap_or(Cmp::Ge(sides.max()));
    Ok(Explode { on, kind })
}

/// Reads `r`, `ro` or `rr` and its condition (the lowest face by default). A bare `r` rerolls
/// once in Houserule's dialect (Foundry's) and until the face holds no more in Roll20's.
fn reroll(p: &mut Cursor, sides: Sides, col: usize) -> Result<Reroll, DiceError> {
    let once = if p.looking_at("ro") {
        p.advance(2);
        true
    } else if p.looking_at("rr") {
        p.advance(2);
        false
    } else {
        p.advance(1);
        p.dialect == Dialect::Houserule
    };
    let roll20_only = p.text_since(col).eq_ignore_ascii_case("ro").then_some("rerolls once on");
    let on = condition(p, col, roll20_only, "the reroll condition")?.unwrap_or(Cmp::Eq(sides.min()));
    Ok(Reroll { on, once })
}

/// The condition after an explode or reroll modifier (the text from `col` to the cursor), if
/// any. `roll20_only` says what the modifier does when only Roll20 spells it: then `>N` and `<N`
/// are refused in Houserule's dialect, as is Foundry's limited form (`r1=1`) after any of them.
fn condition(p: &mut Cursor, col: usize, roll20_only: Option<&str>, what: &str) -> Result<Option<Cmp>, DiceError> {
    let word = p.text_since(col);
    if let Some(does) = roll20_only {
        no_strict_conflict(p, col, &word, does)?;
    }
    let bare_number = p.peek().is_some_and(|d| d.is_ascii_digit());
    let on = p.cmp(what)?;
    no_limited_form(p, col, bare_number, &word)?;
    Ok(on)
}

/// Where each checked modifier stands, for errors.
struct Columns {
    explode: usize,
    reroll: usize,
    unique: usize,
    limits: usize,
}

/// In Houserule's dialect, refuses Foundry's limited reroll or explosion (`r1=1`: at most one
/// die rerolled on a 1; `x2>=5`), which Houserule does not support: read as written, the
/// comparison would count successes instead.
fn no_limited_form(p: &Cursor, col: usize, bare_number: bool, word: &str) -> Result<(), DiceError> {
    if p.dialect != Dialect::Houserule || !bare_number || !matches!(p.peek(), Some('>' | '<' | '=')) {
        return Ok(());
    }
    Err(DiceError::at(
        col,
        format!(
            "'{word}' with a number and then a condition is Foundry's limit on how many dice it takes, which \
             Houserule does not support: write the condition alone (such as '{word}=1'), and 'cs' before a \
             condition that counts successes"
        ),
    ))
}

/// The modifiers after a group `{…}`: keep/drop and counting, and whether the group counts
/// with a bare comparison (Roll20's group success, `{3d20+5}>=21`).
pub(super) fn group_modifiers(p: &mut Cursor) -> Result<(Option<Keep>, Counting, bool), DiceError> {
    let mut kept = None;
    let mut c = Counting::default();
    let mut bare = false;
    while let Some(ch) = p.peek() {
        let col = p.col();
        let ch = ch.to_ascii_lowercase();
        let comparison = matches!(ch, '>' | '<' | '=');
        if ch == 'k' || (ch == 'd' && !p.looking_at("df")) {
            once(kept.is_some(), col, "only one keep or drop modifier is allowed per group")?;
            kept = Some(keep(p, col)?);
        } else if counting(p, &mut c, None, col)? {
            bare |= comparison;
        } else {
            if ch.is_ascii_alphanumeric() || matches!(ch, '!') {
                return Err(unknown(p, col));
            }
            break;
        }
    }
    Ok((kept, c, bare))
}

/// A group of one roll keeps or counts its dice: it may only add dice terms that do not keep
/// or count on their own — and, when `numbers` (it counts with a bare comparison and keeps
/// nothing: `{3d20+5}>=21`), add or take away whole numbers, which go to each die.
pub(super) fn check_pooled(node: &Node, column: usize, numbers: bool) -> Result<(), DiceError> {
    let ok = match node {
        Node::Dice(d) => d.keep.is_none() && !d.counting.is_set(),
        Node::Number(_) => numbers,
        Node::Op { op: Op::Add, left, right, .. } => {
            return check_pooled(left, column, numbers).and_then(|_| check_pooled(right, column, numbers))
        }
        Node::Op { op: Op::Sub, left, right, .. } if numbers && matches!(**right, Node::Number(_)) => {
            return check_pooled(left, column, numbers)
        }
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(DiceError::at(
            column,
            "a group of one roll keeps or counts its dice, so it may only add dice terms that keep and count \
             nothing themselves (and, to count with a comparison such as '{3d20+5}>=21', numbers that go to \
             each die); to keep or count whole rolls, separate them with ','",
        ))
    }
}

fn keep(p: &mut Cursor, col: usize) -> Result<Keep, DiceError> {
    let is_keep = p.looking_at("k");
    p.advance(1);
    let highest = if p.looking_at("h") {
        p.advance(1);
        Some(true)
    } else if p.looking_at("l") {
        p.advance(1);
        Some(false)
    } else {
        None
    };
    // With no number, one die is kept or dropped (both VTTs).
    let n = u32::try_from(p.number().map_or(1, |(n, _)| n)).unwrap_or(u32::MAX);
    if is_keep && n == 0 {
        return Err(DiceError::at(col, "keeping zero dice leaves nothing to roll"));
    }
    // A bare `k` keeps the highest, a bare `d` drops the lowest (both VTTs agree).
    Ok(match (is_keep, highest.unwrap_or(is_keep)) {
        (true, true) => Keep::Highest(n),
        (true, false) => Keep::Lowest(n),
        (false, true) => Keep::DropHighest(n),
        (false, false) => Keep::DropLowest(n),
    })
}

pub(super) fn once(already: bool, col: usize, message: &str) -> Result<(), DiceError> {
    if already {
        Err(DiceError::at(col, message))
    } else {
        Ok(())
    }
}

pub(super) fn required(p: &mut Cursor, what: &str, word: &str) -> Result<Cmp, DiceError> {
    p.cmp(what)?.ok_or_else(|| DiceError::at(p.col(), format!("expected a condition such as >=4 after '{word}'")))
}

fn signed_number(p: &mut Cursor, word: &str) -> Result<i64, DiceError> {
    let negative = p.peek() == Some('-');
    if negative {
        p.advance(1);
    }
    match p.number() {
        Some((n, col)) if n > MAX_CONSTANT as u64 => {
            Err(DiceError::at(col, format!("{n} is too large after '{word}'")))
        }
        Some((n, _)) => Ok(if negative { -(n as i64) } else { n as i64 }),
        None => Err(DiceError::at(p.col(), format!("expected a number after '{word}'"))),
    }
}

/// Every modifier a dice term reads, as written after the dice (besides a comparison such as
/// `>=8` for successes, and `f<=3` for failures after one).
pub const MODIFIERS: &[&str] = &[
    "!", "!!", "!p", "!!p", "x", "xo", "r", "ro", "rr", "k", "kh", "kl", "d", "dh", "dl", "cs", "cf", "df", "crit",
    "fumble", "min", "max", "s", "sa", "sd", "u",
];

/// The error for a modifier Houserule does not know, naming the Foundry ones it leaves out.
fn unknown(p: &mut Cursor, col: usize) -> DiceError {
    for (word, what) in [
        ("ms", "margin of success"),
        ("even", "counting even dice"),
        ("odd", "counting odd dice"),
        ("sf", "subtracting failed dice"),
    ] {
        if p.looking_at(word) {
            return DiceError::at(col, format!("'{word}' ({what}, a Foundry modifier) is not supported"));
        }
    }
    let c = p.peek().unwrap_or(' ');
    DiceError::at(
        col,
        format!(
            "unknown modifier '{c}': expected one of {}, or a comparison such as >=8 (successes)",
            MODIFIERS.join(" ")
        ),
    )
}

/// Refuses terms that could not be rolled in bounded time.
fn check_term(t: &DiceTerm, cols: &Columns) -> Result<(), DiceError> {
    let sides = t.sides;
    let all = sides.min()..=sides.max();
    if let Some(r) = t.reroll {
        if !all.clone().any(|f| r.on.holds(f)) {
            return Err(DiceError::at(cols.reroll, format!("no face of a {sides} is rerolled on {}", r.on)));
        }
    }
    let settled = t.settled_faces();
    if settled.is_empty() {
        return Err(DiceError::at(
            cols.reroll,
            format!("every face of a {sides} is rerolled: the roll would never end"),
        ));
    }
    if let Some(e) = t.explode {
        if !settled.iter().any(|f| e.on.holds(*f)) {
            return Err(DiceError::at(cols.explode, format!("no face of a {sides} can explode on {}", e.on)));
        }
        if e.kind != ExplodeKind::Once && settled.iter().all(|f| e.on.holds(*f)) {
            return Err(DiceError::at(
                cols.explode,
                format!("every face of a {sides} explodes on {}: the roll would never end", e.on),
            ));
        }
        if t.unique {
            return Err(DiceError::at(cols.unique, "a unique roll cannot explode"));
        }
    }
    if t.unique && t.count as usize > settled.len() {
        return Err(DiceError::at(
            cols.unique,
            format!("{} unique dice cannot all differ: a {sides} has only {} faces to give", t.count, settled.len()),
        ));
    }
    if let (Some(lo), Some(hi)) = (t.min, t.max) {
        if lo > hi {
            return Err(DiceError::at(cols.limits, format!("min{lo} is above max{hi}")));
        }
    }
    Ok(())
}
