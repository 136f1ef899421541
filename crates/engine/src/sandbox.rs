//! The script sandbox: the one place that builds a Rhai engine, and the thread scripts run on.
//!
//! Guarantees, for any script however hostile:
//! - it starts from `Engine::new_raw()` with only the packages rules need (no time, no blobs,
//!   no file or network access exists at all);
//! - operations, call depth, expression depth, string, array and map sizes, script size and
//!   wall-clock time are limited ([`Limits`]); `eval` is disabled; `sleep` cannot outlast the
//!   deadline; `print` and `debug` go to the action's log, not to stdout;
//! - `import` resolves only the plugin's own script files, by name — never `../`, an absolute
//!   path, or anything on disk;
//! - Rhai checks `max_map_size` when a map is passed on or returned, but not on every new key
//!   assigned with `m[k] = v`; a loop that only grows a map is stopped by the operations and
//!   time limits instead, after a few megabytes;
//! - it runs on a worker thread with a large stack ([`run`]), so deep nesting ends in a Rhai
//!   error instead of overflowing the process stack; a panic on that thread is reported as an
//!   error, never propagated.

use rhai::packages::{BasicArrayPackage, BasicMapPackage, BasicMathPackage, CorePackage, LogicPackage, MoreStringPackage, Package};
use rhai::{Dynamic, Engine, EvalAltResult, Module, ModuleResolver, Position, Scope, Shared};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Resource limits for scripts.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// Wall-clock limit for one call (an action with its hooks).
    pub deadline: Duration,
    /// Stack of the worker thread scripts run on.
    pub stack_bytes: usize,
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
            deadline: Duration::from_millis(750),
            stack_bytes: 256 * 1024 * 1024,
        }
    }
}

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The token `on_progress` returns when the deadline passes.
pub const DEADLINE_TOKEN: &str = "houserule:deadline";

/// Script files a plugin may import from, by file name.
pub type ScriptFiles = BTreeMap<String, String>;

/// Builds a sandboxed engine whose `import` sees only `files`.
pub fn engine(limits: &Limits, files: Arc<ScriptFiles>) -> Engine {
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

    engine.on_progress(|ops| {
        if ops % 256 == 0 && DEADLINE.get().is_some_and(|d| Instant::now() >= d) {
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
    // The built-in sleep ignores the deadline: a script may wait only while time is left.
    engine.register_fn("sleep", |seconds: rhai::INT| sleep(seconds as f64));
    engine.register_fn("sleep", sleep);
    engine.set_module_resolver(PluginFiles { files });
    engine
}

fn sleep(seconds: rhai::FLOAT) -> Result<(), Box<EvalAltResult>> {
    if !(seconds > 0.0) {
        return Ok(());
    }
    let wanted = Duration::from_secs_f64(seconds.min(1e6));
    let left = DEADLINE.get().map(|d| d.saturating_duration_since(Instant::now())).unwrap_or(Duration::ZERO);
    if wanted >= left {
        return Err(format!("sleep({seconds}) would outlast the script's time limit ({} ms left)", left.as_millis()).into());
    }
    std::thread::sleep(wanted);
    Ok(())
}

fn log(line: String) {
    LOG.with(|l| {
        let mut l = l.borrow_mut();
        if l.len() < 1000 {
            l.push(line.chars().take(2000).collect());
        }
    });
}

/// Resolves `import "name"` to the plugin's own `name.rhai`, and nothing else.
struct PluginFiles {
    files: Arc<ScriptFiles>,
}

impl ModuleResolver for PluginFiles {
    fn resolve(&self, engine: &Engine, _source: Option<&str>, path: &str, pos: Position) -> Result<Shared<Module>, Box<EvalAltResult>> {
        let refuse = |why: &str| -> Box<EvalAltResult> {
            Box::new(EvalAltResult::ErrorSystem(format!("import \"{path}\" refused"), why.to_string().into()))
        };
        if path.is_empty() || path.contains(['/', '\\', ':']) || path.contains("..") || path.starts_with('.') {
            return Err(refuse("scripts may import only files of their own plugin, by name (no paths)"));
        }
        let file = if path.ends_with(".rhai") { path.to_string() } else { format!("{path}.rhai") };
        let source = self.files.get(&file).ok_or_else(|| refuse(&format!("the plugin has no script {file}")))?;
        let mut ast = engine.compile(source).map_err(|e| Box::new(EvalAltResult::ErrorInModule(file.clone(), Box::new(e.into()), pos)))?;
        ast.set_source(file.clone());
        let module = Module::eval_ast_as_new(Scope::new(), &ast, engine).map_err(|e| Box::new(EvalAltResult::ErrorInModule(file, e, pos)))?;
        Ok(module.into())
    }
}

/// Gives the current script thread a fresh time budget (between runs of a batch).
pub fn rearm(limits: &Limits) {
    DEADLINE.set(Some(Instant::now() + limits.deadline));
}

/// Output of a script run: the value and what the script printed.
pub struct Ran<T> {
    pub value: T,
    pub log: Vec<String>,
}

/// Runs `f` on a fresh worker thread with a large stack and the deadline armed. A panic on
/// the worker becomes an `Err` with its message.
pub fn run<T: Send>(limits: &Limits, f: impl FnOnce() -> T + Send) -> Result<Ran<T>, String> {
    let deadline = limits.deadline;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("houserule-script".into())
            .stack_size(limits.stack_bytes)
            .spawn_scoped(scope, move || {
                DEADLINE.set(Some(Instant::now() + deadline));
                LOG.with(|l| l.borrow_mut().clear());
                let value = f();
                let log = LOG.with(|l| std::mem::take(&mut *l.borrow_mut()));
                DEADLINE.set(None);
                Ran { value, log }
            })
            .map_err(|e| format!("could not start the script thread: {e}"))?;
        worker.join().map_err(|panic| {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            format!("the script engine failed: {msg}")
        })
    })
}

