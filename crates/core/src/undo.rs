//! Taking a mistake back: the changes that bring a table back to an earlier state.
//!
//! [`restore`] compares the table now with the table as it was and returns ordinary
//! [`Change`]s — entities removed or created again, fields, traits and pools set back, variables
//! the round and the turn order restored — so an undo is one more event of the kind every other event is,
//! redacted value by value like them, and nothing in the log is deleted. Three things are never
//! taken back: the dice counter (a voided roll is never rolled again, so undo cannot fish for
//! better dice), the rules in force and the table's permissions.
//!
//! Guarantee: applying the changes to `now`, in order, gives a table equal to `then` in every
//! part but those three (`restore_is_exact` and the app's property test hold it to that).

use crate::deck::{Deck, DeckPart};
use crate::entity::Entity;
use crate::pool::PoolRef;
use crate::scene::fog::Fog;
use crate::scene::Scenes;
use crate::table::{Change, Table};
use crate::turns::Turns;
use indexmap::IndexMap;
use serde_json::Value;

/// The changes that turn `now` back into `then` (but for the dice counter, rules and permissions).
pub fn restore(now: &Table, then: &Table) -> Vec<Change> {
    // Places in the turn order go before their entities may; they come back after.
    let (mut out, turns_after) = turns(&now.turns, &then.turns);
    // Hands are emptied before their holders may go; decks are laid back after entities return.
    let (decks_before, decks_after) = decks(&now.decks, &then.decks);
    out.extend(decks_before);
    // Tokens go before their entities may; scenes come back after the entities do.
    let (scenes_before, scenes_after) = scenes(&now.scenes, &then.scenes);
    out.extend(scenes_before);
    // Pictures the undone actions imported leave the table (their bytes stay in the file).
    out.extend(pictures(now, then));
    // Handouts come back as they were (after the pictures they may show).
    out.extend(handouts(now, then));
    // Entities the undone actions made go; ones they removed come back whole.
    for id in now.entities.keys().filter(|id| !then.entities.contains_key(*id)) {
        out.push(Change::Remove { id: id.clone() });
    }
    for (id, old) in &then.entities {
        match now.entities.get(id) {
            None => out.push(Change::Create { entity: old.clone() }),
            Some(cur) => entity(cur, old, &mut out),
        }
    }
    // Table pools: set back, or defined again when more than the counts changed.
    for (name, old) in &then.pools {
        let pool = PoolRef { entity: None, name: name.clone() };
        match now.pools.get(name) {
            Some(cur) if cur == old => {}
            Some(cur) if same_but_counts(cur, old) => {
                out.push(Change::Pool { pool, before: cur.counts.clone(), after: old.counts.clone() })
            }
            _ => out.push(Change::DefinePool { pool, def: old.clone() }),
        }
    }
    for name in now.pools.keys().filter(|n| !then.pools.contains_key(*n)) {
        out.push(Change::RemovePool { pool: PoolRef { entity: None, name: name.clone() } });
    }
    for (name, old) in &then.vars {
        if now.vars.get(name) != Some(old) {
            out.push(Change::Var { name: name.clone(), value: Some(old.value.clone()), visibility: old.visibility });
        }
    }
    for (name, cur) in &now.vars {
        if !then.vars.contains_key(name) {
            out.push(Change::Var { name: name.clone(), value: None, visibility: cur.visibility });
        }
    }
    for (key, value) in &then.settings {
        if now.settings.get(key) != Some(value) {
            out.push(Change::Setting { key: key.clone(), value: value.clone() });
        }
    }
    if now.round != then.round {
        out.push(Change::Round { round: then.round });
    }
    out.extend(turns_after);
    out.extend(decks_after);
    out.extend(scenes_after);
    out
}

