//! The dice-expression parser.
//!
//! Accepts the notation players already type: `4d6`, `d20`, `4dF`, `d%`, `1d8!` (explode on the
//! maximum), `1d10!>=9`, `4d6kh3`, `2d20kl1`, `4d6dl1`, `6d6cs>=4`, and sums or differences of
//! such terms and plain numbers (`2d6+1d4-1`). Every error names the 1-based column where the
//! problem starts. Limits are enforced here, so an expression that parses can always be rolled
//! without unbounded work.

use super::{DiceError, Sides};
use serde::{Deserialize, Serialize};

/// Most dice one expression may roll before explosions.
pub const MAX_DICE: u32 = 1000;
/// Largest die: d1000.
pub const MAX_SIDES: u32 = 1000;
/// Largest constant term.
pub const MAX_CONSTANT: i64 = 1_000_000;
/// Longest expression accepted, in characters.
pub const MAX_EXPR_LEN: usize = 200;

/// A comparison used by explosion and success-counting modifiers.
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

    /// Parses `>=4`, `<=1`, `>3`, `<2`, `=6` or a bare `6` (meaning `=6`).
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

/// Keep or drop the highest or lowest dice of a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Keep {
    Highest(u32),
    Lowest(u32),
    DropHighest(u32),
    DropLowest(u32),
}

/// One dice term such as `4d6kh3` or `6d6cs>=4`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiceTerm {
    pub count: u32,
    pub sides: Sides,
    pub explode: Option<Cmp>,
    pub keep: Option<Keep>,
    pub successes: Option<Cmp>,
}

/// A signed term of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Dice { negative: bool, dice: DiceTerm },
    Constant(i64),
}

/// A parsed dice expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    pub source: String,
    pub terms: Vec<Term>,
}

impl Expr {
    /// How many dice the expression rolls before explosions.
    pub fn dice_count(&self) -> u32 {
        self.terms
            .iter()
            .map(|t| match t {
                Term::Dice { dice, .. } => dice.count,
                Term::Constant(_) => 0,
            })
            .sum()
    }
}

