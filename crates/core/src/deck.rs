//! Decks of cards on the table: a draw pile, a discard pile and the hands of those who hold
//! cards, by deck name.
//!
//! A deck is a list of card names — the standard 54 with two Jokers ([`standard_54`]) or a
//! ruleset's own — and every one of its cards is in exactly one place: the draw pile, the
//! discard pile, or one holder's hand, face up or face down. The parts are separate values so
//! each change to them carries its own visibility ([`DeckPart::visibility`]): the draw pile's
//! order is hidden from everyone (only its size is told), the discard pile and face-up cards
//! are seen by whoever sees their holder, and face-down cards by their holder's player and the
//! GM only.
//!
//! Guarantee: [`Deck::check`] holds after every operation of `tx_deck` — no card is lost,
//! doubled or invented — so a folded log, an undone one and a live transaction agree.

use crate::visibility::Visibility;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Most cards a deck may hold.
pub const MAX_CARDS: usize = 200;

/// One deck on the table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Deck {
    /// Every card of the deck, in the deck's own order (public: it is what the deck is).
    pub cards: Vec<String>,
    /// The draw pile, top card first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pile: Vec<String>,
    /// The discard pile, in the order the cards were discarded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discard: Vec<String>,
    /// Cards held face up, by holder (an entity id).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub up: IndexMap<String, Vec<String>>,
    /// Cards held face down, by holder (an entity id).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub down: IndexMap<String, Vec<String>>,
}

/// One change to a deck: each part is set whole, so the log is the state and undo is a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "part", rename_all = "snake_case")]
pub enum DeckPart {
    /// Makes the deck with these cards, all in the draw pile in the deck's order (or, with no
    /// cards, removes the deck).
    Define { cards: Option<Vec<String>> },
    /// The draw pile is now these cards, top first. Hidden from everyone.
    Pile { cards: Vec<String> },
    /// The discard pile is now these cards.
    Discard { cards: Vec<String> },
    /// A holder's face-up (or face-down) cards are now these.
    Hand { holder: String, face_up: bool, cards: Vec<String> },
}

/// A deck change that does not fit the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    #[error("there is no deck '{0}'")]
    NoDeck(String),
    #[error("a deck '{0}' already exists")]
    DeckExists(String),
    #[error("the {deck} deck has {n} cards; a deck holds 1 to {MAX_CARDS}")]
    Size { deck: String, n: usize },
    #[error("the {deck} deck lists \"{card}\" twice: each card of a deck has its own name")]
    Twice { deck: String, card: String },
    #[error("the {deck} deck is out of order: \"{card}\" is {problem}")]
    Lost { deck: String, card: String, problem: &'static str },
}

impl DeckPart {
    /// Who may see this change, given the visibility and player of the holder it concerns.
    pub fn visibility(&self, holder: Option<(Visibility, Option<String>)>) -> (Visibility, Option<String>) {
        match self {
            DeckPart::Define { .. } | DeckPart::Discard { .. } => (Visibility::Public, None),
            DeckPart::Pile { .. } => (Visibility::Hidden, None),
            DeckPart::Hand { face_up: true, .. } => holder.unwrap_or((Visibility::Gm, None)),
            DeckPart::Hand { face_up: false, .. } => match holder {
                Some((v, Some(owner))) => (v.stricter(Visibility::Owner), Some(owner)),
                Some((v, None)) => (v.stricter(Visibility::Gm), None),
                None => (Visibility::Gm, None),
            },
        }
    }

    /// What anyone may know of this change when they may not see it: how many cards (never
    /// whose hand, as the holder may be an NPC the viewer does not know of).
    pub fn label(&self, deck: &str) -> Option<String> {
        match self {
            DeckPart::Pile { cards } => Some(format!("the {deck} deck: {} card(s) in the draw pile", cards.len())),
            DeckPart::Hand { cards, .. } => {
                Some(format!("a hand of the {deck} deck now holds {} card(s)", cards.len()))
            }
            _ => None,
        }
    }

    /// The change in a line of the log.
    pub fn render(&self, deck: &str) -> String {
        match self {
            DeckPart::Define { cards: Some(c) } => format!("the {deck} deck is made ({} cards)", c.len()),
            DeckPart::Define { cards: None } => format!("the {deck} deck is put away"),
            DeckPart::Pile { cards } => format!("the {deck} deck: {} card(s) in the draw pile", cards.len()),
            DeckPart::Discard { cards } => format!("the {deck} deck's discards: {}", cards.join(", ")),
            DeckPart::Hand { holder, face_up, cards } => {
                let face = if *face_up { "face up" } else { "face down" };
                format!("{holder} holds {face}: {}", if cards.is_empty() { "nothing".into() } else { cards.join(", ") })
            }
        }
    }

