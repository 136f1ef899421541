//! What a front end offers: the calls the desktop window, the browsers of a server and the
//! players of a Matrix room make, answered in one place.
//!
//! [`App`] is a thin dispatcher: each call of the one list (`calls/list.rs`) names its handler
//! in one of the small services here — [`play`] (the table: views, forms, actions, posts),
//! [`history`] (the log, read beside the session), [`gm`] (undo, corrections, join links,
//! copies), [`rules`] (the manifest and house rules), [`lab`] (the balance lab), [`ports`]
//! (the server and the referee a front end installed), [`files`] (campaign files) — and the
//! dispatcher made from the list checks who may make it and writes its answer as JSON text:
//! one reply path for every front end. A front end only says who is calling ([`Caller`]).
//!
//! Guarantees: who may make a call is checked before its handler runs, from the list; a
//! caller's role and rights come from the front end, never from the call; the campaign in play
//! is read without holding anything across the sandbox ([`slot`]): a view, a form or a log
//! page never waits for an action's script.

// Every function of a service fits on a screen: 40 lines at most (clippy.toml).
#![deny(clippy::too_many_lines)]

mod dispatch;
mod files;
mod gm;
mod history;
mod lab;
mod pictures;
mod play;
mod ports;
mod rules;
mod scene;
mod slot;

use crate::calls::{Call, Caller};
use crate::events::{AppEvent, Hub};
use houserule_core::{ErrorCode, ErrorReport};
pub use ports::{OnlineTable, TableServer};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

/// The most log entries one call returns.
pub const MAX_LOG_ENTRIES: usize = history::MAX_LOG_ENTRIES;

/// A call's answer: a value, or its JSON text already written (log pages, read from entries
/// made before).
pub enum Answer<T> {
    Value(T),
    Text(String),
}

impl<T> From<T> for Answer<T> {
    fn from(value: T) -> Answer<T> {
        Answer::Value(value)
    }
}

impl<T: Serialize> Answer<T> {
    fn into_text(self) -> Result<String, ErrorReport> {
        match self {
            Answer::Text(t) => Ok(t),
            Answer::Value(v) => serde_json::to_string(&v).map_err(|e| internal(e.to_string())),
        }
    }
}

fn internal(message: String) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, message)
}

/// The app's state, shared by its clones: the campaign in play and each service's own.
#[derive(Default)]
struct Shared {
    slot: slot::Slot,
    hub: Hub,
    history: history::History,
    lab: lab::Lab,
    ports: ports::Ports,
    files: files::Files,
    pictures: pictures::Masks,
    /// The link each player joined with (when it was made), so a link ended or replaced by
    /// another program ends their connections too (see `App::sweep_links`).
    joined: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

/// The campaign in play, everyone following it, and the services that answer calls on it.
#[derive(Clone, Default)]
pub struct App {
    shared: Arc<Shared>,
}

impl App {
    /// An app that remembers recently opened files in `recent_file` (none: it does not).
    pub fn new(recent_file: Option<PathBuf>) -> App {
        let app = App::default();
        app.shared.files.remember_in(recent_file);
        app
    }

    /// Answers one call for `caller` as JSON text: checks who may make it, then its handler
    /// does it (as whom it runs is the handler's to ask of the caller).
    pub fn call(&self, caller: &Caller, call: Call) -> Result<String, ErrorReport> {
        caller.may(&call)?;
        self.dispatch(caller, call)
    }

    /// As [`App::call`], the answer read as `T` (for front ends in this process that show it
    /// their own way, such as a chat room).
    pub fn ask<T: DeserializeOwned>(&self, caller: &Caller, call: Call) -> Result<T, ErrorReport> {
        let text = self.call(caller, call)?;
        serde_json::from_str(&text).map_err(|e| internal(format!("the answer did not read back: {e}")))
    }

    /// The hub every event is announced on.
    pub fn events(&self) -> &Hub {
        &self.shared.hub
    }

    /// Receives every later event: campaigns opened, actions, reloads, hosting and online.
    pub fn subscribe(&self) -> Receiver<AppEvent> {
        self.shared.hub.subscribe()
    }

    /// Calls `f` with every later event, in the thread that announces it: an action's
    /// `committed` event reaches `f` before the call that took the action returns. `f` must not
    /// block; it returns whether it still listens.
    pub fn subscribe_with(&self, f: impl FnMut(&AppEvent) -> bool + Send + 'static) {
        self.shared.hub.subscribe_with(f);
    }
}
