//! Taking mistakes back, and setting values by hand: the GM's undo and corrections.
//!
//! **Undo** appends one `undo` event whose changes bring the table back to what it was right
//! after an earlier event ([`houserule_core::undo::restore`]). Nothing is deleted: the undone
//! events stay in the log, marked voided (their rolls still verify), and the dice counter
//! never goes back, so a voided roll is never rolled again and undo cannot fish for dice. The
//! undo's changes are ordinary changes, so each player sees of it exactly what their view
//! allows. An action whose manifest says `not_undoable` is not taken back, and an undo never
//! reaches into a stretch an earlier undo already took back.
//!
//! **Corrections** set a field, a pool count or a trait on any entity, through the same checks
//! as a script's, and log the GM's reason (as secret as the value it corrects).

use crate::campaign::{Append, Campaign, CampaignError};
use houserule_core::action::Staged;
use houserule_core::dice::Forced;
use houserule_core::event::{EventKind, Header};
use houserule_core::traits::{Trait, TraitState};
use houserule_core::tx::{DiceSupply, Tx, TxError};
use houserule_core::view::{self, LogEntry};
use houserule_core::{undo, Role, Visibility};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A value the GM sets by hand.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(tag = "what", rename_all = "snake_case", deny_unknown_fields)]
pub enum Correction {
    /// Sets a field of an entity (no `value`: removes it).
    Field {
        entity: String,
        field: String,
        #[serde(default)]
        value: Option<Value>,
    },
    /// Sets a pool's count (`kind`: which kind, for a pool of several).
    Pool {
        pool: String,
        count: i64,
        #[serde(default)]
        kind: Option<String>,
    },
    /// Adds a trait, or sets the rating or state of one; `remove` takes it away.
    Trait {
        entity: String,
        name: String,
        #[serde(default)]
        rating: Option<i64>,
        #[serde(default)]
        state: Option<TraitState>,
        #[serde(default)]
        remove: bool,
    },
}

fn refused(message: impl Into<String>) -> CampaignError {
    CampaignError::Refused(message.into())
}

fn tx_error(e: TxError) -> CampaignError {
    CampaignError::Refused(e.to_string())
}

/// The header of every event, in order.
fn headers(c: &Campaign) -> Result<Vec<Header>, CampaignError> {
    let mut out = vec![];
    c.store().each_header(|_, _, header, _| {
        out.push(
            serde_json::from_str(&header)
                .map_err(|e| crate::store::StoreError::Corrupt(format!("an event header does not parse: {e}")))?,
        );
        Ok(())
    })?;
    Ok(out)
}

/// What an undo event says it did: the event it went back to, and the events it voided.
fn undo_detail(h: &Header) -> Option<(u64, Vec<u64>)> {
    let d = h.detail.as_ref()?;
    let to = d.get("to")?.as_u64()?;
    let voided = d.get("voided")?.as_array()?.iter().filter_map(Value::as_u64).collect();
    Some((to, voided))
}

impl Campaign {
    /// Every event an undo took back, with the undo that did.
    pub fn voided(&self) -> &BTreeMap<u64, u64> {
        &self.voided
    }