/// The changes that turn the decks `now` back into `then`: hands emptied and decks put away
/// first, then decks made again and every part that differs set back.
fn decks(now: &IndexMap<String, Deck>, then: &IndexMap<String, Deck>) -> (Vec<Change>, Vec<Change>) {
    let (mut before, mut after) = (vec![], vec![]);
    let change = |deck: &str, part| Change::Deck { deck: deck.to_string(), part };
    for (name, d) in now {
        let kept = then.get(name).filter(|t| t.cards == d.cards);
        for (face_up, hands) in [(true, &d.up), (false, &d.down)] {
            for (holder, cards) in hands {
                let was = kept.map(|t| t.hand(holder, face_up)).unwrap_or(&[]);
                if cards.as_slice() != was {
                    before.push(change(name, DeckPart::Hand { holder: holder.clone(), face_up, cards: Vec::new() }));
                }
            }
        }
        if kept.is_none() {
            before.push(change(name, DeckPart::Define { cards: None }));
        }
    }
    for (name, t) in then {
        let d = now.get(name).filter(|d| d.cards == t.cards);
        if d.is_none() {
            after.push(change(name, DeckPart::Define { cards: Some(t.cards.clone()) }));
        }
        let fresh = Deck { pile: t.cards.clone(), ..Deck::default() };
        let d = d.unwrap_or(&fresh);
        if d.pile != t.pile {
            after.push(change(name, DeckPart::Pile { cards: t.pile.clone() }));
        }
        if d.discard != t.discard {
            after.push(change(name, DeckPart::Discard { cards: t.discard.clone() }));
        }
        for (face_up, hands) in [(true, &t.up), (false, &t.down)] {
            for (holder, cards) in hands {
                if d.hand(holder, face_up) != cards.as_slice() {
                    after.push(change(name, DeckPart::Hand { holder: holder.clone(), face_up, cards: cards.clone() }));
                }
            }
        }
    }
    (before, after)
}

/// The pictures `now` has that `then` had not go; the ones it had come back.
fn pictures(now: &Table, then: &Table) -> Vec<Change> {
    let gone = now.pictures.keys().filter(|d| !then.pictures.contains_key(*d));
    let back = then.pictures.iter().filter(|(d, p)| now.pictures.get(*d) != Some(p));
    gone.map(|d| Change::Picture { digest: d.clone(), picture: None })
        .chain(back.map(|(d, p)| Change::Picture { digest: d.clone(), picture: Some(p.clone()) }))
        .collect()
}

/// The handouts `now` has that `then` had not go; the ones that differ are written back.
fn handouts(now: &Table, then: &Table) -> Vec<Change> {
    let gone = now.handouts.keys().filter(|id| !then.handouts.contains_key(*id));
    let back = then.handouts.iter().filter(|(id, h)| now.handouts.get(*id) != Some(h));
    gone.map(|id| Change::Handout { id: id.clone(), handout: None })
        .chain(back.map(|(id, h)| Change::Handout { id: id.clone(), handout: Some(h.clone()) }))
        .collect()
}

/// The changes that turn the scenes `now` back into `then`: those to make before entities are
/// set back (scenes and tokens going) and those to make after (scenes, tokens, fog, moves, the
/// scene shown).
fn scenes(now: &Scenes, then: &Scenes) -> (Vec<Change>, Vec<Change>) {
    let (mut before, mut after) = (vec![], vec![]);
    if now == then {
        return (before, after);
    }
    let mut shown = now.shown.clone();
    for (id, cur) in &now.scenes {
        match then.scenes.get(id) {
            None => {
                before.push(Change::Scene { scene: id.clone(), head: None });
                if shown.as_deref() == Some(id) {
                    shown = None;
                }
            }
            Some(old) => {
                for tok in cur.tokens.keys().filter(|t| !old.tokens.contains_key(*t)) {
                    before.push(Change::Token { scene: id.clone(), id: tok.clone(), token: None });
                }
            }
        }
    }
    for (id, old) in &then.scenes {
        let cur = now.scenes.get(id);
        if cur.map(|c| &c.head) != Some(&old.head) {
            after.push(Change::Scene { scene: id.clone(), head: Some(old.head.clone()) });
        }
        for (tok, t) in &old.tokens {
            if cur.and_then(|c| c.tokens.get(tok)) != Some(t) {
                after.push(Change::Token { scene: id.clone(), id: tok.clone(), token: Some(t.clone()) });
            }
        }
        if cur.map_or(Fog::default(), |c| c.fog.clone()) != old.fog {
            after.push(Change::Fog { scene: id.clone(), fog: old.fog.clone() });
        }
        if cur.map_or(&[][..], |c| &c.moves[..]) != &old.moves[..] {
            after.push(Change::Moves { scene: id.clone(), moves: old.moves.clone() });
        }
    }
    if shown != then.shown {
        after.push(Change::ShowScene { scene: then.shown.clone() });
    }
    (before, after)
}

