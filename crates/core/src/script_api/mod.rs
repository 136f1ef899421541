//! The host API: what a rule script can do with the table, through the handle `t`.
//!
//! A script receives a `Table` handle as its first argument and can reach the campaign only
//! through its methods. Each method is a thin adapter over [`Tx`]: it converts Rhai values,
//! calls the transaction, and turns a refusal into a script error carrying the reason. Every
//! method is registered with its signature and a doc comment, so `houserule definitions` can
//! write editor definition files for homebrewers.
//!
//! The methods are grouped by concept: [`info`] (who acts, settings, rounds, narration),
//! [`entities`] (entities, fields, variables, traits), [`pools`], [`rolls`], [`turns`] (the
//! turn tracker) and [`cards`] (decks).

mod cards;
mod entities;
mod info;
mod pools;
pub mod reference;
mod rolls;
mod scene;
mod turns;

use crate::caps::Caps;
use crate::manifest::Hooks;
use crate::tx::{Tx, TxError};
use crate::visibility::Visibility;
use rhai::{Dynamic, Engine, EvalAltResult, Position};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// The handle a script holds: the transaction it works in.
#[derive(Clone)]
pub struct Handle {
    tx: Arc<Mutex<Tx>>,
    hooks: Arc<Hooks>,
}

type Fallible<T> = Result<T, Box<EvalAltResult>>;

/// A refusal by one of the [`Caps`] (a limit, not a rule), as the value a script error carries.
/// Scripts cannot make one: only the host raises it.
#[derive(Debug, Clone)]
pub struct LimitHit(pub String);

fn limit_error(message: String) -> Box<EvalAltResult> {
    Box::new(EvalAltResult::ErrorRuntime(Dynamic::from(LimitHit(message)), Position::NONE))
}

/// A transaction's refusal as a script error: a cap is a limit; any other refusal is the rules'.
/// Both keep the place of the call that was refused.
fn script_error(e: TxError) -> Box<EvalAltResult> {
    match e {
        TxError::Limit(cap) => limit_error(cap.to_string()),
        other => other.to_string().into(),
    }
}

impl Handle {
    pub fn new(tx: Tx, hooks: Hooks) -> Handle {
        Handle { tx: Arc::new(Mutex::new(tx)), hooks: Arc::new(hooks) }
    }

    /// Takes the transaction back out once the script has finished.
    pub fn into_tx(self) -> Tx {
        match Arc::try_unwrap(self.tx) {
            Ok(m) => m.into_inner().unwrap_or_else(|p| p.into_inner()),
            // A script kept a copy of the handle (in a returned closure, say): copy the state.
            Err(shared) => shared.lock().unwrap_or_else(|p| p.into_inner()).clone_state(),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut Tx) -> Result<R, TxError>) -> Fallible<R> {
        let mut tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut tx).map_err(script_error)
    }

    fn read<R>(&self, f: impl FnOnce(&Tx) -> R) -> R {
        let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
        f(&tx)
    }

    /// A script value as JSON to store, within the transaction's caps.
    fn json(&self, value: Dynamic, what: &str) -> Fallible<Value> {
        let caps = self.read(|tx| tx.caps.clone());
        to_json(value, &caps, what).map_err(limit_error)
    }
}

/// Whether a script value nests deeper than `max` levels (looking no deeper than that).
fn deeper_than(value: &Dynamic, level: usize, max: usize) -> bool {
    if level > max {
        return true;
    }
    if let Some(array) = value.read_lock::<rhai::Array>() {
        return array.iter().any(|v| deeper_than(v, level + 1, max));
    }
    if let Some(map) = value.read_lock::<rhai::Map>() {
        return map.values().any(|v| deeper_than(v, level + 1, max));
    }
    false
}

/// Converts a script value to JSON for the table or the log: refused when it nests deeper
/// than the caps allow (measured before converting, so no depth can overflow the converter).
/// A value JSON cannot hold (a function pointer, the table handle) is refused too.
pub(crate) fn to_json(value: Dynamic, caps: &Caps, what: &str) -> Result<Value, String> {
    if deeper_than(&value, 1, caps.max_value_depth) {
        return Err(format!(
            "{what}: nested more than {} levels deep; the limit is {}",
            caps.max_value_depth, caps.max_value_depth
        ));
    }
    rhai::serde::from_dynamic::<Value>(&value).map_err(|e| format!("{what}: cannot be stored ({e})"))
}

/// Registers the `Table` type and every host method.
pub fn register(engine: &mut Engine) {
    engine.register_type_with_name::<Handle>("Table");
    info::register(engine);
    entities::register(engine);
    pools::register(engine);
    rolls::register(engine);
    turns::register(engine);
    cards::register(engine);
    scene::register(engine);
}

/// Writes Rhai definition files (`*.d.rhai`) for the whole host API and the standard library
/// into `dir`, for editors' completion and signatures. Returns the files written.
pub fn write_definitions(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut engine = crate::engine::engine(&Default::default(), Default::default(), crate::engine::never_stop());
    register(&mut engine);
    let defs = engine.definitions().include_standard_packages(true);
    defs.write_to_dir(dir)?;
    Ok(defs.iter_files().map(|(name, _)| name).collect())
}

/// Names of the host methods registered on `engine` (scripts must not reuse them).
pub fn method_names(engine: &Engine) -> std::collections::HashSet<String> {
    engine
        .gen_fn_signatures(false)
        .into_iter()
        .filter(|sig| sig.contains("Table"))
        .filter_map(|sig| sig.split('(').next().map(|n| n.trim().to_string()))
        .collect()
}

/// Registers one function with its parameter names and a doc comment (a macro, because the
/// generic bounds of Rhai's registration are not all public).
macro_rules! reg {
    ($engine:expr, $name:expr, $params:expr, $doc:expr, $func:expr $(,)?) => {{
        let comments: Vec<String> = $doc.lines().map(|l: &str| format!("/// {}", l.trim())).collect();
        rhai::FuncRegistration::new($name)
            .with_params_info($params)
            .with_comments(comments)
            .register_into_engine($engine, $func);
    }};
}
use reg;

/// Converts JSON to a script value.
pub fn to_dynamic(v: &Value) -> Dynamic {
    rhai::serde::to_dynamic(v).unwrap_or(Dynamic::UNIT)
}

fn visibility(text: &str) -> Fallible<Visibility> {
    Visibility::parse(text)
        .ok_or_else(|| format!("'{text}' is not a visibility: use public, owner, gm or hidden").into())
}

fn opt_string(d: &Dynamic) -> Option<String> {
    if d.is_unit() {
        None
    } else {
        Some(d.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_method_can_be_called_from_a_script() {
        let mut engine = crate::engine::engine(&Default::default(), Default::default(), crate::engine::never_stop());
        register(&mut engine);
        let names = method_names(&engine);
        assert!(names.len() > 40, "the host API is registered");
        for name in names {
            let script = format!("fn probe(t) {{ t.{name}() }}");
            if let Err(e) = engine.compile(&script) {
                panic!("t.{name}(...) cannot be written in a script: {e}");
            }
        }
    }
}
