//! Plugins: a ruleset's sources, compiled and ready to run on the current thread.
//!
//! [`Plugin::load`] parses the manifest and compiles every script the ruleset and its house
//! rules carry, each separately so every error names its file, line and column; checks the
//! imports (only the plugin's own files, written out, with no cycle), that no function is
//! defined twice within the ruleset, that no function hides a host method, and that every
//! action and hook the manifest declares has its function; merges the ruleset's scripts in the
//! manifest's order with the house rules last — a house-rule function replaces the ruleset's
//! function of the same name and arity, and may call the one it replaces as `original(…)`
//! ([`wrap`]) — runs the top-level statements once, and says what each house-rule function
//! does ([`HouseFunction`]). A loaded plugin is immutable; reloading builds a new one.
//!
//! This runs untrusted code: the app layer calls it only inside the sandbox worker process.

mod calls;
mod check;
mod problem;
mod report;
mod source;
mod wrap;

pub use problem::{Diagnostic, PluginError, Problem};
pub use report::{HouseEffect, HouseFunction};
pub use source::{
    check_name, digest_files, file_digest, HouseRule, Layer, NameError, PluginSource, HOUSE_SETTINGS, MANIFEST,
    MAX_FILES, MAX_NAME,
};

use crate::engine::{self, Limits, Stop};
use crate::manifest::{Manifest, ManifestError};
use crate::script_api::{self, Handle};
use crate::script_error::ScriptErrorKind;
use crate::script_error::{FnFiles, ScriptError};
use crate::tx::Tx;
use rhai::{CallFnOptions, Dynamic, Engine, EvalAltResult, Position, Scope, AST};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What loading found, in a form that crosses the sandbox boundary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesInfo {
    /// Every function of the merged rules: (name, arity).
    pub functions: BTreeSet<(String, usize)>,
    /// The functions the house rules define.
    pub house_functions: Vec<HouseFunction>,
    /// The values of the rule functions the manifest's texts quote, as shown (see
    /// [`crate::quote`]).
    #[serde(default)]
    pub quotes: crate::quote::Quotes,
}

/// A compiled plugin.
pub struct Plugin {
    pub manifest: Arc<Manifest>,
    pub info: RulesInfo,
    limits: Limits,
    engine: Engine,
    ast: AST,
    fn_files: FnFiles,
    /// Where each function's body starts: name → (file, position).
    places: std::collections::HashMap<String, (String, Position)>,
}

/// What a script call produced.
pub struct CallOutcome {
    pub tx: Tx,
    pub result: Result<serde_json::Value, ScriptError>,
    pub log: Vec<String>,
}

/// Parses a plugin's manifest (the parent does this too: it needs no script).
pub fn manifest_of(source: &PluginSource) -> Result<Manifest, PluginError> {
    let text = source.manifest_text().ok_or_else(|| PluginError::in_file(MANIFEST, "the plugin has no plugin.toml"))?;
    Manifest::parse(MANIFEST, text).map_err(|e| PluginError(vec![e.into()]))
}

impl Plugin {
    /// Parses, compiles and checks a plugin with its house rules layered on top, on this
    /// thread; `stop` ends a top-level statement that runs too long.
    pub fn load(
        source: &PluginSource,
        house_rules: &[HouseRule],
        limits: &Limits,
        stop: Stop,
    ) -> Result<Plugin, PluginError> {
        let manifest = manifest_of(source)?;
        let mut files = source.scripts();
        for h in house_rules {
            files.entry(h.name.clone()).or_insert_with(|| h.source.clone());
        }
        let mut engine = engine::engine(limits, Arc::new(files), stop);
        script_api::register(&mut engine);
        let checked = check::compile(&engine, &manifest, source, house_rules, limits)?;
        let mut plugin = Plugin {
            manifest: Arc::new(manifest),
            info: checked.info,
            limits: limits.clone(),
            engine,
            ast: checked.ast,
            fn_files: checked.fn_files,
            places: checked.places,
        };
        plugin.info.quotes = plugin.quotes()?;
        Ok(plugin)
    }

