//! The balance lab the GM started last: started from the table as it stands, followed, stopped.
//!
//! Guarantees: a lab plays on a thread and sandbox workers of its own over a copy of the table
//! ([`crate::lab::Job`]), so the table plays on while it runs; starting one stops the one
//! before; rules that cannot play the lab are refused before anything starts, with the reason
//! in words ([`crate::lab::has_policy`], the same check the lab itself makes).

use super::App;
use crate::calls::{Caller, LabStart, Nothing};
use crate::lab::{self as balance, Job, LabProgress};
use houserule_core::{ErrorCode, ErrorReport};
use std::sync::Mutex;

/// The lab started last, if any.
#[derive(Default)]
pub(super) struct Lab(Mutex<Option<Job>>);

impl Lab {
    /// Forgets (and so stops) the lab of the campaign that was in play.
    pub(super) fn clear(&self) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn progress(&self, stop: bool) -> Option<LabProgress> {
        let job = self.0.lock().unwrap_or_else(|p| p.into_inner());
        job.as_ref().map(|j| {
            if stop {
                j.stop();
            }
            j.progress()
        })
    }
}

pub(super) fn start(app: &App, _: &Caller, p: LabStart) -> Result<LabProgress, ErrorReport> {
    if p.times == 0 || p.times > balance::MAX_TIMES {
        return Err(ErrorReport::new(ErrorCode::BadParam, format!("times must be 1 to {}", balance::MAX_TIMES))
            .with_param("times"));
    }
    let now = app.now()?;
    balance::has_policy(&now.rules, &[]).map_err(|e| ErrorReport::new(ErrorCode::Refused, e.to_string()))?;
    let setups = app.session()?.campaign().lab_setups();
    let job = Job::start(setups, p.seed, p.times, now.head());
    let progress = job.progress();
    *app.shared.lab.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(job);
    Ok(progress)
}

pub(super) fn progress(app: &App, _: &Caller, _: Nothing) -> Result<Option<LabProgress>, ErrorReport> {
    Ok(app.shared.lab.progress(false))
}

pub(super) fn stop(app: &App, _: &Caller, _: Nothing) -> Result<Option<LabProgress>, ErrorReport> {
    Ok(app.shared.lab.progress(true))
}
