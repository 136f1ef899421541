//! The one place that builds a Rhai engine for rule scripts.
//!
//! Guarantees, for any script however hostile:
//! - it starts from `Engine::new_raw()` with only the packages rules need: no time, no blobs,
//!   and no file or network access exists at all;
//! - operations, call depth, expression depth, string, array and map sizes, the number of
//!   variables, functions and modules, and script size are limited ([`Limits`]); `eval` is
//!   disabled; `sleep` does not exist for rules;
//! - a script stops at the first progress check after the caller's [`Stop`] says so (the
//!   sandbox worker arms it with the wall-clock deadline; this crate has no clock);
//! - `print` and `debug` go to the action's log ([`take_log`]), never to stdout;
//! - `import` resolves only the plugin's own script files, by name — never `../`, an absolute
//!   path, or anything on disk; each module is compiled once and kept, and an import that
//!   comes back to a module still being loaded is refused with the chain (a cycle can never
//!   recurse);
//! - [`compile_renamed`] renames identifiers only at the exact places it is given, and only
//!   when they are spelled as expected, while the tokenizer reads the text: strings, comments
//!   and every other token stay as written, and every position is the one in the text (house
//!   rules' `original(…)` calls use it).
//!
//! Rhai's limits bound values and calls, not what one native call allocates (`s.replace(x, s)`
//! on a large string, say). That is why scripts run in a separate worker process whose memory,
//! CPU time and system calls the operating system limits (see the app layer's `sandbox`).

use rhai::packages::{
    BasicArrayPackage, BasicMapPackage, BasicMathPackage, CorePackage, LogicPackage, MoreStringPackage, Package,
};
use rhai::{
    Dynamic, Engine, EvalAltResult, Module, ModuleResolver, ParseError, Position, Scope, Shared, Token, TokenizeState,
    AST,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Resource limits for scripts, the worker that runs them, and what they may put on the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Limits {
    pub max_operations: u64,
    pub max_call_levels: usize,
    pub max_expr_depth: usize,
    pub max_fn_expr_depth: usize,
    pub max_string_len: usize,
    pub max_array_len: usize,
    pub max_map_len: usize,
    /// Largest single script file, in bytes.
    pub max_script_bytes: usize,
    /// Wall-clock limit for one call into the scripts (an action with its hooks). The worker
    /// process is killed when it overruns this by [`Limits::grace`].
    #[serde(with = "millis")]
    #[schemars(with = "u64")]
    pub deadline: Duration,
    /// Wall-clock limit for loading the rules: a new worker starting and compiling and checking
    /// every script. Apart from the action deadline, because a process starting on a busy
    /// machine is slow through no fault of the rules (scripts are bounded in size, and their
    /// top level by the operation limit).
    #[serde(with = "millis", default = "load_deadline")]
    #[schemars(with = "u64")]
    pub load_deadline: Duration,
    /// How long past the deadline the worker may take to answer before it is killed.
    #[serde(with = "millis")]
    #[schemars(with = "u64")]
    pub grace: Duration,
    /// Memory the worker process may allocate (its data segment and anonymous mappings).
    pub memory_bytes: u64,
    /// CPU seconds one worker process may use over its life.
    pub cpu_seconds: u64,
    /// Stack of the thread scripts run on, in the worker.
    pub stack_bytes: usize,
    /// Bounds on what an action may put on the table and in the log.
    pub caps: crate::caps::Caps,
}

mod millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

fn load_deadline() -> Duration {
    Duration::from_secs(5)
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_operations: 1_000_000,
            max_call_levels: 64,
            max_expr_depth: 64,
            max_fn_expr_depth: 48,
            max_string_len: 64 * 1024,
            max_array_len: 10_000,
            max_map_len: 2_000,
            max_script_bytes: 512 * 1024,
            deadline: Duration::from_millis(500),
            load_deadline: load_deadline(),
            grace: Duration::from_millis(250),
            memory_bytes: 512 * 1024 * 1024,
            cpu_seconds: 3600,
            stack_bytes: 64 * 1024 * 1024,
            caps: crate::caps::Caps::default(),
        }
    }
}

/// Says whether a running script must stop now (its time is up). Checked every 256
/// operations.
pub type Stop = Arc<dyn Fn() -> bool + Send + Sync>;

/// A stop that never fires (for tools that run no untrusted script, such as writing the host
/// API's definitions).
pub fn never_stop() -> Stop {
    Arc::new(|| false)
}

