//! Engine integration tests: one binary, one module per concern.

mod fuzz_regressions;
mod hooks;
mod hostile;
mod hot_reload;
mod redaction;
mod sandboxed;
mod support;
mod tampering;
mod transactions;