/// Parses a dice expression, or says which column is wrong and why.
pub fn parse(source: &str) -> Result<Expr, DiceError> {
    if source.chars().count() > MAX_EXPR_LEN {
        return Err(DiceError::at(MAX_EXPR_LEN + 1, format!("expression is longer than {MAX_EXPR_LEN} characters")));
    }
    let mut p = Parser { chars: source.chars().collect(), pos: 0 };
    let mut terms = Vec::new();
    p.skip_ws();
    if p.at_end() {
        return Err(DiceError::at(1, "empty dice expression"));
    }
    let mut negative = false;
    if let Some(c @ ('+' | '-')) = p.peek() {
        negative = c == '-';
        p.pos += 1;
        p.skip_ws();
    }
    loop {
        terms.push(p.term(negative)?);
        p.skip_ws();
        match p.peek() {
            None => break,
            Some('+') => negative = false,
            Some('-') => negative = true,
            Some(c) => {
                return Err(DiceError::at(
                    p.col(),
                    format!("unexpected '{c}': expected '+', '-' or the end of the expression"),
                ))
            }
        }
        let op_col = p.col();
        p.pos += 1;
        p.skip_ws();
        if p.at_end() {
            return Err(DiceError::at(op_col, "expected a term after the operator"));
        }
    }
    let expr = Expr { source: source.trim().to_string(), terms };
    let total = expr.dice_count();
    if total > MAX_DICE {
        return Err(DiceError::at(1, format!("{total} dice is more than the limit of {MAX_DICE}")));
    }
    Ok(expr)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }
    fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }
    fn col(&self) -> usize {
        self.pos + 1
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn number(&mut self) -> Option<(u64, usize)> {
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(d as u64);
            self.pos += 1;
        }
        (self.pos > start).then_some((value, start + 1))
    }

    fn term(&mut self, negative: bool) -> Result<Term, DiceError> {
        let start_col = self.col();
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
            let dice = self.modifiers(count, sides)?;
            return Ok(Term::Dice { negative, dice });
        }
        match count {
            Some((n, col)) => {
                if n as i64 > MAX_CONSTANT || n > i64::MAX as u64 {
                    return Err(DiceError::at(col, format!("constant {n} is larger than {MAX_CONSTANT}")));
                }
                Ok(Term::Constant(if negative { -(n as i64) } else { n as i64 }))
            }
            None => Err(DiceError::at(
                start_col,
                match self.peek() {
                    Some(c) => format!("unexpected '{c}': expected a number or a dice term like 2d6"),
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

    fn cmp(&mut self, what: &str) -> Result<Option<(Cmp, usize)>, DiceError> {
        let col = self.col();
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
                Cmp::Gt
            }
            (Some('<'), _) => {
                self.pos += 1;
                Cmp::Lt
            }
            (Some('='), _) => {
                self.pos += 1;
                Cmp::Eq
            }
            (Some(c), _) if c.is_ascii_digit() => Cmp::Eq,
            _ => return Ok(None),
        };
        match self.number() {
            Some((n, _)) if n <= MAX_CONSTANT as u64 => Ok(Some((ctor(n as i64), col))),
            Some((n, ncol)) => Err(DiceError::at(ncol, format!("{n} is too large in {what}"))),
            None => Err(DiceError::at(self.col(), format!("expected a number in {what}"))),
        }
    }

    fn modifiers(&mut self, count: u32, sides: Sides) -> Result<DiceTerm, DiceError> {
        let mut term = DiceTerm { count, sides, explode: None, keep: None, successes: None };
        loop {
            let col = self.col();
            match (self.peek(), self.peek_at(1)) {
                (Some('!'), _) => {
                    if term.explode.is_some() {
                        return Err(DiceError::at(col, "the term already explodes"));
                    }
                    if sides == Sides::Fudge {
                        return Err(DiceError::at(col, "Fudge dice cannot explode"));
                    }
                    self.pos += 1;
                    let cmp = match self.cmp("the explode condition")? {
                        Some((cmp, _)) => cmp,
                        None => Cmp::Ge(sides.max()),
                    };
                    if (sides.min()..=sides.max()).all(|f| cmp.holds(f)) {
                        return Err(DiceError::at(
                            col,
                            format!("every face of a {sides} explodes on {cmp}: the roll would never end"),
                        ));
                    }
                    if !(sides.min()..=sides.max()).any(|f| cmp.holds(f)) {
                        return Err(DiceError::at(col, format!("no face of a {sides} can explode on {cmp}")));
                    }
                    term.explode = Some(cmp);
                }
                (Some('k' | 'K' | 'd' | 'D'), next) => {
                    let is_keep = matches!(self.peek(), Some('k' | 'K'));
                    let which = match next {
                        Some('h' | 'H') => Some(true),
                        Some('l' | 'L') => Some(false),
                        _ => None,
                    };
                    // A bare 'd' that is not 'dh'/'dl' is not a modifier (it would be a new term).
                    if !is_keep && which.is_none() {
                        return Err(DiceError::at(
                            col,
                            "unexpected 'd': use 'dh' or 'dl' to drop dice, or '+' between terms",
                        ));
                    }
                    if term.keep.is_some() {
                        return Err(DiceError::at(col, "only one keep or drop modifier is allowed per term"));
                    }
                    self.pos += 1 + usize::from(which.is_some());
                    let highest = which.unwrap_or(true);
                    let n = match self.number() {
                        Some((n, _)) => n,
                        None => 1,
                    };
                    let n = u32::try_from(n).unwrap_or(u32::MAX);
                    if is_keep && n == 0 {
                        return Err(DiceError::at(col, "keeping zero dice leaves nothing to roll"));
                    }
                    term.keep = Some(match (is_keep, highest) {
                        (true, true) => Keep::Highest(n),
                        (true, false) => Keep::Lowest(n),
                        (false, true) => Keep::DropHighest(n),
                        (false, false) => Keep::DropLowest(n),
                    });
                }
                (Some('c' | 'C'), Some('s' | 'S')) => {
                    if term.successes.is_some() {
                        return Err(DiceError::at(col, "the term already counts successes"));
                    }
                    self.pos += 2;
                    match self.cmp("the success condition")? {
                        Some((cmp, _)) => term.successes = Some(cmp),
                        None => return Err(DiceError::at(self.col(), "expected a condition such as >=4 after 'cs'")),
                    }
                }
                _ => return Ok(term),
            }
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
        let e = parse("4d6kh3").unwrap();
        assert_eq!(
            e.terms,
            vec![Term::Dice {
                negative: false,
                dice: DiceTerm {
                    count: 4,
                    sides: Sides::Number(6),
                    explode: None,
                    keep: Some(Keep::Highest(3)),
                    successes: None
                }
            }]
        );
        let e = parse("d20 + 5").unwrap();
        assert_eq!(e.terms.len(), 2);
        assert_eq!(e.terms[1], Term::Constant(5));
        let e = parse("4dF").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { dice, .. } if dice.sides == Sides::Fudge && dice.count == 4));
        let e = parse("d%").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { dice, .. } if dice.sides == Sides::Percentile));
        let e = parse("1d8!").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { dice, .. } if dice.explode == Some(Cmp::Ge(8))));
        let e = parse("1d10!>=9").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { dice, .. } if dice.explode == Some(Cmp::Ge(9))));
        let e = parse("7d6cs>=4").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { dice, .. } if dice.successes == Some(Cmp::Ge(4))));
        let e = parse("3d20cs<=12").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { dice, .. } if dice.successes == Some(Cmp::Le(12))));
        let e = parse("4d6dl1").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { dice, .. } if dice.keep == Some(Keep::DropLowest(1))));
        let e = parse("-1d4+2d6-3").unwrap();
        assert!(matches!(&e.terms[0], Term::Dice { negative: true, .. }));
        assert_eq!(e.terms[2], Term::Constant(-3));
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
        assert_eq!(err_col("3d6cs"), 6);
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