thread_local! {
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The renames [`compile_renamed`] applies on this thread while it compiles: (line, column)
    /// → (spelled, becomes). Empty at every other time.
    static RENAMES: RefCell<HashMap<(usize, usize), (String, String)>> = RefCell::new(HashMap::new());
}

/// The token `on_progress` returns when the stop fires.
pub const DEADLINE_TOKEN: &str = "houserule:deadline";

/// Lines a script may print in one call, and characters per line.
const MAX_LOG_LINES: usize = 1000;
const MAX_LOG_CHARS: usize = 2000;

/// Script files a plugin may import from, by file name.
pub type ScriptFiles = BTreeMap<String, String>;

/// Builds a sandboxed engine whose `import` sees only `files`.
pub fn engine(limits: &Limits, files: Arc<ScriptFiles>, stop: Stop) -> Engine {
    let mut engine = Engine::new_raw();
    engine.register_global_module(CorePackage::new().as_shared_module());
    engine.register_global_module(LogicPackage::new().as_shared_module());
    engine.register_global_module(BasicArrayPackage::new().as_shared_module());
    engine.register_global_module(BasicMapPackage::new().as_shared_module());
    engine.register_global_module(BasicMathPackage::new().as_shared_module());
    engine.register_global_module(MoreStringPackage::new().as_shared_module());
    engine.set_max_strings_interned(1024);

    engine.set_max_operations(limits.max_operations);
    engine.set_max_call_levels(limits.max_call_levels);
    engine.set_max_expr_depths(limits.max_expr_depth, limits.max_fn_expr_depth);
    engine.set_max_string_size(limits.max_string_len);
    engine.set_max_array_size(limits.max_array_len);
    engine.set_max_map_size(limits.max_map_len);
    engine.set_max_variables(2_000);
    engine.set_max_functions(2_000);
    engine.set_max_modules(32);
    engine.set_strict_variables(true);
    engine.disable_symbol("eval");

    engine.on_progress(move |ops| {
        if ops % 256 == 0 && stop() {
            return Some(Dynamic::from(DEADLINE_TOKEN));
        }
        None
    });
    engine.on_print(|text| log(text.to_string()));
    engine.on_debug(|text, source, pos| {
        let place = match (source, pos.line()) {
            (Some(s), Some(l)) => format!("{s}:{l}: "),
            (None, Some(l)) => format!("line {l}: "),
            _ => String::new(),
        };
        log(format!("[debug] {place}{text}"));
    });
    // The core package's sleep would hold the worker without doing any work.
    engine.register_fn("sleep", |_: rhai::INT| -> Result<(), Box<EvalAltResult>> { Err(NO_SLEEP.into()) });
    engine.register_fn("sleep", |_: rhai::FLOAT| -> Result<(), Box<EvalAltResult>> { Err(NO_SLEEP.into()) });
    register_original(&mut engine);
    engine.set_module_resolver(PluginFiles { files, loaded: Mutex::default() });
    // Rhai marks the token mapper as an API that may change, not as one going away.
    #[allow(deprecated)]
    engine.on_parse_token(rename_token);
    engine
}

/// One identifier to rename while compiling: `from` at `line`:`column` becomes `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    pub line: usize,
    pub column: usize,
    pub from: String,
    pub to: String,
}

/// Compiles `text` on `engine` (built by [`engine`]) with the identifiers at the given places
/// renamed as the tokenizer reads them. A token is renamed only at a listed place and only
/// when it is the identifier listed there, so nothing else in the text can be affected.
pub fn compile_renamed(engine: &Engine, text: &str, renames: &[Rename]) -> Result<AST, ParseError> {
    /// Empties the renames again, however compiling ends.
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            RENAMES.with(|r| r.borrow_mut().clear());
        }
    }
    RENAMES.with(|r| {
        *r.borrow_mut() =
            renames.iter().map(|n| ((n.line, n.column), (n.from.clone(), n.to.clone()))).collect::<HashMap<_, _>>()
    });
    let _clear = Clear;
    engine.compile(text)
}

