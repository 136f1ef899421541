//! The transaction an action (or hook) works in.
//!
//! A [`Tx`] holds a working copy of the table and the items the action produced. Every
//! mutation goes through [`Tx::change`], which applies the [`Change`] to the working copy with
//! [`Table::apply`] and records it as an event item with the right visibility — so the working
//! copy is exactly the fold of the recorded changes. Nothing reaches the campaign until the
//! caller commits; dropping a `Tx` discards everything.
//!
//! Everything that joins a transaction passes its [`Caps`] first (values, narration, the size of
//! the event), so no action can commit an event too deep or too large to read back. A script's
//! transaction runs in the sandbox worker; [`Tx::replay`] makes what it produced the
//! transaction of the process that holds the campaign, which recomputes every visibility, label
//! and die itself and trusts nothing but the bodies.

use crate::caps::{Budget, CapError, Caps};
use crate::dice::{self, Cmp, DiceError, DiceSource, Entropy, Forced, Roll, RollSource, SeededStream};
use crate::entity::{self, Entity, Field};
use crate::event::{Body, Item};
use crate::manifest::Manifest;
use crate::pool::{self, Pool, PoolError, PoolRef};
use crate::table::{Change, Table, TableError};
use crate::traits::{self, Trait, TraitState};
use crate::visibility::{Role, Visibility};
use indexmap::IndexMap;
use serde_json::Value;
use std::sync::Arc;

/// Where the faces of this transaction's rolls come from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum DiceSupply {
    /// From the campaign seed, roll by roll, mixed with the action's entropy.
    Seeded { seed: [u8; 32], entropy: Option<Entropy> },
    /// Faces given in advance.
    Forced(Forced),
}

