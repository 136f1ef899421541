//! Engine integration tests: one binary, one module per concern.

mod hostile;
mod support;
mod transactions;
