//! Plugin commands: check, test, and writing the schemas.

use super::Outcome;
use crate::output::{self, Checked, Failure, Tested};
use houserule_app::folders;
use houserule_app::scenario::Runner;
use houserule_app::{Rules, RulesError};
use houserule_core::plugin::Diagnostic;
use houserule_core::view::RulesetInfo;
use houserule_core::{ErrorCode, Limits};
use std::path::Path;

fn plain(file: &str, message: String) -> Diagnostic {
    Diagnostic::plain(file, message)
}

pub fn check(json: bool, dir: &Path) -> Outcome {
    let limits = Limits::default();
    let mut report = Checked { ok: true, plugin: None, actions: 0, scripts: vec![], scenarios: 0, problems: vec![] };
    match folders::read_plugin(dir, &limits) {
        Err(e) => report.problems.push(plain(&dir.display().to_string(), e.to_string())),
        Ok(source) => {
            report.scripts = source.scripts().keys().cloned().collect();
            match Rules::load(&source, &[], &limits) {
                Ok(p) => {
                    let m = &p.manifest;
                    report.plugin =
                        Some(RulesetInfo { id: m.id.clone(), name: m.name.clone(), version: m.version.clone() });
                    report.actions = m.actions.len();
                }
                Err(RulesError::Invalid(e)) => report.problems.extend(e.diagnostics()),
                Err(e) => report.problems.push(plain("plugin", e.to_string())),
            }
        }
    }
    match folders::read_scenarios(dir, &limits) {
        Ok(s) => report.scenarios = s.len(),
        Err(e) => report.problems.push(Diagnostic {
            file: e.file.clone(),
            line: None,
            column: None,
            field: None,
            message: e.message.clone(),
            text: e.to_string(),
        }),
    }
    report.ok = report.problems.is_empty();
    if json {
        output::json(&report);
    } else if report.ok {
        let p = report.plugin.as_ref().expect("a loaded plugin");
        crate::say!(
            "ok: {} {} — {} actions, scripts: {}, {} scenario file(s)",
            p.id,
            p.version,
            report.actions,
            report.scripts.join(", "),
            report.scenarios
        );
    } else {
        for d in &report.problems {
            output::lines(d.text.lines());
        }
    }
    Ok(report.ok)
}

pub fn test(json: bool, dir: &Path, only: Option<&str>) -> Outcome {
    let limits = Limits::default();
    let source =
        folders::read_plugin(dir, &limits).map_err(|e| Failure::new(ErrorCode::InvalidPlugin, e.to_string()))?;
    Rules::load(&source, &[], &limits).map_err(|e| Failure::new(e.code(), e.to_string()))?;
    let scenarios =
        folders::read_scenarios(dir, &limits).map_err(|e| Failure::new(ErrorCode::BadFile, e.to_string()))?;
    let chosen: Vec<_> =
        scenarios.into_iter().filter(|(f, s)| only.is_none_or(|o| f.contains(o) || s.name.contains(o))).collect();
    if chosen.is_empty() {
        return Err(Failure::new(
            ErrorCode::NoTests,
            format!("{} has no scenarios to run (tests/*.toml)", dir.display()),
        ));
    }
    let mut runner = Runner::new(source, limits);
    let reports: Vec<_> = chosen.iter().map(|(file, s)| runner.run(file, s)).collect();
    let passed = reports.iter().filter(|r| r.ok).count();
    let result = Tested { ok: passed == reports.len(), passed, failed: reports.len() - passed, scenarios: reports };
    if json {
        output::json(&result);
    } else {
        for r in &result.scenarios {
            crate::say!("{} {}  {}", if r.ok { "ok  " } else { "FAIL" }, r.file, r.name);
            for f in &r.failures {
                crate::say!("       step {}: {}", f.step, f.message);
            }
        }
        crate::say!("{} passed, {} failed", result.passed, result.failed);
    }
    Ok(result.ok)
}

pub fn schemas(dir: &Path) -> Outcome {
    std::fs::create_dir_all(dir).map_err(|e| Failure::new(ErrorCode::Io, format!("{}: {e}", dir.display())))?;
    for (name, schema) in output::schemas() {
        let text = serde_json::to_string_pretty(&schema).expect("schemas serialise") + "\n";
        std::fs::write(dir.join(name), text).map_err(|e| Failure::new(ErrorCode::Io, format!("{name}: {e}")))?;
    }
    Ok(true)
}

pub fn api_reference(file: &Path) -> Outcome {
    std::fs::write(file, houserule_core::script_api::reference::markdown())
        .map_err(|e| Failure::new(ErrorCode::Io, format!("{}: {e}", file.display())))?;
    Ok(true)
}

/// `houserule sandbox`: starts a worker on the generic ruleset and reports what it could not do.
pub fn sandbox(json: bool) -> Outcome {
    let catalog = crate::rulesets::catalog();
    let generic = catalog
        .get("generic")
        .ok_or_else(|| Failure::new(ErrorCode::UnknownRuleset, "the generic ruleset is missing"))?;
    let rules =
        Rules::load(&generic.source, &[], &Limits::default()).map_err(|e| Failure::new(e.code(), e.to_string()))?;
    let probe = rules.probe().map_err(|e| Failure::new(ErrorCode::Sandbox, e.to_string()))?;
    let ok = probe.attempts.iter().all(|(_, outcome)| outcome.starts_with("refused"));
    if json {
        output::json(&probe);
        return Ok(ok);
    }
    let wall = &probe.wall;
    let mib = |b: u64| b / (1024 * 1024);
    crate::say!(
        "memory cap:          {}",
        wall.memory_bytes.map(|b| format!("{} MiB", mib(b))).unwrap_or_else(|| "none".into())
    );
    crate::say!("CPU time cap:        {}", wall.cpu_seconds.map(|s| format!("{s} s")).unwrap_or_else(|| "none".into()));
    crate::say!("no new files:        {}", if wall.no_new_files { "yes" } else { "no" });
    crate::say!("system-call filter:  {}", if wall.syscall_filter { "yes" } else { "no" });
    for m in &wall.missing {
        crate::say!("  not in force: {m}");
    }
    for (attempt, outcome) in &probe.attempts {
        crate::say!("{} {attempt}: {outcome}", if outcome.starts_with("refused") { "ok    " } else { "OPEN  " });
    }
    Ok(ok)
}
