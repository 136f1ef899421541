//! Tests of `tx_deck.rs`: decks through a transaction.
use super::*;
use crate::dice::Forced;
use crate::event::Body;
use crate::manifest::Manifest;
use crate::table::Table;
use crate::tx::{DiceSupply, NewEntity};
use crate::visibility::Role;
use proptest::prelude::*;
use std::sync::Arc;

fn tx(dice: DiceSupply) -> Tx {
    let m = Manifest::parse(
        "plugin.toml",
        "id = \"t\"\nname = \"T\"\nversion = \"1\"\napi = 1\nentry = \"rules.rhai\"\n[kinds.character]\n",
    )
    .unwrap();
    let mut t = Tx::new(Table::default(), Arc::new(m), Role::Gm, None, dice);
    for (name, owner) in [("Mack", Some("ann")), ("Dutch", Some("bob")), ("Thug", None)] {
        t.create("character", name, NewEntity { owner: owner.map(Into::into), ..Default::default() }).unwrap();
    }
    t.items.clear();
    t
}

fn seeded(seed: u8) -> DiceSupply {
    DiceSupply::Seeded { seed: [seed; 32], entropy: None }
}

#[test]
fn forced_ones_keep_the_decks_order_and_a_face_picks_a_card() {
    let mut faces = vec![1i64; 53];
    faces[0] = 54; // the first die picks the 54th card: the Black Joker goes on top
    let mut t = tx(DiceSupply::Forced(Forced::new(faces)));
    t.new_deck("action", None).unwrap();
    let pile = &t.table.decks["action"].pile;
    assert_eq!(pile[0], "Black Joker", "the first face picked the top card");
    assert_eq!(pile[1], "2 of Clubs", "ones after it keep the deck's order");
    assert_eq!(pile.len(), 54);
    assert!(t.finish_dice().is_ok(), "a 54-card shuffle rolls exactly 53 dice");
    let rolls: Vec<_> = t.items.iter().filter(|i| matches!(i.body, Some(Body::Roll { .. }))).collect();
    assert!(rolls.len() >= 2, "the shuffle is logged as rolls within the expression length");
    assert!(rolls.iter().all(|r| r.visibility == Visibility::Hidden), "nobody sees the shuffle's dice");
}

#[test]
fn drawing_and_discarding_move_cards_and_refusals_say_why() {
    let mut t = tx(seeded(7));
    t.new_deck("d", Some(vec!["a".into(), "b".into()])).unwrap();
    let first = t.draw_card("d", "mack", false).unwrap();
    let second = t.draw_card("d", "thug", true).unwrap();
    assert_ne!(first, second);
    let err = t.draw_card("d", "dutch", true).unwrap_err().to_string();
    assert!(err.contains("draw pile is empty"), "an empty pile refuses: {err}");
    let err = t.discard("d", "dutch", &first).unwrap_err().to_string();
    assert!(err.contains("Dutch does not hold"), "{err}");
    t.discard("d", "mack", &first).unwrap();
    assert_eq!(t.table.decks["d"].discard, vec![first.clone()]);
    assert_eq!(t.discard_all("d").unwrap(), 1);
    assert_eq!(t.shuffle("d").unwrap(), 2, "a shuffle takes the discards back");
    assert!(t.table.decks["d"].discard.is_empty());
    assert!(t.new_deck("d", None).unwrap_err().to_string().contains("already exists"));
    assert!(t.draw_card("nope", "mack", true).unwrap_err().to_string().contains("there is no deck 'nope'"));
}

#[test]
fn an_entity_holding_cards_is_not_removed_behind_the_decks_back() {
    let mut t = tx(seeded(1));
    t.new_deck("d", None).unwrap();
    t.draw_card("d", "thug", true).unwrap();
    let err = t.change(Change::Remove { id: "thug".into() }).unwrap_err().to_string();
    assert!(err.contains("holds cards"), "{err}");
}