/// The changes that turn tracker `now` back into `then`: those to make before entities are
/// set back (seats leaving) and those to make after (seats, whose turn it is, the round).
/// When the participants are not the same ones in the same joining order, every seat is laid
/// down again, so ties fall as they did.
fn turns(now: &Turns, then: &Turns) -> (Vec<Change>, Vec<Change>) {
    let (mut before, mut after) = (vec![], vec![]);
    if now == then {
        return (before, after);
    }
    let same_seats = now.seats.keys().eq(then.seats.keys());
    for id in now.seats.keys().filter(|id| !same_seats || !then.seats.contains_key(*id)) {
        before.push(Change::Seat { entity: id.clone(), seat: None });
    }
    if now.current.is_some() && now.current != then.current {
        before.insert(0, Change::Turn { entity: None });
    }
    for (id, seat) in &then.seats {
        if !same_seats || now.seats.get(id) != Some(seat) {
            after.push(Change::Seat { entity: id.clone(), seat: Some(seat.clone()) });
        }
    }
    if then.current.is_some() && now.current != then.current {
        after.push(Change::Turn { entity: then.current.clone() });
    }
    if (now.active, now.round) != (then.active, then.round) {
        after.push(Change::Encounter { active: then.active, round: then.round });
    }
    (before, after)
}

fn same_but_counts(a: &crate::pool::Pool, b: &crate::pool::Pool) -> bool {
    let mut a = a.clone();
    a.counts = b.counts.clone();
    &a == b
}

