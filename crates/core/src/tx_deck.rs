//! Decks on a transaction: making a deck, shuffling it from the campaign's dice, drawing to a
//! holder face up or down, discarding, and reading a hand.
//!
//! A shuffle is a roll: one die per card picked (`1d54`, `1d53`, … `1d2`, in as few logged
//! rolls as the expression length allows), each face taking a card from those left in the
//! deck's order ([`crate::deck::pile_from_faces`]). So `verify` rolls every shuffle again from
//! the seed, forced dice fix the order in a scenario, and the rolls are hidden from everyone
//! (a secret roll still shows its counter), as is the pile they make.
//!
//! Every operation is a few [`Change::Deck`]s through [`Tx::change`] — logged, redacted part by
//! part, undone and folded like every change — and ends by checking that every card of the
//! deck is in exactly one place; an operation that does not fit refuses and changes nothing
//! the caller keeps (the transaction is dropped).

use crate::deck::{self, Deck, DeckPart};
use crate::dice::parse::MAX_EXPR_LEN;
use crate::table::Change;
use crate::tx::{RollOptions, Tx, TxError};
use crate::visibility::Visibility;

fn rule(msg: impl Into<String>) -> TxError {
    TxError::Rule(msg.into())
}

impl Tx {
    /// The deck of this name.
    pub fn deck(&self, name: &str) -> Result<&Deck, TxError> {
        self.table.decks.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.table.decks.keys().map(String::as_str).collect();
            rule(format!(
                "there is no deck '{name}' (decks: {})",
                if known.is_empty() { "none".into() } else { known.join(", ") }
            ))
        })
    }

    fn deck_change(&mut self, name: &str, part: DeckPart) -> Result<(), TxError> {
        self.change(Change::Deck { deck: name.to_string(), part })
    }

    fn deck_checked(&self, name: &str) -> Result<(), TxError> {
        Ok(self.deck(name)?.check(name).map_err(crate::table::TableError::from)?)
    }

    /// Makes a deck of these cards (the standard 54 with `None`) and shuffles it.
    pub fn new_deck(&mut self, name: &str, cards: Option<Vec<String>>) -> Result<(), TxError> {
        let cards = cards.unwrap_or_else(deck::standard_54);
        self.deck_change(name, DeckPart::Define { cards: Some(cards) })?;
        self.shuffle(name).map(drop)
    }

    /// Puts a deck away (every card must be back in the pile or the discards).
    pub fn remove_deck(&mut self, name: &str) -> Result<(), TxError> {
        let d = self.deck(name)?;
        if let Some(holder) = d.up.keys().chain(d.down.keys()).next() {
            return Err(rule(format!("{} still holds cards of the {name} deck", self.holder_name(holder))));
        }
        self.deck_change(name, DeckPart::Define { cards: None })
    }

    /// Shuffles the discards back into the draw pile: the new pile is every card not in a hand,
    /// in an order rolled from the campaign's dice. Returns the size of the pile.
    pub fn shuffle(&mut self, name: &str) -> Result<usize, TxError> {
        let d = self.deck(name)?;
        let loose: Vec<String> =
            d.cards.iter().filter(|c| d.pile.contains(c) || d.discard.contains(c)).cloned().collect();
        let had_discards = !d.discard.is_empty();
        let faces = self.shuffle_faces(name, loose.len())?;
        if had_discards {
            self.deck_change(name, DeckPart::Discard { cards: Vec::new() })?;
        }
        let pile = deck::pile_from_faces(loose, &faces);
        let n = pile.len();
        self.deck_change(name, DeckPart::Pile { cards: pile })?;
        self.deck_checked(name)?;
        Ok(n)
    }

    /// Rolls the dice of a shuffle of `n` cards: `1dn`, `1d(n-1)` … `1d2`, as few rolls as the
    /// longest expression allows.
    fn shuffle_faces(&mut self, name: &str, n: usize) -> Result<Vec<i64>, TxError> {
        let mut faces = Vec::new();
        let mut expr = String::new();
        for sides in (2..=n).rev() {
            let term = format!("1d{sides}");
            if !expr.is_empty() && expr.len() + 1 + term.len() > MAX_EXPR_LEN {
                faces.extend(self.shuffle_roll(name, &std::mem::take(&mut expr))?);
            }
            if !expr.is_empty() {
                expr.push('+');
            }
            expr.push_str(&term);
        }
        if !expr.is_empty() {
            faces.extend(self.shuffle_roll(name, &expr)?);
        }
        Ok(faces)
    }

    fn shuffle_roll(&mut self, name: &str, expr: &str) -> Result<Vec<i64>, TxError> {
        let opts = RollOptions {
            label: Some(format!("shuffling the {name} deck")),
            visibility: Visibility::Hidden,
            ..RollOptions::default()
        };
        Ok(self.roll(expr, opts)?.dice().map(|d| d.face).collect())
    }

    fn holder_name(&self, id: &str) -> String {
        self.table.entities.get(id).map(|e| e.name.clone()).unwrap_or_else(|| id.to_string())
    }

    /// Deals the top card of the pile to a holder (an entity), face up or down. Returns the card.
    pub fn draw_card(&mut self, name: &str, holder: &str, face_up: bool) -> Result<String, TxError> {
        self.entity(holder)?;
        let d = self.deck(name)?;
        let Some(card) = d.pile.first().cloned() else {
            return Err(rule(format!("the {name} deck's draw pile is empty: shuffle the discards in first")));
        };
        let pile = d.pile[1..].to_vec();
        let mut hand = d.hand(holder, face_up).to_vec();
        hand.push(card.clone());
        self.deck_change(name, DeckPart::Pile { cards: pile })?;
        self.deck_change(name, DeckPart::Hand { holder: holder.to_string(), face_up, cards: hand })?;
        self.deck_checked(name)?;
        Ok(card)
    }

    /// Turns a holder's face-down card face up (a card revealed).
    pub fn reveal_card(&mut self, name: &str, holder: &str, card: &str) -> Result<(), TxError> {
        let d = self.deck(name)?;
        let mut down = d.hand(holder, false).to_vec();
        let Some(i) = down.iter().position(|c| c == card) else {
            return Err(rule(format!("{} holds no face-down \"{card}\" of the {name} deck", self.holder_name(holder))));
        };
        let mut up = d.hand(holder, true).to_vec();
        up.push(down.remove(i));
        self.deck_change(name, DeckPart::Hand { holder: holder.to_string(), face_up: false, cards: down })?;
        self.deck_change(name, DeckPart::Hand { holder: holder.to_string(), face_up: true, cards: up })?;
        self.deck_checked(name)
    }

    /// Discards one card from a holder's hand (face up or down) onto the discard pile.
    pub fn discard(&mut self, name: &str, holder: &str, card: &str) -> Result<(), TxError> {
        let d = self.deck(name)?;
        let face_up = if d.hand(holder, true).iter().any(|c| c == card) {
            true
        } else if d.hand(holder, false).iter().any(|c| c == card) {
            false
        } else {
            return Err(rule(format!("{} does not hold \"{card}\" of the {name} deck", self.holder_name(holder))));
        };
        let hand: Vec<String> = d.hand(holder, face_up).iter().filter(|c| *c != card).cloned().collect();
        let mut discard = d.discard.clone();
        discard.push(card.to_string());
        self.deck_change(name, DeckPart::Hand { holder: holder.to_string(), face_up, cards: hand })?;
        self.deck_change(name, DeckPart::Discard { cards: discard })?;
        self.deck_checked(name)
    }

    /// Discards every card a holder holds (face up first, then face down). Returns how many.
    pub fn discard_hand(&mut self, name: &str, holder: &str) -> Result<usize, TxError> {
        let d = self.deck(name)?;
        let (up, down) = (d.hand(holder, true).to_vec(), d.hand(holder, false).to_vec());
        let mut discard = d.discard.clone();
        discard.extend(up.iter().chain(&down).cloned());
        for (face_up, cards) in [(true, &up), (false, &down)] {
            if !cards.is_empty() {
                let part = DeckPart::Hand { holder: holder.to_string(), face_up, cards: Vec::new() };
                self.deck_change(name, part)?;
            }
        }
        if up.len() + down.len() > 0 {
            self.deck_change(name, DeckPart::Discard { cards: discard })?;
        }
        self.deck_checked(name)?;
        Ok(up.len() + down.len())
    }

    /// Discards every hand of the deck. Returns how many cards.
    pub fn discard_all(&mut self, name: &str) -> Result<usize, TxError> {
        let d = self.deck(name)?;
        let holders: indexmap::IndexSet<String> = d.up.keys().chain(d.down.keys()).cloned().collect();
        let mut n = 0;
        for h in holders {
            n += self.discard_hand(name, &h)?;
        }
        Ok(n)
    }
}

#[cfg(test)]
#[path = "tx_deck_tests.rs"]
mod tests;
