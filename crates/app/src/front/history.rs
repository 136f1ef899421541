//! The log, read beside the session: pages of it, the table with the log since an event, the
//! mark of how far someone has read, and one entry as a forum post.
//!
//! Guarantees: a page is read through the app's own connections to the file, never under the
//! session, so nobody's action waits behind someone's page and a page never waits behind an
//! action; it is made of the campaign as of one event (the view, the forms and the log of a
//! `table` call agree); entries read before are given again only while their stored rows are
//! byte for byte the rows checked ([`crate::entries`]); a page costs the page, not the log.

use super::Answer;
use super::App;
use crate::calls::{Caller, ForumOf, LogPage, ReadTo, TableNow, TableSince};
use crate::campaign::{log_page_text, CampaignError};
use crate::entries::Entries;
use crate::session::Now;
use crate::store::Store;
use houserule_core::post::PostFormat;
use houserule_core::view::LogEntry;
use houserule_core::{ErrorCode, ErrorReport, Role};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The most log entries one call returns.
pub const MAX_LOG_ENTRIES: usize = 2000;

/// How many connections for reading history are kept open between calls.
const READERS: usize = 4;

/// The app's own connections to the file in play, and the entries its viewers saw.
#[derive(Default)]
pub(super) struct History {
    readers: Mutex<Vec<(PathBuf, Store)>>,
    entries: Entries,
}

impl History {
    /// Forgets the last campaign's connections and entries.
    pub(super) fn clear(&self) {
        self.readers.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.entries.clear();
    }
}

/// Which page of the log: the newest `limit` events with `from <= seq < before`.
struct Page {
    from: u64,
    before: u64,
    limit: usize,
}

impl App {
    /// Runs `read` on one of the app's own connections to the campaign file (kept for the next
    /// read), never under the session; a campaign in memory, or one whose path no longer names
    /// the file it holds (deleted, or another moved over it), is read under the session — a
    /// connection opened at the path then would read, and on closing write, another file.
    pub(super) fn reading<R>(
        &self,
        now: &Now,
        read: impl FnOnce(&Store) -> Result<R, ErrorReport>,
    ) -> Result<R, ErrorReport> {
        let Some((path, store)) = now.path.as_ref().and_then(|path| Some((path, self.reader(path, now.file)?))) else {
            let session = self.session()?;
            if now.path.is_some() {
                session.check_file();
            }
            let campaign = session.campaign();
            return read(campaign.store());
        };
        let result = read(&store);
        let mut pool = self.shared.history.readers.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < READERS {
            pool.push((path.clone(), store));
        }
        result
    }

    /// A connection to the file the campaign holds: one kept, or a new one at `path` if the path
    /// still names that file (before and once opened); none otherwise.
    fn reader(&self, path: &Path, file: Option<(u64, u64)>) -> Option<Store> {
        let kept = {
            let mut pool = self.shared.history.readers.lock().unwrap_or_else(|p| p.into_inner());
            pool.retain(|(p, _)| p == path);
            pool.pop()
        };
        if let Some((_, store)) = kept {
            return Some(store);
        }
        if file.is_none() || crate::checked::identity(path) != file {
            return None;
        }
        // The session checked this file when it opened it.
        Store::open_unchecked(path).ok().filter(|store| store.identity() == file)
    }

    /// A page of the log as `role` may see it, as JSON text.
    fn page_text(&self, now: &Now, role: &Role, page: Page) -> Result<String, ErrorReport> {
        let entries = self.reading(now, |store| {
            let before = page.before.min(now.head() + 1);
            let limit = page.limit.min(MAX_LOG_ENTRIES);
            log_page_text(store, &now.voided, role, page.from, before, limit, &self.shared.history.entries)
                .map_err(|e| e.report())
        })?;
        Ok(format!("[{}]", entries.join(",")))
    }

    /// How far `role` has read the log of the campaign in play, if they have looked before.
    pub(super) fn last_read(&self, role: &Role) -> Option<u64> {
        let now = self.now().ok()?;
        self.reading(&now, |store| Ok(crate::reads::last_read(store, role).ok().flatten())).ok().flatten()
    }
}

fn text<T: serde::Serialize>(value: &T) -> Result<String, ErrorReport> {
    serde_json::to_string(value).map_err(|e| ErrorReport::new(ErrorCode::Internal, e.to_string()))
}

pub(super) fn log(app: &App, caller: &Caller, p: LogPage) -> Result<Answer<Vec<LogEntry>>, ErrorReport> {
    let role = caller.acting_as(p.role.as_deref())?;
    let now = app.now()?;
    let page = Page { from: p.from, before: p.before.unwrap_or(u64::MAX), limit: p.limit };
    Ok(Answer::Text(app.page_text(&now, &role, page)?))
}

pub(super) fn table(app: &App, caller: &Caller, p: TableSince) -> Result<Answer<TableNow>, ErrorReport> {
    let role = caller.acting_as(p.role.as_deref())?;
    let now = app.now()?;
    let page = Page { from: p.from.unwrap_or(1), before: u64::MAX, limit: p.limit };
    let log = app.page_text(&now, &role, page)?;
    let (view, actions) = (text(&now.view(&role))?, text(&now.actions(&role))?);
    Ok(Answer::Text(format!("{{\"view\":{view},\"actions\":{actions},\"log\":{log}}}")))
}

pub(super) fn mark_read(app: &App, caller: &Caller, p: ReadTo) -> Result<u64, ErrorReport> {
    let session = app.session()?;
    let campaign = session.campaign();
    crate::reads::mark(campaign.store(), &caller.role, p.seq, campaign.head().0)
        .map_err(|e| CampaignError::from(e).report())
}

pub(super) fn forum_post(app: &App, caller: &Caller, p: ForumOf) -> Result<String, ErrorReport> {
    let format = PostFormat::parse(&p.format).ok_or_else(|| {
        ErrorReport::new(ErrorCode::BadParam, format!("'{}' is not a post format: markdown or bbcode", p.format))
            .with_param("format")
    })?;
    let now = app.now()?;
    let seq = p.seq;
    let mut page = app.reading(&now, |store| {
        crate::campaign::log_page(store, &now.voided, &caller.role, seq, (seq + 1).min(now.head() + 1), 1)
            .map_err(|e| e.report())
    })?;
    let entry = page.pop().ok_or_else(|| {
        ErrorReport::new(ErrorCode::BadParam, format!("there is no event #{seq} you can see")).with_param("seq")
    })?;
    let file = now.path.as_ref().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string());
    Ok(houserule_core::post::post(&entry, &now.info, &file.unwrap_or_default(), format))
}