/// The token mapper of every engine: passes tokens through, except the identifiers
/// [`compile_renamed`] is renaming on this thread.
fn rename_token(token: Token, pos: Position, _: &TokenizeState) -> Token {
    let (Token::Identifier(name), Some(line), Some(column)) = (&token, pos.line(), pos.position()) else {
        return token;
    };
    let renamed = RENAMES.with(|r| match r.borrow().get(&(line, column)) {
        Some((from, to)) if from.as_str() == name.as_str() => Some(to.clone()),
        _ => None,
    });
    match renamed {
        Some(to) => Token::Identifier(Box::new(to.into())),
        None => token,
    }
}

const NO_SLEEP: &str = "sleep is not available to rules: a rule cannot wait";

/// What `original` is, for the editor definitions (`houserule definitions`).
const ORIGINAL_DOC: &[&str] = &[
    "/// Inside a house-rule function that replaces a ruleset function (same name, same number of",
    "/// parameters): calls the ruleset's function it replaces, with the same number of arguments,",
    "/// and returns what it returns. `fn exploit_weakness_cost() { original() - 2 }` makes an",
    "/// ability 2 cheaper than the ruleset says, whatever the ruleset says. Anywhere else it is",
    "/// refused when the rules load.",
];

/// Registers `original` with 0 to 6 arguments: its documentation, and a clear refusal for a
/// call that reaches it. A house rule's own `original(…)` calls never do: they are renamed to
/// the function they wrap as the rule compiles (see `plugin::wrap`), and every other call
/// written out is refused at load; only a name built at run time for `Fn` ends here.
fn register_original(engine: &mut Engine) {
    macro_rules! original {
        ($($arg:ident),*) => {
            rhai::FuncRegistration::new("original")
                .with_params_info([$(concat!(stringify!($arg), ": ?"),)* "?"])
                .with_comments(ORIGINAL_DOC)
                .register_into_engine(engine, |$(_: original!(@dynamic $arg)),*| -> Refusal {
                    Err(NO_ORIGINAL.into())
                });
        };
        (@dynamic $arg:ident) => { Dynamic };
    }
    original!();
    original!(a);
    original!(a, b);
    original!(a, b, c);
    original!(a, b, c, d);
    original!(a, b, c, d, e);
    original!(a, b, c, d, e, f);
}

/// What a call of `original` that reaches the engine returns.
type Refusal = Result<Dynamic, Box<EvalAltResult>>;

const NO_ORIGINAL: &str =
    "original(…) calls the ruleset function a house-rule function replaces, and works only inside that function";

fn log(line: String) {
    LOG.with(|l| {
        let mut l = l.borrow_mut();
        if l.len() < MAX_LOG_LINES {
            l.push(line.chars().take(MAX_LOG_CHARS).collect());
        }
    });
}

/// What scripts printed on this thread since the last call, emptied.
pub fn take_log() -> Vec<String> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

/// Whether an import path names one of the plugin's own files: a bare name, with or without
/// `.rhai` (no folders, no parent, no drive, nothing hidden).
pub fn import_file(path: &str) -> Option<String> {
    if path.is_empty() || path.contains(['/', '\\', ':']) || path.contains("..") || path.starts_with('.') {
        return None;
    }
    Some(if path.ends_with(".rhai") { path.to_string() } else { format!("{path}.rhai") })
}

/// Modules by file: loaded, or still loading (an import that reaches one of these is a cycle).
#[derive(Default)]
struct Loaded {
    done: HashMap<String, Shared<Module>>,
    loading: Vec<String>,
}

/// Resolves `import "name"` to the plugin's own `name.rhai`, and nothing else.
struct PluginFiles {
    files: Arc<ScriptFiles>,
    loaded: Mutex<Loaded>,
}

impl PluginFiles {
    fn refuse(path: &str, why: String) -> Box<EvalAltResult> {
        Box::new(EvalAltResult::ErrorSystem(format!("import \"{path}\" refused"), why.into()))
    }
}

impl ModuleResolver for PluginFiles {
    fn resolve(
        &self,
        engine: &Engine,
        _source: Option<&str>,
        path: &str,
        pos: Position,
    ) -> Result<Shared<Module>, Box<EvalAltResult>> {
        let file = import_file(path).ok_or_else(|| {
            Self::refuse(path, "scripts may import only files of their own plugin, by name (no paths)".into())
        })?;
        let source =
            self.files.get(&file).ok_or_else(|| Self::refuse(path, format!("the plugin has no script {file}")))?;
        {
            let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(m) = loaded.done.get(&file) {
                return Ok(m.clone());
            }
            if loaded.loading.contains(&file) {
                let mut chain = loaded.loading.clone();
                chain.push(file.clone());
                return Err(Self::refuse(path, format!("the imports go round in a circle: {}", chain.join(" → "))));
            }
            loaded.loading.push(file.clone());
        }
        let result = compile_module(engine, &file, source, pos);
        let mut loaded = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        loaded.loading.retain(|f| f != &file);
        let module = result?;
        loaded.done.insert(file, module.clone());
        Ok(module)
    }
}

