//! Plugin commands: check, test, and writing the schemas.

use super::Outcome;
use crate::output::{self, Checked, Failure, Tested};
use houserule_engine::plugin::Diagnostic;
use houserule_engine::plugin::{Plugin, PluginError};
use houserule_engine::scenario::{self, Scenario};
use houserule_engine::view::RulesetInfo;
use houserule_engine::{Limits, PluginSource};
use std::path::Path;

fn plain(file: &str, message: String) -> Diagnostic {
    Diagnostic::plain(file, message)
}

pub fn check(json: bool, dir: &Path) -> Outcome {
    let limits = Limits::default();
    let mut report = Checked { ok: true, plugin: None, actions: 0, scripts: vec![], scenarios: 0, problems: vec![] };
    match PluginSource::from_dir(dir, &limits) {
        Err(e) => report.problems.push(plain(&dir.display().to_string(), e.to_string())),
        Ok(source) => {
            report.scripts = source.scripts().keys().cloned().collect();
            match Plugin::load(&source, &[], &limits) {
                Ok(p) => {
                    let m = &p.manifest;
                    report.plugin = Some(RulesetInfo { id: m.id.clone(), name: m.name.clone(), version: m.version.clone() });
                    report.actions = m.actions.len();
                }
                Err(PluginError::Invalid(problems)) => report.problems.extend(problems.iter().map(Diagnostic::from)),
                Err(e) => report.problems.push(plain("plugin", e.to_string())),
            }
        }
    }
    match Scenario::load_dir(dir) {
        Ok(s) => report.scenarios = s.len(),
        Err(e) => report.problems.push(Diagnostic { file: e.file.clone(), line: None, column: None, field: None, message: e.message.clone(), text: e.to_string() }),
    }
    report.ok = report.problems.is_empty();
    if json {
        output::json(&report);
    } else if report.ok {
        let p = report.plugin.as_ref().expect("a loaded plugin");
        println!("ok: {} {} — {} actions, scripts: {}, {} scenario file(s)", p.id, p.version, report.actions, report.scripts.join(", "), report.scenarios);
    } else {
        for d in &report.problems {
            println!("{}", d.text);
        }
    }
    Ok(report.ok)
}

pub fn test(json: bool, dir: &Path, only: Option<&str>) -> Outcome {
    let limits = Limits::default();
    let source = PluginSource::from_dir(dir, &limits).map_err(|e| Failure::new("invalid_plugin", e.to_string()))?;
    Plugin::load(&source, &[], &limits).map_err(|e| Failure::new("invalid_plugin", e.to_string()))?;
    let scenarios = Scenario::load_dir(dir).map_err(|e| Failure::new("bad_file", e.to_string()))?;
    let chosen: Vec<_> = scenarios.into_iter().filter(|(f, s)| only.is_none_or(|o| f.contains(o) || s.name.contains(o))).collect();
    if chosen.is_empty() {
        return Err(Failure::new("no_tests", format!("{} has no scenarios to run (tests/*.toml)", dir.display())));
    }
    let reports: Vec<_> = chosen.iter().map(|(file, s)| scenario::run(file, s, &source, &limits)).collect();
    let passed = reports.iter().filter(|r| r.ok).count();
    let result = Tested { ok: passed == reports.len(), passed, failed: reports.len() - passed, scenarios: reports };
    if json {
        output::json(&result);
    } else {
        for r in &result.scenarios {
            println!("{} {}  {}", if r.ok { "ok  " } else { "FAIL" }, r.file, r.name);
            for f in &r.failures {
                println!("       step {}: {}", f.step, f.message);
            }
        }
        println!("{} passed, {} failed", result.passed, result.failed);
    }
    Ok(result.ok)
}

pub fn schemas(dir: &Path) -> Outcome {
    std::fs::create_dir_all(dir).map_err(|e| Failure::new("io", format!("{}: {e}", dir.display())))?;
    for (name, schema) in output::schemas() {
        let text = serde_json::to_string_pretty(&schema).expect("schemas serialise") + "\n";
        std::fs::write(dir.join(name), text).map_err(|e| Failure::new("io", format!("{name}: {e}")))?;
    }
    Ok(true)
}

pub fn api_reference(file: &Path) -> Outcome {
    std::fs::write(file, houserule_engine::host::reference::markdown()).map_err(|e| Failure::new("io", format!("{}: {e}", file.display())))?;
    Ok(true)
}
