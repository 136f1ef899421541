//! Where faces come from.
//!
//! [`SeededStream`] derives every roll from the campaign seed, a roll counter and the
//! [`Entropy`] the acting side supplied with the action, so anyone who later learns the seed can
//! recompute each roll and see that none was skipped or redone, while nobody could compute a
//! roll before the action was taken (the seed holder lacks the entropy; the actor lacks the
//! seed). The stream for roll `k` is ChaCha20 keyed with
//! `SHA-256("houserule-roll-v2" ‖ seed ‖ k as u64 little-endian ‖ entropy)` — or, for a roll
//! recorded without entropy (files from before it existed), `SHA-256("houserule-roll-v1" ‖ seed
//! ‖ k)`. A die with `n` faces takes the next 32-bit word `v`, rejecting words at or above
//! `floor(2³² / n) · n`, and reads face `min + v mod n`. `docs/dice.md` states the same
//! algorithm, and why it holds, for people who want to check rolls with their own tools.
//!
//! [`Forced`] hands out faces given in advance, in order, and refuses a face the die cannot show,
//! a roll that needs more faces than were given, and (on [`Forced::finish`]) faces left unused.

use super::{DiceError, Sides};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};
use std::collections::VecDeque;

/// A supplier of die faces.
pub trait DiceSource {
    fn face(&mut self, sides: Sides) -> Result<i64, DiceError>;
}

/// The faces of one generated roll.
pub struct SeededStream {
    rng: ChaCha20Rng,
}

impl SeededStream {
    /// The stream of roll `counter`, mixing in the action's entropy when it has some.
    pub fn for_roll(seed: &[u8; 32], counter: u64, entropy: Option<&Entropy>) -> Self {
        let mut h = Sha256::new();
        h.update(if entropy.is_some() { b"houserule-roll-v2" } else { b"houserule-roll-v1" });
        h.update(seed);
        h.update(counter.to_le_bytes());
        if let Some(e) = entropy {
            h.update(e.0);
        }
        SeededStream { rng: ChaCha20Rng::from_seed(h.finalize().into()) }
    }
}

/// Why a text is not entropy.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntropyError {
    #[error("entropy must be 64 hex digits, not '{0:.80}'")]
    NotHex(String),
    #[error("entropy must be 32 bytes (64 hex digits), not {0}")]
    WrongLength(usize),
}

/// 32 random bytes the acting side supplies at the moment it acts (a player's browser, or the
/// operating system of the machine the GM acts on), recorded with every roll they go into.
/// Written as 64 hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entropy(pub [u8; 32]);

impl Entropy {
    /// Reads 64 hex digits.
    pub fn parse(text: &str) -> Result<Entropy, EntropyError> {
        let text = text.trim();
        let bytes = hex::decode(text).map_err(|_| EntropyError::NotHex(text.to_string()))?;
        let bytes: [u8; 32] = bytes.try_into().map_err(|b: Vec<u8>| EntropyError::WrongLength(b.len()))?;
        Ok(Entropy(bytes))
    }

    /// Fresh entropy from the operating system.
    pub fn fresh() -> Entropy {
        let mut bytes = [0u8; 32];
        getrandom::getrandom(&mut bytes).expect("the operating system's random source");
        Entropy(bytes)
    }
}

impl std::fmt::Display for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl std::fmt::Debug for Entropy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Entropy({self})")
    }
}

impl serde::Serialize for Entropy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for Entropy {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entropy, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Entropy::parse(&text).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Entropy {
    fn schema_name() -> String {
        "Entropy".into()
    }
    fn json_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        let mut schema = gen.subschema_for::<String>().into_object();
        schema.metadata().description = Some("32 random bytes as 64 hex digits".into());
        schema.string().pattern = Some("^[0-9a-fA-F]{64}$".into());
        schema.into()
    }
}

impl DiceSource for SeededStream {
    fn face(&mut self, sides: Sides) -> Result<i64, DiceError> {
        let n = u64::from(sides.faces());
        let limit = (1u64 << 32) / n * n;
        loop {
            let v = u64::from(self.rng.next_u32());
            if v < limit {
                return Ok(sides.min() + (v % n) as i64);
            }
        }
    }
}

/// The seed for a number given on the command line (reproducible demos and tests).
pub fn seed_from_number(n: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"houserule-seed-v1");
    h.update(n.to_le_bytes());
    h.finalize().into()
}

/// The public commitment to a seed: its SHA-256, hex.
pub fn seed_commitment(seed: &[u8; 32]) -> String {
    hex::encode(Sha256::digest(seed))
}

/// Faces supplied in advance.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Forced {
    faces: VecDeque<i64>,
    given: usize,
}

impl Forced {
    pub fn new(faces: impl IntoIterator<Item = i64>) -> Self {
        let faces: VecDeque<i64> = faces.into_iter().collect();
        let given = faces.len();
        Forced { faces, given }
    }

    pub fn remaining(&self) -> usize {
        self.faces.len()
    }