fn compile_module(
    engine: &Engine,
    file: &str,
    source: &str,
    pos: Position,
) -> Result<Shared<Module>, Box<EvalAltResult>> {
    let mut ast = engine
        .compile(source)
        .map_err(|e| Box::new(EvalAltResult::ErrorInModule(file.to_string(), Box::new(e.into()), pos)))?;
    ast.set_source(file.to_string());
    let module = Module::eval_ast_as_new(Scope::new(), &ast, engine)
        .map_err(|e| Box::new(EvalAltResult::ErrorInModule(file.to_string(), e, pos)))?;
    Ok(module.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn files(list: &[(&str, &str)]) -> Arc<ScriptFiles> {
        Arc::new(list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn the_stop_ends_a_loop() {
        let stopped = Arc::new(AtomicBool::new(true));
        let flag = stopped.clone();
        let engine = engine(&Limits::default(), files(&[]), Arc::new(move || flag.load(Ordering::Relaxed)));
        let err = engine.run("let x = 0; loop { x += 1; }").unwrap_err();
        assert!(
            matches!(*err, EvalAltResult::ErrorTerminated(ref t, _) if t.to_string() == DEADLINE_TOKEN),
            "the stop ends the script: {err}"
        );
    }

    #[test]
    fn sleep_is_refused_and_print_is_captured() {
        let engine = engine(&Limits::default(), files(&[]), never_stop());
        let err = engine.run("sleep(1)").unwrap_err();
        assert!(err.to_string().contains("not available"), "{err}");
        engine.run("print(\"hi\"); debug(2);").unwrap();
        let log = take_log();
        assert_eq!(log[0], "hi");
        assert!(log[1].starts_with("[debug]"), "{log:?}");
        assert!(take_log().is_empty(), "taking the log empties it");
    }

    #[test]
    fn an_import_cycle_is_refused_with_its_chain() {
        let fs = files(&[("a.rhai", "import \"b\" as b; fn x() { 1 }"), ("b.rhai", "import \"a\" as a; fn y() { 2 }")]);
        let engine = engine(&Limits::default(), fs, never_stop());
        let err = engine.run("import \"a\" as a; a::x()").unwrap_err().to_string();
        assert!(err.contains("a.rhai → b.rhai → a.rhai"), "the chain is shown: {err}");
    }

    #[test]
    fn renames_touch_only_the_listed_identifier() {
        let engine = engine(&Limits::default(), files(&[]), never_stop());
        let text = "fn f() { 1 }\nfn g() { 2 }\n// f() in a comment\nlet s = \"f()\"; f() + s.len()";
        let rename = |line, column, from: &str| Rename { line, column, from: from.into(), to: "g".into() };
        let ast = compile_renamed(&engine, text, &[rename(4, 16, "f")]).unwrap();
        assert_eq!(engine.eval_ast::<rhai::INT>(&ast).unwrap(), 2 + 3, "the call became g(); the string stayed f()");
        let ast = compile_renamed(&engine, text, &[rename(4, 16, "s")]).unwrap();
        assert_eq!(engine.eval_ast::<rhai::INT>(&ast).unwrap(), 1 + 3, "an identifier spelled otherwise is left");
        assert_eq!(engine.eval::<rhai::INT>(text).unwrap(), 1 + 3, "after compiling, nothing is renamed any more");
    }

    #[test]
    fn imports_resolve_only_the_plugins_files() {
        assert_eq!(import_file("helpers").as_deref(), Some("helpers.rhai"));
        for bad in ["../x", "/etc/passwd", "a/b", "C:x", ".hidden", ""] {
            assert_eq!(import_file(bad), None, "{bad} must be refused");
        }
        let engine = engine(&Limits::default(), files(&[("h.rhai", "fn d(x) { x * 2 }")]), never_stop());
        assert_eq!(engine.eval::<rhai::INT>("import \"h\" as h; h::d(21)").unwrap(), 42);
    }
}
