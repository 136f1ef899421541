//! The dice-expression parser: arithmetic, brackets and roll groups around dice terms.
//!
//! Accepts the notation players already type: dice terms (see [`super::term`] for their
//! modifiers), whole numbers, `+ - * /` with the usual precedence (`/` rounds down), brackets,
//! and roll groups `{2d20}kh1`, `{4d6+3, 5d6}kh1`. Every error names the 1-based column where the
//! problem starts. Limits are enforced here, so an expression that parses can always be rolled
//! with bounded work: at most [`MAX_DICE`] dice, [`MAX_EXPR_LEN`] characters, brackets nested
//! [`MAX_DEPTH`] deep, [`MAX_GROUP`] rolls in a group, and no division by a value that can be 0.

use super::dialect::Dialect;
use super::term::{self, Counting, DiceTerm, Keep};
use super::{DiceError, Sides};
use serde::{Deserialize, Serialize};

/// Most dice one expression may roll before explosions and rerolls.
pub const MAX_DICE: u32 = 1000;
/// Largest die: d1000.
pub const MAX_SIDES: u32 = 1000;
/// Largest constant term.
pub const MAX_CONSTANT: i64 = 1_000_000;
/// Longest expression accepted, in characters.
pub const MAX_EXPR_LEN: usize = 200;
/// Deepest nesting of brackets and groups.
pub const MAX_DEPTH: usize = 16;
/// Most rolls in one group.
pub const MAX_GROUP: usize = 50;

/// A comparison used by modifiers: explode, reroll, count successes …
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmp {
    Ge(i64),
    Le(i64),
    Gt(i64),
    Lt(i64),
    Eq(i64),
}

impl Cmp {
    pub fn holds(self, face: i64) -> bool {
        match self {
            Cmp::Ge(n) => face >= n,
            Cmp::Le(n) => face <= n,
            Cmp::Gt(n) => face > n,
            Cmp::Lt(n) => face < n,
            Cmp::Eq(n) => face == n,
        }
    }

    /// The same comparison of values `by` higher: `Ge(21).shifted(-5)` is `Ge(16)`.
    pub fn shifted(self, by: i64) -> Cmp {
        match self {
            Cmp::Ge(n) => Cmp::Ge(n.saturating_add(by)),
            Cmp::Le(n) => Cmp::Le(n.saturating_add(by)),
            Cmp::Gt(n) => Cmp::Gt(n.saturating_add(by)),
            Cmp::Lt(n) => Cmp::Lt(n.saturating_add(by)),
            Cmp::Eq(n) => Cmp::Eq(n.saturating_add(by)),
        }
    }

    /// Parses `>=4`, `<=1`, `>3`, `<2`, `=6` or a bare `6` (meaning `=6`), as a script's marks
    /// are written (`>` and `<` exclude the number, as in Houserule's dialect).
    pub fn parse(text: &str) -> Option<Cmp> {
        let text = text.trim();
        let (ctor, rest): (fn(i64) -> Cmp, &str) = if let Some(r) = text.strip_prefix(">=") {
            (Cmp::Ge, r)
        } else if let Some(r) = text.strip_prefix("<=") {
            (Cmp::Le, r)
        } else if let Some(r) = text.strip_prefix('>') {
            (Cmp::Gt, r)
        } else if let Some(r) = text.strip_prefix('<') {
            (Cmp::Lt, r)
        } else if let Some(r) = text.strip_prefix('=') {
            (Cmp::Eq, r)
        } else {
            (Cmp::Eq, text)
        };
        rest.trim().parse::<i64>().ok().map(ctor)
    }
}

impl std::fmt::Display for Cmp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cmp::Ge(n) => write!(f, ">={n}"),
            Cmp::Le(n) => write!(f, "<={n}"),
            Cmp::Gt(n) => write!(f, ">{n}"),
            Cmp::Lt(n) => write!(f, "<{n}"),
            Cmp::Eq(n) => write!(f, "={n}"),
        }
    }
}

/// An arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    /// Division, rounding down.
    Div,
}

/// A roll group: `{…}` with what is kept or counted of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub items: Vec<Node>,
    pub keep: Option<Keep>,
    pub counting: Counting,
    /// The group as written, for the roll's terms.
    pub text: String,
}

