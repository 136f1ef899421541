//! The bounds on one item and one event, as a transaction makes them and as a file carries them.
//!
//! [`Caps::item`] is what every item costs and what its text must be: narration and posts are
//! text of several lines within the narration bounds; every name (of an entity, a trait, a
//! pool, a field, a variable, a setting, a parameter, a roll's label, an owner) is one line
//! ([`crate::text`]); every value within [`Caps::value`]; a change within
//! [`Caps::max_value_bytes`]. [`Caps::event`] runs an event's items through a [`Budget`], so a
//! stored event is held to exactly the bounds a transaction was.

use super::{Budget, CapError, Caps};
use crate::entity::Entity;
use crate::event::{Body, Item};
use crate::table::Change;
use crate::text::{self, Lines};
use crate::traits::Trait;
use serde_json::Value;

/// Refuses `text` that breaks the rule for its kind, naming what it is.
fn text_of(what: &str, text: &str, lines: Lines) -> Result<(), CapError> {
    text::check(text, lines).map_err(|e| CapError { what: what.to_string(), detail: e.to_string() })
}

pub(crate) fn name(what: &str, text: &str) -> Result<(), CapError> {
    text_of(what, text, Lines::One)
}

/// The strings of a value are text of several lines; the keys of its maps are names. Walked
/// without recursion, so no depth can overflow it.
pub(super) fn value_text(what: &str, value: &Value) -> Result<(), CapError> {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => text_of(what, s, Lines::Several)?,
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => {
                for (k, v) in m {
                    name(&format!("{what}: a key"), k)?;
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

impl Caps {
    /// Checks every value and name a change carries, and its size (returned, in bytes).
    pub fn change(&self, change: &Change) -> Result<usize, CapError> {
        change_values(self, change)?;
        change_names(change)?;
        let bytes = serde_json::to_vec(change).map(|v| v.len()).unwrap_or(usize::MAX);
        if bytes > self.max_value_bytes {
            let detail = format!("{bytes} bytes; the limit is {} bytes", self.max_value_bytes);
            return Err(CapError { what: "one change".into(), detail });
        }
        Ok(bytes)
    }

    /// Checks one item — its body's values, names and text, and the names it carries besides
    /// — and returns what it costs, as a transaction counts it: (bytes, bytes of narration).
    pub fn item(&self, item: &Item) -> Result<(usize, usize), CapError> {
        if let Some(owner) = &item.owner {
            name("an item's player", owner)?;
        }
        if let Some(label) = &item.label {
            name("an item's label", label)?;
        }
        match &item.body {
            None => Ok((0, 0)),
            Some(Body::Change { change }) => Ok((self.change(change)?, 0)),
            Some(body) => {
                let narration = self.body(body)?;
                Ok((serde_json::to_vec(body).map(|v| v.len()).unwrap_or(usize::MAX), narration))
            }
        }
    }

    /// Checks a body other than a change; returns its bytes of narration (a roll's label
    /// counts as narration).
    fn body(&self, body: &Body) -> Result<usize, CapError> {
        match body {
            Body::Param { name: n, value } => {
                name("a parameter's name", n)?;
                self.value(&format!("parameter {n}"), value)?;
            }
            Body::Roll { roll } => {
                name("a roll", &roll.expr)?;
                roll.label.as_deref().map_or(Ok(()), |l| name("a roll's label", l))?;
                return Ok(roll.label.as_ref().map_or(0, String::len));
            }
            Body::Change { change } => {
                self.change(change)?;
            }
            Body::Say { text } => {
                text_of("narration", text, Lines::Several)?;
                return Ok(text.len());
            }
            Body::Result { value } => {
                self.value("what the action returned", value)?;
            }
            Body::Post { post } => {
                text_of("a post", &post.text, Lines::Several)?;
                post.character_name.as_deref().map_or(Ok(()), |n| name("a post's speaker", n))?;
                return Ok(post.text.len());
            }
        }
        Ok(0)
    }

    /// Checks an event's items as a transaction would have, in order, through one [`Budget`]:
    /// the first item over a bound is refused with its index.
    pub fn event(&self, items: &[Item]) -> Result<(), (usize, CapError)> {
        if items.len() > self.max_event_items {
            let detail = format!("{} items; at most {} changes, rolls and lines", items.len(), self.max_event_items);
            return Err((self.max_event_items, CapError { what: "one event".into(), detail }));
        }
        let mut budget = Budget::default();
        for (i, item) in items.iter().enumerate() {
            let (bytes, narration) = self.item(item).map_err(|e| (i, e))?;
            budget.take(self, bytes, narration).map_err(|e| (i, e))?;
        }
        Ok(())
    }
}

/// How many numbers a place in the turn order sorts on (a total, a card's rank and suit …).
pub const MAX_SEAT_KEY: usize = 8;

/// The values a change sets are within the value bounds.
fn change_values(caps: &Caps, change: &Change) -> Result<(), CapError> {
    match change {
        Change::Create { entity } => {
            for (field, f) in &entity.fields {
                caps.value(&format!("field {field}"), &f.value)?;
            }
        }
        Change::Field { field, value: Some(v), .. } => {
            caps.value(&format!("field {field}"), v)?;
        }
        Change::Var { name, value: Some(v), .. } => {
            caps.value(&format!("variable {name}"), v)?;
        }
        Change::Setting { key, value } => {
            caps.value(&format!("setting {key}"), value)?;
        }
        Change::Seat { entity, seat: Some(seat) } if seat.key.len() > MAX_SEAT_KEY => {
            let detail = format!("{} numbers; at most {MAX_SEAT_KEY}", seat.key.len());
            return Err(CapError { what: format!("{entity}'s place in the turn order"), detail });
        }
        _ => {}
    }
    Ok(())
}

/// Every name a change carries is one line.
fn change_names(change: &Change) -> Result<(), CapError> {
    match change {
        Change::Create { entity } => entity_names(entity),
        Change::Remove { id } | Change::SetVisibility { id, .. } => name("an entity's id", id),
        Change::Rename { id, name: n } => name("an entity's id", id).and_then(|_| name("an entity's name", n)),
        Change::SetOwner { id, owner } => {
            name("an entity's id", id)?;
            owner.as_deref().map_or(Ok(()), |o| name("an entity's player", o))
        }
        Change::Field { entity, field, .. } => {
            name("an entity's id", entity).and_then(|_| name("a field's name", field))
        }
        Change::Trait { entity, value } => name("an entity's id", entity).and_then(|_| trait_names(value)),
        Change::RemoveTrait { entity, name: n } => {
            name("an entity's id", entity).and_then(|_| name("a trait's name", n))
        }
        Change::Pool { pool, before, after } => {
            name("a pool", &pool.to_string())?;
            before.keys().chain(after.keys()).try_for_each(|k| name("a kind of token", k))
        }
        Change::DefinePool { pool, def } => name("a pool", &pool.to_string()).and_then(|_| pool_names(def)),
        Change::RemovePool { pool } => name("a pool", &pool.to_string()),
        Change::Var { name: n, .. } => name("a variable's name", n),
        Change::Setting { key, .. } => name("a setting's name", key),
        Change::Rules { sources } => {
            sources.iter().try_for_each(|(k, v)| name("a rules file", k).and_then(|_| name("a digest", v)))
        }
        Change::TypedDice { player, .. } => name("a player", player),
        Change::Seat { entity, .. } | Change::Turn { entity: Some(entity) } => name("an entity's id", entity),
        Change::Round { .. }
        | Change::Encounter { .. }
        | Change::Turn { entity: None }
        | Change::SomeoneInTurns { .. } => Ok(()),
        Change::Deck { deck, part } => {
            name("a deck's name", deck)?;
            part.names().try_for_each(|n| name("a card or its holder", n))
        }
        Change::Scene { .. }
        | Change::ShowScene { .. }
        | Change::Token { .. }
        | Change::Moved { .. }
        | Change::Moves { .. }
        | Change::Fog { .. } => super::scene::change(change),
        Change::Picture { digest, picture } => {
            let bad = |e: crate::picture::PictureError| CapError { what: "a picture".into(), detail: e.to_string() };
            crate::picture::check_digest(digest).map_err(bad)?;
            let Some(p) = picture else { return Ok(()) };
            p.check().map_err(bad)?;
            name("a picture's name", &p.name)
        }
        Change::Portrait { entity, picture } => {
            name("an entity's id", entity)?;
            picture.as_deref().map_or(Ok(()), portrait_digest)
        }
        Change::Handout { id, handout } => {
            name("a handout's id", id)?;
            let bad = |e: crate::handout::HandoutError| CapError { what: "a handout".into(), detail: e.to_string() };
            handout.as_ref().map_or(Ok(()), |h| h.check().map_err(bad))
        }
    }
}

/// A portrait names a picture by its digest, in the digest's one spelling.
fn portrait_digest(digest: &str) -> Result<(), CapError> {
    crate::picture::check_digest(digest).map_err(|e| CapError { what: "a portrait".into(), detail: e.to_string() })
}

fn entity_names(e: &Entity) -> Result<(), CapError> {
    name("an entity's id", &e.id)?;
    e.portrait.as_deref().map_or(Ok(()), portrait_digest)?;
    name("an entity's kind", &e.kind)?;
    name("an entity's name", &e.name)?;
    e.owner.as_deref().map_or(Ok(()), |o| name("an entity's player", o))?;
    e.fields.keys().try_for_each(|f| name("a field's name", f))?;
    e.traits.iter().try_for_each(trait_names)?;
    for (pool, def) in &e.pools {
        name("a pool", pool)?;
        pool_names(def)?;
    }
    Ok(())
}

fn trait_names(t: &Trait) -> Result<(), CapError> {
    name("a trait's name", &t.name)?;
    t.category.as_deref().map_or(Ok(()), |c| name("a trait's category", c))?;
    t.tags.iter().try_for_each(|tag| name("a trait's tag", tag))?;
    t.note.as_deref().map_or(Ok(()), |n| text_of("a trait's note", n, Lines::Several))
}

fn pool_names(def: &crate::pool::Pool) -> Result<(), CapError> {
    def.label.as_deref().map_or(Ok(()), |l| name("a pool's label", l))?;
    def.counts.keys().try_for_each(|k| name("a kind of token", k))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::visibility::Visibility;
    use serde_json::json;

    fn public(body: Body) -> Item {
        Item::new(body, Visibility::Public, None, None)
    }

    fn created(name: &str) -> Item {
        let entity = Entity {
            id: "x".into(),
            kind: "character".into(),
            name: name.into(),
            owner: None,
            visibility: Visibility::Public,
            fields: Default::default(),
            traits: vec![],
            pools: Default::default(),
            portrait: None,
        };
        public(Body::Change { change: Change::Create { entity } })
    }

    #[test]
    fn an_event_an_action_could_make_passes() {
        let caps = Caps::default();
        let items = vec![
            public(Body::Say { text: "The goblins charge.\nThey roar.".into() }),
            created("Gandolf"),
            public(Body::Result { value: json!({"hit": true, "note": "two\nlines"}) }),
        ];
        assert_eq!(caps.event(&items), Ok(()));
    }

    #[test]
    fn each_bound_refuses_the_item_that_breaks_it() {
        let caps = Caps::default();
        let say = |n: usize| public(Body::Say { text: "x".repeat(n) });
        let refused = |items: Vec<Item>| caps.event(&items).unwrap_err();
        let (i, e) = refused(vec![say(10), say(9 * 1024)]);
        assert_eq!((i, e.what.as_str()), (1, "a line of narration"));
        let (_, e) = refused((0..9).map(|_| say(8 * 1024)).collect());
        assert!(e.what.contains("narration of one action"), "{e}");
        let (_, e) = refused((0..5_001).map(|_| say(1)).collect());
        assert!(e.detail.contains("5000"), "{e}");
        let (_, e) = refused(vec![public(Body::Result { value: json!("y".repeat(70_000)) })]);
        assert!(e.detail.contains("65536"), "{e}");
    }

    #[test]
    fn names_and_text_follow_the_one_rule() {
        let caps = Caps::default();
        let (_, e) = caps.event(&[created("Bob\n#9 roll by gm")]).unwrap_err();
        assert_eq!(e.what, "an entity's name");
        assert!(e.detail.contains("line break"), "{e}");
        let (_, e) = caps.event(&[public(Body::Say { text: "a\u{1b}]0;t\u{7}".into() })]).unwrap_err();
        assert!(e.detail.contains("U+001B"), "{e}");
        let e = caps.value("field notes", &json!({"ok\u{202e}": 1})).unwrap_err();
        assert!(e.what.contains("a key") && e.detail.contains("U+202E"), "{e}");
    }
}