/// One deck operation, for the property tests.
#[derive(Debug, Clone)]
enum Op {
    Draw(usize, bool),
    Discard(usize, usize),
    DiscardHand(usize),
    Reveal(usize),
    Shuffle,
    DiscardAll,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..3usize, any::<bool>()).prop_map(|(h, up)| Op::Draw(h, up)),
        2 => (0..3usize, 0..3usize).prop_map(|(h, i)| Op::Discard(h, i)),
        1 => (0..3usize).prop_map(Op::DiscardHand),
        1 => (0..3usize).prop_map(Op::Reveal),
        1 => Just(Op::Shuffle),
        1 => Just(Op::DiscardAll),
    ]
}

const WHO: [&str; 3] = ["mack", "dutch", "thug"];

fn run(t: &mut Tx, op: &Op) {
    let _ = match op {
        Op::Draw(h, up) => t.draw_card("d", WHO[*h], *up).map(drop),
        Op::Discard(h, i) => {
            let d = &t.table.decks["d"];
            let cards: Vec<String> = d.hand(WHO[*h], true).iter().chain(d.hand(WHO[*h], false)).cloned().collect();
            match cards.get(*i) {
                Some(c) => t.discard("d", WHO[*h], c),
                None => Ok(()),
            }
        }
        Op::DiscardHand(h) => t.discard_hand("d", WHO[*h]).map(drop),
        Op::Reveal(h) => match t.table.decks["d"].hand(WHO[*h], false).first().cloned() {
            Some(c) => t.reveal_card("d", WHO[*h], &c),
            None => Ok(()),
        },
        Op::Shuffle => t.shuffle("d").map(drop),
        Op::DiscardAll => t.discard_all("d").map(drop),
    };
}

fn deck_of(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("card {i}")).collect()
}

proptest! {
    /// Whatever is drawn, discarded and shuffled: every card stays in exactly one place, the
    /// log folds to the table, undo gives the decks back exactly, and no player's view of the
    /// log ever holds a card another holder holds face down, nor the pile's order.
    #[test]
    fn cards_are_conserved_folded_undone_and_face_down_cards_stay_private(
        seed in any::<u8>(),
        n in 2usize..12,
        first in proptest::collection::vec(op(), 0..10),
        then in proptest::collection::vec(op(), 1..14),
    ) {
        let mut t = tx(seeded(seed));
        t.new_deck("d", Some(deck_of(n))).unwrap();
        first.iter().for_each(|o| run(&mut t, o));
        let saved = t.table.clone();
        t.items.clear();
        for o in &then {
            run(&mut t, o);
            prop_assert!(t.table.decks["d"].check("d").is_ok(), "after {:?}: {:?}", o, t.table.decks["d"]);
        }
        let mut folded = saved.clone();
        for item in &t.items {
            if let Some(Body::Change { change }) = &item.body {
                folded.apply(change).unwrap();
            }
        }
        prop_assert_eq!(&folded.decks, &t.table.decks, "the log folds to the decks");
        let mut undone = t.table.clone();
        for change in crate::undo::restore(&t.table, &saved) {
            undone.apply(&change).unwrap_or_else(|e| panic!("{change:?}: {e}"));
        }
        prop_assert_eq!(&undone.decks, &saved.decks);
        // The redaction: what ann (Mack's player) may see never names a card held face down
        // by Dutch or the Thug, and no item she sees carries the draw pile.
        let ann = Role::Player("ann".into());
        for item in t.items.iter().filter(|i| ann.sees(i.visibility, i.owner.as_deref())) {
            let json = serde_json::to_string(&item.body).unwrap();
            prop_assert!(!json.contains("\"pile\""), "ann sees the draw pile: {}", json);
            let hand = match &item.body {
                Some(Body::Change { change: Change::Deck { part, .. } }) => Some(part),
                _ => None,
            };
            if let Some(DeckPart::Hand { holder, face_up: false, .. }) = hand {
                prop_assert_eq!(holder.as_str(), "mack", "ann sees another's face-down hand: {}", json);
            }
        }
        let view = crate::deck_view::decks_view(&t.table, &ann);
        for hand in view.iter().flat_map(|d| &d.hands) {
            if hand.holder != "mack" {
                prop_assert!(hand.down.is_empty(), "ann's view shows {}'s face-down cards", hand.holder);
            }
        }
    }
}
