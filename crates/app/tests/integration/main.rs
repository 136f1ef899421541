//! Engine integration tests: one binary, one module per concern.

mod cards;
mod checked;
mod form_odds;
mod forms;
mod fuzz_regressions;
mod hooks;
mod hostile;
mod hot_reload;
mod house_wrap;
mod lab;
mod lab_tables;
mod locks;
mod odds_truth;
mod oversized;
mod pictures;
mod random_play;
mod redaction;
mod sandboxed;
mod scene;
mod secret_rules;
mod support;
mod talk;
mod tampering;
mod transactions;
mod turns;
mod undo;
