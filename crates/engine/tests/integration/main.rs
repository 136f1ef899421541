//! Engine integration tests: one binary, one module per concern.

mod fuzz_regressions;
mod hooks;
mod hot_reload;
mod hostile;
mod support;
mod tampering;
mod transactions;
