//! Tests of `tx_turns.rs`: the turn tracker through a transaction.
use super::*;
use crate::dice::Forced;
use crate::event::Body;
use crate::manifest::Manifest;
use crate::table::Table;
use crate::tx::{DiceSupply, NewEntity};
use crate::visibility::{Role, Visibility};
use proptest::prelude::*;
use std::sync::Arc;

fn tx() -> Tx {
    let m = Manifest::parse(
        "plugin.toml",
        "id = \"t\"\nname = \"T\"\nversion = \"1\"\napi = 1\nentry = \"rules.rhai\"\n[kinds.character]\n",
    )
    .unwrap();
    let mut t = Tx::new(Table::default(), Arc::new(m), Role::Gm, None, DiceSupply::Forced(Forced::new([])));
    for (name, owner) in [("Mack", Some("ann")), ("Dutch", Some("bob"))] {
        t.create("character", name, NewEntity { owner: owner.map(Into::into), ..Default::default() }).unwrap();
    }
    let hidden = NewEntity { visibility: Some(Visibility::Gm), ..Default::default() };
    t.create("character", "Sniper", hidden).unwrap();
    t.items.clear();
    t
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Passes the turn as the host API does: end it, then the next one, starting a round when
/// everyone has acted.
fn next(t: &mut Tx) -> Option<String> {
    t.finish_turn(true).unwrap();
    match t.pick_next().unwrap() {
        NextUp::Turn(id) => Some(id),
        NextUp::RoundOver => {
            t.next_round().unwrap();
            match t.pick_next().unwrap() {
                NextUp::Turn(id) => Some(id),
                NextUp::RoundOver => None,
            }
        }
    }
}

#[test]
fn turns_go_round_in_initiative_order_and_a_new_round_forgets_who_acted() {
    let mut t = tx();
    t.start_encounter(&ids(&["mack", "dutch", "sniper"])).unwrap();
    t.set_initiative("mack", vec![12]).unwrap();
    t.set_initiative("dutch", vec![15]).unwrap();
    t.set_initiative("sniper", vec![9]).unwrap();
    let order: Vec<Option<String>> = (0..4).map(|_| next(&mut t)).collect();
    assert_eq!(order, [Some("dutch"), Some("mack"), Some("sniper"), Some("dutch")].map(|s| s.map(String::from)));
    assert_eq!(t.table.turns.round, 2);
    assert_eq!(t.table.round, 1, "the table's round counter advanced with the encounter");
    assert!(!t.table.turns.seats["mack"].acted, "a new round: nobody but the one acting has acted");
}

#[test]
fn a_held_turn_is_passed_over_until_its_holder_acts_now() {
    let mut t = tx();
    t.start_encounter(&ids(&["mack", "dutch", "sniper"])).unwrap();
    t.set_turn_order(&ids(&["dutch", "mack", "sniper"])).unwrap();
    assert_eq!(next(&mut t).as_deref(), Some("dutch"));
    assert!(t.hold_turn("dutch").unwrap(), "holding on one's own turn ends it");
    assert_eq!(t.pick_next().unwrap(), NextUp::Turn("mack".into()));
    t.act_now("dutch").unwrap();
    assert_eq!(t.table.turns.current.as_deref(), Some("dutch"), "the holder interrupts");
    assert_eq!(next(&mut t).as_deref(), Some("mack"), "the interrupted turn goes on");
    let err = t.act_now("dutch").unwrap_err().to_string();
    assert!(err.contains("Dutch has already acted this round"), "{err}");
}

#[test]
fn the_round_is_over_only_when_no_one_has_the_turn_and_everyone_has_acted_or_holds() {
    let mut t = tx();
    assert!(!t.round_over(), "no encounter, no round to be over");
    t.start_encounter(&ids(&["mack", "dutch", "sniper"])).unwrap();
    assert!(!t.round_over(), "nobody has acted yet");
    t.act_now("mack").unwrap();
    t.finish_turn(true).unwrap();
    t.hold_turn("sniper").unwrap();
    t.act_now("dutch").unwrap();
    assert!(!t.round_over(), "Dutch still has the turn");
    t.finish_turn(true).unwrap();
    assert!(t.round_over(), "Mack and Dutch acted, the Sniper holds, and no one has the turn");
    t.next_round().unwrap();
    assert!(!t.round_over(), "a new round: nobody has acted");
}

#[test]
fn refusals_say_why_and_change_nothing() {
    let mut t = tx();
    assert!(t.finish_turn(true).unwrap_err().to_string().contains("there is no encounter"));
    t.start_encounter(&ids(&["mack", "dutch"])).unwrap();
    let before = t.table.clone();
    let err = t.set_turn_order(&ids(&["mack", "mack"])).unwrap_err().to_string();
    assert!(err.contains("every participant once"), "{err}");
    assert!(t.start_encounter(&[]).unwrap_err().to_string().contains("already running"));
    assert!(t.set_initiative("sniper", vec![1]).unwrap_err().to_string().contains("Sniper has no place"));
    assert!(t.join_turns("mack", vec![]).unwrap_err().to_string().contains("already has a place"));
    assert!(t.set_initiative("mack", vec![0; 9]).is_err(), "a key of nine numbers is refused");
    assert_eq!(t.table, before);
    assert!(
        t.change(Change::Remove { id: "mack".into() }).is_err(),
        "an entity with a place in the order is not removed behind the tracker's back"
    );
}

#[test]
fn a_hidden_npcs_place_and_turn_are_recorded_for_the_gm_only() {
    let mut t = tx();
    t.start_encounter(&ids(&["mack", "sniper"])).unwrap();
    t.set_initiative("sniper", vec![20]).unwrap();
    assert_eq!(next(&mut t).as_deref(), Some("sniper"));
    let ann = Role::Player("ann".into());
    let mut seen_by_ann = 0;
    for item in &t.items {
        let json = serde_json::to_string(&item.body).unwrap();
        if json.contains("sniper") {
            assert_eq!(item.visibility, Visibility::Gm, "an item naming the sniper is the GM's: {json}");
        }
        if ann.sees(item.visibility, item.owner.as_deref()) {
            seen_by_ann += 1;
            assert!(!json.contains("sniper"), "ann sees {json}");
        }
    }
    assert!(seen_by_ann >= 2, "ann still sees the encounter start and her own place");
}

#[test]
fn ending_an_encounter_leaves_the_tracker_idle() {
    let mut t = tx();
    t.start_encounter(&ids(&["mack", "dutch"])).unwrap();
    next(&mut t);
    t.end_encounter().unwrap();
    assert!(t.table.turns.is_idle());
}

/// One tracker operation, for the property test.
#[derive(Debug, Clone)]
enum Op {
    Next,
    Hold(usize),
    ActNow(usize),
    Key(usize, i64),
    Leave(usize),
    Join(usize, i64),
    End,
    Start,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Next),
        1 => (0..3usize).prop_map(Op::Hold),
        1 => (0..3usize).prop_map(Op::ActNow),
        2 => (0..3usize, 0..4i64).prop_map(|(i, k)| Op::Key(i, k)),
        1 => (0..3usize).prop_map(Op::Leave),
        1 => (0..3usize, 0..4i64).prop_map(|(i, k)| Op::Join(i, k)),
        1 => Just(Op::End),
        1 => Just(Op::Start),
    ]
}

