//! Compiling a ruleset and its house rules, and every check made before any of it runs.

use super::{missing_function, HouseFunction, HouseRule, PluginError, PluginSource, Problem, RulesInfo, MAX_FILES};
use crate::host;
use crate::manifest::{Manifest, ManifestError};
use crate::sandbox::{import_file, Limits};
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

fn problem(kind: ScriptErrorKind, file: &str, pos: Position, message: String) -> Problem {
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
    let mut house_functions = Vec::new();
    let mut merged: Option<AST> = None;
    for (name, ast, role) in &asts {
        if *role == Role::Module {
            continue;
        }
        for f in ast.iter_fn_def() {
            let key = (f.name.to_string(), f.params.len());
            let pos = f.body.start_position();
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
                house_functions.push(HouseFunction {
                    file: name.clone(),
                    name: key.0.clone(),
                    arity: key.1,
                    replaces: ruleset_fns.contains_key(&key),
                });
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
    let ast = merged.unwrap_or_else(AST::empty);
    let functions: BTreeSet<(String, usize)> =
        ast.iter_functions().map(|f| (f.name.to_string(), f.params.len())).collect();
    if problems.is_empty() {
        for (field, function, arity) in manifest.referenced_functions() {
            if !functions.contains(&(function.clone(), arity)) {
                problems.push(missing_function(field, &function));
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
    Ok(Compiled { ast, fn_files, places, info: RulesInfo { functions, house_functions } })
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
