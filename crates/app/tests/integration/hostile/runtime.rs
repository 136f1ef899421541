//! Attacks a rule script makes while it runs: endless work, memory bombs, values too deep or too
//! large for the table, floods of narration and changes, and attempts to reach past the handle.

use super::{intact, memory_stayed_bounded, refused, says, snapshot};
use crate::support::{campaign, params, plugin};
use houserule_app::request::ActRequest;
use houserule_core::{ErrorCode, Role};
use serde_json::json;

/// A 64 KiB string, the longest the sandbox lets a script build.
const BIG: &str = r#"let s = "x"; while s.len() < 60000 { s += s; } s"#;

/// Each hostile action: (name, body of `fn NAME(t, p)`, words the refusal must use, codes it may
/// have). The action first changes the table, so a refusal must undo that too.
const ATTACKS: &[(&str, &str, &[&str], &[ErrorCode])] = &[
    ("endless_loop", "loop { }", &["too many operations"], &[ErrorCode::ScriptLimit]),
    ("busy_while", "let x = 0; while true { x += 1; }", &["too many operations"], &[ErrorCode::ScriptLimit]),
    ("sleep_a_minute", "sleep(60);", &["sleep is not available"], &[ErrorCode::Refused, ErrorCode::ScriptError]),
    ("deep_recursion", "down(0)", &["nested too deeply"], &[ErrorCode::ScriptLimit]),
    ("mutual_recursion", "ping(0)", &["nested too deeply"], &[ErrorCode::ScriptLimit]),
    ("doubling_string", "let s = \"xxxxxxxx\"; loop { s += s; }", &["grew past"], &[ErrorCode::ScriptLimit]),
    ("growing_array", "let a = []; loop { a.push(a.len()); }", &["grew past"], &[ErrorCode::ScriptLimit]),
    ("growing_map", "let m = #{}; let i = 0; loop { m[`k${i}`] = i; i += 1; }", &["too many operations", "grew past", "time"], &[ErrorCode::ScriptLimit]),
    ("map_doubling", "let m = #{}; let i = 0; loop { m += #{ x: i }; m = m + m; i += 1; }", &["grew past", "too many operations"], &[ErrorCode::ScriptLimit]),
    (
        "replace_bomb",
        "let s = big(); s.replace(\"x\", s)",
        &["memory", "grew past"],
        &[ErrorCode::Sandbox, ErrorCode::ScriptLimit],
    ),
    ("curry_bomb", "let f = Fn(\"down\"); loop { f = f.curry(f); }", &["memory", "too many operations", "time", "grew past"], &[ErrorCode::Sandbox, ErrorCode::ScriptLimit]),
    ("array_pad_bomb", "let a = []; a.pad(100000000, 1); a.len()", &["grew past", "memory"], &[ErrorCode::ScriptLimit, ErrorCode::Sandbox]),
    ("string_pad_bomb", "let s = \"\"; s.pad(100000000, \"x\"); s.len()", &["grew past", "memory"], &[ErrorCode::ScriptLimit, ErrorCode::Sandbox]),
    ("nested_var", "t.set_var(\"deep\", nest(200))", &["nested"], &[ErrorCode::ScriptLimit]),
    ("nested_field", "t.set(\"gandolf\", \"deep\", nest(200))", &["nested"], &[ErrorCode::ScriptLimit]),
    ("nested_map_var", "let m = #{}; for i in 0..200 { m = #{ x: m }; } t.set_var(\"deep\", m)", &["nested"], &[ErrorCode::ScriptLimit]),
    ("nested_new_entity", "t.create(\"character\", \"Deep\", #{ fields: #{ deep: nest(200) } })", &["nested"], &[ErrorCode::ScriptLimit]),
    ("nested_return", "nest(200)", &["nested"], &[ErrorCode::ScriptLimit]),
    ("nested_just_over", "t.set_var(\"deep\", nest(33))", &["nested"], &[ErrorCode::ScriptLimit]),
    ("nested_very_deep", "t.set_var(\"deep\", nest(150000))", &["nested", "too many operations"], &[ErrorCode::ScriptLimit]),
    ("narration_flood", "let s = big(); for i in 0..5000 { t.say(s) }", &["narration"], &[ErrorCode::ScriptLimit]),
    ("one_long_line", "let s = big(); t.say(s)", &["a line of narration"], &[ErrorCode::ScriptLimit]),
    ("many_lines", "for i in 0..20000 { t.say(\"x\") }", &["more than 5000"], &[ErrorCode::ScriptLimit]),
    ("whisper_flood", "for i in 0..20000 { t.tell(\"ann\", \"psst\") }", &["more than 5000"], &[ErrorCode::ScriptLimit]),
    ("change_flood", "for i in 0..6000 { t.set_var(`v${i}`, i) }", &["more than 5000"], &[ErrorCode::ScriptLimit]),
    ("event_too_large", "let s = big(); for i in 0..30 { t.set_var(`v${i}`, s.sub_string(0, 60000)) }", &["bytes in one event"], &[ErrorCode::ScriptLimit]),
    ("value_too_large", "t.set_var(\"v\", numbers())", &["bytes"], &[ErrorCode::ScriptLimit]),
    ("trait_note_too_large", "let s = big(); t.add_trait(\"gandolf\", \"Gossip\", #{ note: s + s })", &["bytes", "grew past"], &[ErrorCode::ScriptLimit]),
    ("roll_label_too_long", "let s = big(); t.roll(\"1d6\", #{ label: s })", &["a line of narration"], &[ErrorCode::ScriptLimit]),
    ("result_too_large", "numbers()", &["bytes"], &[ErrorCode::ScriptLimit]),
    ("dice_bomb", "t.roll(\"1000d1000!\")", &["dice", "grew past"], &[ErrorCode::Dice, ErrorCode::Refused, ErrorCode::ScriptLimit]),
    ("dice_expression_flood", "let s = big(); t.roll(s)", &["dice", "not"], &[ErrorCode::Dice, ErrorCode::Refused]),
    ("leaked_handle", "let f = || t; f", &["cannot be stored"], &[ErrorCode::ScriptLimit]),
    ("eval_by_pointer", "let f = Fn(\"ev\" + \"al\"); f.call(\"40 + 2\")", &["eval"], &[ErrorCode::ScriptError]),
    ("huge_refusal", "let s = big(); throw s", &["refused"], &[ErrorCode::Refused]),
    ("print_flood", "loop { print(\"x\") }", &["too many operations"], &[ErrorCode::ScriptLimit]),
    ("bad_entity_id", "t.create(\"character\", \"Evil\", #{ id: \"../../etc\" })", &["not a valid id"], &[ErrorCode::Refused]),
    ("owner_with_control_characters", "t.set_owner(\"gandolf\", \"ann\\u0000root\")", &["player name"], &[ErrorCode::Refused]),
    ("owner_too_long", "let s = big(); t.set_owner(\"gandolf\", s)", &["player name"], &[ErrorCode::Refused]),
    // A sort swallows its comparer's errors, so the script's own checks cannot stop this one:
    // the parent's deadline does.
    (
        "sort_forever",
        "let a = []; for i in 0..9000 { a.push(9000 - i) } a.sort(|x, y| { let n = 0; while n < 100000 { n += 1; } x - y }); t.set_var(\"sorted\", true)",
        &["time limit", "too many operations"],
        &[ErrorCode::Sandbox, ErrorCode::ScriptLimit],
    ),
];

