//! Hostile scripts: each must fail with a clear error within a second, while the process and
//! the campaign stay intact.

use crate::support::{campaign, params, plugin};
use houserule_engine::plugin::{Plugin, PluginError, PluginSource};
use houserule_engine::{ActError, Limits, Role};
use serde_json::json;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(1);

/// Each hostile action: (name, body of `fn NAME(t, p)`, words the error must contain).
const HOSTILE: &[(&str, &str, &str)] = &[
    ("endless_loop", "loop { }", "too many operations"),
    ("busy_while", "let x = 0; while true { x += 1; }", "too many operations"),
    ("sleep_minute", "sleep(60);", "outlast the script's time limit"),
    ("deep_recursion", "down(0)", "nested too deeply"),
    ("mutual_recursion", "ping(0)", "nested too deeply"),
    ("nested_calls", "wrap(wrap(wrap(wrap(wrap(wrap(wrap(wrap(down(0)))))))))", "nested too deeply"),
    ("huge_string", "let s = \"xxxxxxxx\"; loop { s += s; }", "grew past the sandbox limit"),
    ("huge_array", "let a = []; loop { a.push(a.len()); }", "grew past the sandbox limit"),
    ("huge_map", "let m = #{}; let i = 0; loop { m[`k${i}`] = i; i += 1; }", "stopped"),
    ("huge_map_literal", "let m = #{}; let i = 0; loop { m += #{ x: i }; m = m + m; i += 1; }", ""),
    ("import_parent", "import \"../secrets\" as s; s::x", "own plugin"),
    ("import_absolute", "import \"/etc/passwd\" as s; s::x", "own plugin"),
    ("import_passwd", "import \"etc/passwd\" as s; s::x", "own plugin"),
    ("import_missing", "import \"nowhere\" as s; s::x", "has no script nowhere.rhai"),
    ("eval_by_pointer", "let f = Fn(\"ev\" + \"al\"); f.call(\"40 + 2\")", "eval"),
    ("dice_bomb", "t.roll(\"1000d1000!\")", ""),
];

const HELPERS: &str = r#"
fn down(n) { down(n + 1) }
fn ping(n) { pong(n + 1) }
fn pong(n) { ping(n + 1) }
fn wrap(x) { x }
"#;

fn hostile_plugin() -> PluginSource {
    let mut manifest = String::new();
    let mut rules = String::from(HELPERS);
    for (name, body, _) in HOSTILE {
        manifest.push_str(&format!("[actions.{name}]\nwho = [\"gm\"]\n"));
        rules.push_str(&format!("fn {name}(t, p) {{ t.add(\"momentum\", 1); {body} }}\n"));
    }
    plugin(&manifest, &rules)
}

#[test]
fn every_hostile_script_fails_fast_and_leaves_the_campaign_alone() {
    let mut c = campaign(&hostile_plugin());
    c.act(&Role::Gm, "make", &params(json!({"name": "Gandolf"})), None).unwrap();
    c.act(&Role::Gm, "gain", &params(json!({"character": "gandolf", "n": 2})), None).unwrap();
    let before = serde_json::to_string(&c.view(&Role::Gm)).unwrap();
    let events = c.info().events;
    for (name, _, expected) in HOSTILE {
        let start = Instant::now();
        let err = c.act(&Role::Gm, name, &params(json!({})), None).expect_err(&format!("{name} must fail"));
        let took = start.elapsed();
        assert!(took < LIMIT, "{name} took {took:?}, more than {LIMIT:?}");
        let text = err.to_string();
        assert!(text.contains(expected), "{name}: expected the error to mention \"{expected}\", got: {text}");
        if *name != "dice_bomb" {
            assert!(matches!(err, ActError::Script(_) | ActError::Refused(_)), "{name}: {err:?}");
        }
        assert_eq!(c.info().events, events, "{name} must not add an event");
        assert_eq!(serde_json::to_string(&c.view(&Role::Gm)).unwrap(), before, "{name} must not change the table");
    }
    // The campaign still plays.
    let out = c.act(&Role::Gm, "gain", &params(json!({"character": "gandolf", "n": 1})), None).unwrap();
    assert_eq!(out.result, json!(3), "momentum went 2 -> 3 after all the hostile attempts");
}

