//! Inside each crate, modules depend one way: the imports of every source file (read with
//! `syn`, not by searching text) make a graph of the crate's top-level modules that has no
//! cycle, and for the core and the app layer follows the order docs/architecture.md gives.
//! Every path the docs name exists.

use crate::support::repo;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The top-level modules a file's paths name (`crate::x…`, or `super::x…` that leaves the
/// file's own module), for a file of top-level module `own` at `depth` below `src/`.
struct Uses<'a> {
    own: &'a str,
    depth: usize,
    found: BTreeSet<String>,
}

impl Uses<'_> {
    fn note(&mut self, idents: &[String]) {
        let supers = idents.iter().take_while(|i| *i == "super").count();
        let target = match idents.first().map(String::as_str) {
            Some("crate") => idents.get(1),
            Some("super") if supers >= self.depth => idents.get(supers),
            _ => None,
        };
        if let Some(t) = target.filter(|t| *t != self.own && t.chars().next().is_some_and(char::is_lowercase)) {
            self.found.insert(t.clone());
        }
    }
}

fn tree_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            tree_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => out.push([prefix.clone(), vec![n.ident.to_string()]].concat()),
        syn::UseTree::Rename(r) => out.push([prefix.clone(), vec![r.ident.to_string()]].concat()),
        syn::UseTree::Glob(_) => out.push([prefix.clone(), vec!["*".into()]].concat()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| tree_paths(t, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut all = vec![];
        tree_paths(&u.tree, &mut vec![], &mut all);
        all.iter().for_each(|p| self.note(p));
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let idents: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.note(&idents);
        syn::visit::visit_path(self, p);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module → the crate's other top-level modules it uses.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = vec![];
    rust_files(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().to_string()).collect();
        if parts.len() == 1 && ["lib.rs", "main.rs"].contains(&parts[0].as_str()) || parts[0] == "bin" {
            continue;
        }
        let own = parts[0].trim_end_matches(".rs").to_string();
        // src/x.rs and src/x/mod.rs are at depth 1; src/x/y.rs at depth 2.
        let depth = parts.len() - usize::from(parts.last().is_some_and(|l| l == "mod.rs"));
        let text = std::fs::read_to_string(&file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let mut uses = Uses { own: &own, depth, found: BTreeSet::new() };
        uses.visit_file(&ast);
        let found = uses.found;
        graph.entry(own).or_default().extend(found);
    }
    graph
}

/// A cycle in `graph`, if there is one: the modules around it, the first one again at the end.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            return Some([&path[i..], &[at.to_string()]].concat());
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_string());
        for next in graph.get(at).into_iter().flatten() {
            if let Some(c) = walk(graph, next, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(at.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|m| walk(graph, m, &mut vec![], &mut done))
}

/// The order docs/architecture.md gives for `which` ("core", "app"): layers of module names,
/// lowest first, read from its line "Inside `which`: `a` → `b`, `c` → …".
fn documented_order(which: &str) -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let start = format!("Inside `{which}`");
    let at = doc.find(&start).unwrap_or_else(|| panic!("docs/architecture.md says the module order of {which}"));
    let text: String = doc[at + start.len()..].split("\n\n").next().unwrap().replace('\n', " ");
    let text = text.split_once(':').map(|(_, t)| t).unwrap_or(&text);
    let text = text.split(". ").next().unwrap();
    text.split('→')
        .map(|layer| {
            let mut names = vec![];
            let mut rest = layer;
            // Only the first backticked word of each comma-separated part: `campaign` (with
            // `campaign/open`, …) is one module.
            for part in split_top_level(&mut rest) {
                if let Some(name) = part.split('`').nth(1) {
                    names.push(name.to_string());
                }
            }
            names
        })
        .collect()
}

/// A layer's comma-separated parts, commas inside parentheses kept.
fn split_top_level(text: &mut &str) -> Vec<String> {
    let (mut parts, mut depth, mut cur) = (vec![], 0, String::new());
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        if depth == 0 && c != ')' {
            cur.push(c);
        }
    }
    parts.push(cur);
    parts
}

