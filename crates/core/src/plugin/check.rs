//! Compiling a ruleset and its house rules, and every check made before any of it runs: the
//! imports, functions defined once, no host method hidden, `original` only where it has a
//! function to call (see [`super::wrap`]), every moment the manifest lists defined and called,
//! every function the manifest names present — and what each house-rule function does
//! ([`super::report`]).

use super::calls::{call_sites, CallSite, Form};
use super::report::{self, HouseDef};
use super::{missing_function, wrap, HouseRule, PluginError, PluginSource, Problem, RulesInfo, MAX_FILES};
use crate::host;
use crate::manifest::{Manifest, ManifestError};
use crate::sandbox::{self, import_file, Limits};
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

/// Compiles and checks; every problem found is reported, not just the first.
pub(super) fn compile(
    engine: &Engine,
    manifest: &Manifest,
    source: &PluginSource,
    house: &[HouseRule],
    limits: &Limits,
) -> Result<Compiled, PluginError> {
    let mut problems = Vec::new();
    let merged_names: Vec<&String> = std::iter::once(&manifest.entry).chain(manifest.scripts.iter()).collect();
    for name in &merged_names {
        if !source.files.contains_key(*name) {
            problems.push(Problem::Manifest(ManifestError {
                file: super::MANIFEST.into(),
                line: None,
                column: None,
                field: if *name == &manifest.entry { "entry".into() } else { "scripts".into() },
                message: format!("the script {name} is not in the plugin folder"),
            }));
        }
    }
    if source.scripts().len() > MAX_FILES || house.len() > MAX_FILES {
        problems.push(problem(
            ScriptErrorKind::Limit,
            "rules",
            Position::NONE,
            format!("more than {MAX_FILES} script files in one layer"),
        ));
    }

    // Every script is compiled: the ruleset's in the manifest's order first, then the ones it
    // only imports (or does not use), then the house rules.
    let mut scripts: Vec<(String, &str, Role)> = merged_names
        .iter()
        .filter_map(|n| source.files.get(*n).map(|t| ((*n).clone(), t.as_str(), Role::Merged)))
        .collect();
    for (name, text) in source.files.iter().filter(|(n, _)| n.ends_with(".rhai") && !merged_names.contains(n)) {
        scripts.push((name.clone(), text.as_str(), Role::Module));
    }
    for h in house {
        scripts.push((h.name.clone(), h.source.as_str(), Role::House));
    }
    let mut asts: Vec<(String, AST, Role)> = Vec::new();
    for (name, text, role) in &scripts {
        if text.len() > limits.max_script_bytes {
            let message = format!(
                "{} bytes is larger than the limit of {} bytes per script",
                text.len(),
                limits.max_script_bytes
            );
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
    let known: BTreeSet<String> = scripts.iter().map(|(n, _, _)| n.clone()).collect();
    problems.extend(check_imports(&asts, &known));

    let host_methods = host::method_names(engine);
    let mut fn_files = FnFiles::new();
    let mut places: HashMap<String, (String, Position)> = HashMap::new();
    let mut ruleset_fns: HashMap<(String, usize), (String, Position)> = HashMap::new();
    let mut house_fns: HashMap<(String, usize), (String, Position)> = HashMap::new();
    let mut house_defs: Vec<HouseDef> = Vec::new();
    let mut wrapping: BTreeSet<(String, usize)> = BTreeSet::new();
    let mut sites: Vec<CallSite> = Vec::new();
    let mut ruleset_sites: Vec<CallSite> = Vec::new();
    let mut merged: Option<AST> = None;
    // The ruleset's scripts come first, so every ruleset function is known before the first
    // house rule is read.
    for (name, ast, role) in &mut asts {
        let found = call_sites(ast);
        let mut defined: Vec<(String, usize, Position)> = ast
            .iter_fn_def()
            .map(|f| (f.name.to_string(), f.params.len(), f.body.start_position()))
            .filter(|(n, ..)| !n.starts_with("anon$"))
            .collect();
        // In reading order (Rhai keeps a script's functions by hash).
        defined.sort_by_key(|(.., pos)| (pos.line(), pos.position()));
        wrap::check_reserved(name, &defined, &found, &mut problems);
        match role {
            Role::Module | Role::Merged => wrap::check_ruleset(name, &found, &mut problems),
            Role::House => {
                let wraps = wrap::house_wraps(name, &found, &ruleset_fns, &mut problems);
                if !wraps.renames.is_empty() {
                    let text = scripts.iter().find(|(n, ..)| n == name).map(|(_, t, _)| *t).unwrap_or_default();
                    match sandbox::compile_renamed(engine, text, &wraps.renames) {
                        Ok(renamed) => {
                            *ast = renamed;
                            ast.set_source(name.clone());
                        }
                        Err(e) => problems.push(Problem::Script(ScriptError::from_parse(name, &e))),
                    }
                }
                wrapping.extend(wraps.wrapping);
            }
        }
        if *role == Role::Module {
            continue;
        }
        if *role == Role::Merged {
            ruleset_sites.extend(found.iter().cloned());
        }
        sites.extend(found);
        for (fn_name, arity, pos) in defined {
            let key = (fn_name, arity);
            let earlier = match role {
                Role::Merged => ruleset_fns.insert(key.clone(), (name.clone(), pos)),
                _ => house_fns.insert(key.clone(), (name.clone(), pos)),
            };
            if let Some((file, at)) = earlier {
                let whose = if *role == Role::House { "another house rule" } else { "the ruleset" };
                let message = format!(
                    "fn {}/{} is already defined in {whose} at {}; a function is defined once (only a house rule replaces a ruleset function)",
                    key.0,
                    key.1,
                    place(&file, at)
                );
                problems.push(problem(ScriptErrorKind::Syntax, name, pos, message));
            }
            if *role == Role::House {
                house_defs.push(HouseDef { file: name.clone(), name: key.0.clone(), arity: key.1, pos });
            }
            fn_files.insert(key.0.clone(), name.clone());
            places.insert(key.0.clone(), (name.clone(), pos));
            if host_methods.contains(key.0.as_str()) {
                // Rhai would call this script function for `t.NAME(...)`, hiding the host method
                // from every script of the plugin.
                let message = format!(
                    "fn {}: this name belongs to the host method t.{}(…); rename the function (an action keeps its name with function = \"…\" in plugin.toml)",
                    key.0, key.0
                );
                problems.push(problem(ScriptErrorKind::Syntax, name, pos, message));
            }
        }
        merged = Some(match merged {
            None => ast.clone(),
            Some(m) => m.merge(ast),
        });
    }
    let mut ast = merged.unwrap_or_else(AST::empty);
    if !wrapping.is_empty() {
        let ruleset: Vec<&AST> = asts.iter().filter(|(.., r)| *r == Role::Merged).map(|(_, a, _)| a).collect();
        ast = ast.merge(&wrap::originals(&ruleset, &wrapping));
        for key in &wrapping {
            if let Some((file, pos)) = ruleset_fns.get(key) {
                fn_files.insert(wrap::hidden_name(&key.0), file.clone());
                places.insert(wrap::hidden_name(&key.0), (file.clone(), *pos));
            }
        }
    }
    let functions: BTreeSet<(String, usize)> = ast
        .iter_functions()
        .map(|f| (f.name.to_string(), f.params.len()))
        .filter(|(n, _)| !n.starts_with(wrap::RESERVED))
        .collect();
    problems.extend(check_moments(manifest, &ruleset_fns, &ruleset_sites));
    if problems.is_empty() {
        for (field, function, arity) in manifest.referenced_functions() {
            if !functions.contains(&(function.clone(), arity)) {
                problems.push(missing_function(field, &function, arity));
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
        problems.sort_by_key(place_of);
        return Err(PluginError(problems));
    }
    let house_functions = report::describe(&house_defs, &ruleset_fns, &wrapping, manifest, &sites);
    Ok(Compiled { ast, fn_files, places, info: RulesInfo { functions, house_functions, quotes: Default::default() } })
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
        let mut found: Vec<(Option<String>, Position)> = Vec::new();
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
        for (target, pos) in found {
            let Some(target) = target else {
                problems.push(problem(
                    ScriptErrorKind::Syntax,
                    name,
                    pos,
                    "import needs the script's name written out as text, such as import \"helpers\"".into(),
                ));
                continue;
            };
            let Some(file) = import_file(&target) else {
                let message = format!(
                    "import \"{target}\": scripts may import only files of their own plugin, by name (no paths)"
                );
                problems.push(problem(ScriptErrorKind::Syntax, name, pos, message));
                continue;
            };
            if !known.contains(&file) {
                problems.push(problem(
                    ScriptErrorKind::Syntax,
                    name,
                    pos,
                    format!("import \"{target}\": the plugin has no script {file}"),
                ));
                continue;
            }
            graph.entry(name.clone()).or_default().push(Import { from: name.clone(), to: file, pos });
        }
    }
    let mut reported: HashSet<String> = HashSet::new();
    for start in graph.keys() {
        if let Some(cycle) = find_cycle(&graph, start) {
            let key = {
                let mut files: Vec<&str> = cycle.iter().map(|i| i.from.as_str()).collect();
                files.sort();
                files.join(",")
            };
            if reported.insert(key) {
                let chain: Vec<String> =
                    cycle.iter().map(|i| format!("{} imports {}", place(&i.from, i.pos), i.to)).collect();
                let first = cycle[0];
                problems.push(problem(
                    ScriptErrorKind::Syntax,
                    &first.from,
                    first.pos,
                    format!("the imports go round in a circle: {}", chain.join(", ")),
                ));
            }
        }
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
