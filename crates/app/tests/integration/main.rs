//! Engine integration tests: one binary, one module per concern.

mod checked;
mod fuzz_regressions;
mod hooks;
mod hostile;
mod hot_reload;
mod random_play;
mod redaction;
mod sandboxed;
mod support;
mod tampering;
mod transactions;
mod undo;
