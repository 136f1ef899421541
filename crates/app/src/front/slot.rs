//! The campaign in play ([`Slot`]): which session, and where its file is.
//!
//! Guarantees: the slot is locked only to read or swap which campaign is in play, never
//! across a call's work — a handler takes its own handle on the session ([`InPlay`]) and lets
//! go of the slot at once, so opening a campaign, a player's view and another's action never
//! wait for each other here. What is read of the campaign comes from [`Session::now`], which
//! never waits for an action or a reload in progress.

use super::App;
use crate::session::{Now, Session};
use houserule_core::view::CampaignInfo;
use houserule_core::{ErrorCode, ErrorReport};
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

/// A campaign in play: its session and its file.
pub struct InPlay {
    pub session: Session,
    pub path: PathBuf,
}

/// Which campaign is in play, if any.
#[derive(Default)]
pub(super) struct Slot(RwLock<Option<Arc<InPlay>>>);

impl Slot {
    fn get(&self) -> Option<Arc<InPlay>> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(super) fn put(&self, in_play: InPlay) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(in_play));
    }

    /// Takes the campaign out of play; what was in play.
    pub(super) fn take(&self) -> Option<Arc<InPlay>> {
        self.0.write().unwrap_or_else(|p| p.into_inner()).take()
    }
}

fn no_campaign() -> ErrorReport {
    ErrorReport::new(ErrorCode::NoCampaign, "no campaign is open")
}

impl App {
    /// The campaign in play.
    pub fn in_play(&self) -> Result<Arc<InPlay>, ErrorReport> {
        self.shared.slot.get().ok_or_else(no_campaign)
    }

    /// The session of the campaign in play.
    pub fn session(&self) -> Result<Session, ErrorReport> {
        Ok(self.in_play()?.session.clone())
    }

    /// The campaign in play as of its last change.
    pub fn now(&self) -> Result<Arc<Now>, ErrorReport> {
        Ok(self.in_play()?.session.now())
    }

    /// The campaign in play and its file, if any.
    pub fn current(&self) -> Option<(CampaignInfo, PathBuf)> {
        self.shared.slot.get().map(|p| (p.session.now().info.clone(), p.path.clone()))
    }

    /// Reads in what another program wrote to the campaign file in play (nothing open: nothing).
    pub fn catch_up(&self) -> Result<(), ErrorReport> {
        match self.shared.slot.get() {
            Some(p) => p.session.catch_up().map_err(|e| e.report()),
            None => Ok(()),
        }
    }
}