    /// Every name the change carries (cards and holders), for the caps.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let (cards, holder) = match self {
            DeckPart::Define { cards } => (cards.as_deref().unwrap_or(&[]), None),
            DeckPart::Pile { cards } | DeckPart::Discard { cards } => (cards.as_slice(), None),
            DeckPart::Hand { holder, cards, .. } => (cards.as_slice(), Some(holder.as_str())),
        };
        cards.iter().map(String::as_str).chain(holder)
    }
}

/// Applies one change to the decks of a table, or refuses it changing nothing.
pub fn apply(decks: &mut IndexMap<String, Deck>, name: &str, part: &DeckPart) -> Result<(), DeckError> {
    if let DeckPart::Define { cards } = part {
        return match cards {
            Some(_) if decks.contains_key(name) => Err(DeckError::DeckExists(name.to_string())),
            Some(cards) => {
                check_list(name, cards)?;
                decks.insert(name.to_string(), Deck { cards: cards.clone(), pile: cards.clone(), ..Deck::default() });
                Ok(())
            }
            None => decks.shift_remove(name).map(drop).ok_or_else(|| DeckError::NoDeck(name.to_string())),
        };
    }
    let deck = decks.get_mut(name).ok_or_else(|| DeckError::NoDeck(name.to_string()))?;
    match part {
        DeckPart::Define { .. } => unreachable!("handled above"),
        DeckPart::Pile { cards } => deck.pile = cards.clone(),
        DeckPart::Discard { cards } => deck.discard = cards.clone(),
        DeckPart::Hand { holder, face_up, cards } => {
            let hands = if *face_up { &mut deck.up } else { &mut deck.down };
            if cards.is_empty() {
                hands.shift_remove(holder);
            } else {
                hands.insert(holder.clone(), cards.clone());
            }
        }
    }
    Ok(())
}

fn check_list(name: &str, cards: &[String]) -> Result<(), DeckError> {
    if cards.is_empty() || cards.len() > MAX_CARDS {
        return Err(DeckError::Size { deck: name.to_string(), n: cards.len() });
    }
    let mut seen = std::collections::HashSet::new();
    match cards.iter().find(|c| !seen.insert(c.as_str())) {
        Some(card) => Err(DeckError::Twice { deck: name.to_string(), card: card.clone() }),
        None => Ok(()),
    }
}

impl Deck {
    /// Every card is in exactly one place, and no card is there that the deck does not have.
    pub fn check(&self, name: &str) -> Result<(), DeckError> {
        let mut count: IndexMap<&str, usize> = self.cards.iter().map(|c| (c.as_str(), 0)).collect();
        let placed = self.pile.iter().chain(&self.discard).chain(self.up.values().chain(self.down.values()).flatten());
        for card in placed {
            let n = count.get_mut(card.as_str()).ok_or_else(|| lost(name, card, "not a card of this deck"))?;
            *n += 1;
        }
        match count.iter().find(|(_, n)| **n != 1) {
            Some((card, 0)) => Err(lost(name, card, "nowhere")),
            Some((card, _)) => Err(lost(name, card, "in two places")),
            None => Ok(()),
        }
    }

