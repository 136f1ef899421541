//! house-rules, watch, definitions.

use crate::support::{conforms, generic_campaign, houserule, json, repo};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DOUBLE_BANK: &str = "fn give_tokens(t, p) {\n    t.transfer(\"bank\", `${p.character}.tokens`, p.n * 2);\n    #{ now: t.pool(`${p.character}.tokens`) }\n}\n";

#[test]
fn house_rules_export_import_list_and_remove() {
    let (d, f) = generic_campaign();
    let dir = d.path().join("hr");
    let dir_s = dir.display().to_string();
    let written = json(&["house-rules", "export", &f, &dir_s], 0, "written");
    assert_eq!(written, serde_json::json!([]), "a new campaign has no house rules");
    assert!(dir.is_dir(), "export makes the folder for new house rules");

    std::fs::write(dir.join("bank.rhai"), DOUBLE_BANK).unwrap();
    std::fs::write(dir.join("settings.toml"), "[settings]\nstarting_tokens = 1\n").unwrap();
    let r = json(&["house-rules", "import", &f, &dir_s], 0, "house-rules-change");
    let changed: Vec<&str> = r["report"]["changed"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(changed, vec!["house/bank.rhai (added)", "house/settings.toml (added)"]);
    assert_eq!(r["report"]["settings"]["starting_tokens"], 1);

    let l = json(&["house-rules", "list", &f], 0, "house-rules-list");
    let bank = l["files"].as_array().unwrap().iter().find(|f| f["name"] == "bank.rhai").unwrap();
    assert_eq!(bank["functions"][0]["name"], "give_tokens");
    assert_eq!(bank["functions"][0]["replaces"], true);
    let text = houserule(&["house-rules", "list", &f]);
    assert!(text.stdout.contains("replaces the ruleset's give_tokens(2 parameters)"), "{}", text.stdout);

    json(&["act", &f, "create_character", "-p", "name=Frody"], 0, "act");
    let out = json(&["act", &f, "give_tokens", "-p", "character=frody", "-p", "n=2"], 0, "act");
    assert_eq!(out["result"]["now"], 5, "1 starting token (the house setting) + 2 × 2 from the house rule");

    // A broken house rule is refused with its place, and the campaign keeps its rules.
    std::fs::write(
        dir.join("bank.rhai"),
        "fn give_tokens(t, p) {\n    t.transfer(\"bank\" `${p.character}.tokens`, p.n * 2);\n}\n",
    )
    .unwrap();
    let e = json(&["house-rules", "import", &f, &dir_s], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().starts_with("bank.rhai:2:"), "{e}");
    let out = json(&["act", &f, "give_tokens", "-p", "character=frody", "-p", "n=1"], 0, "act");
    assert_eq!(out["result"]["now"], 7, "the previous house rule still applies");

    json(&["house-rules", "remove", &f, "bank.rhai"], 0, "house-rules-change");
    let out = json(&["act", &f, "give_tokens", "-p", "character=frody", "-p", "n=1"], 0, "act");
    assert_eq!(out["result"]["now"], 8, "without the house rule the ruleset's own give_tokens runs");
    let e = json(&["house-rules", "remove", &f, "bank.rhai"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("no house rule 'bank.rhai'"), "{e}");
    json(&["verify", &f], 0, "verify");
}

#[test]
fn watch_reloads_on_save_and_reports_errors_with_their_place() {
    let (d, f) = generic_campaign();
    // The default folder, given relative to where the command runs: c.house-rules beside c.houserule.
    let dir = d.path().join("c.house-rules");
    let mut child = Command::new(env!("CARGO_BIN_EXE_houserule"))
        .current_dir(d.path())
        .args(["watch", "c.houserule", "--no-ruleset", "--max-events", "2", "--json"])
        .env("HOUSERULE_PLUGINS", repo().join("plugins"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next = || -> Value {
        let line = lines.next().expect("watch prints a line").unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        conforms(&v, "watch-event");
        v
    };
    assert_eq!(next()["type"], "watching");
    let start = Instant::now();
    std::fs::write(dir.join("bank.rhai"), DOUBLE_BANK).unwrap();
    let v = next();
    assert_eq!(v["type"], "reloaded", "{v}");
    assert!(start.elapsed() < Duration::from_secs(5));
    std::fs::write(dir.join("bank.rhai"), "fn give_tokens(t, p) { t.transfer( }\n").unwrap();
    let v = next();
    assert_eq!(v["type"], "reload_failed", "{v}");
    assert!(v["problems"][0]["text"].as_str().unwrap().starts_with("bank.rhai:1:"), "{v}");
    assert!(child.wait().unwrap().success());
    let l = json(&["house-rules", "list", &f], 0, "house-rules-list");
    assert_eq!(l["files"][0]["name"], "bank.rhai", "the last good house rule is in the campaign file");
    let out = json(&["act", &f, "create_character", "-p", "name=Frody"], 0, "act");
    assert_eq!(out["result"]["id"], "frody");
}

#[test]
fn definitions_cover_the_host_api() {
    let d = tempfile::tempdir().unwrap();
    let files = json(&["definitions", &d.path().display().to_string()], 0, "written");
    assert!(!files.as_array().unwrap().is_empty());
    let all: String =
        std::fs::read_dir(d.path()).unwrap().map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    assert!(all.contains("fn roll(t: Table, expr: String"), "the host API is described");
    assert!(all.contains("calls the ruleset's function it replaces"), "original(…) is described for editors");
    assert!(all.contains("Rolls a dice expression"), "with its doc comments");
    assert!(all.contains("fn transfer(t: Table, from: String, to: String, n: int)"));
}

const WRAPPING_BANK: &str = "fn give_tokens(t, p) {\n    p.n *= 2;\n    original(t, p)\n}\n";
const TYPO: &str = "fn spend_tokens(t, p) { 0 }\n";
const ROLL_HOOK: &str = "fn after_roll(t, roll) { t.set_var(\"rolls\", t.get_var(\"rolls\", 0) + 1); }\n";

#[test]
fn import_says_what_each_function_does_and_warns_about_one_nothing_calls() {
    let (d, f) = generic_campaign();
    let dir = d.path().join("hr");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("bank.rhai"), WRAPPING_BANK).unwrap();
    std::fs::write(dir.join("typo.rhai"), TYPO).unwrap();
    std::fs::write(dir.join("hooks.rhai"), ROLL_HOOK).unwrap();
    let run = houserule(&["house-rules", "import", &f, &dir.display().to_string()]);
    assert_eq!(run.code, 0, "a function that changes nothing is a warning, not a refusal: {}", run.stderr);
    for line in [
        "bank.rhai: wraps the ruleset's give_tokens(2 parameters), calling it as original(…)",
        "hooks.rhai: hooks into after_roll(2 parameters)",
        "typo.rhai: adds spend_tokens(2 parameters), which nothing calls",
        "typo.rhai:1:23: warning: fn spend_tokens/2 replaces no ruleset function, is no hook, and nothing calls it",
        "did you mean spend_token/2 (in the ruleset's rules.rhai)?",
    ] {
        assert!(run.stdout.contains(line), "import says {line:?}:\n{}", run.stdout);
    }

    let l = json(&["house-rules", "list", &f], 0, "house-rules-list");
    let typo = l["files"].as_array().unwrap().iter().find(|f| f["name"] == "typo.rhai").unwrap();
    assert_eq!(typo["functions"][0]["effect"], "unused");
    assert_eq!(typo["functions"][0]["nearest"], "spend_token/2");
    let bank = l["files"].as_array().unwrap().iter().find(|f| f["name"] == "bank.rhai").unwrap();
    assert_eq!(bank["functions"][0]["effect"], "wraps");

    json(&["act", &f, "create_character", "-p", "name=Frody"], 0, "act");
    let out = json(&["act", &f, "give_tokens", "-p", "character=frody", "-p", "n=2"], 0, "act");
    assert_eq!(out["result"]["now"], 3 + 4, "3 to start, then the ruleset's give_tokens, through original, with 2 × 2");
}

#[test]
fn watch_says_what_each_function_does_on_every_reload() {
    let (d, _f) = generic_campaign();
    let dir = d.path().join("c.house-rules");
    let mut child = Command::new(env!("CARGO_BIN_EXE_houserule"))
        .current_dir(d.path())
        .args(["watch", "c.houserule", "--no-ruleset", "--max-events", "1"])
        .env("HOUSERULE_PLUGINS", repo().join("plugins"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().expect("watch says what it watches").unwrap();
    assert!(first.starts_with("watching house rules in"), "{first}");
    while lines.next().is_some_and(|l| !l.unwrap().starts_with("save a file")) {}
    std::fs::write(dir.join("typo.rhai"), TYPO).unwrap();
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    assert!(child.wait().unwrap().success());
    let text = rest.join("\n");
    assert!(text.contains("reloaded (event #"), "{text}");
    assert!(text.contains("typo.rhai: adds spend_tokens(2 parameters), which nothing calls"), "{text}");
    assert!(text.contains("typo.rhai:1:23: warning:"), "{text}");
}