    /// Calls each function the manifest's texts quote (they take no arguments, so they cannot
    /// depend on the table) and keeps its value as shown.
    fn quotes(&self) -> Result<crate::quote::Quotes, PluginError> {
        let mut out = crate::quote::Quotes::new();
        for (field, name) in self.manifest.quoted() {
            let options = CallFnOptions::new().eval_ast(false).rewind_scope(true);
            let value: Result<Dynamic, Box<EvalAltResult>> =
                self.engine.call_fn_with_options(options, &mut Scope::new(), &self.ast, &name, ());
            let shown = match value {
                Ok(v) => script_api::to_json(v, &self.limits.caps, "a quoted value")
                    .and_then(|j| crate::quote::show(&j).map_err(|e| e.to_string())),
                Err(e) => {
                    let file = self.fn_files.get(&name).cloned().unwrap_or_else(|| self.manifest.entry.clone());
                    return Err(PluginError(vec![Problem::Script(ScriptError::from_eval(&e, &self.fn_files, &file))]));
                }
            };
            let text = shown.map_err(|m| {
                PluginError(vec![Problem::Manifest(ManifestError {
                    file: MANIFEST.into(),
                    line: None,
                    column: None,
                    field: field.clone(),
                    message: format!("quotes {name}(): {m}"),
                })])
            })?;
            out.insert(name, text);
        }
        Ok(out)
    }

    /// The engine this plugin runs on.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Runs `calls` in order, each `fn(t, args…)`, stopping at the first failure. The last
    /// call's return value is the result.
    pub fn call(&self, tx: Tx, calls: Vec<(String, Vec<Dynamic>)>) -> CallOutcome {
        engine::take_log();
        let handle = Handle::new(tx, self.manifest.hooks.clone());
        let mut result = Ok(serde_json::Value::Null);
        for (function, args) in calls {
            let mut all: Vec<Dynamic> = vec![Dynamic::from(handle.clone())];
            all.extend(args);
            let mut scope = Scope::new();
            let options = CallFnOptions::new().eval_ast(true).rewind_scope(true);
            let r: Result<Dynamic, Box<EvalAltResult>> =
                self.engine.call_fn_with_options(options, &mut scope, &self.ast, &function, all);
            match r {
                Ok(value) => match script_api::to_json(value, &self.limits.caps, "what the function returned") {
                    Ok(json) => result = Ok(json),
                    Err(message) => {
                        let (file, pos) = self
                            .places
                            .get(&function)
                            .cloned()
                            .unwrap_or_else(|| (self.manifest.entry.clone(), Position::NONE));
                        let mut err = ScriptError::new(
                            ScriptErrorKind::Limit,
                            &file,
                            pos,
                            format!("{message} (returned by {function})"),
                        );
                        err.trace.push(function.clone());
                        result = Err(err);
                        break;
                    }
                },
                Err(e) => {
                    let default_file =
                        self.fn_files.get(&function).cloned().unwrap_or_else(|| self.manifest.entry.clone());
                    let mut err = ScriptError::from_eval(&e, &self.fn_files, &default_file);
                    if err.trace.first().map(String::as_str) != Some(function.as_str())
                        && !matches!(*e, EvalAltResult::ErrorFunctionNotFound(..))
                    {
                        err.trace.insert(0, function.clone());
                    }
                    if err.line == 0 {
                        // Limits stop a script without a position: say what was running.
                        err.message = format!("{} (while running {function})", err.message);
                    }
                    result = Err(err);
                    break;
                }
            }
        }
        CallOutcome { tx: handle.into_tx(), result, log: engine::take_log() }
    }
}

/// A manifest problem about a missing function.
fn missing_function(field: String, function: &str, arity: usize) -> Problem {
    let params = match field.as_str() {
        _ if arity == 0 => "",
        "hooks.after_roll" => "t, roll",
        "hooks.round_end" => "t, round",
        "hooks.turn_start" | "hooks.turn_end" => "t, id",
        "hooks.before_action" => "t, action, params",
        "hooks.setup" => "t",
        _ => "t, p",
    };
    Problem::Manifest(ManifestError {
        file: MANIFEST.into(),
        line: None,
        column: None,
        field,
        message: format!("no script defines {function}({params})"),
    })
}
