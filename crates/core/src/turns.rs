//! Turn order: who takes part in an encounter, in what order they act, whose turn it is, the
//! round, who has acted this round and who is holding their turn.
//!
//! The engine keeps the order; the rules decide it. A participant's place is a [`Seat`] with a
//! sort key (an initiative total, a card's rank and suit …): the order is the seats sorted by
//! key, highest first, ties kept in the order the participants joined. Because each seat is its
//! own value, each change to it is recorded with its entity's visibility, so a hidden NPC's
//! place never reaches a player — not in the view, not in an event — while everyone else's does.
//!
//! Guarantee: [`Turns::order`] is a function of the seats alone, so a folded log, an undone one
//! and a live transaction always agree on whose turn comes next.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One participant's place in the turn order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Seat {
    /// What the order sorts on, highest first, compared element by element (an initiative
    /// total `[14]`, an action card `[13, 4]` for the King of spades).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key: Vec<i64>,
    /// Has taken a turn this round.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub acted: bool,
    /// Holds (delays) their turn, to act later when they choose.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
}

/// The turn tracker of a table. Idle (the default) outside an encounter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Turns {
    /// An encounter is running.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub active: bool,
    /// The round of the encounter (1 for the first), 0 outside one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub round: u64,
    /// The participants by entity id, in the order they joined.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub seats: IndexMap<String, Seat>,
    /// Whose turn it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A turn change that does not fit the tracker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    #[error("'{0}' has no place in the turn order")]
    NotSeated(String),
}

impl Turns {
    /// Nothing is kept: no encounter, no seats (the state of every table made before turns).
    pub fn is_idle(&self) -> bool {
        *self == Turns::default()
    }

    /// The participants in turn order: by key, highest first; equal keys in joining order.
    pub fn order(&self) -> Vec<(&str, &Seat)> {
        let mut order: Vec<(&str, &Seat)> = self.seats.iter().map(|(id, s)| (id.as_str(), s)).collect();
        order.sort_by(|a, b| b.1.key.cmp(&a.1.key));
        order
    }

    /// The first participant in order who has neither acted this round nor holds their turn.
    pub fn next_up(&self) -> Option<&str> {
        self.order().into_iter().find(|(_, s)| !s.acted && !s.held).map(|(id, _)| id)
    }

    /// Sets, or with `None` removes, one participant's seat. Removing keeps whose turn it is:
    /// the transaction that removes a current participant moves the turn first.
    pub fn seat(&mut self, entity: &str, seat: Option<&Seat>) -> Result<(), TurnError> {
        match seat {
            Some(s) => match self.seats.get_mut(entity) {
                Some(old) => *old = s.clone(),
                None => {
                    self.seats.insert(entity.to_string(), s.clone());
                }
            },
            None => {
                self.seats.shift_remove(entity).ok_or_else(|| TurnError::NotSeated(entity.to_string()))?;
            }
        }
        Ok(())
    }

    /// Makes it `entity`'s turn (who must have a seat), or no one's.
    pub fn set_current(&mut self, entity: Option<&str>) -> Result<(), TurnError> {
        if let Some(id) = entity {
            if !self.seats.contains_key(id) {
                return Err(TurnError::NotSeated(id.to_string()));
            }
        }
        self.current = entity.map(str::to_string);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn seat(key: &[i64]) -> Seat {
        Seat { key: key.to_vec(), ..Seat::default() }
    }

    #[test]
    fn the_order_is_by_key_highest_first_and_ties_keep_joining_order() {
        let mut t = Turns::default();
        t.seat("mack", Some(&seat(&[12]))).unwrap();
        t.seat("dutch", Some(&seat(&[14]))).unwrap();
        t.seat("thug", Some(&seat(&[12]))).unwrap();
        t.seat("ace", Some(&seat(&[14, 1]))).unwrap();
        let ids: Vec<&str> = t.order().into_iter().map(|(id, _)| id).collect();
        assert_eq!(ids, ["ace", "dutch", "mack", "thug"]);
    }

    #[test]
    fn who_acted_or_holds_is_passed_over() {
        let mut t = Turns::default();
        t.seat("a", Some(&Seat { key: vec![3], acted: true, held: false })).unwrap();
        t.seat("b", Some(&Seat { key: vec![2], acted: false, held: true })).unwrap();
        t.seat("c", Some(&seat(&[1]))).unwrap();
        assert_eq!(t.next_up(), Some("c"));
        t.seat("c", None).unwrap();
        assert_eq!(t.next_up(), None);
        assert_eq!(t.seat("c", None), Err(TurnError::NotSeated("c".into())));
        assert_eq!(t.set_current(Some("zed")), Err(TurnError::NotSeated("zed".into())));
    }

    #[test]
    fn an_idle_tracker_is_not_written_at_all() {
        assert_eq!(serde_json::to_string(&Turns::default()).unwrap(), "{}");
        assert!(serde_json::from_str::<Turns>("{}").unwrap().is_idle());
    }

    proptest! {
        /// The order is the same whatever order the seats were given keys in: it depends on
        /// the keys and the joining order alone.
        #[test]
        fn the_order_depends_only_on_keys_and_joining(keys in proptest::collection::vec(0i64..4, 1..8)) {
            let mut a = Turns::default();
            for (i, k) in keys.iter().enumerate() {
                a.seat(&format!("e{i}"), Some(&seat(&[0]))).unwrap();
                let _ = k;
            }
            let mut b = a.clone();
            for (i, k) in keys.iter().enumerate() {
                a.seat(&format!("e{i}"), Some(&seat(&[*k]))).unwrap();
            }
            for (i, k) in keys.iter().enumerate().rev() {
                b.seat(&format!("e{i}"), Some(&seat(&[*k]))).unwrap();
            }
            prop_assert_eq!(a.order(), b.order());
            let order = a.order();
            prop_assert!(order.windows(2).all(|w| w[0].1.key >= w[1].1.key));
        }
    }
}
