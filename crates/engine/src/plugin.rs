//! Plugins: a ruleset's sources, compiled in the sandbox and ready to run.
//!
//! [`PluginSource`] is the text of a plugin (its `plugin.toml` and `*.rhai` files) — read from a
//! folder or from a campaign file, never executed as it is read. [`Plugin::load`] parses the
//! manifest, compiles each script separately (so every error names its file, line and column),
//! merges them in the manifest's order with house rules last — a house-rule function replaces
//! the ruleset's function of the same name and arity — and checks that every action and hook
//! the manifest declares has its function. A loaded plugin is immutable; reloading builds a new
//! one and swaps it in whole.

use crate::host::{self, Handle};
use crate::manifest::{Manifest, ManifestError};
use crate::sandbox::{self, Limits, ScriptFiles};
use crate::script_error::{FnFiles, ScriptError, ScriptErrorKind};
use crate::tx::Tx;
use rhai::{CallFnOptions, Dynamic, Engine, EvalAltResult, Position, Scope, AST};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// The manifest's file name.
pub const MANIFEST: &str = "plugin.toml";
/// Most script files a plugin (or a set of house rules) may have.
pub const MAX_FILES: usize = 64;

/// The text of a plugin: file name → content. Only `plugin.toml` and `*.rhai` files are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PluginSource {
    pub files: BTreeMap<String, String>,
}

/// A house-rule script layered over a ruleset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HouseRule {
    /// File name, such as `boss_costs.rhai`.
    pub name: String,
    pub source: String,
}

/// One problem found while loading a plugin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("{0}")]
    Manifest(#[from] ManifestError),
    #[error("{0}")]
    Script(#[from] ScriptError),
}

/// A problem as shown to users: `file:line:col: message`, with the parts separately.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The manifest field, for manifest problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
    /// `file:line:col: message`, as printed.
    pub text: String,
}

impl Diagnostic {
    pub fn plain(file: &str, message: impl Into<String>) -> Diagnostic {
        let message = message.into();
        Diagnostic { file: file.into(), line: None, column: None, field: None, text: format!("{file}: {message}"), message }
    }
}

impl From<&Problem> for Diagnostic {
    fn from(p: &Problem) -> Diagnostic {
        match p {
            Problem::Manifest(m) => Diagnostic {
                file: m.file.clone(),
                line: m.line,
                column: m.column,
                field: (!m.field.is_empty()).then(|| m.field.clone()),
                message: m.message.clone(),
                text: m.to_string(),
            },
            Problem::Script(s) => Diagnostic {
                file: s.file.clone(),
                line: (s.line > 0).then_some(s.line),
                column: (s.column > 0).then_some(s.column),
                field: None,
                message: s.message.clone(),
                text: s.to_string(),
            },
        }
    }
}

/// Why a plugin could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PluginError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Problem>),
    #[error("{0}")]
    Engine(String),
}

