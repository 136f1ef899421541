//! The commands. Each returns `Ok(true)` on success, `Ok(false)` when it ran but the answer is
//! "no" (a failed check), or a [`crate::output::Failure`].

pub mod campaign;
pub mod demo;
pub mod dice;
pub mod handout;
pub mod house;
pub mod lab;
#[cfg(feature = "matrix")]
pub mod matrix;
pub mod odds;
pub mod pictures;
pub mod plugin;
pub mod scene;
pub mod serve;
pub mod sharing;
pub mod simulate;
pub mod table;
pub mod talk;

use crate::output::Failure;
use houserule_core::{ErrorCode, Role};
use serde_json::{Map, Value};

pub type Outcome = Result<bool, Failure>;

pub fn role(text: &str) -> Result<Role, Failure> {
    Role::parse(text).map_err(|m| Failure::new(ErrorCode::BadRequest, format!("--as: {m}")))
}

/// `KEY=VALUE` pairs as raw parameter values (`houserule_core::params::typed_pairs`).
pub fn key_values(pairs: &[String], what: &str) -> Result<Map<String, Value>, Failure> {
    houserule_core::params::typed_pairs(pairs.iter().map(String::as_str))
        .map_err(|m| Failure::new(ErrorCode::BadParam, format!("{what} {m}")))
}