fn run(t: &mut Tx, op: &Op) {
    let who = |i: &usize| ["mack", "dutch", "sniper"][*i];
    let _ = match op {
        Op::Next if t.table.turns.active => {
            next(t);
            Ok(())
        }
        Op::Next => Ok(()),
        Op::Hold(i) => t.hold_turn(who(i)).map(drop),
        Op::ActNow(i) => t.act_now(who(i)),
        Op::Key(i, k) => t.set_initiative(who(i), vec![*k]),
        Op::Leave(i) => t.leave_turns(who(i)),
        Op::Join(i, k) => t.join_turns(who(i), vec![*k]),
        Op::End => t.end_encounter(),
        Op::Start => t.start_encounter(&ids(&["mack", "dutch"])),
    };
}

proptest! {
    /// Whatever turns were taken, the undo changes bring the tracker back exactly, and folding
    /// the recorded changes onto the table before gives the table after.
    #[test]
    fn undo_restores_the_tracker_and_the_log_folds_to_it(
        first in proptest::collection::vec(op(), 0..12),
        then in proptest::collection::vec(op(), 1..12),
    ) {
        let mut t = tx();
        first.iter().for_each(|o| run(&mut t, o));
        let saved = t.table.clone();
        t.items.clear();
        then.iter().for_each(|o| run(&mut t, o));
        let mut folded = saved.clone();
        for item in &t.items {
            if let Some(Body::Change { change }) = &item.body {
                folded.apply(change).unwrap();
            }
        }
        prop_assert_eq!(&folded, &t.table);
        let mut undone = t.table.clone();
        for change in crate::undo::restore(&t.table, &saved) {
            undone.apply(&change).unwrap_or_else(|e| panic!("{change:?}: {e}"));
        }
        prop_assert_eq!(&undone.turns, &saved.turns);
        // Seats compare as a set; the joining order (which breaks ties) must come back too.
        prop_assert!(undone.turns.seats.keys().eq(saved.turns.seats.keys()));
        prop_assert_eq!(undone.turns.order(), saved.turns.order());
    }
}