impl PluginSource {
    /// Reads `plugin.toml` and the `*.rhai` files directly in `dir` (not sub-folders).
    pub fn from_dir(dir: &Path, limits: &Limits) -> Result<PluginSource, PluginError> {
        let io = |path: &Path, e: std::io::Error| PluginError::Io { path: path.display().to_string(), message: e.to_string() };
        let manifest_path = dir.join(MANIFEST);
        if !manifest_path.is_file() {
            return Err(PluginError::Io { path: dir.display().to_string(), message: format!("not a plugin folder: there is no {MANIFEST}") });
        }
        let mut files = BTreeMap::new();
        let mut entries: Vec<_> = std::fs::read_dir(dir).map_err(|e| io(dir, e))?.collect::<Result<_, _>>().map_err(|e| io(dir, e))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name().to_string_lossy().to_string();
            if name != MANIFEST && !name.ends_with(".rhai") {
                continue;
            }
            let path = entry.path();
            let meta = std::fs::metadata(&path).map_err(|e| io(&path, e))?;
            if !meta.is_file() {
                continue;
            }
            if meta.len() as usize > limits.max_script_bytes {
                return Err(PluginError::Io { path: path.display().to_string(), message: format!("{} bytes is larger than the limit of {} bytes per file", meta.len(), limits.max_script_bytes) });
            }
            let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
            files.insert(name, text);
            if files.len() > MAX_FILES {
                return Err(PluginError::Io { path: dir.display().to_string(), message: format!("more than {MAX_FILES} script files") });
            }
        }
        Ok(PluginSource { files })
    }

    pub fn manifest_text(&self) -> Option<&str> {
        self.files.get(MANIFEST).map(String::as_str)
    }

    /// A digest of all files (names and contents), hex.
    pub fn digest(&self) -> String {
        digest_files(self.files.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// The `*.rhai` files.
    pub fn scripts(&self) -> ScriptFiles {
        self.files.iter().filter(|(k, _)| k.ends_with(".rhai")).map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

/// SHA-256 over (name, content) pairs, hex.
pub fn digest_files<'a>(files: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut h = Sha256::new();
    for (name, text) in files {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    }
    hex::encode(h.finalize())
}

/// A function a house rule defines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct HouseFunction {
    pub file: String,
    pub name: String,
    pub arity: usize,
    /// It replaces the ruleset's function of the same name and arity (otherwise it is new).
    pub replaces: bool,
}

/// A compiled plugin.
pub struct Plugin {
    pub manifest: Arc<Manifest>,
    pub source: PluginSource,
    pub house_rules: Vec<HouseRule>,
    pub limits: Limits,
    engine: Arc<Engine>,
    ast: Arc<AST>,
    fn_files: Arc<FnFiles>,
    functions: HashSet<(String, usize)>,
    house_functions: Vec<HouseFunction>,
}

/// What a script call produced.
pub struct CallOutcome {
    pub tx: Tx,
    pub result: Result<serde_json::Value, ScriptError>,
    pub log: Vec<String>,
}

impl Plugin {
    /// Parses, compiles and checks a plugin with its house rules layered on top.
    pub fn load(source: &PluginSource, house_rules: &[HouseRule], limits: &Limits) -> Result<Plugin, PluginError> {
        let text = source.manifest_text().ok_or_else(|| PluginError::Invalid(vec![Problem::Manifest(ManifestError {
            file: MANIFEST.into(),
            line: None,
            column: None,
            field: String::new(),
            message: "the plugin has no plugin.toml".into(),
        })]))?;
        let manifest = Manifest::parse(MANIFEST, text).map_err(|e| PluginError::Invalid(vec![e.into()]))?;
        let limits2 = limits.clone();
        let source2 = source.clone();
        let house2 = house_rules.to_vec();
        let ran = sandbox::run(limits, move || compile(manifest, &source2, &house2, &limits2)).map_err(PluginError::Engine)?;
        let compiled = ran.value?;
        Ok(Plugin {
            manifest: Arc::new(compiled.manifest),
            source: source.clone(),
            house_rules: house_rules.to_vec(),
            limits: limits.clone(),
            engine: Arc::new(compiled.engine),
            ast: Arc::new(compiled.ast),
            fn_files: Arc::new(compiled.fn_files),
            functions: compiled.functions,
            house_functions: compiled.house_functions,
        })
    }

    /// The functions the house rules define, and whether each replaces a ruleset function.
    pub fn house_functions(&self) -> &[HouseFunction] {
        &self.house_functions
    }

    /// Whether a script function with this name and arity exists.
    pub fn has_function(&self, name: &str, arity: usize) -> bool {
        self.functions.contains(&(name.to_string(), arity))
    }

    /// The engine this plugin runs on (for definitions and checks).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Runs `calls` in order in one sandboxed run, each `fn(t, args…)`, stopping at the first
    /// failure. The last call's return value is the result.
    pub fn call(&self, tx: Tx, calls: Vec<(String, Vec<Dynamic>)>) -> Result<CallOutcome, PluginError> {
        let ran = sandbox::run(&self.limits, || self.call_here(tx, calls)).map_err(PluginError::Engine)?;
        let (tx, result) = ran.value;
        Ok(CallOutcome { tx, result, log: ran.log })
    }

    /// Runs the same calls `n` times on one script thread, each on its own transaction from
    /// `make_tx(i)` (dropped straight after) and with a fresh time budget; returns each result.
    pub fn call_repeated(
        &self,
        n: u64,
        make_tx: impl Fn(u64) -> Tx + Send + Sync,
        calls: Vec<(String, Vec<Dynamic>)>,
    ) -> Result<Vec<Result<serde_json::Value, ScriptError>>, PluginError> {
        let ran = sandbox::run(&self.limits, || {
            (0..n)
                .map(|i| {
                    sandbox::rearm(&self.limits);
                    self.call_here(make_tx(i), calls.clone()).1
                })
                .collect::<Vec<_>>()
        })
        .map_err(PluginError::Engine)?;
        Ok(ran.value)
    }

    /// Runs calls on the current (script) thread.
    fn call_here(&self, tx: Tx, calls: Vec<(String, Vec<Dynamic>)>) -> (Tx, Result<serde_json::Value, ScriptError>) {
        let engine = &self.engine;
        let ast = &self.ast;
        let fn_files = &self.fn_files;
        let entry = self.manifest.entry.clone();
        let hooks = self.manifest.hooks.clone();
        {
            let handle = Handle::new(tx, hooks);
            let mut result = Ok(serde_json::Value::Null);
            for (function, args) in calls {
                let mut all: Vec<Dynamic> = vec![Dynamic::from(handle.clone())];
                all.extend(args);
                let mut scope = Scope::new();
                let options = CallFnOptions::new().eval_ast(true).rewind_scope(true);
                let r: Result<Dynamic, Box<EvalAltResult>> = engine.call_fn_with_options(options, &mut scope, ast, &function, all);
                let default_file = fn_files.get(&function).cloned().unwrap_or_else(|| entry.clone());
                match r {
                    Ok(value) => {
                        result = Ok(rhai::serde::from_dynamic::<serde_json::Value>(&value).unwrap_or_else(|_| serde_json::Value::String(value.to_string())));
                    }
                    Err(e) => {
                        let mut err = ScriptError::from_eval(&e, fn_files, &default_file);
                        if err.trace.first().map(String::as_str) != Some(function.as_str()) && !matches!(*e, EvalAltResult::ErrorFunctionNotFound(..)) {
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
            (handle.into_tx(), result)
        }
    }
}

struct Compiled {
    manifest: Manifest,
    engine: Engine,
    ast: AST,
    fn_files: FnFiles,
    functions: HashSet<(String, usize)>,
    house_functions: Vec<HouseFunction>,
}

/// Line and column of `fn NAME` in a script (1-based; 0 when not found).
fn find_fn(text: &str, name: &str) -> (usize, usize) {
    for (i, line) in text.lines().enumerate() {
        let mut rest = line;
        let mut offset = 0;
        while let Some(at) = rest.find("fn ") {
            let after = rest[at + 3..].trim_start();
            if after.starts_with(name) && after[name.len()..].trim_start().starts_with('(') {
                return (i + 1, line[..offset + at].chars().count() + 1);
            }
            offset += at + 3;
            rest = &rest[at + 3..];
        }
    }
    (0, 0)
}

fn compile(manifest: Manifest, source: &PluginSource, house_rules: &[HouseRule], limits: &Limits) -> Result<Compiled, PluginError> {
    let mut files = source.scripts();
    for h in house_rules {
        files.entry(h.name.clone()).or_insert_with(|| h.source.clone());
    }
    let mut engine = sandbox::engine(limits, Arc::new(files));
    host::register(&mut engine);
    let host_methods = host::method_names(&engine);

    let mut problems = Vec::new();
    let mut ordered: Vec<(String, &str)> = Vec::new();
    for name in std::iter::once(&manifest.entry).chain(manifest.scripts.iter()) {
        match source.files.get(name) {
            Some(text) => ordered.push((name.clone(), text)),
            None => problems.push(Problem::Manifest(ManifestError {
                file: MANIFEST.into(),
                line: None,
                column: None,
                field: if name == &manifest.entry { "entry".into() } else { "scripts".into() },
                message: format!("the script {name} is not in the plugin folder"),
            })),
        }
    }
    if house_rules.len() > MAX_FILES {
        problems.push(Problem::Script(ScriptError::new(ScriptErrorKind::Limit, "house rules", Position::NONE, format!("more than {MAX_FILES} house-rule files"))));
    }
    for h in house_rules {
        ordered.push((h.name.clone(), &h.source));
    }

    let mut merged: Option<AST> = None;
    let mut fn_files = FnFiles::new();
    let mut shadowing = HashSet::new();
    let ruleset_files = ordered.len() - house_rules.len();
    let mut ruleset_fns: HashSet<(String, usize)> = HashSet::new();
    let mut house_functions = Vec::new();
    for (index, (name, text)) in ordered.iter().enumerate() {
        if text.len() > limits.max_script_bytes {
            problems.push(Problem::Script(ScriptError::new(
                ScriptErrorKind::Limit,
                name,
                Position::NONE,
                format!("{} bytes is larger than the limit of {} bytes per script", text.len(), limits.max_script_bytes),
            )));
            continue;
        }
        match engine.compile(text) {
            Ok(mut ast) => {
                ast.set_source(name.clone());
                for f in ast.iter_functions() {
                    let key = (f.name.to_string(), f.params.len());
                    if index < ruleset_files {
                        ruleset_fns.insert(key);
                    } else {
                        house_functions.push(HouseFunction { file: name.clone(), name: key.0.clone(), arity: key.1, replaces: ruleset_fns.contains(&key) });
                    }
                    fn_files.insert(f.name.to_string(), name.clone());
                    if host_methods.contains(f.name) && shadowing.insert(f.name.to_string()) {
                        // Rhai would call this script function for `t.NAME(...)`, hiding the
                        // host method from every script of the plugin.
                        let (line, col) = find_fn(text, f.name);
                        problems.push(Problem::Script(ScriptError {
                            kind: ScriptErrorKind::Syntax,
                            file: name.clone(),
                            line,
                            column: col,
                            message: format!(
                                "fn {}: this name belongs to the host method t.{}(…); rename the function (an action keeps its name with function = \"…\" in plugin.toml)",
                                f.name, f.name
                            ),
                            trace: vec![],
                        }));
                    }
                }
                merged = Some(match merged {
                    None => ast,
                    Some(m) => m.merge(&ast),
                });
            }
            Err(e) => problems.push(Problem::Script(ScriptError::from_parse(name, &e))),
        }
    }
    let ast = merged.unwrap_or_else(AST::empty);
    let functions: HashSet<(String, usize)> = ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect();
    if problems.is_empty() {
        for (field, function, arity) in manifest.referenced_functions() {
            if !functions.contains(&(function.clone(), arity)) {
                let params = if arity == 2 { "t, p" } else if arity == 3 { "t, action, params" } else { "t" };
                let params = if field == "hooks.after_roll" { "t, roll" } else if field == "hooks.round_end" { "t, round" } else { params };
                problems.push(Problem::Manifest(ManifestError {
                    file: MANIFEST.into(),
                    line: None,
                    column: None,
                    field,
                    message: format!("no script defines {function}({params})"),
                }));
            }
        }
    }
    if problems.is_empty() {
        // Top-level statements run before every call: run them once now, so a broken one is
        // reported at load time rather than on the first action.
        if let Err(e) = engine.run_ast(&ast) {
            problems.push(Problem::Script(ScriptError::from_eval(&e, &fn_files, &manifest.entry)));
        }
    }
    if !problems.is_empty() {
        return Err(PluginError::Invalid(problems));
    }
    Ok(Compiled { manifest, engine, ast, fn_files, functions, house_functions })
}