#[test]
fn errors_point_into_the_script() {
    let mut c = campaign(&hostile_plugin());
    let err = c.act(&Role::Gm, "deep_recursion", &params(json!({})), None).unwrap_err();
    let ActError::Script(s) = err else { panic!("expected a script error") };
    assert_eq!(s.file, "rules.rhai");
    assert!(s.message.contains("while running deep_recursion"), "a limit error says what was running: {s}");
    let source = plugin("[actions.typo]\nwho = [\"gm\"]\n", "fn helper(x) {\n  x + \"a\" * 2\n}\nfn typo(t, p) { helper(1) }");
    let mut c = campaign(&source);
    let ActError::Script(s) = c.act(&Role::Gm, "typo", &params(json!({})), None).unwrap_err() else { panic!("expected a script error") };
    let line = source.files["rules.rhai"].lines().nth(s.line - 1).unwrap();
    assert!(line.contains("x + \"a\" * 2"), "the error points at the faulty line inside helper, got {s} -> {line:?}");
    assert!(s.column > 0);
    assert_eq!(s.trace, vec!["typo", "helper"]);
}

fn load_fails(rules: &str, expected: &str) {
    let start = Instant::now();
    let mut source = plugin("", "");
    source.files.insert("rules.rhai".into(), rules.to_string());
    let err = Plugin::load(&source, &[], &Limits::default()).err().unwrap_or_else(|| panic!("loading must fail for {}", &rules[..rules.len().min(60)]));
    let took = start.elapsed();
    assert!(took < LIMIT, "refusing took {took:?}");
    assert!(err.to_string().contains(expected), "expected \"{expected}\" in: {err}");
}

#[test]
fn hostile_sources_are_refused_at_load() {
    load_fails("fn make(t, p) {} fn gain(t, p) { eval(\"1\") }", "eval");
    let brackets = format!("fn make(t, p) {{}} fn gain(t, p) {{ {}1{} }}", "(".repeat(100_000), ")".repeat(100_000));
    load_fails(&brackets, "rules.rhai:1:");
    let big = format!("fn make(t, p) {{}} fn gain(t, p) {{}}\n// {}", "x".repeat(50 * 1024 * 1024));
    load_fails(&big, "larger than the limit");
    load_fails("import \"/etc/passwd\" as pw;\nfn make(t, p) {} fn gain(t, p) {}", "own plugin");
    load_fails("import \"../../etc/passwd\" as pw;\nfn make(t, p) {} fn gain(t, p) {}", "own plugin");
    load_fails("fn make(t, p) {} fn gain(t, p) {}\nloop {}", "too many operations");
}

#[test]
fn a_plugin_folder_with_a_huge_file_is_refused_before_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plugin.toml"), crate::support::MANIFEST).unwrap();
    let f = std::fs::File::create(dir.path().join("rules.rhai")).unwrap();
    f.set_len(50 * 1024 * 1024).unwrap();
    let err = PluginSource::from_dir(dir.path(), &Limits::default()).unwrap_err();
    assert!(matches!(err, PluginError::Io { .. }) && err.to_string().contains("larger than the limit"), "{err}");
}

#[test]
fn imports_of_the_plugins_own_files_work() {
    let mut source = plugin("[actions.helped]\nwho = [\"gm\"]\n", "fn helped(t, p) { import \"helpers\" as h; h::double(21) }");
    source.files.insert("helpers.rhai".into(), "fn double(x) { x * 2 }".into());
    let mut c = campaign(&source);
    let out = c.act(&Role::Gm, "helped", &params(json!({})), None).unwrap();
    assert_eq!(out.result, json!(42));
}

#[test]
fn print_goes_to_the_action_log_not_stdout() {
    let source = plugin("[actions.chatty]\nwho = [\"gm\"]\n", "fn chatty(t, p) { print(\"hello from the rules\"); debug(1 + 1); }");
    let mut c = campaign(&source);
    let out = c.act(&Role::Gm, "chatty", &params(json!({})), None).unwrap();
    assert_eq!(out.script_log[0], "hello from the rules");
    assert!(out.script_log[1].contains('2'));
}