impl Group {
    /// Bounds on the group's value: what its kept rolls add up to, or what it counts.
    fn bounds(&self) -> (i64, i64) {
        const WIDE: i64 = i64::MAX / 4;
        let widened = |f: fn((i64, i64)) -> (i64, i64)| {
            self.items
                .iter()
                .map(Node::bounds)
                .map(f)
                .fold((0i64, 0i64), |(a, b), (lo, hi)| (a.saturating_add(lo), b.saturating_add(hi)))
        };
        match (self.counting.is_set(), self.counting.counts(), self.items.as_slice()) {
            (false, _, _) => widened(|(lo, hi)| (lo.min(0), hi.max(0))),
            // One roll counts its dice: each scores -1, 0 or 1, and explosions add dice.
            (true, true, [one]) if !one.explodes() => (-i64::from(one.dice_count()), i64::from(one.dice_count())),
            (true, true, [_]) => (-WIDE, WIDE),
            (true, true, items) => (-(items.len() as i64), items.len() as i64),
            // `df` alone: a roll that fails counts -1, the others their value.
            (true, false, [_]) => (-WIDE, WIDE),
            (true, false, _) => widened(|(lo, hi)| (lo.min(-1), hi.max(0))),
        }
    }
}

/// A node of a parsed expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Number(i64),
    Dice(DiceTerm),
    Group(Group),
    Neg(Box<Node>),
    /// `column` is where the operator stands (division by zero is reported there).
    Op {
        op: Op,
        left: Box<Node>,
        right: Box<Node>,
        column: usize,
    },
}

impl Node {
    /// How many dice the node rolls before explosions.
    pub fn dice_count(&self) -> u32 {
        match self {
            Node::Number(_) => 0,
            Node::Dice(d) => d.count,
            Node::Group(g) => g.items.iter().map(Node::dice_count).fold(0, u32::saturating_add),
            Node::Neg(n) => n.dice_count(),
            Node::Op { left, right, .. } => left.dice_count().saturating_add(right.dice_count()),
        }
    }

    /// The dice terms of a pooled group's one roll, and the numbers it adds to each die
    /// (`{3d20+5-1}`: `3d20`, 4). The parser lets such a roll only add dice terms and add or
    /// take away numbers ([`super::term::check_pooled`]).
    pub fn pooled(&self) -> (Vec<&DiceTerm>, i64) {
        fn walk<'n>(node: &'n Node, sign: i64, terms: &mut Vec<&'n DiceTerm>, offset: &mut i64) {
            match node {
                Node::Dice(d) => terms.push(d),
                Node::Number(n) => *offset = offset.saturating_add(sign.saturating_mul(*n)),
                Node::Op { op, left, right, .. } => {
                    walk(left, sign, terms, offset);
                    walk(right, if *op == Op::Sub { -sign } else { sign }, terms, offset);
                }
                Node::Group(_) | Node::Neg(_) => {}
            }
        }
        let (mut terms, mut offset) = (Vec::new(), 0);
        walk(self, 1, &mut terms, &mut offset);
        (terms, offset)
    }

    /// Whether any dice term in the node explodes.
    pub fn explodes(&self) -> bool {
        match self {
            Node::Number(_) => false,
            Node::Dice(d) => d.explode.is_some(),
            Node::Group(g) => g.items.iter().any(Node::explodes),
            Node::Neg(n) => n.explodes(),
            Node::Op { left, right, .. } => left.explodes() || right.explodes(),
        }
    }

    /// Bounds on the node's value (wide where explosions make it open-ended).
    pub fn bounds(&self) -> (i64, i64) {
        match self {
            Node::Number(n) => (*n, *n),
            Node::Dice(d) => d.bounds(),
            Node::Group(g) => g.bounds(),
            Node::Neg(n) => {
                let (lo, hi) = n.bounds();
                (hi.saturating_neg(), lo.saturating_neg())
            }
            Node::Op { op, left, right, .. } => {
                let (a, b) = left.bounds();
                let (c, d) = right.bounds();
                match op {
                    Op::Add => (a.saturating_add(c), b.saturating_add(d)),
                    Op::Sub => (a.saturating_sub(d), b.saturating_sub(c)),
                    Op::Mul | Op::Div => {
                        let corners =
                            [a.saturating_mul(c), a.saturating_mul(d), b.saturating_mul(c), b.saturating_mul(d)];
                        let m = corners.iter().map(|x| x.unsigned_abs()).max().unwrap_or(0).min(i64::MAX as u64) as i64;
                        (-m, m)
                    }
                }
            }
        }
    }
}

