//! The GM's own operations on the table, outside the rules: scenes and fog, pictures, handouts.
//!
//! Each is built in, as permissions are: one transaction over the table, held to the same caps
//! as an action's, with no dice; the operation's changes and a line only the GM reads; one event
//! (an action by the GM, so undo takes it back like any other). Anyone else is refused before a
//! transaction exists, and a refusal commits nothing.

use super::{Campaign, CampaignError};
use crate::campaign::append::Append;
use houserule_core::action::Staged;
use houserule_core::dice::Forced;
use houserule_core::event::EventKind;
use houserule_core::table::Table;
use houserule_core::tx::{DiceSupply, Tx, TxError};
use houserule_core::view::{self, LogEntry};
use houserule_core::{Role, Visibility};
use serde_json::Value;

/// A refusal from inside a GM operation's transaction, as the campaign says it.
pub(super) fn refused(e: TxError) -> CampaignError {
    CampaignError::Refused(e.to_string())
}

impl Campaign {
    /// A transaction over the table for `action` by `actor`, with the ruleset's caps.
    pub(super) fn op_tx(&self, actor: &Role, action: &str, dice: DiceSupply) -> Tx {
        Tx::new(Table::clone(&self.table), self.rules.manifest.clone(), actor.clone(), Some(action.into()), dice)
            .with_caps(self.rules.limits.caps.clone())
    }

    /// A GM operation's transaction, with no dice, after refusing anyone but the GM with
    /// `only_gm` (which says what only the GM does).
    pub(super) fn gm_tx(&mut self, actor: &Role, action: &str, only_gm: &str) -> Result<Tx, CampaignError> {
        self.catch_up()?;
        if !actor.is_gm() {
            return Err(CampaignError::Refused(only_gm.into()));
        }
        Ok(self.op_tx(actor, action, DiceSupply::Forced(Forced::new([]))))
    }

    /// Adds the GM's `line` to `tx` and stages it as the event of `action`, to commit.
    pub(super) fn gm_staged<'a>(
        actor: &Role,
        action: &str,
        mut tx: Tx,
        line: String,
    ) -> Result<Append<'a>, CampaignError> {
        tx.say(line, Visibility::Gm, None).map_err(refused)?;
        let staged = Staged { tx, result: Value::Null, log: vec![] };
        Ok(Append::new(EventKind::Action, Some(actor.clone()), staged).action(action))
    }

    /// Does one GM operation: `apply` makes its changes in the transaction and returns the GM's
    /// line; all of it is committed as one event, or nothing is.
    pub(super) fn gm_op(
        &mut self,
        actor: &Role,
        action: &str,
        only_gm: &str,
        apply: impl FnOnce(&mut Tx) -> Result<String, TxError>,
    ) -> Result<LogEntry, CampaignError> {
        let mut tx = self.gm_tx(actor, action, only_gm)?;
        let line = apply(&mut tx).map_err(refused)?;
        let (header, items) = self.commit(Self::gm_staged(actor, action, tx, line)?)?;
        Ok(view::log_entry(&header, &items, &hex::encode(self.head.1), actor))
    }
}
