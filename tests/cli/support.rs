//! Running `houserule` and checking its output against the schemas.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `houserule` with the repository's plugins and no user-installed ones.
pub fn houserule(args: &[&str]) -> Run {
    houserule_with(args, &repo().join("plugins"))
}

/// Runs `houserule` with the plugins of `plugins` (and no user-installed ones).
pub fn houserule_with(args: &[&str], plugins: &Path) -> Run {
    let data = tempfile::tempdir().expect("a temporary data folder");
    let out = Command::new(env!("CARGO_BIN_EXE_houserule"))
        .args(args)
        .env("HOUSERULE_PLUGINS", plugins)
        .env("XDG_DATA_HOME", data.path())
        .output()
        .expect("houserule runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

/// Checks a value against `schemas/NAME.schema.json`.
pub fn conforms(value: &Value, schema: &str) {
    let path = repo().join("schemas").join(format!("{schema}.schema.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema_json: Value = serde_json::from_str(&text).expect("schemas are JSON");
    let compiled = jsonschema::JSONSchema::compile(&schema_json).expect("schemas compile");
    let problems: Vec<String> = match compiled.validate(value) {
        Ok(()) => vec![],
        Err(errors) => errors.map(|e| format!("{} at {}", e, e.instance_path)).collect(),
    };
    if !problems.is_empty() {
        let list = problems;
        panic!(
            "output does not match {schema}.schema.json:\n{}\n{}",
            list.join("\n"),
            serde_json::to_string_pretty(value).unwrap()
        );
    }
}

/// Runs with `--json`, expects `code`, parses stdout and checks it against `schema`.
pub fn json(args: &[&str], code: i32, schema: &str) -> Value {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--json");
    let r = houserule(&all);
    assert_eq!(
        r.code,
        code,
        "houserule {} exited {} (expected {code})\nstdout: {}\nstderr: {}",
        args.join(" "),
        r.code,
        r.stdout,
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("houserule {} printed no JSON ({e}):\n{}", args.join(" "), r.stdout));
    conforms(&v, schema);
    v
}

/// A new generic campaign in a temporary folder.
pub fn generic_campaign() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.houserule").display().to_string();
    json(&["new", &file, "--ruleset", "generic", "--seed", "3"], 0, "new");
    (dir, file)
}
