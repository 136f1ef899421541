//! Compiling a ruleset and its house rules, and every check made before any of it runs: the
//! imports, functions defined once, no host method hidden, `original` only where it has a
//! function to call (see [`super::wrap`]), every moment the manifest lists defined and called,
//! every function the manifest names present — and what each house-rule function does
//! ([`super::report`]).

use super::calls::{call_sites, CallSite, Form};
use super::report::{self, HouseDef};
use super::{missing_function, wrap, HouseRule, PluginError, PluginSource, Problem, RulesInfo, MAX_FILES};
use crate::engine::{self, import_file, Limits};
use crate::manifest::{Manifest, ManifestError};
use crate::script_api;
use crate::script_error::{FnFiles, ScriptError, ScriptErrorKind};
use rhai::{ASTNode, Engine, Expr, Position, Stmt, AST};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A compiled, checked plugin's parts.
pub(super) struct Compiled {
    pub ast: AST,
    pub fn_files: FnFiles,
    pub places: HashMap<String, (String, Position)>,
    pub info: RulesInfo,
}

/// Which layer a script belongs to, and whether it is merged into the rules (otherwise it is
/// only imported, or not used at all).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Merged,
    House,
    Module,
}

pub(super) fn problem(kind: ScriptErrorKind, file: &str, pos: Position, message: String) -> Problem {
    Problem::Script(ScriptError::new(kind, file, pos, message))
}

fn place(file: &str, pos: Position) -> String {
    match (pos.line(), pos.position()) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
        (Some(l), None) => format!("{file}:{l}"),
        _ => file.to_string(),
    }
}

/// One script to compile: its file name, its text, and its layer.
struct Script<'a> {
    name: String,
    text: &'a str,
    role: Role,
}

/// Compiles and checks; every problem found is reported, not just the first.
pub(super) fn compile(
    engine: &Engine,
    manifest: &Manifest,
    source: &PluginSource,
    house: &[HouseRule],
    limits: &Limits,
) -> Result<Compiled, PluginError> {
    let mut problems = missing_scripts(manifest, source);
    problems.extend(too_many_files(source, house));
    let scripts = in_order(manifest, source, house);
    let mut asts = compile_each(engine, &scripts, limits, &mut problems);
    let known: BTreeSet<String> = scripts.iter().map(|s| s.name.clone()).collect();
    problems.extend(check_imports(&asts, &known));
    let mut defs = Definitions::new(engine);
    for (name, ast, role) in &mut asts {
        let text = scripts.iter().find(|s| &s.name == name).map(|s| s.text).unwrap_or_default();
        defs.read(engine, (name, ast, *role), text, &mut problems);
    }
    let (ast, functions) = defs.merged(&asts);
    problems.extend(check_moments(manifest, &defs.ruleset_fns, &defs.ruleset_sites));
    if problems.is_empty() {
        problems.extend(missing_functions(manifest, &functions));
    }
    if problems.is_empty() {
        problems.extend(top_level(engine, &ast, &defs.fn_files, manifest));
    }
    if !problems.is_empty() {
        problems.sort_by_key(place_of);
        return Err(PluginError(problems));
    }
    let house_functions = report::describe(&defs.house_defs, &defs.ruleset_fns, &defs.wrapping, manifest, &defs.sites);
    let info = RulesInfo { functions, house_functions, quotes: Default::default() };
    Ok(Compiled { ast, fn_files: defs.fn_files, places: defs.places, info })
}

/// The entry and every script the manifest merges are in the plugin folder.
fn missing_scripts(manifest: &Manifest, source: &PluginSource) -> Vec<Problem> {
    let merged = std::iter::once(&manifest.entry).chain(manifest.scripts.iter());
    merged
        .filter(|name| !source.files.contains_key(*name))
        .map(|name| {
            Problem::Manifest(ManifestError {
                file: super::MANIFEST.into(),
                line: None,
                column: None,
                field: if name == &manifest.entry { "entry".into() } else { "scripts".into() },
                message: format!("the script {name} is not in the plugin folder"),
            })
        })
        .collect()
}

/// At most [`MAX_FILES`] scripts in either layer.
fn too_many_files(source: &PluginSource, house: &[HouseRule]) -> Option<Problem> {
    (source.scripts().len() > MAX_FILES || house.len() > MAX_FILES).then(|| {
        let message = format!("more than {MAX_FILES} script files in one layer");
        problem(ScriptErrorKind::Limit, "rules", Position::NONE, message)
    })
}

