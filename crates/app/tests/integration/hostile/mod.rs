//! The hostile suite: rule scripts, plugin folders, house rules, campaign files and shared
//! copies written by an attacker. Every attack must be refused with a clear error within a
//! second, without a panic or an abort, with the memory of this (the parent) process bounded,
//! and with the campaign unchanged and still verifying. The scripts run in sandbox workers
//! whose memory the operating system caps; this test process caps its own memory too
//! ([`crate::support::init`]), so a regression that ran a memory bomb here could not take the
//! machine down.

mod edges;
mod files;
mod house;
mod plugins;
mod runtime;

use houserule_app::Campaign;
use houserule_core::{ErrorReport, Role};
use std::time::{Duration, Instant};

/// How long a refusal may take.
pub const LIMIT: Duration = Duration::from_secs(1);

/// The most this process may hold at its peak while the suite runs (its own tests, plus every
/// reply from the workers), far below what one memory bomb would take.
pub const PEAK_BYTES: u64 = 1024 * 1024 * 1024;

/// A refusal must mention one of these (compared without case).
pub fn says(report: &ErrorReport, words: &[&str], attack: &str) {
    let text = format!(
        "{} {}",
        report.message,
        report.diagnostics.iter().map(|d| d.text.clone()).collect::<Vec<_>>().join(" ")
    )
    .to_lowercase();
    assert!(
        words.iter().any(|w| text.contains(&w.to_lowercase())),
        "{attack}: expected the refusal to mention one of {words:?}, got [{}] {text}",
        report.code
    );
}

/// Runs an attack, timing it; it must be refused (an `Err`) within [`LIMIT`].
pub fn refused<T: std::fmt::Debug>(attack: &str, f: impl FnOnce() -> Result<T, ErrorReport>) -> ErrorReport {
    let start = Instant::now();
    let result = f();
    let took = start.elapsed();
    assert!(took < LIMIT, "{attack}: took {took:?}, more than {LIMIT:?}");
    match result {
        Ok(v) => {
            let shown: String = format!("{v:?}").chars().take(300).collect();
            panic!("{attack}: expected a refusal, but it went through: {shown}…")
        }
        Err(e) => e,
    }
}

/// What a campaign looks like, to show an attack changed nothing.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    events: u64,
    head: String,
    view: String,
}

pub fn snapshot(c: &Campaign) -> Snapshot {
    let info = c.info();
    Snapshot { events: info.events, head: info.head, view: serde_json::to_string(&c.view(&Role::Gm)).unwrap() }
}

/// The campaign is as it was, and still verifies.
pub fn intact(c: &Campaign, before: &Snapshot, attack: &str) {
    assert_eq!(&snapshot(c), before, "{attack}: the campaign changed");
    let report = crate::support::verified(c);
    assert!(report.ok, "{attack}: the campaign no longer verifies: {:?}", report.checks.iter().find(|c| !c.ok));
}

/// This process's peak resident memory so far, in bytes (Linux).
pub fn peak_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

pub fn memory_stayed_bounded(attack: &str) {
    let peak = peak_bytes();
    assert!(peak < PEAK_BYTES, "{attack}: this process peaked at {} MiB", peak / (1024 * 1024));
}
