//! Decks of cards: making a deck, shuffling it from the campaign's dice, drawing to a holder
//! face up or down, revealing, discarding, reading a hand, and the standard deck's ranks and
//! suits.
//!
//! What a script reads here it reads as the rules (the worker sees every card); what reaches a
//! player is only what the log and the view let them see, so a script that returns a face-down
//! card from a player's action shows it to that player: return it only to its holder.

use super::{reg, Fallible, Handle};
use crate::deck;
use rhai::{Array, Dynamic, Engine, Map, INT};

fn names(list: Array) -> Fallible<Vec<String>> {
    list.into_iter()
        .map(|v| v.into_immutable_string().map(|s| s.to_string()))
        .collect::<Result<_, _>>()
        .map_err(|t| format!("a deck lists card names (text), not {t}").into())
}

fn hand(h: &Handle, name: &str, holder: &str) -> Fallible<Array> {
    h.with(|tx| {
        let d = tx.deck(name)?;
        let card = |c: &String, up: bool| {
            let mut m = Map::new();
            m.insert("card".into(), c.clone().into());
            m.insert("face_up".into(), up.into());
            Dynamic::from(m)
        };
        let up = d.hand(holder, true).iter().map(|c| card(c, true));
        Ok(up.chain(d.hand(holder, false).iter().map(|c| card(c, false))).collect())
    })
}

pub(super) fn register(engine: &mut Engine) {
    register_deck(engine);
    register_hands(engine);
    register_cards(engine);
}

fn register_deck(engine: &mut Engine) {
    reg!(
        engine,
        "new_deck",
        &["t: Table", "name: String", "()"],
        "Makes a deck of the standard 54 cards (2 to Ace in clubs, diamonds, hearts and spades, named \"Ace of Spades\", \"10 of Hearts\" …, and the \"Red Joker\" and \"Black Joker\") and shuffles it from the campaign's dice.",
        |h: &mut Handle, name: &str| -> Fallible<()> { h.with(|tx| tx.new_deck(name, None)) }
    );
    reg!(
        engine,
        "new_deck",
        &["t: Table", "name: String", "cards: Array", "()"],
        "Makes a deck of these cards (1 to 200 names, each once) and shuffles it from the campaign's dice.",
        |h: &mut Handle, name: &str, cards: Array| -> Fallible<()> {
            let cards = names(cards)?;
            h.with(|tx| tx.new_deck(name, Some(cards)))
        }
    );
    reg!(
        engine,
        "remove_deck",
        &["t: Table", "name: String", "()"],
        "Puts a deck away (refused while anyone holds one of its cards).",
        |h: &mut Handle, name: &str| -> Fallible<()> { h.with(|tx| tx.remove_deck(name)) }
    );
    reg!(
        engine,
        "has_deck",
        &["t: Table", "name: String", "bool"],
        "Whether the table has a deck of this name.",
        |h: &mut Handle, name: &str| h.read(|tx| tx.table.decks.contains_key(name))
    );
    reg!(
        engine,
        "shuffle_deck",
        &["t: Table", "name: String", "INT"],
        "Shuffles the discards back into the draw pile: every card not in a hand, in an order rolled from the campaign's dice (one die per card, a hidden roll that verify rolls again). Returns the size of the pile.",
        |h: &mut Handle, name: &str| -> Fallible<INT> { h.with(|tx| tx.shuffle(name)).map(|n| n as INT) }
    );
    reg!(
        engine,
        "pile_size",
        &["t: Table", "name: String", "INT"],
        "How many cards are left in a deck's draw pile.",
        |h: &mut Handle, name: &str| -> Fallible<INT> { h.with(|tx| Ok(tx.deck(name)?.pile.len() as INT)) }
    );
    reg!(
        engine,
        "discards",
        &["t: Table", "name: String", "Array"],
        "A deck's discard pile, oldest first.",
        |h: &mut Handle, name: &str| -> Fallible<Array> {
            h.with(|tx| Ok(tx.deck(name)?.discard.iter().map(|c| c.clone().into()).collect()))
        }
    );
}

fn register_hands(engine: &mut Engine) {
    reg!(
        engine,
        "draw_card",
        &["t: Table", "name: String", "holder: String", "face_up: bool", "String"],
        "Deals the top card of a deck's draw pile to a holder (an entity id), face up (seen by whoever sees the holder) or face down (the holder's player and the GM only). Returns the card; refused when the pile is empty.",
        |h: &mut Handle, name: &str, holder: &str, up: bool| -> Fallible<String> {
            h.with(|tx| tx.draw_card(name, holder, up))
        }
    );
    reg!(
        engine,
        "reveal_card",
        &["t: Table", "name: String", "holder: String", "card: String", "()"],
        "Turns one of a holder's face-down cards face up.",
        |h: &mut Handle, name: &str, holder: &str, card: &str| -> Fallible<()> {
            h.with(|tx| tx.reveal_card(name, holder, card))
        }
    );
    reg!(
        engine,
        "discard_card",
        &["t: Table", "name: String", "holder: String", "card: String", "()"],
        "Discards one card a holder holds onto the deck's discard pile.",
        |h: &mut Handle, name: &str, holder: &str, card: &str| -> Fallible<()> {
            h.with(|tx| tx.discard(name, holder, card))
        }
    );
    reg!(
        engine,
        "discard_hand",
        &["t: Table", "name: String", "holder: String", "INT"],
        "Discards every card a holder holds of the deck. Returns how many.",
        |h: &mut Handle, name: &str, holder: &str| -> Fallible<INT> {
            h.with(|tx| tx.discard_hand(name, holder)).map(|n| n as INT)
        }
    );
    reg!(
        engine,
        "discard_hands",
        &["t: Table", "name: String", "INT"],
        "Discards every hand of the deck. Returns how many cards.",
        |h: &mut Handle, name: &str| -> Fallible<INT> { h.with(|tx| tx.discard_all(name)).map(|n| n as INT) }
    );
    reg!(
        engine,
        "hand",
        &["t: Table", "name: String", "holder: String", "Array"],
        "A holder's cards of the deck: [#{card, face_up}], face up first, each in the order drawn.",
        |h: &mut Handle, name: &str, holder: &str| hand(h, name, holder)
    );
}

fn register_cards(engine: &mut Engine) {
    reg!(
        engine,
        "card_rank",
        &["t: Table", "card: String", "INT"],
        "A standard card's rank: 2 to 10, Jack 11, Queen 12, King 13, Ace 14, a Joker 15. Refused for a card of no standard deck.",
        |_h: &mut Handle, card: &str| -> Fallible<INT> { rank_and_suit(card).map(|(r, _)| r) }
    );
    reg!(
        engine,
        "card_suit",
        &["t: Table", "card: String", "INT"],
        "A standard card's suit, lowest first: clubs 1, diamonds 2, hearts 3, spades 4; a Joker 0. Refused for a card of no standard deck.",
        |_h: &mut Handle, card: &str| -> Fallible<INT> { rank_and_suit(card).map(|(_, s)| s) }
    );
    reg!(
        engine,
        "is_joker",
        &["t: Table", "card: String", "bool"],
        "Whether a card is one of the standard deck's two Jokers.",
        |_h: &mut Handle, card: &str| deck::JOKERS.contains(&card)
    );
}

fn rank_and_suit(card: &str) -> Fallible<(INT, INT)> {
    deck::rank_and_suit(card).ok_or_else(|| format!("\"{card}\" is not a card of the standard deck").into())
}
