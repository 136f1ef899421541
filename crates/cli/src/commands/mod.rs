//! The commands. Each returns `Ok(true)` on success, `Ok(false)` when it ran but the answer is
//! "no" (a failed check), or a [`crate::output::Failure`].

pub mod campaign;
pub mod demo;
pub mod dice;
pub mod house;
pub mod lab;
pub mod odds;
pub mod plugin;
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

/// `KEY=VALUE` pairs as raw parameter values. A value that looks like JSON (`[…]`, `{…}`) is
/// parsed as JSON; everything else stays text for the engine to check against the manifest.
pub fn key_values(pairs: &[String], what: &str) -> Result<Map<String, Value>, Failure> {
    let mut out = Map::new();
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| Failure::new(ErrorCode::BadParam, format!("{what} '{pair}': expected KEY=VALUE")))?;
        let v = v.trim();
        let value = if (v.starts_with('[') && v.ends_with(']')) || (v.starts_with('{') && v.ends_with('}')) {
            serde_json::from_str(v).map_err(|e| {
                Failure::new(ErrorCode::BadParam, format!("{what} '{k}': the value looks like JSON but is not: {e}"))
            })?
        } else {
            Value::String(v.to_string())
        };
        if out.insert(k.trim().to_string(), value).is_some() {
            return Err(Failure::new(ErrorCode::BadParam, format!("{what} '{k}' is given twice")));
        }
    }
    Ok(out)
}
