//! Token pools: counters of identical tokens, optionally of several kinds.
//!
//! A pool keeps a count per kind (a single-kind pool uses the kind `token`), a floor and an
//! optional cap on its total. Every operation here is computed on copies and returns the new
//! counts, so a caller can check both sides of a transfer before changing anything: a transfer
//! either moves exactly `n` tokens of one kind or fails, and never creates or destroys any.

use crate::visibility::Visibility;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind used by single-kind pools.
pub const DEFAULT_KIND: &str = "token";

/// Counts per kind, in declaration order.
pub type Counts = IndexMap<String, i64>;

/// A pool of tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Pool {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub counts: Counts,
    #[serde(default)]
    pub floor: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<i64>,
    #[serde(default)]
    pub visibility: Visibility,
}

/// Why a pool operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    #[error("{pool} holds at most {cap} (it has {total}; adding {adding} would make {would})")]
    OverCap { pool: String, cap: i64, total: i64, adding: i64, would: i64 },
    #[error("{pool} cannot go below {floor} (it has {total}; taking {taking} would leave {would})")]
    BelowFloor { pool: String, floor: i64, total: i64, taking: i64, would: i64 },
    #[error("{pool} has only {have} {kind} (asked for {asked})")]
    NotEnoughOfKind { pool: String, kind: String, have: i64, asked: i64 },
    #[error("{pool} has no kind '{kind}' (its kinds are {known})")]
    UnknownKind { pool: String, kind: String, known: String },
    #[error("a pool amount must not be negative (got {0})")]
    Negative(i64),
    #[error("a pool cannot move tokens to itself ({0})")]
    SamePool(String),
    #[error("{pool}: {message}")]
    Invalid { pool: String, message: String },
}

impl Pool {
    /// A single-kind pool.
    pub fn new(initial: i64, floor: i64, cap: Option<i64>, visibility: Visibility) -> Pool {
        let mut counts = Counts::new();
        counts.insert(DEFAULT_KIND.to_string(), initial);
        Pool { label: None, counts, floor, cap, visibility }
    }

    pub fn total(&self) -> i64 {
        self.counts.values().sum()
    }

    pub fn count(&self, kind: &str) -> Option<i64> {
        self.counts.get(kind).copied()
    }

    /// The kind an operation means when it names none: the only kind of a single-kind pool.
    pub fn default_kind(&self) -> Option<&str> {
        if self.counts.len() == 1 {
            self.counts.keys().next().map(String::as_str)
        } else {
            None
        }
    }

    fn kind_or_default<'a>(&'a self, name: &str, kind: Option<&'a str>) -> Result<&'a str, PoolError> {
        match kind {
            Some(k) if self.counts.contains_key(k) => Ok(k),
            Some(k) => Err(self.unknown(name, k)),
            None => self.default_kind().ok_or_else(|| PoolError::Invalid {
                pool: name.to_string(),
                message: format!("holds several kinds ({}); say which", self.known()),
            }),
        }
    }

    fn known(&self) -> String {
        self.counts.keys().cloned().collect::<Vec<_>>().join(", ")
    }

    fn unknown(&self, name: &str, kind: &str) -> PoolError {
        PoolError::UnknownKind { pool: name.to_string(), kind: kind.to_string(), known: self.known() }
    }

    /// Checks that `counts` would be a valid state of this pool.
    pub fn check(&self, name: &str, counts: &Counts) -> Result<(), PoolError> {
        for (k, v) in counts {
            if !self.counts.contains_key(k) {
                return Err(self.unknown(name, k));
            }
            if *v < 0 {
                return Err(PoolError::Invalid { pool: name.into(), message: format!("{k} would be {v}") });
            }
        }
        let total: i64 = counts.values().sum();
        if let Some(cap) = self.cap {
            if total > cap {
                return Err(PoolError::OverCap {
                    pool: name.into(),
                    cap,
                    total: self.total(),
                    adding: total - self.total(),
                    would: total,
                });
            }
        }
        if total < self.floor {
            return Err(PoolError::BelowFloor {
                pool: name.into(),
                floor: self.floor,
                total: self.total(),
                taking: self.total() - total,
                would: total,
            });
        }
        Ok(())
    }