    /// Reads from the log which events were undone (when the file is opened).
    pub(crate) fn find_voided(&self) -> Result<BTreeMap<u64, u64>, CampaignError> {
        let mut out = BTreeMap::new();
        let undos = self
            .store()
            .undo_headers()?
            .iter()
            .map(|text| serde_json::from_str::<Header>(text))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| crate::store::StoreError::Corrupt(format!("an undo event's header does not parse: {e}")))?;
        for h in undos.iter().filter(|h| h.kind == EventKind::Undo) {
            for v in undo_detail(h).map(|(_, v)| v).unwrap_or_default() {
                out.insert(v, h.seq);
            }
        }
        Ok(out)
    }

    /// Takes back the latest action not yet undone — or, with `to`, every action after event
    /// `to` — and returns the undo event as `actor` sees it.
    pub fn undo(&mut self, actor: &Role, to: Option<u64>) -> Result<LogEntry, CampaignError> {
        self.catch_up()?;
        let all = headers(self)?;
        let voided = self.voided.clone();
        let undoable =
            |h: &&Header| matches!(h.kind, EventKind::Action | EventKind::Correction) && !voided.contains_key(&h.seq);
        let to = match to {
            Some(t) if t >= self.head().0 => {
                return Err(refused(format!("event {t} is the latest there is: nothing after it to undo")))
            }
            Some(t) => t,
            None => {
                let last = all.iter().rev().find(undoable).ok_or_else(|| refused("there is nothing to undo"))?;
                last.seq - 1
            }
        };
        // The state right after `to` must be one the table really passed through: an earlier
        // undo that went back before `to` took away what came between.
        if let Some((u, back_to)) = all
            .iter()
            .filter(|h| h.seq > to && h.kind == EventKind::Undo)
            .filter_map(|h| undo_detail(h).map(|(t, _)| (h.seq, t)))
            .find(|(_, t)| *t < to)
        {
            return Err(refused(format!(
                "event {to} was already taken back by the undo at #{u}: undo to #{back_to} or earlier"
            )));
        }
        let targets: Vec<&Header> = all.iter().filter(|h| h.seq > to).filter(undoable).collect();
        if targets.is_empty() {
            return Err(refused(format!("there is nothing after #{to} left to undo")));
        }
        let manifest = self.rules().manifest.clone();
        for h in &targets {
            let action = h.action.as_deref().unwrap_or_default();
            if let Some(why) = manifest.actions.get(action).and_then(|a| a.not_undoable.as_deref()) {
                return Err(refused(format!("#{} ({action}) cannot be undone: {why}", h.seq)));
            }
        }
        let then = Campaign::state_at(self.store(), to)?;
        let mut tx = Tx::new(self.table().clone(), manifest, actor.clone(), None, DiceSupply::Forced(Forced::new([])));
        for change in undo::restore(self.table(), &then) {
            tx.change(change).map_err(|e| {
                refused(format!("this cannot be taken back in one step ({e}); undo fewer events at a time"))
            })?;
        }
        let named: Vec<String> = targets
            .iter()
            .map(|h| format!("#{} {}", h.seq, h.action.as_deref().unwrap_or("correction").replace('_', " ")))
            .collect();
        let line = format!("The GM takes back {}: the table is as it was after #{to}.", named.join(", "));
        tx.say(line, Visibility::Public, None).map_err(tx_error)?;
        let detail = json!({ "to": to, "voided": targets.iter().map(|h| h.seq).collect::<Vec<_>>() });
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let voids: Vec<u64> = targets.iter().map(|h| h.seq).collect();
        let (header, items) =
            self.commit(Append::new(EventKind::Undo, Some(actor.clone()), staged).detail(Some(detail)))?;
        for v in voids {
            self.voided.insert(v, header.seq);
        }
        Ok(view::log_entry(&header, &items, &hex::encode(self.head().1), actor))
    }

    /// Sets a value by hand, logging the GM's reason beside it.
    pub fn correct(&mut self, actor: &Role, correction: &Correction, reason: &str) -> Result<LogEntry, CampaignError> {
        self.catch_up()?;
        let reason = reason.trim();
        if reason.is_empty() || reason.chars().count() > 500 {
            return Err(CampaignError::BadParam {
                param: "reason".into(),
                message: "say why, in 1 to 500 characters".into(),
            });
        }
        let manifest = self.rules().manifest.clone();
        let mut tx = Tx::new(self.table().clone(), manifest, actor.clone(), None, DiceSupply::Forced(Forced::new([])));
        let what = match correction {
            Correction::Field { entity, field, value } => {
                tx.set_field(entity, field, value.clone(), None).map_err(tx_error)?;
                format!("{field} of {}", tx.entity(entity).map_err(tx_error)?.name)
            }
            Correction::Pool { pool, count, kind } => {
                tx.set_pool(pool, *count, kind.as_deref()).map_err(tx_error)?;
                format!("pool {pool}")
            }
            Correction::Trait { entity, name, rating, state, remove } => {
                let exists = tx.find_trait(entity, name).is_ok();
                match (exists, remove) {
                    (true, true) => tx.remove_trait(entity, name).map_err(tx_error)?,
                    (false, true) => return Err(refused(format!("{entity} has no trait \"{name}\" to remove"))),
                    (true, false) => {
                        tx.update_trait(entity, name, |t| {
                            if rating.is_some() {
                                t.rating = *rating;
                            }
                            if let Some(s) = state {
                                t.state = *s;
                            }
                            Ok(())
                        })
                        .map_err(tx_error)?;
                    }
                    (false, false) => {
                        let mut t = Trait::named(name.clone());
                        t.rating = *rating;
                        t.state = state.unwrap_or_default();
                        tx.add_trait(entity, t).map_err(tx_error)?;
                    }
                }
                format!("trait {name} of {}", tx.entity(entity).map_err(tx_error)?.name)
            }
        };
        // The reason is as secret as what it corrects: the change item says who may see that.
        let Some(change) = tx.items.last() else {
            return Err(refused(format!("{what} already has that value: nothing to correct")));
        };
        let visibility = change.visibility;
        let owner = change.owner.clone().filter(|_| visibility == Visibility::Owner);
        tx.say(format!("GM correction to {what}: {reason}"), visibility, owner).map_err(tx_error)?;
        let detail = json!({ "reason": reason });
        let detail = (visibility == Visibility::Public).then_some(detail);
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        let (header, items) =
            self.commit(Append::new(EventKind::Correction, Some(actor.clone()), staged).detail(detail))?;
        Ok(view::log_entry(&header, &items, &hex::encode(self.head().1), actor))
    }
}