/// A parsed dice expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    pub source: String,
    pub dialect: Dialect,
    pub root: Node,
}

impl Expr {
    /// How many dice the expression rolls before explosions.
    pub fn dice_count(&self) -> u32 {
        self.root.dice_count()
    }
}

/// Parses a dice expression in Houserule's own dialect, or says which column is wrong and why.
pub fn parse(source: &str) -> Result<Expr, DiceError> {
    parse_in(source, Dialect::Houserule)
}

/// Parses a dice expression in the given dialect.
pub fn parse_in(source: &str, dialect: Dialect) -> Result<Expr, DiceError> {
    if source.chars().count() > MAX_EXPR_LEN {
        return Err(DiceError::at(MAX_EXPR_LEN + 1, format!("expression is longer than {MAX_EXPR_LEN} characters")));
    }
    let mut p = Cursor { chars: source.chars().collect(), pos: 0, dialect, depth: 0 };
    p.skip_ws();
    if p.at_end() {
        return Err(DiceError::at(1, "empty dice expression"));
    }
    let root = p.sum()?;
    p.skip_ws();
    if let Some(c) = p.peek() {
        let what = if c == ')' { "there is no '(' to close".to_string() } else { format!("unexpected '{c}'") };
        return Err(DiceError::at(p.col(), format!("{what}: expected an operator or the end of the expression")));
    }
    let total = root.dice_count();
    if total > MAX_DICE {
        return Err(DiceError::at(1, format!("{total} dice is more than the limit of {MAX_DICE}")));
    }
    Ok(Expr { source: source.trim().to_string(), dialect, root })
}

/// Reads characters with their columns.
pub(super) struct Cursor {
    chars: Vec<char>,
    pos: usize,
    pub(super) dialect: Dialect,
    depth: usize,
}