    /// The cards a holder holds face up (`true`) or down (`false`).
    pub fn hand(&self, holder: &str, face_up: bool) -> &[String] {
        let hands = if face_up { &self.up } else { &self.down };
        hands.get(holder).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether this holder holds any card of the deck.
    pub fn holds(&self, holder: &str) -> bool {
        self.up.contains_key(holder) || self.down.contains_key(holder)
    }
}

fn lost(deck: &str, card: &str, problem: &'static str) -> DeckError {
    DeckError::Lost { deck: deck.to_string(), card: card.to_string(), problem }
}

/// The suits of the standard deck, lowest first (the order Savage Worlds breaks ties in).
pub const SUITS: [&str; 4] = ["Clubs", "Diamonds", "Hearts", "Spades"];
const RANKS: [&str; 13] = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King", "Ace"];
/// The two Jokers of the standard deck.
pub const JOKERS: [&str; 2] = ["Red Joker", "Black Joker"];

/// The standard 54-card deck: 2 to Ace in each suit (clubs, diamonds, hearts, spades), then
/// the two Jokers. Cards are named "Ace of Spades", "10 of Hearts", "Red Joker".
pub fn standard_54() -> Vec<String> {
    let mut cards: Vec<String> = SUITS.iter().flat_map(|s| RANKS.iter().map(move |r| format!("{r} of {s}"))).collect();
    cards.extend(JOKERS.iter().map(|j| j.to_string()));
    cards
}

/// A standard card's rank and suit: rank 2 to 14 (Jack 11, Queen 12, King 13, Ace 14) and suit
/// 1 to 4 (clubs, diamonds, hearts, spades); a Joker is rank 15, suit 0. `None` for any other
/// name.
pub fn rank_and_suit(card: &str) -> Option<(i64, i64)> {
    if JOKERS.contains(&card) {
        return Some((15, 0));
    }
    let (rank, suit) = card.split_once(" of ")?;
    let r = RANKS.iter().position(|x| *x == rank)? as i64 + 2;
    let s = SUITS.iter().position(|x| *x == suit)? as i64 + 1;
    Some((r, s))
}

/// Picks the draw pile from dice: `faces[i]` (1-based) takes a card from those not yet taken,
/// in the deck's order, so `n` cards take `n - 1` dice of `n`, `n - 1`, … 2 sides, each order
/// comes from exactly one list of faces, and all ones leave the deck's order unchanged.
pub fn pile_from_faces(mut cards: Vec<String>, faces: &[i64]) -> Vec<String> {
    let mut pile = Vec::with_capacity(cards.len());
    for &f in faces {
        if cards.is_empty() {
            break;
        }
        let i = usize::try_from(f - 1).unwrap_or(0).min(cards.len() - 1);
        pile.push(cards.remove(i));
    }
    pile.append(&mut cards);
    pile
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_standard_deck_has_54_cards_ranked_ace_high_and_spades_over_clubs() {
        let cards = standard_54();
        assert_eq!(cards.len(), 54, "52 cards and two Jokers");
        assert_eq!(rank_and_suit("Ace of Spades"), Some((14, 4)));
        assert_eq!(rank_and_suit("2 of Clubs"), Some((2, 1)));
        assert_eq!(rank_and_suit("Red Joker"), Some((15, 0)));
        assert_eq!(rank_and_suit("Ace of Cups"), None, "not a standard card");
        assert!(cards.iter().all(|c| rank_and_suit(c).is_some()), "every standard card has a rank and suit");
    }

    #[test]
    fn a_deck_refuses_doubles_and_a_misplaced_card_is_found() {
        let mut decks = IndexMap::new();
        let two = vec!["a".to_string(), "a".to_string()];
        assert!(matches!(apply(&mut decks, "d", &DeckPart::Define { cards: Some(two) }), Err(DeckError::Twice { .. })));
        let cards: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        apply(&mut decks, "d", &DeckPart::Define { cards: Some(cards.clone()) }).unwrap();
        decks["d"].check("d").expect("a new deck has every card in its pile");
        apply(&mut decks, "d", &DeckPart::Hand { holder: "x".into(), face_up: false, cards: vec!["a".into()] })
            .unwrap();
        let e = decks["d"].check("d").unwrap_err().to_string();
        assert!(e.contains("\"a\" is in two places"), "a card in a hand and the pile is in two places: {e}");
    }

    #[test]
    fn a_face_down_card_is_its_holders_player_and_the_gms_only() {
        let part = DeckPart::Hand { holder: "ann_pc".into(), face_up: false, cards: vec!["Ace of Spades".into()] };
        assert_eq!(
            part.visibility(Some((Visibility::Public, Some("ann".into())))),
            (Visibility::Owner, Some("ann".into()))
        );
        assert_eq!(part.visibility(Some((Visibility::Public, None))).0, Visibility::Gm, "an NPC's: the GM's");
        assert_eq!(part.visibility(None).0, Visibility::Gm, "a holder no longer on the table: the GM's");
        let pile = DeckPart::Pile { cards: vec!["Ace of Spades".into()] };
        assert_eq!(pile.visibility(None).0, Visibility::Hidden, "the draw pile's order is nobody's");
    }

    proptest! {
        /// Any list of faces in range gives a pile that is a permutation of the deck, and two
        /// different lists give different piles (so a shuffle can be forced to any order).
        #[test]
        fn faces_pick_a_permutation(n in 2usize..20, seed in proptest::collection::vec(1i64..1000, 19)) {
            let cards: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
            let faces: Vec<i64> = (0..n - 1).map(|i| (seed[i] - 1) % (n - i) as i64 + 1).collect();
            let pile = pile_from_faces(cards.clone(), &faces);
            let mut sorted = pile.clone();
            sorted.sort();
            let mut expect = cards.clone();
            expect.sort();
            prop_assert_eq!(sorted, expect);
            let mut other = faces.clone();
            other[0] = other[0] % n as i64 + 1;
            prop_assert_ne!(pile_from_faces(cards, &other), pile);
        }
    }
}