    /// Counts after adding `n` tokens of `kind`; refuses to pass the cap.
    pub fn added(&self, name: &str, kind: Option<&str>, n: i64) -> Result<Counts, PoolError> {
        if n < 0 {
            return Err(PoolError::Negative(n));
        }
        let kind = self.kind_or_default(name, kind)?;
        let mut counts = self.counts.clone();
        *counts.get_mut(kind).expect("kind checked") += n;
        self.check(name, &counts)?;
        Ok(counts)
    }

    /// How many of `n` tokens fit under the cap.
    pub fn room(&self, n: i64) -> i64 {
        match self.cap {
            Some(cap) => n.min((cap - self.total()).max(0)),
            None => n,
        }
    }

    /// Counts after taking `n` tokens of `kind`; refuses to pass the floor or take more of a
    /// kind than the pool holds.
    pub fn taken(&self, name: &str, kind: Option<&str>, n: i64) -> Result<Counts, PoolError> {
        if n < 0 {
            return Err(PoolError::Negative(n));
        }
        let kind = self.kind_or_default(name, kind)?;
        let have = self.counts[kind];
        if have < n {
            if self.counts.len() > 1 {
                return Err(PoolError::NotEnoughOfKind { pool: name.into(), kind: kind.into(), have, asked: n });
            }
            return Err(PoolError::BelowFloor {
                pool: name.into(),
                floor: self.floor.max(0),
                total: self.total(),
                taking: n,
                would: self.total() - n,
            });
        }
        let mut counts = self.counts.clone();
        *counts.get_mut(kind).expect("kind checked") -= n;
        self.check(name, &counts)?;
        Ok(counts)
    }

    /// How many of `n` tokens can be taken without passing the floor.
    pub fn available(&self, kind: Option<&str>, n: i64) -> i64 {
        let have = match kind.or(self.default_kind()) {
            Some(k) => self.counts.get(k).copied().unwrap_or(0),
            None => 0,
        };
        n.min(have).min((self.total() - self.floor).max(0)).max(0)
    }

    /// Counts with the total of a single-kind pool set to `n`.
    pub fn set_to(&self, name: &str, kind: Option<&str>, n: i64) -> Result<Counts, PoolError> {
        let kind = self.kind_or_default(name, kind)?;
        let mut counts = self.counts.clone();
        *counts.get_mut(kind).expect("kind checked") = n;
        self.check(name, &counts)?;
        Ok(counts)
    }
}

/// Computes both sides of moving `n` tokens of `kind` from `from` to `to`. Both pools must know
/// the kind; the result conserves the total across the two pools.
pub fn transfer(
    (from_name, from): (&str, &Pool),
    (to_name, to): (&str, &Pool),
    kind: Option<&str>,
    n: i64,
) -> Result<(Counts, Counts), PoolError> {
    if from_name == to_name {
        return Err(PoolError::SamePool(from_name.to_string()));
    }
    let kind = match kind {
        Some(k) => k.to_string(),
        None => from
            .default_kind()
            .ok_or_else(|| PoolError::Invalid {
                pool: from_name.into(),
                message: "holds several kinds; say which to move".into(),
            })?
            .to_string(),
    };
    let to_kind = if to.counts.contains_key(&kind) {
        kind.clone()
    } else if from.counts.len() == 1 && to.counts.len() == 1 {
        // Two single-kind pools exchange their one kind of token.
        to.default_kind().expect("single kind").to_string()
    } else {
        return Err(to.unknown(to_name, &kind));
    };
    let new_from = from.taken(from_name, Some(&kind), n)?;
    let new_to = to.added(to_name, Some(&to_kind), n)?;
    Ok((new_from, new_to))
}

/// A pool's address: a table pool by name (`momentum`) or an entity's pool (`gandolf.hero`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct PoolRef {
    pub entity: Option<String>,
    pub name: String,
}

