//! Attacks that come as house rules: layered over a good ruleset, saved from the editor,
//! imported from a folder, or carried by a shared campaign.

use super::{intact, memory_stayed_bounded, refused, says, snapshot};
use crate::support::{campaign, params, plugin};
use houserule_app::folders;
use houserule_app::reload::ReloadError;
use houserule_app::request::ActRequest;
use houserule_app::session::{diagnostics, Session};
use houserule_core::house::HouseRules;
use houserule_core::{ErrorCode, ErrorReport, HouseRule, Limits, Role};
use serde_json::json;

fn report(e: ReloadError) -> ErrorReport {
    let code = if matches!(e, ReloadError::Sandbox(_)) { ErrorCode::Sandbox } else { ErrorCode::InvalidHouseRule };
    let mut r = ErrorReport::new(code, e.to_string());
    r.diagnostics = diagnostics(&e);
    r
}

fn scripts(list: &[(&str, &str)]) -> HouseRules {
    HouseRules {
        scripts: list.iter().map(|(n, s)| HouseRule { name: n.to_string(), source: s.to_string() }).collect(),
        settings_text: None,
    }
}

/// House rules that do not load: their name, files, settings.toml, and the words the refusal uses.
type Loading = (&'static str, &'static [(&'static str, &'static str)], Option<&'static str>, &'static [&'static str]);

const LOADING: &[Loading] = &[
    ("self_import", &[("loop.rhai", "import \"loop\" as again;\nfn gain(t, p) { 0 }")], None, &["round in a circle"]),
    ("cycle_through_the_ruleset", &[("a.rhai", "import \"b\" as b;"), ("b.rhai", "import \"a\" as a;")], None, &["round in a circle"]),
    ("import_outside", &[("x.rhai", "import \"../../home/gm/notes\" as n;")], None, &["own plugin"]),
    ("top_level_loop", &[("x.rhai", "loop { }")], None, &["too many operations", "time"]),
    ("top_level_memory_bomb", &[("x.rhai", "let s = \"x\"; while s.len() < 32768 { s += s; } let t = s.replace(\"x\", s);")], None, &["memory", "grew past"]),
    ("shadows_a_host_method", &[("x.rhai", "fn say(t, text) { 1 }")], None, &["host method"]),
    ("two_house_rules_define_one_function", &[("a.rhai", "fn gain(t, p) { 1 }"), ("b.rhai", "fn gain(t, p) { 2 }")], None, &["another house rule"]),
    ("syntax_error", &[("x.rhai", "fn gain(t, p) { t.add( }")], None, &["x.rhai:1:"]),
    ("unknown_setting", &[], Some("[settings]\nwho_knows = 1\n"), &["no setting 'who_knows'"]),
    ("setting_of_the_wrong_type", &[], Some("[settings]\nmad = \"lots\"\n"), &["settings"]),
    ("deep_settings", &[], Some("[settings]\nx = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n"), &["settings.toml"]),
];

#[test]
fn house_rules_that_attack_are_refused_and_the_rules_in_force_stay() {
    let mut c = campaign(&plugin("[settings.mad]\ntype = \"int\"\ndefault = 7\n", ""));
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf"})))).unwrap();
    let before = snapshot(&c);
    for (name, files, settings, words) in LOADING {
        let mut house = scripts(files);
        house.settings_text = settings.map(str::to_string);
        let r = refused(name, || c.reload(Some(&Role::Gm), None, Some(house)).map_err(report));
        says(&r, words, name);
        intact(&c, &before, name);
        memory_stayed_bounded(name);
    }
    let out = c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 1})))).unwrap();
    assert_eq!(out.result, json!(1), "the ruleset's own gain still runs");
}

#[test]
fn a_house_rule_that_replaces_an_action_with_a_bomb_is_refused_when_it_runs() {
    let mut c = campaign(&plugin("", ""));
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf"})))).unwrap();
    let bomb = "fn gain(t, p) { t.add(\"momentum\", 1); let s = \"x\"; while s.len() < 32768 { s += s; } s.replace(\"x\", s) }";
    c.reload(Some(&Role::Gm), None, Some(scripts(&[("bomb.rhai", bomb)]))).unwrap();
    let before = snapshot(&c);
    let r = refused("house_rule_memory_bomb", || {
        c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 1}))))
            .map_err(|e| e.report())
    });
    says(&r, &["memory", "grew past"], "house_rule_memory_bomb");
    intact(&c, &before, "house_rule_memory_bomb");
    let nested = "fn gain(t, p) { let a = []; for i in 0..200 { a = [a]; } t.set_var(\"x\", a) }";
    c.reload(Some(&Role::Gm), None, Some(scripts(&[("nested.rhai", nested)]))).unwrap();
    let before = snapshot(&c);
    let r = refused("house_rule_nested_value", || {
        c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 1}))))
            .map_err(|e| e.report())
    });
    says(&r, &["nested"], "house_rule_nested_value");
    assert_eq!(r.script.as_ref().map(|s| s.file.as_str()), Some("nested.rhai"), "the house rule's own file is named");
    intact(&c, &before, "house_rule_nested_value");
}

#[test]
fn the_editor_saves_only_plain_house_rule_names() {
    let c = campaign(&plugin("", ""));
    let session = Session::new(c);
    for name in ["../escape.rhai", "/tmp/abs.rhai", "sub/dir.rhai", "con.rhai", ".hidden.rhai", "notes.txt"] {
        let r = refused(name, || session.save_house_rule(name, "fn a() { 1 }").map_err(report));
        says(&r, &["file name", "is a path", "reserved", "is not"], name);
    }
    assert!(session.campaign().house_rules().unwrap().files().is_empty(), "nothing was saved");
}

#[cfg(unix)]
#[test]
fn a_house_rule_folder_is_read_only_from_its_own_plain_files() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::os::unix::fs::symlink(secret.path(), dir.path().join("stolen.rhai")).unwrap();
    let e = folders::read_house_rules(dir.path(), Limits::default().max_script_bytes).unwrap_err();
    assert!(e.refused && e.path.ends_with("stolen.rhai") && e.message.contains("symbolic link"), "{e}");
}