/// A refused operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxError {
    #[error("{0}")]
    Table(#[from] TableError),
    #[error("{0}")]
    Pool(#[from] PoolError),
    #[error("{0}")]
    Dice(#[from] DiceError),
    #[error("{0}")]
    Rule(String),
    /// A value or the event passed one of the [`Caps`].
    #[error("{0}")]
    Limit(#[from] CapError),
}

/// A new entity as everyone who may see it may see all of it, and the changes that add the
/// parts fewer people may see (each to be recorded with its own visibility).
fn split_by_visibility(mut entity: Entity) -> (Entity, Vec<Change>) {
    let open = entity.visibility;
    let mut parts = Vec::new();
    let fields = std::mem::take(&mut entity.fields);
    for (field, f) in fields {
        if f.visibility > open {
            parts.push(Change::Field {
                entity: entity.id.clone(),
                field,
                value: Some(f.value),
                visibility: f.visibility,
            });
        } else {
            entity.fields.insert(field, f);
        }
    }
    let (hidden, kept): (Vec<Trait>, Vec<Trait>) =
        std::mem::take(&mut entity.traits).into_iter().partition(|t| t.visibility > open);
    entity.traits = kept;
    parts.extend(hidden.into_iter().map(|t| Change::Trait { entity: entity.id.clone(), value: t }));
    let pools = std::mem::take(&mut entity.pools);
    for (name, pool) in pools {
        if pool.visibility > open {
            parts.push(Change::DefinePool { pool: PoolRef { entity: Some(entity.id.clone()), name }, def: pool });
        } else {
            entity.pools.insert(name, pool);
        }
    }
    (entity, parts)
}

/// An owner is a player, named as a player may be named.
fn check_owner(owner: &str) -> Result<(), TxError> {
    Role::parse(&format!("player:{owner}")).map(|_| ()).map_err(|e| {
        let shown: String = owner.chars().take(40).collect();
        rule(format!("'{}' is not a player name: {e}", shown.escape_debug()))
    })
}

fn rule(msg: impl Into<String>) -> TxError {
    TxError::Rule(msg.into())
}

/// Options for a new entity.
#[derive(Debug, Clone, Default)]
pub struct NewEntity {
    pub id: Option<String>,
    pub owner: Option<String>,
    pub visibility: Option<Visibility>,
    pub fields: IndexMap<String, Value>,
    pub traits: Vec<Trait>,
}

/// Options for a roll.
#[derive(Debug, Clone, Default)]
pub struct RollOptions {
    pub label: Option<String>,
    pub visibility: Visibility,
    pub owner: Option<String>,
    pub marks: Vec<(String, Cmp)>,
    /// The expression was typed by a person (a player's or the GM's dice parameter or
    /// setting): read it in the campaign's dice dialect. A ruleset's own expressions are
    /// always read in Houserule's, so a campaign's dialect never changes what its rules roll.
    pub typed: bool,
}

/// A transaction over a working copy of the table.
pub struct Tx {
    pub table: Table,
    pub manifest: Arc<Manifest>,
    pub role: Role,
    pub action: Option<String>,
    pub items: Vec<Item>,
    dice: DiceSupply,
    /// The first dice failure, so the caller can report it as such.
    pub dice_error: Option<DiceError>,
    /// Set while the after-roll hook runs, so its own rolls do not call it again.
    pub in_after_roll: bool,
    /// The bounds on what joins this transaction, and how much of them it used.
    pub caps: Caps,
    budget: Budget,
}

impl Tx {
    pub fn new(table: Table, manifest: Arc<Manifest>, role: Role, action: Option<String>, dice: DiceSupply) -> Tx {
        Tx {
            table,
            manifest,
            role,
            action,
            items: Vec::new(),
            dice,
            dice_error: None,
            in_after_roll: false,
            caps: Caps::default(),
            budget: Budget::default(),
        }
    }

    /// The same transaction with other bounds.
    pub fn with_caps(mut self, caps: Caps) -> Tx {
        self.caps = caps;
        self
    }

    /// A copy of the transaction's state, with no dice left to roll (used only when a script
    /// kept its handle past the end of the call).
    pub fn clone_state(&self) -> Tx {
        let mut t = Tx::new(
            self.table.clone(),
            self.manifest.clone(),
            self.role.clone(),
            self.action.clone(),
            DiceSupply::Forced(Forced::new([])),
        );
        t.items = self.items.clone();
        t.dice_error = self.dice_error.clone();
        t.caps = self.caps.clone();
        t.budget = self.budget.clone();
        t
    }

    /// Adds an item within the event's budget.
    /// Adds an item within the caps: what it costs is what [`Caps::item`] counts, so an event
    /// read back from a file is held to exactly what this transaction was.
    fn push(&mut self, item: Item) -> Result<(), TxError> {
        let (bytes, narration) = self.caps.item(&item)?;
        self.budget.take(&self.caps, bytes, narration)?;
        self.items.push(item);
        Ok(())
    }

    /// Checks every value and name a change carries (see [`Caps::change`]), and its size
    /// (returned, in bytes).
    fn check_change(&self, change: &Change) -> Result<usize, TxError> {
        match change {
            Change::Create { entity: Entity { owner: Some(owner), .. } } => check_owner(owner)?,
            Change::SetOwner { owner: Some(owner), .. } => check_owner(owner)?,
            _ => {}
        }
        Ok(self.caps.change(change)?)
    }

    /// Faces given in advance that were never used.
    pub fn finish_dice(&self) -> Result<(), DiceError> {
        match &self.dice {
            DiceSupply::Forced(f) => f.finish(),
            DiceSupply::Seeded { .. } => Ok(()),
        }
    }

    /// Applies a change to the working table and records it. A value keeps its own
    /// visibility inside a larger change: a new entity's fields, traits and pools that fewer
    /// people may see than the entity itself are recorded as changes of their own, each with
    /// its visibility, so one redaction of items redacts every value.
    pub fn change(&mut self, change: Change) -> Result<(), TxError> {
        match change {
            Change::Create { entity } => {
                let (entity, parts) = split_by_visibility(entity);
                self.change_one(Change::Create { entity })?;
                parts.into_iter().try_for_each(|part| self.change_one(part))
            }
            other => self.change_one(other),
        }
    }

    fn change_one(&mut self, change: Change) -> Result<(), TxError> {
        let bytes = self.check_change(&change)?;
        let (visibility, owner) = self.table.change_visibility(&change);
        let label = self.label_for(&change, visibility);
        self.budget.check(&self.caps, bytes, 0)?;
        self.table.apply(&change)?;
        let label = label.map(|l| self.finish_label(&change, visibility, l));
        self.budget.take(&self.caps, bytes, 0)?;
        self.items.push(Item::new(Body::Change { change }, visibility, owner, label));
        Ok(())
    }

    /// What anyone may know of a change they cannot see.
    fn label_for(&self, change: &Change, visibility: Visibility) -> Option<String> {
        if visibility == Visibility::Public {
            return None;
        }
        match change {
            Change::Pool { pool, .. } => {
                let name = self
                    .table
                    .pool(pool)
                    .ok()
                    .and_then(|p| p.label.clone())
                    .unwrap_or_else(|| pool.name.replace('_', " "));
                Some(format!("{name} changed"))
            }
            Change::Deck { deck, part } => part.label(deck),
            _ => None,
        }
    }

    fn finish_label(&self, change: &Change, visibility: Visibility, label: String) -> String {
        match change {
            Change::Pool { pool, after, .. } if visibility == Visibility::Hidden => {
                let empty = after.values().sum::<i64>() == 0;
                let _ = pool;
                format!("{label} ({})", if empty { "it is now empty" } else { "it is not empty" })
            }
            _ => label,
        }
    }

    /// Adds a line of narration. Owner-only narration names its player.
    pub fn say(
        &mut self,
        text: impl Into<String>,
        visibility: Visibility,
        owner: Option<String>,
    ) -> Result<(), TxError> {
        let text = text.into();
        if (visibility == Visibility::Owner) != owner.is_some() {
            return Err(rule("narration for one player names that player (t.tell), and only such narration does"));
        }
        self.push(Item::new(Body::Say { text }, visibility, owner, None))
    }

    /// Records a parameter. A secret one is seen only by the GM and the player who typed it.
    pub fn record_param(&mut self, name: &str, value: Value, secret: bool) -> Result<(), TxError> {
        self.caps.value(&format!("parameter {name}"), &value)?;
        let (visibility, owner) = match (&self.role, secret) {
            (_, false) => (Visibility::Public, None),
            (Role::Gm | Role::Public, true) => (Visibility::Gm, None),
            (Role::Player(p), true) => (Visibility::Owner, Some(p.clone())),
        };
        self.push(Item::new(Body::Param { name: name.to_string(), value }, visibility, owner, None))
    }

    /// Records what the action returned. It is for the actor (and the GM): the public story
    /// is the narration, so a result may hold what only the actor should see.
    pub fn record_result(&mut self, value: Value) -> Result<(), TxError> {
        self.caps.value("what the action returned", &value)?;
        let (visibility, owner) = match &self.role {
            Role::Player(p) => (Visibility::Owner, Some(p.clone())),
            _ => (Visibility::Gm, None),
        };
        self.push(Item::new(Body::Result { value }, visibility, owner, None))
    }

    /// Adds a post someone wrote, readable as `visibility` (and `owner`) says; its text counts
    /// as narration.
    pub fn post(
        &mut self,
        post: crate::talk::Post,
        visibility: Visibility,
        owner: Option<String>,
    ) -> Result<(), TxError> {
        self.push(Item::new(Body::Post { post }, visibility, owner, None))
    }

    /// Makes the items a script's transaction produced (in the sandbox worker, from the same
    /// table and dice) part of this transaction. Only the bodies are taken: each change is
    /// applied and checked here and its visibility derived from this table; each roll is
    /// rolled again from this transaction's dice and must come out the same; narration keeps
    /// the visibility the script gave it. Parameters are not taken: the caller recorded the
    /// ones it validated.
    pub fn replay(&mut self, items: Vec<Item>) -> Result<(), TxError> {
        for item in items {
            match item.body {
                // The rules in force and the table's permissions are the host's to change.
                Some(Body::Change {
                    change: Change::Rules { .. } | Change::TypedDice { .. } | Change::SomeoneInTurns { .. },
                }) => return Err(rule("a script cannot change the rules in force or who may type in dice")),
                Some(Body::Change { change }) => self.change(change)?,
                Some(Body::Roll { roll }) => self.replay_roll(roll, item.visibility, item.owner)?,
                Some(Body::Say { text }) => self.say(text, item.visibility, item.owner)?,
                Some(Body::Result { value }) => self.record_result(value)?,
                Some(Body::Param { .. }) => {}
                Some(Body::Post { .. }) => return Err(rule("a script cannot write a post: posts are people's")),
                None => return Err(rule("the sandbox returned an item without a body")),
            }
        }
        Ok(())
    }

    // ---- settings -------------------------------------------------------------------------

    pub fn setting(&self, key: &str) -> Result<Value, TxError> {
        self.table.settings.get(key).cloned().ok_or_else(|| {
            let known: Vec<&str> = self.table.settings.keys().map(String::as_str).collect();
            rule(format!("there is no setting '{key}' (settings: {})", known.join(", ")))
        })
    }

    // ---- entities -------------------------------------------------------------------------

    pub fn entity(&self, id: &str) -> Result<&Entity, TxError> {
        Ok(self.table.entity(id)?)
    }

    pub fn create(&mut self, kind: &str, name: &str, opts: NewEntity) -> Result<String, TxError> {
        let spec = self.manifest.kinds.get(kind).ok_or_else(|| {
            let known: Vec<&str> = self.manifest.kinds.keys().map(String::as_str).collect();
            rule(format!("'{kind}' is not an entity kind of {} (kinds: {})", self.manifest.name, known.join(", ")))
        })?;
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 200 {
            return Err(rule("an entity name must be 1 to 200 characters"));
        }
        let id = match opts.id {
            Some(id) => {
                if !entity::valid_id(&id) {
                    return Err(rule(format!("'{id}' is not a valid id (lowercase letters, digits, '_' and '-')")));
                }
                if self.table.entities.contains_key(&id) {
                    return Err(TableError::EntityExists(id).into());
                }
                id
            }
            None => {
                let base = entity::slug(name);
                let mut id = base.clone();
                let mut n = 2;
                while self.table.entities.contains_key(&id) {
                    id = format!("{base}_{n}");
                    n += 1;
                }
                id
            }
        };
        let fields = opts
            .fields
            .into_iter()
            .map(|(k, v)| {
                let vis = spec.fields.get(&k).map(|f| f.visibility).unwrap_or_default();
                (k, Field { value: v, visibility: vis })
            })
            .collect();
        let pools = spec.pools.iter().map(|(n, p)| (n.clone(), p.build(&self.table.settings))).collect();
        let entity = Entity {
            id: id.clone(),
            kind: kind.to_string(),
            name: name.to_string(),
            owner: opts.owner.filter(|o| !o.trim().is_empty()),
            visibility: opts.visibility.unwrap_or(spec.visibility),
            fields,
            traits: Vec::new(),
            pools,
            portrait: None,
        };
        self.change(Change::Create { entity })?;
        for t in opts.traits {
            self.add_trait(&id, t)?;
        }
        Ok(id)
    }

    // ---- fields and vars ------------------------------------------------------------------

    pub fn field_visibility(&self, id: &str, field: &str) -> Visibility {
        if let Some(f) = self.table.entities.get(id).and_then(|e| e.fields.get(field)) {
            return f.visibility;
        }
        self.table
            .entities
            .get(id)
            .and_then(|e| self.manifest.kinds.get(&e.kind))
            .and_then(|k| k.fields.get(field))
            .map(|f| f.visibility)
            .unwrap_or_default()
    }

    pub fn set_field(
        &mut self,
        id: &str,
        field: &str,
        value: Option<Value>,
        visibility: Option<Visibility>,
    ) -> Result<(), TxError> {
        self.entity(id)?;
        if field.is_empty() || field.len() > 100 {
            return Err(rule("a field name must be 1 to 100 characters"));
        }
        // A null value is no value: it clears the field, as it reads back from the log.
        let value = value.filter(|v| !v.is_null());
        let visibility = visibility.unwrap_or_else(|| self.field_visibility(id, field));
        if value.is_none() && !self.entity(id)?.fields.contains_key(field) {
            return Ok(());
        }
        if value.is_some()
            && self
                .entity(id)?
                .fields
                .get(field)
                .is_some_and(|f| Some(&f.value) == value.as_ref() && f.visibility == visibility)
        {
            return Ok(());
        }
        self.change(Change::Field { entity: id.to_string(), field: field.to_string(), value, visibility })
    }

    pub fn set_var(&mut self, name: &str, value: Option<Value>, visibility: Option<Visibility>) -> Result<(), TxError> {
        if name.is_empty() || name.len() > 100 {
            return Err(rule("a variable name must be 1 to 100 characters"));
        }
        // A null value is no value: it clears the variable, as it reads back from the log.
        let value = value.filter(|v| !v.is_null());
        let visibility =
            visibility.unwrap_or_else(|| self.table.vars.get(name).map(|f| f.visibility).unwrap_or_default());
        if value.is_none() && !self.table.vars.contains_key(name) {
            return Ok(());
        }
        if value.is_some()
            && self.table.vars.get(name).is_some_and(|f| Some(&f.value) == value.as_ref() && f.visibility == visibility)
        {
            return Ok(());
        }
        self.change(Change::Var { name: name.to_string(), value, visibility })
    }

    // ---- traits ---------------------------------------------------------------------------

    pub fn find_trait(&self, id: &str, name: &str) -> Result<&Trait, TxError> {
        let e = self.entity(id)?;
        traits::find(&e.traits, name).ok_or_else(|| {
            // Only the traits the one acting may see are suggested: a refusal is shown to them.
            let seen = e.traits.iter().filter(|t| self.role.sees(t.visibility, e.owner.as_deref()));
            let near = crate::names::nearest(name, seen.map(|t| t.name.as_str()));
            let near = near.into_iter().map(String::from).collect();
            TableError::NoTrait { entity: e.name.clone(), name: name.to_string(), near }.into()
        })
    }

    pub fn add_trait(&mut self, id: &str, t: Trait) -> Result<(), TxError> {
        let e = self.entity(id)?;
        if t.name.trim().is_empty() || t.name.chars().count() > 200 {
            return Err(rule("a trait name must be 1 to 200 characters"));
        }
        if traits::find(&e.traits, &t.name).is_some() {
            return Err(rule(format!("{} already has the trait \"{}\"", e.name, t.name)));
        }
        if e.traits.len() >= 500 {
            return Err(rule(format!("{} has 500 traits already", e.name)));
        }
        self.change(Change::Trait { entity: id.to_string(), value: t })
    }

    /// Replaces a trait (found by name) with an updated copy.
    pub fn update_trait(
        &mut self,
        id: &str,
        name: &str,
        update: impl FnOnce(&mut Trait) -> Result<(), TxError>,
    ) -> Result<Trait, TxError> {
        let mut t = self.find_trait(id, name)?.clone();
        let original = t.name.clone();
        update(&mut t)?;
        if t.name != original {
            return Err(rule("a trait cannot be renamed; remove it and add a new one"));
        }
        self.change(Change::Trait { entity: id.to_string(), value: t.clone() })?;
        Ok(t)
    }

    /// Counts one use of a trait; refuses a sealed or spent one.
    pub fn use_trait(&mut self, id: &str, name: &str) -> Result<u32, TxError> {
        let t = self.update_trait(id, name, |t| match t.unusable() {
            Some(why) => Err(rule(why)),
            None => {
                t.uses += 1;
                Ok(())
            }
        })?;
        Ok(t.uses)
    }

    pub fn set_trait_state(&mut self, id: &str, name: &str, state: TraitState) -> Result<(), TxError> {
        self.update_trait(id, name, |t| {
            t.state = state;
            Ok(())
        })
        .map(|_| ())
    }

    pub fn remove_trait(&mut self, id: &str, name: &str) -> Result<(), TxError> {
        let name = self.find_trait(id, name)?.name.clone();
        self.change(Change::RemoveTrait { entity: id.to_string(), name })
    }

    // ---- pools ----------------------------------------------------------------------------

    pub fn pool(&self, r: &str) -> Result<(PoolRef, &Pool), TxError> {
        let pr = PoolRef::parse(r).map_err(|e| rule(e.to_string()))?;
        let p = self.table.pool(&pr)?;
        Ok((pr, p))
    }

    fn set_counts(&mut self, pr: PoolRef, after: pool::Counts) -> Result<(), TxError> {
        let before = self.table.pool(&pr)?.counts.clone();
        if before == after {
            return Ok(());
        }
        self.change(Change::Pool { pool: pr, before, after })
    }

    pub fn add(&mut self, r: &str, n: i64, kind: Option<&str>) -> Result<(), TxError> {
        let (pr, p) = self.pool(r)?;
        let after = p.added(&pr.to_string(), kind, n)?;
        self.set_counts(pr, after)
    }

    /// Adds what fits under the cap; returns how many were added (the rest are lost).
    pub fn add_capped(&mut self, r: &str, n: i64, kind: Option<&str>) -> Result<i64, TxError> {
        let (_, p) = self.pool(r)?;
        let fits = p.room(n.max(0));
        self.add(r, fits, kind)?;
        Ok(fits)
    }

    pub fn take(&mut self, r: &str, n: i64, kind: Option<&str>) -> Result<(), TxError> {
        let (pr, p) = self.pool(r)?;
        let after = p.taken(&pr.to_string(), kind, n)?;
        self.set_counts(pr, after)
    }

    /// Takes as many as possible up to `n`; returns how many were taken.
    pub fn take_upto(&mut self, r: &str, n: i64, kind: Option<&str>) -> Result<i64, TxError> {
        let (_, p) = self.pool(r)?;
        let can = p.available(kind, n.max(0));
        self.take(r, can, kind)?;
        Ok(can)
    }

    pub fn set_pool(&mut self, r: &str, n: i64, kind: Option<&str>) -> Result<(), TxError> {
        let (pr, p) = self.pool(r)?;
        let after = p.set_to(&pr.to_string(), kind, n)?;
        self.set_counts(pr, after)
    }

    pub fn transfer(&mut self, from: &str, to: &str, n: i64, kind: Option<&str>) -> Result<(), TxError> {
        let (fr, fp) = self.pool(from)?;
        let (tr, tp) = self.pool(to)?;
        let (new_from, new_to) = pool::transfer((&fr.to_string(), fp), (&tr.to_string(), tp), kind, n)?;
        self.set_counts(fr, new_from)?;
        self.set_counts(tr, new_to)
    }

    pub fn define_pool(&mut self, r: &str, def: Pool) -> Result<(), TxError> {
        let pr = PoolRef::parse(r).map_err(|e| rule(e.to_string()))?;
        if let Some(e) = &pr.entity {
            self.entity(e)?;
        }
        def.check(&pr.to_string(), &def.counts)?;
        self.change(Change::DefinePool { pool: pr, def })
    }

    // ---- dice -----------------------------------------------------------------------------

    /// Rolls an expression from this transaction's dice supply and records it.
    pub fn roll(&mut self, expr: &str, opts: RollOptions) -> Result<Roll, TxError> {
        let dialect =
            if opts.typed { dice::Dialect::of_settings(&self.table.settings) } else { dice::Dialect::Houserule };
        let result = self.draw(expr, dialect).and_then(|mut roll| {
            roll.label = opts.label.filter(|l| !l.is_empty());
            for (mark, cmp) in &opts.marks {
                roll.mark(mark, *cmp);
            }
            self.record_roll(roll, opts.visibility, opts.owner)
        });
        if let Err(TxError::Dice(e)) = &result {
            self.dice_error.get_or_insert_with(|| e.clone());
        }
        result
    }

    /// Rolls `expr` from the dice supply (nothing recorded yet).
    fn draw(&mut self, expr: &str, dialect: dice::Dialect) -> Result<Roll, TxError> {
        let parsed = dice::parse_in(expr, dialect)
            .map_err(|e| DiceError { column: e.column, message: format!("'{expr}': {}", e.message) })?;
        let roll = match &mut self.dice {
            DiceSupply::Forced(f) => dice::roll(&parsed, f as &mut dyn DiceSource, RollSource::Forced)?,
            DiceSupply::Seeded { seed, entropy } => {
                let counter = self.table.next_roll;
                let mut stream = SeededStream::for_roll(seed, counter, entropy.as_ref());
                let r = dice::roll(&parsed, &mut stream, RollSource::Generated { counter, entropy: *entropy })?;
                self.table.next_roll = counter + 1;
                r
            }
        };
        Ok(roll)
    }

    /// Records a roll. Who cannot see it may still count it: a secret roll keeps its counter
    /// public.
    fn record_roll(&mut self, roll: Roll, visibility: Visibility, owner: Option<String>) -> Result<Roll, TxError> {
        if visibility == Visibility::Owner && owner.is_none() {
            return Err(rule("an owner-only roll names who may see it"));
        }
        let label = (visibility != Visibility::Public).then(|| "a secret roll".to_string());
        let mut item = Item::new(Body::Roll { roll: roll.clone() }, visibility, owner, label);
        if visibility != Visibility::Public {
            item.public = match roll.source {
                RollSource::Generated { counter, .. } => Some(serde_json::json!({ "counter": counter })),
                RollSource::Forced => Some(serde_json::json!({ "forced": true })),
            };
        }
        self.push(item)?;
        Ok(roll)
    }

    /// A roll made in the sandbox worker: rolled again here, it must show the same dice.
    fn replay_roll(&mut self, theirs: Roll, visibility: Visibility, owner: Option<String>) -> Result<(), TxError> {
        let ours = self.draw(&theirs.expr, theirs.dialect)?;
        let mut plain = theirs.clone();
        plain.label = None;
        for term in &mut plain.terms {
            for die in &mut term.dice {
                die.marks.clear();
            }
        }
        if plain != ours {
            return Err(rule(format!("the sandbox returned a roll of {} that the dice do not give", theirs.expr)));
        }
        self.record_roll(theirs, visibility, owner).map(|_| ())
    }

    /// Advances the round counter.
    pub fn end_round(&mut self) -> Result<u64, TxError> {
        let round = self.table.round + 1;
        self.change(Change::Round { round })?;
        Ok(round)
    }
}

#[cfg(test)]
#[path = "tx_tests.rs"]
mod tests;
