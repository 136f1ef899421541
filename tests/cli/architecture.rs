//! The layers as docs/architecture.md draws them, checked against `cargo metadata`: which
//! workspace crate depends on which, and what the core and the app layer never pull in, however
//! indirectly.

use crate::support::repo;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

fn metadata() -> Value {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .current_dir(repo())
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// Package name → names of its normal (non-dev, non-build) dependencies, over the resolved graph.
fn graph(meta: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let names: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut out = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null()))
            .map(|d| names[d["pkg"].as_str().unwrap()].to_string())
            .collect();
        out.insert(names[node["id"].as_str().unwrap()].to_string(), deps);
    }
    out
}

fn closure(graph: &BTreeMap<String, BTreeSet<String>>, root: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.to_string()];
    while let Some(p) = todo.pop() {
        for d in graph.get(&p).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn the_layers_are_as_documented() {
    let g = graph(&metadata());
    let ours =
        ["houserule-core", "houserule-app", "houserule-host", "houserule-matrix", "houserule", "houserule-desktop"];
    let edges = |p: &str| -> Vec<String> { g[p].iter().filter(|d| ours.contains(&d.as_str())).cloned().collect() };
    assert_eq!(edges("houserule-core"), Vec::<String>::new(), "the core depends on no other crate of ours");
    assert_eq!(edges("houserule-app"), vec!["houserule-core"]);
    assert_eq!(edges("houserule-host"), vec!["houserule-app", "houserule-core"]);
    assert_eq!(edges("houserule-matrix"), vec!["houserule-app", "houserule-core"]);
    assert_eq!(edges("houserule"), vec!["houserule-app", "houserule-core", "houserule-host", "houserule-matrix"]);
    assert_eq!(
        edges("houserule-desktop"),
        vec!["houserule-app", "houserule-core", "houserule-host", "houserule-matrix"]
    );

    let never = |crate_: &str, forbidden: &[&str]| {
        let all = closure(&g, crate_);
        for f in forbidden {
            assert!(
                !all.iter().any(|d| d == f || d.starts_with(&format!("{f}-"))),
                "{crate_} must not depend on {f}, even indirectly"
            );
        }
    };
    never("houserule-core", &["tokio", "notify", "rusqlite", "libsqlite3-sys", "axum", "tauri"]);
    never("houserule-app", &["tauri", "axum", "matrix-sdk", "ruma"]);
    never("houserule-host", &["matrix-sdk"]);
    never("houserule-matrix", &["tauri", "axum"]);
    never("houserule-host", &["tauri"]);
    never("houserule", &["tauri"]);

    // The table in docs/architecture.md says the same.
    let doc = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    for (crate_, deps) in [
        ("houserule-core", "—"),
        ("houserule-app", "`houserule-core`"),
        ("houserule-host", "`houserule-app`, `houserule-core`"),
        ("houserule-matrix", "`houserule-app`, `houserule-core`"),
        ("houserule", "`houserule-app`, `houserule-core`, `houserule-host`, `houserule-matrix`"),
        ("houserule-desktop", "`houserule-app`, `houserule-core`, `houserule-host`, `houserule-matrix`"),
    ] {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{crate_}`")))
            .unwrap_or_else(|| panic!("docs/architecture.md has a row for {crate_}"));
        assert_eq!(row.split('|').nth(3).map(str::trim), Some(deps), "docs/architecture.md: {crate_}'s dependencies");
    }
}