/// The changes that turn entity `cur` back into `old` (same id).
fn entity(cur: &Entity, old: &Entity, out: &mut Vec<Change>) {
    if cur == old {
        return;
    }
    // A different kind cannot be set back piece by piece: the entity is made again.
    if cur.kind != old.kind {
        out.push(Change::Remove { id: cur.id.clone() });
        out.push(Change::Create { entity: old.clone() });
        return;
    }
    let id = &cur.id;
    if cur.visibility != old.visibility {
        out.push(Change::SetVisibility { id: id.clone(), visibility: old.visibility });
    }
    if cur.name != old.name {
        out.push(Change::Rename { id: id.clone(), name: old.name.clone() });
    }
    if cur.owner != old.owner {
        out.push(Change::SetOwner { id: id.clone(), owner: old.owner.clone() });
    }
    if cur.portrait != old.portrait {
        out.push(Change::Portrait { entity: id.clone(), picture: old.portrait.clone() });
    }
    for (field, f) in &cur.fields {
        if !old.fields.contains_key(field) {
            out.push(Change::Field { entity: id.clone(), field: field.clone(), value: None, visibility: f.visibility });
        }
    }
    for (field, f) in &old.fields {
        if cur.fields.get(field) != Some(f) {
            let value: Option<Value> = Some(f.value.clone());
            out.push(Change::Field { entity: id.clone(), field: field.clone(), value, visibility: f.visibility });
        }
    }
    // Traits keep their order: when they differ at all, the list is laid down again.
    if cur.traits != old.traits {
        for t in &cur.traits {
            out.push(Change::RemoveTrait { entity: id.clone(), name: t.name.clone() });
        }
        for t in &old.traits {
            out.push(Change::Trait { entity: id.clone(), value: t.clone() });
        }
    }
    for (name, p) in &old.pools {
        let pool = PoolRef { entity: Some(id.clone()), name: name.clone() };
        match cur.pools.get(name) {
            Some(c) if c == p => {}
            Some(c) if same_but_counts(c, p) => {
                out.push(Change::Pool { pool, before: c.counts.clone(), after: p.counts.clone() })
            }
            _ => out.push(Change::DefinePool { pool, def: p.clone() }),
        }
    }
    for name in cur.pools.keys().filter(|n| !old.pools.contains_key(*n)) {
        out.push(Change::RemovePool { pool: PoolRef { entity: Some(id.clone()), name: name.clone() } });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::Field;
    use crate::pool::Pool;
    use crate::traits::Trait;
    use crate::Visibility;
    use serde_json::json;

    fn hero(id: &str) -> Entity {
        Entity {
            id: id.into(),
            kind: "character".into(),
            name: id.to_uppercase(),
            owner: Some("ann".into()),
            visibility: Visibility::Public,
            fields: [("hp".to_string(), Field { value: json!(5), visibility: Visibility::Public })]
                .into_iter()
                .collect(),
            traits: vec![],
            pools: Default::default(),
            portrait: None,
        }
    }

    /// Every part of a table that undo restores, compared as a whole.
    fn restorable(t: &Table) -> Table {
        Table {
            next_roll: 0,
            rules: Default::default(),
            typed_dice: Default::default(),
            someone_in_turns: false,
            ..t.clone()
        }
    }

    #[test]
    fn restore_is_exact() {
        let mut then = Table::default();
        then.entities.insert("a".into(), hero("a"));
        then.entities.insert("b".into(), hero("b"));
        then.pools.insert("momentum".into(), Pool::new(2, 0, Some(6), Visibility::Public));
        then.vars.insert("scene".into(), Field { value: json!("docks"), visibility: Visibility::Gm });
        then.round = 3;
        let note = |title: &str| crate::handout::Handout {
            title: title.into(),
            text: String::new(),
            picture: None,
            everyone: false,
            readers: Default::default(),
        };
        then.handouts.insert("h-map".into(), note("Map of the keep"));
        then.handouts.insert("h-gone".into(), note("A letter"));
        let mut now = then.clone();
        now.handouts.shift_remove("h-gone");
        now.handouts.get_mut("h-map").unwrap().everyone = true;
        now.handouts.insert("h-new".into(), note("A diary"));
        now.entities.shift_remove("b");
        now.entities.insert("c".into(), hero("c"));
        let a = now.entities.get_mut("a").unwrap();
        a.name = "Renamed".into();
        a.owner = None;
        a.visibility = Visibility::Gm;
        a.fields.insert("hp".into(), Field { value: json!(1), visibility: Visibility::Owner });
        a.fields.insert("new".into(), Field { value: json!(true), visibility: Visibility::Public });
        a.traits.push(Trait::named("Sword"));
        a.pools.insert("bennies".into(), Pool::new(3, 0, None, Visibility::Owner));
        now.pools.get_mut("momentum").unwrap().counts =
            now.pools["momentum"].counts.iter().map(|(k, _)| (k.clone(), 5)).collect();
        now.pools.insert("threat".into(), Pool::new(4, 0, None, Visibility::Gm));
        now.vars.insert("scene".into(), Field { value: json!("roof"), visibility: Visibility::Gm });
        now.vars.insert("alarm".into(), Field { value: json!(1), visibility: Visibility::Public });
        now.round = 5;
        now.next_roll = 40;
        let mut table = now.clone();
        for change in restore(&now, &then) {
            table.apply(&change).unwrap_or_else(|e| panic!("{change:?}: {e}"));
        }
        assert_eq!(restorable(&table), restorable(&then));
        assert_eq!(table.next_roll, 40, "the dice counter never goes back");
        assert!(restore(&then, &then).is_empty(), "nothing to undo, no change");
    }
}
