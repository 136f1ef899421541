//! How many wrong join tokens and GM secrets an address may send.
//!
//! Tokens and the secret are 128 bits or more, so guessing is hopeless anyway; the limit makes
//! it visibly so. An address that sends [`LIMIT`] wrong ones within [`WINDOW`] is refused
//! every further try until the window has passed since its first miss, whatever it sends —
//! even the right secret — and the refusal says how long to wait.

use houserule_core::{ErrorCode, ErrorReport};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wrong tries an address may make within [`WINDOW`].
pub const LIMIT: u32 = 10;
/// How long wrong tries are remembered.
pub const WINDOW: Duration = Duration::from_secs(600);

#[derive(Default)]
pub struct Attempts {
    misses: Mutex<HashMap<IpAddr, (u32, Instant)>>,
}

impl Attempts {
    /// Refuses an address that used up its tries.
    pub fn check(&self, peer: IpAddr) -> Result<(), ErrorReport> {
        let mut misses = self.misses.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        misses.retain(|_, (_, first)| now.duration_since(*first) < WINDOW);
        match misses.get(&peer) {
            Some((n, first)) if *n >= LIMIT => {
                let wait = WINDOW.saturating_sub(now.duration_since(*first)).as_secs().div_ceil(60).max(1);
                Err(ErrorReport::new(
                    ErrorCode::Forbidden,
                    format!("too many wrong join links or secrets from your address: try again in {wait} minute(s)"),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Counts a wrong token or secret from an address.
    pub fn failed(&self, peer: IpAddr) {
        let mut misses = self.misses.lock().unwrap_or_else(|p| p.into_inner());
        misses.entry(peer).or_insert((0, Instant::now())).0 += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_runs_out_of_tries_and_others_do_not() {
        let a = Attempts::default();
        let (mallory, ann) = ("10.0.0.9".parse().unwrap(), "10.0.0.2".parse().unwrap());
        for _ in 0..LIMIT {
            assert!(a.check(mallory).is_ok());
            a.failed(mallory);
        }
        let e = a.check(mallory).unwrap_err();
        assert!(e.message.contains("too many") && e.message.contains("minute"), "{}", e.message);
        assert!(a.check(ann).is_ok(), "one address's misses do not lock out another");
    }
}
