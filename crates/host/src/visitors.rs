//! Who is connected to a running server, and closing their connections.
//!
//! Every WebSocket is listed from the moment it opens until it ends, with who it joined as once
//! its `hello` proved it. Closing one (the GM removed that player, or the server stops) wakes
//! its task, which sends a close frame that says why: a close asked for before the task waits
//! is not lost.

use houserule_app::serving::Visitor;
use houserule_core::Role;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// Why a connection is closed (its WebSocket close code, in the range left to applications).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// The GM removed this player from the table.
    Removed,
    /// The GM stopped serving the table.
    Stopped,
    /// The GM closed the table to other computers (this one still reaches it).
    NetworkClosed,
}

impl Closing {
    pub fn code(self) -> u16 {
        match self {
            Closing::Removed => 4001,
            Closing::Stopped => 4002,
            Closing::NetworkClosed => 4003,
        }
    }

    pub fn reason(self) -> &'static str {
        match self {
            Closing::Removed => "the GM removed you from the table",
            Closing::Stopped => "the GM stopped hosting the table",
            Closing::NetworkClosed => "the GM closed the table to other computers",
        }
    }
}

/// A connection's end of its close signal.
pub struct Close {
    signal: Arc<Signal>,
}

#[derive(Default)]
struct Signal {
    notify: Notify,
    why: Mutex<Option<Closing>>,
}

impl Close {
    /// Waits until the connection is to close; why.
    pub async fn wait(&mut self) -> Closing {
        loop {
            if let Some(why) = *self.signal.why.lock().unwrap_or_else(|p| p.into_inner()) {
                return why;
            }
            self.signal.notify.notified().await;
        }
    }
}

struct Open {
    visitor: Visitor,
    peer: IpAddr,
    role: Option<Role>,
    signal: Arc<Signal>,
}

/// The connections of one running server.
#[derive(Default)]
pub struct Visitors {
    next: AtomicU64,
    open: Mutex<BTreeMap<u64, Open>>,
}

impl Visitors {
    fn open(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Open>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Lists a new connection from `peer`: its number and its close signal.
    pub fn arrived(&self, peer: IpAddr) -> (u64, Close) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let signal = Arc::new(Signal::default());
        let visitor = Visitor { id, who: None, from: peer.to_string(), since: houserule_app::campaign::now() };
        self.open().insert(id, Open { visitor, peer, role: None, signal: signal.clone() });
        (id, Close { signal })
    }

    /// Notes who connection `id` joined as.
    pub fn joined(&self, id: u64, role: Option<&Role>) {
        if let Some(open) = self.open().get_mut(&id) {
            open.visitor.who = role.map(|r| r.to_string());
            open.role = role.cloned();
        }
    }

    pub fn left(&self, id: u64) {
        self.open().remove(&id);
    }

    /// The connections open now, oldest first.
    pub fn list(&self) -> Vec<Visitor> {
        self.open().values().map(|o| o.visitor.clone()).collect()
    }

    /// Closes every connection that joined as `role`; how many.
    pub fn close_role(&self, role: &Role, why: Closing) -> usize {
        let open = self.open();
        let mut n = 0;
        for o in open.values().filter(|o| o.role.as_ref() == Some(role)) {
            close(&o.signal, why);
            n += 1;
        }
        n
    }

    /// Closes every connection from another computer (one whose address is not a loopback
    /// one); how many.
    pub fn close_remote(&self, why: Closing) -> usize {
        let open = self.open();
        let mut n = 0;
        for o in open.values().filter(|o| !o.peer.is_loopback()) {
            close(&o.signal, why);
            n += 1;
        }
        n
    }

    pub fn close_all(&self, why: Closing) {
        for o in self.open().values() {
            close(&o.signal, why);
        }
    }
}

fn close(signal: &Signal, why: Closing) {
    *signal.why.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
    signal.notify.notify_one();
}