fn check_order(krate: &str, which: &str) {
    let graph = module_graph(&repo().join(krate).join("src"));
    let layers = documented_order(which);
    let layer_of: BTreeMap<&str, usize> =
        layers.iter().enumerate().flat_map(|(i, l)| l.iter().map(move |m| (m.as_str(), i))).collect();
    for module in graph.keys() {
        assert!(layer_of.contains_key(module.as_str()), "docs/architecture.md's order of {which} lacks `{module}`");
    }
    for named in layer_of.keys() {
        assert!(
            graph.contains_key(*named),
            "docs/architecture.md names `{named}` in {which}, which has no such module"
        );
    }
    for (from, tos) in &graph {
        // A name at the crate's root that is no module (a function or a re-export in lib.rs).
        for to in tos.iter().filter(|t| graph.contains_key(*t)) {
            assert!(
                layer_of[to.as_str()] <= layer_of[from.as_str()],
                "{which}: `{from}` uses `{to}`, which docs/architecture.md puts above it"
            );
        }
    }
}

#[test]
fn no_crate_has_an_import_cycle() {
    for krate in ["crates/core", "crates/app", "crates/host", "crates/matrix", "crates/cli", "src-tauri"] {
        let graph = module_graph(&repo().join(krate).join("src"));
        assert_eq!(cycle(&graph), None, "{krate}: its modules import each other in a ring");
    }
}

#[test]
fn the_modules_of_the_core_and_the_app_follow_the_documented_order() {
    check_order("crates/core", "core");
    check_order("crates/app", "app");
}

#[test]
fn the_check_finds_a_ring_and_an_import_against_the_order() {
    let ring: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .iter()
        .map(|(f, t)| (f.to_string(), BTreeSet::from([t.to_string()])))
        .collect();
    assert_eq!(cycle(&ring), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("low.rs"), "use crate::high::Thing;\n").unwrap();
    std::fs::create_dir(dir.path().join("high")).unwrap();
    std::fs::write(dir.path().join("high/mod.rs"), "mod part;\n").unwrap();
    std::fs::write(dir.path().join("high/part.rs"), "fn f() { super::super::low::g(); super::other(); }\n").unwrap();
    let graph = module_graph(dir.path());
    assert_eq!(graph["low"], BTreeSet::from(["high".to_string()]));
    assert_eq!(graph["high"], BTreeSet::from(["low".to_string()]), "super::super from a nested file is found");
    assert!(cycle(&graph).is_some());
}

/// Paths the docs name in backticks (files and folders of the repository, modules by their
/// path without `.rs`) exist: tried from the repository's root, then under `crates/`, the app's
/// and the core's `src/`, and `ui/src/`.
#[test]
fn every_path_the_docs_name_exists() {
    let roots = ["", "crates", "crates/app/src", "crates/core/src", "ui/src"];
    let mut missing = vec![];
    for doc in ["docs/architecture.md", "DESIGN.md"] {
        let text = std::fs::read_to_string(repo().join(doc)).unwrap();
        for quoted in text.split('`').skip(1).step_by(2) {
            let looks_like_path = !quoted.contains(' ')
                && !quoted.contains("::")
                && (quoted.contains('/')
                    || [".rs", ".md", ".ts", ".tsx", ".toml", ".sh", ".mjs", ".py"]
                        .iter()
                        .any(|e| quoted.ends_with(e)))
                && !quoted.contains('*')
                && !quoted.starts_with("--")
                && !quoted.contains('<');
            // A placeholder (`ruleset/NAME`) names no one path.
            let placeholder =
                quoted.split(['/', '.']).any(|p| p.len() > 1 && p.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            if !looks_like_path || placeholder || !quoted.chars().any(char::is_alphanumeric) {
                continue;
            }
            let path = quoted.trim_end_matches('/');
            // A module is named by its path without `.rs` (`campaign/open`).
            let found = roots.iter().any(|r| {
                let at = repo().join(r).join(path);
                at.exists() || at.with_file_name(format!("{}.rs", path.rsplit('/').next().unwrap())).exists()
            }) || repo().join("crates").join(path.replacen("src/", "", 0)).exists();
            // A bare file name (`plugin.toml`) names a kind of file: one must exist somewhere.
            let found = found || (!path.contains('/') && file_named(&repo(), path));
            if !found {
                missing.push(format!("{doc} names `{quoted}`"));
            }
        }
    }
    assert!(missing.is_empty(), "paths that do not exist:\n{}", missing.join("\n"));
}

/// Whether a file called `name` is anywhere under `dir` (build output and dependencies aside).
fn file_named(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir).unwrap().map(Result::unwrap).any(|entry| {
        let path = entry.path();
        let skip = ["target", "node_modules", ".git", "dist"].iter().any(|s| path.ends_with(s));
        match path.is_dir() {
            true => !skip && file_named(&path, name),
            false => path.file_name().is_some_and(|n| n == name),
        }
    })
}
