//! Script errors with their place: `file:line:col: message`.
//!
//! Rhai reports an error inside a function as a chain of "error in function call" wrappers.
//! [`ScriptError::from_eval`] walks that chain to the innermost error, and uses the map of
//! which file defined which function to name the file — plugins are merged from several files
//! and house rules, so the position alone would not say where to look.

use crate::engine::DEADLINE_TOKEN;
use rhai::{EvalAltResult, ParseError, Position};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What kind of failure a script had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScriptErrorKind {
    /// The script does not parse.
    Syntax,
    /// The script failed while running (a type error, an unknown function …).
    Runtime,
    /// The rules refused the action (`throw`, or a host call such as taking more tokens than a
    /// pool holds).
    Refused,
    /// A sandbox limit stopped the script (time, operations, depth, size).
    Limit,
}

/// A script failure with its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{}", self.describe())]
pub struct ScriptError {
    pub kind: ScriptErrorKind,
    pub file: String,
    /// 1-based; 0 when unknown.
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// Script functions the error passed through, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<String>,
}

/// Longest message a script error keeps (a script may throw any text).
pub const MAX_MESSAGE: usize = 1000;

/// Which file defined each script function (by name; later definitions win).
pub type FnFiles = HashMap<String, String>;

impl ScriptError {
    fn describe(&self) -> String {
        let place = match (self.line, self.column) {
            (0, _) => self.file.clone(),
            (l, 0) => format!("{}:{l}", self.file),
            (l, c) => format!("{}:{l}:{c}", self.file),
        };
        format!("{place}: {}", self.message)
    }

    pub fn new(kind: ScriptErrorKind, file: &str, pos: Position, message: impl Into<String>) -> ScriptError {
        let mut message: String = message.into();
        if message.chars().count() > MAX_MESSAGE {
            message = message.chars().take(MAX_MESSAGE).chain("…".chars()).collect();
        }
        ScriptError {
            kind,
            file: file.to_string(),
            line: pos.line().unwrap_or(0),
            column: pos.position().unwrap_or(0),
            message,
            trace: Vec::new(),
        }
    }

    pub fn from_parse(file: &str, err: &ParseError) -> ScriptError {
        ScriptError::new(ScriptErrorKind::Syntax, file, err.position(), err.err_type().to_string())
    }

    /// Locates a runtime error. `default_file` is used outside any function.
    pub fn from_eval(err: &EvalAltResult, fn_files: &FnFiles, default_file: &str) -> ScriptError {
        let mut err = err;
        let mut trace = Vec::new();
        let mut file = default_file.to_string();
        loop {
            match err {
                EvalAltResult::ErrorInFunctionCall(name, _, inner, _) => {
                    if !name.starts_with("anon$") {
                        trace.push(name.clone());
                        if let Some(f) = fn_files.get(name) {
                            file = f.clone();
                        }
                    }
                    err = inner;
                }
                EvalAltResult::ErrorInModule(module, inner, _) => {
                    file = if module.ends_with(".rhai") { module.clone() } else { format!("{module}.rhai") };
                    err = inner;
                }
                _ => break,
            }
        }
        let (kind, message) = describe(err);
        let mut e = ScriptError::new(kind, &file, err.position(), message);
        e.trace = trace;
        e
    }
}

fn describe(err: &EvalAltResult) -> (ScriptErrorKind, String) {
    use EvalAltResult as E;
    match err {
        E::ErrorRuntime(value, _) if value.is::<crate::script_api::LimitHit>() => (
            ScriptErrorKind::Limit,
            format!("over the limit: {}", value.clone().cast::<crate::script_api::LimitHit>().0),
        ),
        E::ErrorRuntime(value, _) => (ScriptErrorKind::Refused, value.to_string()),
        E::ErrorTerminated(token, _) if token.to_string() == DEADLINE_TOKEN => {
            (ScriptErrorKind::Limit, "the script ran past its time limit and was stopped".into())
        }
        E::ErrorTooManyOperations(_) => {
            (ScriptErrorKind::Limit, "the script ran too many operations and was stopped (an endless loop?)".into())
        }
        E::ErrorStackOverflow(_) => {
            (ScriptErrorKind::Limit, "function calls nested too deeply and were stopped (endless recursion?)".into())
        }
        E::ErrorDataTooLarge(what, _) => (ScriptErrorKind::Limit, format!("{what} grew past the sandbox limit")),
        E::ErrorTooManyVariables(_) => (ScriptErrorKind::Limit, "the script made too many variables".into()),
        E::ErrorTooManyModules(_) => (ScriptErrorKind::Limit, "the script imported too many modules".into()),
        E::ErrorParsing(p, _) => (ScriptErrorKind::Syntax, p.to_string()),
        E::ErrorSystem(what, why) => (ScriptErrorKind::Runtime, format!("{what}: {why}")),
        other => {
            let text = other.to_string();
            let text = match text.rfind(" (line ") {
                Some(i) if text.ends_with(')') => text[..i].to_string(),
                _ => text,
            };
            (ScriptErrorKind::Runtime, text)
        }
    }
}