/// Every script, in the order they are read: the ruleset's in the manifest's order first, then
/// the ones it only imports (or does not use), then the house rules.
fn in_order<'a>(manifest: &Manifest, source: &'a PluginSource, house: &'a [HouseRule]) -> Vec<Script<'a>> {
    let merged: Vec<&String> = std::iter::once(&manifest.entry).chain(manifest.scripts.iter()).collect();
    let script = |name: &String, text: &'a String, role| Script { name: name.clone(), text: text.as_str(), role };
    let mut out: Vec<Script> =
        merged.iter().filter_map(|n| source.files.get(*n).map(|t| script(n, t, Role::Merged))).collect();
    let modules = source.files.iter().filter(|(n, _)| n.ends_with(".rhai") && !merged.contains(n));
    out.extend(modules.map(|(n, t)| script(n, t, Role::Module)));
    out.extend(house.iter().map(|h| script(&h.name, &h.source, Role::House)));
    out
}

/// Each script compiled on its own, so each error names its file; one too large is not.
fn compile_each(
    engine: &Engine,
    scripts: &[Script],
    limits: &Limits,
    problems: &mut Vec<Problem>,
) -> Vec<(String, AST, Role)> {
    let mut asts = Vec::new();
    for Script { name, text, role } in scripts {
        if text.len() > limits.max_script_bytes {
            let (n, max) = (text.len(), limits.max_script_bytes);
            let message = format!("{n} bytes is larger than the limit of {max} bytes per script");
            problems.push(problem(ScriptErrorKind::Limit, name, Position::NONE, message));
            continue;
        }
        match engine.compile(text) {
            Ok(mut ast) => {
                ast.set_source(name.clone());
                asts.push((name.clone(), ast, *role));
            }
            Err(e) => problems.push(Problem::Script(ScriptError::from_parse(name, &e))),
        }
    }
    asts
}

/// Every function the manifest names is in the rules, with the arity it is called with.
fn missing_functions(manifest: &Manifest, functions: &BTreeSet<(String, usize)>) -> Vec<Problem> {
    manifest
        .referenced_functions()
        .into_iter()
        .filter(|(_, function, arity)| !functions.contains(&(function.clone(), *arity)))
        .map(|(field, function, arity)| missing_function(field, &function, arity))
        .collect()
}

/// Top-level statements run before every call: they run once now, so a broken one is reported
/// at load time rather than on the first action.
fn top_level(engine: &Engine, ast: &AST, fn_files: &FnFiles, manifest: &Manifest) -> Option<Problem> {
    let e = engine.run_ast(ast).err()?;
    Some(Problem::Script(ScriptError::from_eval(&e, fn_files, &manifest.entry)))
}

/// What the scripts define, as they are read in order: the ruleset's functions are all known
/// before the first house rule is read.
struct Definitions {
    host_methods: HashSet<String>,
    fn_files: FnFiles,
    places: HashMap<String, (String, Position)>,
    ruleset_fns: HashMap<(String, usize), (String, Position)>,
    house_fns: HashMap<(String, usize), (String, Position)>,
    house_defs: Vec<HouseDef>,
    /// The ruleset functions (name, arity) a house rule wraps.
    wrapping: BTreeSet<(String, usize)>,
    /// Every call of the merged scripts, and of the ruleset's alone.
    sites: Vec<CallSite>,
    ruleset_sites: Vec<CallSite>,
    merged: Option<AST>,
}

impl Definitions {
    fn new(engine: &Engine) -> Definitions {
        Definitions {
            host_methods: script_api::method_names(engine),
            fn_files: FnFiles::new(),
            places: HashMap::new(),
            ruleset_fns: HashMap::new(),
            house_fns: HashMap::new(),
            house_defs: Vec::new(),
            wrapping: BTreeSet::new(),
            sites: Vec::new(),
            ruleset_sites: Vec::new(),
            merged: None,
        }
    }

    /// Reads one compiled script (`text`: its source, to compile again with its `original`
    /// calls renamed): its calls checked, its functions defined, and, unless it is only
    /// imported, merged into the rules.
    fn read(&mut self, engine: &Engine, script: (&String, &mut AST, Role), text: &str, problems: &mut Vec<Problem>) {
        let (name, ast, role) = script;
        let found = call_sites(ast);
        let defined = defined_in(ast);
        wrap::check_reserved(name, &defined, &found, problems);
        match role {
            Role::Module | Role::Merged => wrap::check_ruleset(name, &found, problems),
            Role::House => self.wrap(engine, name, ast, text, &found, problems),
        }
        if role == Role::Module {
            return;
        }
        if role == Role::Merged {
            self.ruleset_sites.extend(found.iter().cloned());
        }
        self.sites.extend(found);
        for (fn_name, arity, pos) in defined {
            self.define(name, role, (fn_name, arity), pos, problems);
        }
        self.merged = Some(match self.merged.take() {
            None => ast.clone(),
            Some(m) => m.merge(ast),
        });
    }