const HELPERS: &str = r#"
fn down(n) { down(n + 1) }
fn ping(n) { pong(n + 1) }
fn pong(n) { ping(n + 1) }
fn nest(levels) { let a = []; for i in 0..levels { a = [a]; } a }
fn numbers() { let a = []; for i in 0..9000 { a.push(1000000 + i); } a }
"#;

fn hostile_rules() -> houserule_core::PluginSource {
    let mut manifest = String::new();
    let mut rules = format!("{HELPERS}\nfn big() {{ {BIG} }}\n");
    for (name, body, _, _) in ATTACKS {
        manifest.push_str(&format!("[actions.{name}]\nwho = [\"gm\"]\n"));
        rules.push_str(&format!("fn {name}(t, p) {{ t.add(\"momentum\", 1); t.say(\"A move is made.\"); {body} }}\n"));
    }
    plugin(&manifest, &rules)
}

#[test]
fn every_runtime_attack_is_refused_fast_and_changes_nothing() {
    let mut c = campaign(&hostile_rules());
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf", "owner": "ann"})))).unwrap();
    c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 2})))).unwrap();
    let before = snapshot(&c);
    for (name, _, words, codes) in ATTACKS {
        let report =
            refused(name, || c.act(&Role::Gm, &ActRequest::new(name, &params(json!({})))).map_err(|e| e.report()));
        says(&report, words, name);
        assert!(
            codes.contains(&report.code),
            "{name}: code {} is not one of {codes:?}: {}",
            report.code,
            report.message
        );
        if report.code == ErrorCode::ScriptLimit && report.script.as_ref().is_some_and(|s| s.line > 0) {
            let s = report.script.as_ref().unwrap();
            assert_eq!(s.file, "rules.rhai", "{name}: a limit names the script's file");
        }
        intact(&c, &before, name);
        memory_stayed_bounded(name);
    }
    // The table plays on after all of them, on a fresh worker where one was stopped.
    let out = c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 1})))).unwrap();
    assert_eq!(out.result, json!(3), "momentum went 2 -> 3 after every attack was refused");
}

#[test]
fn a_limit_names_the_place_in_the_script() {
    let mut c = campaign(&hostile_rules());
    let err = c.act(&Role::Gm, &ActRequest::new("nested_var", &params(json!({})))).unwrap_err().report();
    let script = err.script.clone().expect("a limit inside a script has its place");
    assert!(script.line > 0, "{err:?}");
    let rules = hostile_rules().files["rules.rhai"].clone();
    let line = rules.lines().nth(script.line - 1).unwrap();
    assert!(
        line.contains("fn nested_var") && script.column > 0,
        "the refusal points at the call that stored the value: {script:?} -> {line}"
    );
    assert!(err.message.contains("rules.rhai:"), "{}", err.message);
}

#[test]
fn a_stopped_worker_is_replaced_and_the_next_action_plays() {
    let mut c = campaign(&hostile_rules());
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf"})))).unwrap();
    for _ in 0..3 {
        let e = c.act(&Role::Gm, &ActRequest::new("replace_bomb", &params(json!({})))).unwrap_err().report();
        assert!(matches!(e.code, ErrorCode::Sandbox | ErrorCode::ScriptLimit), "{}", e.message);
        let out = c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 1})))).unwrap();
        assert!(out.result.as_i64().is_some(), "the next action plays");
    }
    assert!(crate::support::verified(&c).ok);
}