crate::string_schema!(PoolRef, "PoolRef", "^([^.]+\\.)?[^.]+$", "A pool: NAME (a table pool) or ENTITY.NAME");

impl PoolRef {
    pub fn parse(text: &str) -> Result<PoolRef, PoolRefError> {
        let t = text.trim();
        let (entity, name) = match t.rsplit_once('.') {
            Some((e, n)) => (Some(e.to_string()), n.to_string()),
            None => (None, t.to_string()),
        };
        if name.is_empty() || entity.as_deref() == Some("") {
            return Err(PoolRefError(format!("'{t}' is not a pool: use NAME or ENTITY.NAME")));
        }
        Ok(PoolRef { entity, name })
    }
}

impl fmt::Display for PoolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.entity {
            Some(e) => write!(f, "{e}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

impl From<PoolRef> for String {
    fn from(p: PoolRef) -> String {
        p.to_string()
    }
}

/// Text that does not name a pool, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PoolRefError(pub String);

impl TryFrom<String> for PoolRef {
    type Error = PoolRefError;
    fn try_from(s: String) -> Result<PoolRef, PoolRefError> {
        PoolRef::parse(&s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn momentum() -> Pool {
        Pool::new(4, 0, Some(6), Visibility::Public)
    }

    #[test]
    fn caps_and_floors_hold() {
        let p = momentum();
        assert_eq!(p.added("momentum", None, 2).unwrap()["token"], 6);
        let e = p.added("momentum", None, 3).unwrap_err();
        assert!(matches!(e, PoolError::OverCap { cap: 6, would: 7, .. }), "{e}");
        assert_eq!(p.room(5), 2, "only two fit under the cap of 6");
        assert!(matches!(p.taken("momentum", None, 5).unwrap_err(), PoolError::BelowFloor { .. }));
        assert_eq!(p.available(None, 10), 4);
        assert!(matches!(p.added("momentum", None, -1).unwrap_err(), PoolError::Negative(-1)));
    }

    #[test]
    fn transfer_conserves_tokens() {
        let bag = Pool::new(20, 0, None, Visibility::Hidden);
        let bowl = Pool::new(20, 0, None, Visibility::Gm);
        let (b, w) = transfer(("white_bag", &bag), ("black_bowl", &bowl), None, 5).unwrap();
        assert_eq!(b["token"] + w["token"], 40, "a transfer neither creates nor destroys tokens");
        assert_eq!(b["token"], 15);
        let err = transfer(("white_bag", &bag), ("black_bowl", &bowl), None, 21).unwrap_err();
        assert!(matches!(err, PoolError::BelowFloor { .. }), "{err}");
        let capped = Pool::new(5, 0, Some(6), Visibility::Public);
        assert!(matches!(
            transfer(("white_bag", &bag), ("capped", &capped), None, 2).unwrap_err(),
            PoolError::OverCap { .. }
        ));
    }

    #[test]
    fn kinds_are_kept_apart() {
        let mut wires = Pool::new(0, 0, None, Visibility::Public);
        wires.counts =
            [("green".to_string(), 1), ("blue".to_string(), 2), ("red".to_string(), 1)].into_iter().collect();
        assert_eq!(wires.total(), 4);
        let c = wires.added("bomb.wires", Some("blue"), 1).unwrap();
        assert_eq!(c["blue"], 3);
        assert!(matches!(wires.added("bomb.wires", Some("white"), 1).unwrap_err(), PoolError::UnknownKind { .. }));
        assert!(wires.added("bomb.wires", None, 1).is_err(), "a many-kind pool needs a kind");
        assert!(matches!(wires.taken("bomb.wires", Some("red"), 2).unwrap_err(), PoolError::NotEnoughOfKind { .. }));
    }

    #[test]
    fn pool_refs_parse() {
        assert_eq!(PoolRef::parse("gandolf.hero").unwrap().entity.as_deref(), Some("gandolf"));
        assert_eq!(PoolRef::parse("momentum").unwrap().to_string(), "momentum");
        assert!(PoolRef::parse(".x").is_err());
    }
}