    /// A house rule's `original` calls, checked and renamed to the functions they call.
    fn wrap(
        &mut self,
        engine: &Engine,
        name: &str,
        ast: &mut AST,
        text: &str,
        found: &[CallSite],
        problems: &mut Vec<Problem>,
    ) {
        let wraps = wrap::house_wraps(name, found, &self.ruleset_fns, problems);
        if !wraps.renames.is_empty() {
            match engine::compile_renamed(engine, text, &wraps.renames) {
                Ok(renamed) => {
                    *ast = renamed;
                    ast.set_source(name.to_string());
                }
                Err(e) => problems.push(Problem::Script(ScriptError::from_parse(name, &e))),
            }
        }
        self.wrapping.extend(wraps.wrapping);
    }

    /// One function `file` defines: once within its layer, never under a host method's name.
    fn define(&mut self, file: &str, role: Role, key: (String, usize), pos: Position, problems: &mut Vec<Problem>) {
        let layer = if role == Role::House { &mut self.house_fns } else { &mut self.ruleset_fns };
        if let Some((earlier, at)) = layer.insert(key.clone(), (file.to_string(), pos)) {
            let whose = if role == Role::House { "another house rule" } else { "the ruleset" };
            let message = format!(
                "fn {}/{} is already defined in {whose} at {}; a function is defined once (only a house rule replaces a ruleset function)",
                key.0,
                key.1,
                place(&earlier, at)
            );
            problems.push(problem(ScriptErrorKind::Syntax, file, pos, message));
        }
        if role == Role::House {
            self.house_defs.push(HouseDef { file: file.to_string(), name: key.0.clone(), arity: key.1, pos });
        }
        self.fn_files.insert(key.0.clone(), file.to_string());
        self.places.insert(key.0.clone(), (file.to_string(), pos));
        if self.host_methods.contains(key.0.as_str()) {
            // Rhai would call this script function for `t.NAME(...)`, hiding the host method
            // from every script of the plugin.
            let message = format!(
                "fn {}: this name belongs to the host method t.{}(…); rename the function (an action keeps its name with function = \"…\" in plugin.toml)",
                key.0, key.0
            );
            problems.push(problem(ScriptErrorKind::Syntax, file, pos, message));
        }
    }

    /// The merged rules, with the ruleset functions house rules wrap kept under their reserved
    /// names; and every function they hold (name, arity) but those.
    fn merged(&mut self, asts: &[(String, AST, Role)]) -> (AST, BTreeSet<(String, usize)>) {
        let mut ast = self.merged.take().unwrap_or_else(AST::empty);
        if !self.wrapping.is_empty() {
            let ruleset: Vec<&AST> = asts.iter().filter(|(.., r)| *r == Role::Merged).map(|(_, a, _)| a).collect();
            ast = ast.merge(&wrap::originals(&ruleset, &self.wrapping));
            for key in &self.wrapping {
                if let Some((file, pos)) = self.ruleset_fns.get(key) {
                    self.fn_files.insert(wrap::hidden_name(&key.0), file.clone());
                    self.places.insert(wrap::hidden_name(&key.0), (file.clone(), *pos));
                }
            }
        }
        let functions = ast
            .iter_functions()
            .map(|f| (f.name.to_string(), f.params.len()))
            .filter(|(n, _)| !n.starts_with(wrap::RESERVED))
            .collect();
        (ast, functions)
    }
}

/// The functions a script defines (not its closures), in reading order (Rhai keeps a script's
/// functions by hash).
fn defined_in(ast: &AST) -> Vec<(String, usize, Position)> {
    let mut defined: Vec<(String, usize, Position)> = ast
        .iter_fn_def()
        .map(|f| (f.name.to_string(), f.params.len(), f.body.start_position()))
        .filter(|(n, ..)| !n.starts_with("anon$"))
        .collect();
    defined.sort_by_key(|(.., pos)| (pos.line(), pos.position()));
    defined
}

/// Every moment the manifest lists by name must be a ruleset function that the ruleset's own
/// scripts (`sites`: their calls) call; a family such as `knack_*` is called by a name made at
/// run time, which no check can follow.
fn check_moments(
    manifest: &Manifest,
    ruleset: &HashMap<(String, usize), (String, Position)>,
    sites: &[CallSite],
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for m in manifest.hooks.moments.iter().filter(|m| !m.ends_with('*')) {
        let Some(((_, arity), (file, _))) = ruleset.iter().find(|((n, _), _)| n == m) else {
            problems.push(moment_problem(format!(
                "no ruleset script defines {m}: a moment needs a function (an empty one will do) \
                 for house rules to replace"
            )));
            continue;
        };
        let key = (m.clone(), *arity);
        let called = sites.iter().any(|s| {
            let reaches = s.name == *m && (s.args == *arity || s.form == Form::Pointer);
            reaches && s.within.as_ref() != Some(&key)
        });
        if !called {
            problems.push(moment_problem(format!(
                "{m} ({file}) is never called by the ruleset's scripts, so a house rule defining it would never run"
            )));
        }
    }
    problems
}

