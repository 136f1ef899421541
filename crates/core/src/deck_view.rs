//! Decks as one viewer sees them: the deck's cards and its discards (public), the size of the
//! draw pile but never its order, face-up cards of the holders the viewer may see, and face-down
//! cards only when the viewer is the holder's player or the GM (anyone else sees how many).
//!
//! Guarantee: the rule is the one [`crate::deck::DeckPart::visibility`] gives each change, so
//! the view and the log show a viewer the same cards.

use crate::deck::DeckPart;
use crate::table::Table;
use crate::visibility::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One holder's cards of a deck, as a viewer sees them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HandView {
    /// The holder's entity id.
    pub holder: String,
    /// The cards held face up.
    pub up: Vec<String>,
    /// The cards held face down, when the viewer may see them (else empty).
    pub down: Vec<String>,
    /// How many cards are held face down.
    pub down_count: usize,
}

/// One deck, as a viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeckView {
    pub name: String,
    /// Every card of the deck, in the deck's own order.
    pub cards: Vec<String>,
    /// How many cards are in the draw pile (its order is nobody's to see).
    pub pile: usize,
    /// The discard pile, oldest first.
    pub discard: Vec<String>,
    /// The hands of the holders the viewer may see.
    pub hands: Vec<HandView>,
}

/// Every deck of the table as `role` may see it.
pub fn decks_view(table: &Table, role: &Role) -> Vec<DeckView> {
    let sees = |holder: &str, face_up: bool| {
        let of = table.entities.get(holder).map(|e| (e.visibility, e.owner.clone()));
        let part = DeckPart::Hand { holder: String::new(), face_up, cards: Vec::new() };
        let (v, owner) = part.visibility(of);
        role.sees(v, owner.as_deref())
    };
    table
        .decks
        .iter()
        .map(|(name, d)| {
            let mut holders: Vec<&String> = d.up.keys().collect();
            holders.extend(d.down.keys().filter(|h| !d.up.contains_key(*h)));
            let hands = holders
                .into_iter()
                .filter(|h| sees(h, true))
                .map(|h| HandView {
                    holder: h.clone(),
                    up: d.hand(h, true).to_vec(),
                    down: if sees(h, false) { d.hand(h, false).to_vec() } else { Vec::new() },
                    down_count: d.hand(h, false).len(),
                })
                .collect();
            DeckView {
                name: name.clone(),
                cards: d.cards.clone(),
                pile: d.pile.len(),
                discard: d.discard.clone(),
                hands,
            }
        })
        .collect()
}