impl Cursor {
    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    pub(super) fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }
    /// Whether the text at the cursor starts with `word` (ignoring case).
    pub(super) fn looking_at(&self, word: &str) -> bool {
        word.chars().enumerate().all(|(i, w)| self.peek_at(i).is_some_and(|c| c.eq_ignore_ascii_case(&w)))
    }
    pub(super) fn advance(&mut self, n: usize) {
        self.pos += n;
    }
    fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }
    pub(super) fn col(&self) -> usize {
        self.pos + 1
    }
    /// The text from column `from` (1-based) to the cursor.
    pub(super) fn text_since(&self, from: usize) -> String {
        self.chars[from - 1..self.pos].iter().collect()
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_whitespace()) {
            self.pos += 1;
        }
    }

    /// A run of digits: its value (saturating) and its column.
    pub(super) fn number(&mut self) -> Option<(u64, usize)> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(d as u64);
            self.pos += 1;
        }
        (self.pos > start).then_some((value, start + 1))
    }

    /// Whether the cursor is at a comparison that excludes its number as Houserule reads it and
    /// includes it as Roll20 does: `>8` or `<3`, not `>=8`, `<=3` or `=8`.
    pub(super) fn at_strict_comparison(&self) -> bool {
        matches!(self.peek(), Some('>' | '<')) && self.peek_at(1) != Some('=')
    }

    /// A comparison such as `>=4`, `<2`, `=6` or a bare `6`; `None` when none is there. In the
    /// Roll20 dialect `>N` and `<N` include N, as every Roll20 compare point does.
    pub(super) fn cmp(&mut self, what: &str) -> Result<Option<Cmp>, DiceError> {
        let roll20 = self.dialect == Dialect::Roll20;
        let ctor: fn(i64) -> Cmp = match (self.peek(), self.peek_at(1)) {
            (Some('>'), Some('=')) => {
                self.pos += 2;
                Cmp::Ge
            }
            (Some('<'), Some('=')) => {
                self.pos += 2;
                Cmp::Le
            }
            (Some('>'), _) => {
                self.pos += 1;
                if roll20 {
                    Cmp::Ge
                } else {
                    Cmp::Gt
                }
            }
            (Some('<'), _) => {
                self.pos += 1;
                if roll20 {
                    Cmp::Le
                } else {
                    Cmp::Lt
                }
            }
            (Some('='), _) => {
                self.pos += 1;
                Cmp::Eq
            }
            (Some(c), _) if c.is_ascii_digit() => Cmp::Eq,
            _ => return Ok(None),
        };
        let negative = self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit());
        if negative {
            self.pos += 1;
        }
        match self.number() {
            Some((n, _)) if n <= MAX_CONSTANT as u64 => Ok(Some(ctor(if negative { -(n as i64) } else { n as i64 }))),
            Some((n, ncol)) => Err(DiceError::at(ncol, format!("{n} is too large in {what}"))),
            None => Err(DiceError::at(self.col(), format!("expected a number in {what}"))),
        }
    }

    fn sum(&mut self) -> Result<Node, DiceError> {
        self.binary(&[('+', Op::Add), ('-', Op::Sub)], Self::product)
    }

    fn product(&mut self) -> Result<Node, DiceError> {
        self.binary(&[('*', Op::Mul), ('/', Op::Div)], Self::unary)
    }

    /// One level of left-associative operators over operands read by `operand`; a divisor
    /// that can come out as 0 is refused where it is written.
    fn binary(
        &mut self,
        ops: &[(char, Op)],
        operand: fn(&mut Self) -> Result<Node, DiceError>,
    ) -> Result<Node, DiceError> {
        let mut left = operand(self)?;
        loop {
            self.skip_ws();
            let Some(op) = self.peek().and_then(|c| ops.iter().find(|(ch, _)| *ch == c).map(|(_, op)| *op)) else {
                return Ok(left);
            };
            let column = self.col();
            self.pos += 1;
            self.skip_ws();
            if self.at_end() {
                return Err(DiceError::at(column, "expected a term after the operator"));
            }
            let right = operand(self)?;
            if op == Op::Div {
                let (lo, hi) = right.bounds();
                if lo <= 0 && hi >= 0 {
                    return Err(DiceError::at(column, "the divisor can come out as 0"));
                }
            }
            left = Node::Op { op, left: Box::new(left), right: Box::new(right), column };
        }
    }

    fn unary(&mut self) -> Result<Node, DiceError> {
        match self.peek() {
            Some('-') => {
                self.pos += 1;
                self.skip_ws();
                Ok(Node::Neg(Box::new(self.atom()?)))
            }
            Some('+') => {
                self.pos += 1;
                self.skip_ws();
                self.atom()
            }
            _ => self.atom(),
        }
    }

    fn nested<T>(&mut self, inner: impl FnOnce(&mut Self) -> Result<T, DiceError>) -> Result<T, DiceError> {
        if self.depth >= MAX_DEPTH {
            return Err(DiceError::at(self.col(), format!("brackets and groups nest deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        let out = inner(self);
        self.depth -= 1;
        out
    }

    fn atom(&mut self) -> Result<Node, DiceError> {
        let start = self.col();
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.skip_ws();
                let inner = self.nested(Self::sum)?;
                self.skip_ws();
                if self.peek() != Some(')') {
                    return Err(DiceError::at(self.col(), format!("expected ')' to close the '(' at column {start}")));
                }
                self.pos += 1;
                Ok(inner)
            }
            Some('{') => self.group(start),
            _ => self.term(start),
        }
    }

    fn group(&mut self, start: usize) -> Result<Node, DiceError> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if items.len() >= MAX_GROUP {
                return Err(DiceError::at(self.col(), format!("a group holds at most {MAX_GROUP} rolls")));
            }
            items.push(self.nested(Self::sum)?);
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some('}') => {
                    self.pos += 1;
                    break;
                }
                _ => {
                    return Err(DiceError::at(
                        self.col(),
                        format!("expected ',' or '}}' to close the '{{' at column {start}"),
                    ))
                }
            }
        }
        let (keep, counting, bare) = term::group_modifiers(self)?;
        if (keep.is_some() || counting.is_set()) && items.len() == 1 {
            term::check_pooled(&items[0], start, bare && keep.is_none())?;
        }
        Ok(Node::Group(Group { items, keep, counting, text: self.text_since(start) }))
    }

    fn term(&mut self, start: usize) -> Result<Node, DiceError> {
        let count = self.number();
        if matches!(self.peek(), Some('d' | 'D')) {
            let count = match count {
                Some((0, col)) => return Err(DiceError::at(col, "a dice term must roll at least one die")),
                Some((n, col)) if n > MAX_DICE as u64 => {
                    return Err(DiceError::at(col, format!("{n} dice is more than the limit of {MAX_DICE}")))
                }
                Some((n, _)) => n as u32,
                None => 1,
            };
            self.pos += 1;
            let sides = self.sides()?;
            return Ok(Node::Dice(term::modifiers(self, count, sides)?));
        }
        match count {
            Some((n, col)) => {
                if n > MAX_CONSTANT as u64 {
                    return Err(DiceError::at(col, format!("constant {n} is larger than {MAX_CONSTANT}")));
                }
                Ok(Node::Number(n as i64))
            }
            None => Err(DiceError::at(
                start,
                match self.peek() {
                    Some(c) => format!("unexpected '{c}': expected a number, a dice term like 2d6, '(' or '{{'"),
                    None => "expected a number or a dice term like 2d6".to_string(),
                },
            )),
        }
    }

    fn sides(&mut self) -> Result<Sides, DiceError> {
        match self.peek() {
            Some('F' | 'f') => {
                self.pos += 1;
                Ok(Sides::Fudge)
            }
            Some('%') => {
                self.pos += 1;
                Ok(Sides::Percentile)
            }
            _ => match self.number() {
                Some((0, col)) => Err(DiceError::at(col, "a die needs at least one side")),
                Some((n, col)) if n > MAX_SIDES as u64 => {
                    Err(DiceError::at(col, format!("d{n} has more than the limit of {MAX_SIDES} sides")))
                }
                Some((n, _)) => Ok(Sides::Number(n as u32)),
                None => Err(DiceError::at(self.col(), "expected the number of sides, 'F' or '%' after 'd'")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_col(s: &str) -> usize {
        parse(s).expect_err(&format!("{s} should not parse")).column
    }

    #[test]
    fn parses_the_common_notations() {
        let Node::Dice(d) = parse("4d6kh3").unwrap().root else { panic!("4d6kh3 is one dice term") };
        assert_eq!((d.count, d.sides, d.keep), (4, Sides::Number(6), Some(Keep::Highest(3))));
        let Node::Op { op: Op::Add, right, .. } = parse("d20 + 5").unwrap().root else { panic!("a sum") };
        assert_eq!(*right, Node::Number(5));
        let Node::Op { op: Op::Mul, .. } = parse("(2d6+3)*2").unwrap().root else { panic!("a product") };
        let Node::Group(g) = parse("{4d6+3, 5d6}kh1").unwrap().root else { panic!("a group") };
        assert_eq!((g.items.len(), g.keep), (2, Some(Keep::Highest(1))));
        assert_eq!(parse("600d6+400d6").unwrap().dice_count(), 1000);
    }

    #[test]
    fn errors_name_the_column() {
        assert_eq!(err_col("4d"), 3);
        assert_eq!(err_col("4d6 + "), 5);
        assert_eq!(err_col("4d6 x"), 5);
        assert_eq!(err_col("2d6kh3kl1"), 7);
        assert_eq!(err_col("1d6!>=1"), 4);
        assert_eq!(err_col("4dF!"), 4);
        assert_eq!(err_col("0d6"), 1);
        assert_eq!(err_col("1001d6"), 1);
        assert_eq!(err_col("1d1001"), 3);
        assert_eq!(err_col("{2d6, 2d6}cs"), 13, "a group has no highest face to count");
        assert_eq!(err_col(""), 1);
        let e = parse("600d6+600d6").unwrap_err();
        assert!(e.message.contains("1200 dice"), "{}", e.message);
    }

    #[test]
    fn long_input_is_refused_not_parsed() {
        let long = "1+".repeat(10_000) + "1";
        let e = parse(&long).unwrap_err();
        assert!(e.message.contains("longer than"), "{}", e.message);
    }
}
