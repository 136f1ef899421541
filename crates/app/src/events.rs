//! The one hub every front end follows ([`Hub`]), and what it carries ([`AppEvent`]): a
//! campaign opened, something that happened in the campaign in play ([`SessionEvent`]), the
//! table served to browsers or refereed in a room changing state.
//!
//! Guarantees: an event reaches every subscriber in the thread that announces it, before the
//! call that caused it returns (an action's `committed` is queued on every connection by the
//! time its reply is written); a subscriber that stops listening is dropped on the next event;
//! [`AppEvent::may_reach`] is the one rule for who may be told what (rule errors, watch
//! notices, hosting and online status are the GM's; a post only its readers are told of).

use crate::online::Online;
use crate::reload::ReloadReport;
use crate::serving::Serving;
use houserule_core::plugin::Diagnostic;
use houserule_core::view::CampaignInfo;
use houserule_core::Role;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};

/// Something a front end shows as it happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AppEvent {
    /// A campaign was opened or created.
    Opened { campaign: CampaignInfo },
    /// The campaign in play was closed: none is in play now.
    Closed,
    /// Something happened in the campaign in play.
    Session { event: SessionEvent },
    /// The table served to browsers changed: started, stopped, someone came or went (none: not
    /// served).
    Hosting { serving: Option<Serving> },
    /// The campaign's referee in its room changed: linked, started, stopped, in trouble (none:
    /// not linked).
    Online { online: Option<Online> },
}

impl AppEvent {
    /// Whether `role` may be told of this event.
    pub fn may_reach(&self, role: &Role) -> bool {
        match self {
            AppEvent::Opened { .. } | AppEvent::Closed => true,
            AppEvent::Session { event } => event.may_reach(role),
            AppEvent::Hosting { .. } | AppEvent::Online { .. } => role.is_gm(),
        }
    }
}

/// Something that happened in a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEvent {
    /// An action (or a post, `action` "post") was committed. `readers`: who besides the GM may
    /// read it, when not everyone — nobody else is told of it.
    Committed {
        seq: u64,
        actor: Role,
        action: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        readers: Option<Role>,
    },
    /// New rules are in force.
    Reloaded { report: ReloadReport },
    /// Another program (`houserule act` while `serve` runs) added events to the file; they are
    /// in the table now.
    Written { from: u64, to: u64 },
    /// Edited rules did not load; the previous rules keep running.
    ReloadFailed { problems: Vec<Diagnostic> },
    /// The campaign file was deleted, renamed away or replaced while open: the action that
    /// found it was not kept, and nothing more is written (everyone is told why).
    FileGone { message: String },
    /// The session watches these folders for saved edits.
    Watching { ruleset: Option<PathBuf>, house: Option<PathBuf> },
}

impl SessionEvent {
    /// Whether `role` may be told of this event: rule errors and watch notices are the GM's, and
    /// a post only its readers are told of.
    pub fn may_reach(&self, role: &Role) -> bool {
        match self {
            SessionEvent::ReloadFailed { .. } | SessionEvent::Watching { .. } => role.is_gm(),
            SessionEvent::Committed { readers: Some(reader), .. } => role.is_gm() || role == reader,
            _ => true,
        }
    }
}

/// Someone following the hub: told each event, returns whether it still listens.
type Subscriber = Box<dyn FnMut(&AppEvent) -> bool + Send>;

/// Where events are announced and followed; clones share their subscribers.
#[derive(Clone, Default)]
pub struct Hub {
    subscribers: Arc<Mutex<Vec<Subscriber>>>,
}

impl Hub {
    /// Receives every later event.
    pub fn subscribe(&self) -> Receiver<AppEvent> {
        let (tx, rx) = channel();
        self.subscribe_with(move |e| tx.send(e.clone()).is_ok());
        rx
    }

    /// Calls `f` with every later event, in the thread that announces it. `f` must not block;
    /// it returns whether it still listens.
    pub fn subscribe_with(&self, f: impl FnMut(&AppEvent) -> bool + Send + 'static) {
        self.subscribers.lock().unwrap_or_else(|p| p.into_inner()).push(Box::new(f));
    }

    /// Tells every subscriber.
    pub fn publish(&self, event: AppEvent) {
        self.subscribers.lock().unwrap_or_else(|p| p.into_inner()).retain_mut(|f| f(&event));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_is_the_gms_and_a_post_reaches_only_its_readers() {
        let ann = Role::Player("ann".into());
        let bo = Role::Player("bo".into());
        assert!(!AppEvent::Hosting { serving: None }.may_reach(&ann));
        assert!(AppEvent::Hosting { serving: None }.may_reach(&Role::Gm));
        assert!(!AppEvent::Online { online: None }.may_reach(&ann));
        let whisper =
            SessionEvent::Committed { seq: 3, actor: Role::Gm, action: "post".into(), readers: Some(bo.clone()) };
        let event = AppEvent::Session { event: whisper };
        assert!(event.may_reach(&bo) && event.may_reach(&Role::Gm) && !event.may_reach(&ann));
    }

    #[test]
    fn a_subscriber_that_stops_listening_is_dropped() {
        let hub = Hub::default();
        let rx = hub.subscribe();
        drop(rx);
        hub.publish(AppEvent::Hosting { serving: None });
        assert_eq!(hub.subscribers.lock().unwrap().len(), 0);
    }
}
