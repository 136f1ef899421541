//! What readers read of a campaign in play ([`Now`]): the table, the rules and the head as of
//! its last change, swapped whole after every change ([`super::CampaignGuard`]).
//!
//! Guarantees: a view, an action form or a log page is made from one `Now`, so its parts agree
//! (the same event); reading one never waits for an action or a reload, however long its
//! script runs — the campaign's lock is held only by whoever changes it.

use crate::campaign::Campaign;
use crate::rules::Rules;
use houserule_core::table::Table;
use houserule_core::view::{self, ActionForm, CampaignInfo, View};
use houserule_core::Role;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The campaign as of one event.
#[derive(Clone)]
pub struct Now {
    pub info: CampaignInfo,
    pub table: Arc<Table>,
    pub rules: Arc<Rules>,
    /// The campaign file (none: in memory).
    pub path: Option<PathBuf>,
    /// The file the campaign holds (device and inode): the path may name another by now.
    pub file: Option<(u64, u64)>,
    /// The events undone so far, each with the undo that voided it.
    pub voided: Arc<BTreeMap<u64, u64>>,
}

impl Now {
    /// `campaign` as it stands.
    pub fn of(campaign: &Campaign) -> Now {
        Now {
            info: campaign.info(),
            table: campaign.shared_table(),
            rules: campaign.rules().clone(),
            path: campaign.path(),
            file: campaign.store().identity(),
            voided: Arc::new(campaign.voided_map().clone()),
        }
    }

    /// The last event's number.
    pub fn head(&self) -> u64 {
        self.info.events
    }

    /// The table as `role` may see it.
    pub fn view(&self, role: &Role) -> View {
        view::table_view(&self.table, role, self.info.clone())
    }

    /// The actions `role` may take now, as forms.
    pub fn actions(&self, role: &Role) -> Vec<ActionForm> {
        view::action_forms(&self.rules.manifest, &self.table, role, &self.rules.info.quotes)
    }
}