fn moment_problem(message: String) -> Problem {
    Problem::Manifest(ManifestError {
        file: super::MANIFEST.into(),
        line: None,
        column: None,
        field: "hooks.moments".into(),
        message,
    })
}

/// Where a problem is, to report problems in reading order.
fn place_of(p: &Problem) -> (String, usize, usize) {
    match p {
        Problem::Manifest(m) => (m.file.clone(), m.line.unwrap_or(0), m.column.unwrap_or(0)),
        Problem::Script(s) => (s.file.clone(), s.line, s.column),
    }
}

/// One `import` statement: the file it is in, the file it names, and where.
struct Import {
    from: String,
    to: String,
    pos: Position,
}

/// Every import must name one of the plugin's own scripts, written out as text, and the
/// imports must not go round in a circle (a module importing itself included).
fn check_imports(asts: &[(String, AST, Role)], known: &BTreeSet<String>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut graph: BTreeMap<String, Vec<Import>> = BTreeMap::new();
    for (name, ast, _) in asts {
        for (target, pos) in imports_of(ast) {
            match import_target(name, target, pos, known) {
                Ok(to) => graph.entry(name.clone()).or_default().push(Import { from: name.clone(), to, pos }),
                Err(p) => problems.push(p),
            }
        }
    }
    problems.extend(cycles(&graph));
    problems
}

/// The imports of a script: the name each gives (if written out as text), and where.
fn imports_of(ast: &AST) -> Vec<(Option<String>, Position)> {
    let mut found = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        if let Some(ASTNode::Stmt(Stmt::Import(x, pos))) = path.last() {
            let target = match &x.0 {
                Expr::StringConstant(s, _) => Some(s.to_string()),
                _ => None,
            };
            found.push((target, *pos));
        }
        true
    });
    found
}

/// The file one import in `file` names, if it is one of the plugin's own scripts.
fn import_target(
    file: &str,
    target: Option<String>,
    pos: Position,
    known: &BTreeSet<String>,
) -> Result<String, Problem> {
    let refuse = |message: String| problem(ScriptErrorKind::Syntax, file, pos, message);
    let Some(target) = target else {
        return Err(refuse("import needs the script's name written out as text, such as import \"helpers\"".into()));
    };
    let Some(to) = import_file(&target) else {
        return Err(refuse(format!(
            "import \"{target}\": scripts may import only files of their own plugin, by name (no paths)"
        )));
    };
    if !known.contains(&to) {
        return Err(refuse(format!("import \"{target}\": the plugin has no script {to}")));
    }
    Ok(to)
}

/// Each circle of imports, once, reported at its first import with the whole chain.
fn cycles(graph: &BTreeMap<String, Vec<Import>>) -> Vec<Problem> {
    let mut reported: HashSet<String> = HashSet::new();
    let mut problems = Vec::new();
    for cycle in graph.keys().filter_map(|start| find_cycle(graph, start)) {
        let mut files: Vec<&str> = cycle.iter().map(|i| i.from.as_str()).collect();
        files.sort();
        if !reported.insert(files.join(",")) {
            continue;
        }
        let chain: Vec<String> = cycle.iter().map(|i| format!("{} imports {}", place(&i.from, i.pos), i.to)).collect();
        let first = cycle[0];
        let message = format!("the imports go round in a circle: {}", chain.join(", "));
        problems.push(problem(ScriptErrorKind::Syntax, &first.from, first.pos, message));
    }
    problems
}

/// A chain of imports from `start` that comes back to `start`, if there is one.
fn find_cycle<'a>(graph: &'a BTreeMap<String, Vec<Import>>, start: &str) -> Option<Vec<&'a Import>> {
    // Depth-first search with an explicit stack of (file, next edge to try).
    let mut path: Vec<&Import> = Vec::new();
    let mut stack: Vec<(&str, usize)> = vec![(start, 0)];
    let mut visited: HashSet<&str> = HashSet::new();
    while let Some((file, next)) = stack.pop() {
        let edges = graph.get(file).map(Vec::as_slice).unwrap_or_default();
        if next >= edges.len() {
            path.pop();
            continue;
        }
        stack.push((file, next + 1));
        let edge = &edges[next];
        if edge.to == start {
            path.push(edge);
            return Some(path);
        }
        if visited.insert(edge.to.as_str()) {
            path.push(edge);
            stack.push((edge.to.as_str(), 0));
        }
    }
    None
}