    /// Fails when some forced faces were never used: a typed-in roll that does not match what
    /// the action rolled is a mistake worth reporting.
    pub fn finish(&self) -> Result<(), DiceError> {
        if self.faces.is_empty() {
            Ok(())
        } else {
            let used = self.given - self.faces.len();
            Err(DiceError::general(format!(
                "{} forced face{} given but the action rolled only {} {}",
                self.given,
                if self.given == 1 { " was" } else { "s were" },
                used,
                if used == 1 { "die" } else { "dice" }
            )))
        }
    }

    /// Parses faces as a player types them: `4,6,1`, `6 4 1`, `+,-,0` (Fudge symbols, `−` too)
    /// or `-1,0,1`, separated by commas, semicolons or spaces. An error names the column.
    pub fn parse_list(text: &str) -> Result<Vec<i64>, DiceError> {
        let mut out = Vec::new();
        let mut column = 0;
        let mut token = String::new();
        let mut start = 0;
        let finish = |token: &mut String, start: usize, out: &mut Vec<i64>| -> Result<(), DiceError> {
            if token.is_empty() {
                return Ok(());
            }
            let face = match token.as_str() {
                "+" => 1,
                "-" | "\u{2212}" => -1,
                "0" | "blank" | "_" => 0,
                t => t.parse::<i64>().map_err(|_| DiceError::at(start, format!("'{t}' is not a die face")))?,
            };
            out.push(face);
            token.clear();
            Ok(())
        };
        for c in text.chars() {
            column += 1;
            if c == ',' || c == ';' || c.is_whitespace() {
                finish(&mut token, start, &mut out)?;
            } else {
                if token.is_empty() {
                    start = column;
                }
                token.push(c);
            }
        }
        finish(&mut token, start, &mut out)?;
        Ok(out)
    }
}

impl DiceSource for Forced {
    fn face(&mut self, sides: Sides) -> Result<i64, DiceError> {
        let index = self.given - self.faces.len() + 1;
        match self.faces.pop_front() {
            None => Err(DiceError::general(format!(
                "the roll needs a {index}{} die ({sides}) but only {} forced face{} given",
                ordinal_suffix(index),
                self.given,
                if self.given == 1 { " was" } else { "s were" }
            ))),
            Some(face) if !sides.contains(face) => Err(DiceError::general(format!(
                "forced face {face} (the {index}{} forced die) cannot come up on a {sides}, which shows {} to {}",
                ordinal_suffix(index),
                sides.min(),
                sides.max()
            ))),
            Some(face) => Ok(face),
        }
    }
}

fn ordinal_suffix(n: usize) -> &'static str {
    match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_stream_is_reproducible_and_in_range() {
        let seed = [7u8; 32];
        let a: Vec<i64> = {
            let mut s = SeededStream::for_roll(&seed, 3, None);
            (0..50).map(|_| s.face(Sides::Number(6)).unwrap()).collect()
        };
        let b: Vec<i64> = {
            let mut s = SeededStream::for_roll(&seed, 3, None);
            (0..50).map(|_| s.face(Sides::Number(6)).unwrap()).collect()
        };
        assert_eq!(a, b, "the same seed and counter must give the same faces");
        let c: Vec<i64> = {
            let mut s = SeededStream::for_roll(&seed, 4, None);
            (0..50).map(|_| s.face(Sides::Number(6)).unwrap()).collect()
        };
        assert_ne!(a, c, "another counter must give another stream");
        assert!(a.iter().all(|f| (1..=6).contains(f)));
        let mut s = SeededStream::for_roll(&seed, 9, None);
        for _ in 0..300 {
            let f = s.face(Sides::Fudge).unwrap();
            assert!((-1..=1).contains(&f));
            let p = s.face(Sides::Percentile).unwrap();
            assert!((1..=100).contains(&p));
        }
    }

    #[test]
    fn forced_faces_are_checked() {
        let mut f = Forced::new([4, 7]);
        assert_eq!(f.face(Sides::Number(6)).unwrap(), 4);
        let e = f.face(Sides::Number(6)).unwrap_err();
        assert!(e.message.contains("forced face 7"), "{}", e.message);
        let mut f = Forced::new([2]);
        f.face(Sides::Number(6)).unwrap();
        let e = f.face(Sides::Number(6)).unwrap_err();
        assert!(e.message.contains("2nd die") && e.message.contains("only 1 forced face was given"), "{}", e.message);
        let f = Forced::new([1, 2, 3]);
        assert!(f.finish().unwrap_err().message.contains("3 forced faces were given"));
        assert_eq!(Forced::parse_list("+, -,0,3").unwrap(), vec![1, -1, 0, 3]);
        assert_eq!(Forced::parse_list("1,x").unwrap_err().column, 3);
        assert_eq!(
            Forced::parse_list("6 4  1; \u{2212}").unwrap(),
            vec![6, 4, 1, -1],
            "spaces, semicolons and a typographic minus"
        );
        assert_eq!(Forced::parse_list("6 4 x1").unwrap_err().column, 5);
    }
}
