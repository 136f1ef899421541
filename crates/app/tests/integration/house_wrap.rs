//! House rules with teeth: a house-rule function that wraps the ruleset function it replaces
//! (`original(…)`), and follows the ruleset when it changes; `original` refused wherever it has
//! nothing (or something else) to call; moments the manifest lists; and what each house-rule
//! function is said to do, a function nothing calls warned about with the nearest name.

use crate::hostile::{intact, refused, says, snapshot};
use crate::support::{campaign, params, plugin};
use houserule_app::folders;
use houserule_app::reload::ReloadError;
use houserule_app::request::ActRequest;
use houserule_app::session::diagnostics;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::house::HouseRules;
use houserule_core::plugin::{HouseEffect, HouseFunction};
use houserule_core::{ErrorCode, ErrorReport, HouseRule, Limits, PluginSource, Role};
use serde_json::{json, Value};
use std::path::Path;

/// Boss costs as tiny functions, an action that reads one, and a moment the ruleset calls.
const COSTS: &str = r#"
[actions.price]
who = ["gm"]

[actions.next_turn]
who = ["gm"]

[hooks]
moments = ["on_turn_start"]
"#;

fn costs(exploit: i64) -> String {
    format!(
        r#"
fn exploit_weakness_cost() {{ {exploit} }}
fn afflict_cost() {{ 1 }}
fn price(t, p) {{ #{{ exploit: exploit_weakness_cost(), afflict: afflict_cost() }} }}
fn on_turn_start(t, turn) {{}}
fn next_turn(t, p) {{
    let turn = t.get_var("turn", 1) + 1;
    t.set_var("turn", turn);
    on_turn_start(t, turn);
    t.get_var("cr_back", 0)
}}
"#
    )
}

fn house(list: &[(&str, &str)]) -> HouseRules {
    HouseRules {
        scripts: list.iter().map(|(n, s)| HouseRule { name: n.to_string(), source: s.to_string() }).collect(),
        settings_text: None,
    }
}

fn report(e: ReloadError) -> ErrorReport {
    let mut r = ErrorReport::new(ErrorCode::InvalidHouseRule, e.to_string());
    r.diagnostics = diagnostics(&e);
    r
}

fn price(c: &mut Campaign) -> Value {
    c.act(&Role::Gm, &ActRequest::new("price", &params(json!({})))).expect("price runs").result
}

#[test]
fn a_wrap_follows_the_ruleset_it_wraps() {
    let mut c = campaign(&plugin(COSTS, &costs(6)));
    let wrap = "fn exploit_weakness_cost() { original() - 2 }";
    c.reload(Some(&Role::Gm), None, Some(house(&[("cheaper.rhai", wrap)]))).unwrap();
    assert_eq!(price(&mut c)["exploit"], 4, "the ruleset says 6; the house rule takes 2 off");
    assert_eq!(price(&mut c)["afflict"], 1, "what the house rule does not wrap stays");

    // The ruleset changes its number; the same house rule now takes 2 off the new one.
    c.reload(Some(&Role::Gm), Some(plugin(COSTS, &costs(10))), None).unwrap();
    assert_eq!(price(&mut c)["exploit"], 8, "the wrap follows the ruleset's new cost (10 - 2)");
    let f = &c.rules().house_functions()[0];
    assert_eq!((f.effect, f.replaces), (HouseEffect::Wraps, true), "the function is said to wrap: {f:?}");
}

fn fudge_firefight() -> PluginSource {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/fudge-firefight");
    folders::read_plugin(&dir, &Limits::default()).expect("the bundled ruleset reads")
}

fn menace(c: &mut Campaign) -> Value {
    let p = params(json!({"character": "menace", "knack": "Menace Incarnate", "target": ["goon", "rival"]}));
    let dice = vec![0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0];
    c.act(&Role::Player("ann".into()), &ActRequest::new("use_knack", &p).with_dice(Some(dice)))
        .expect("Menace Incarnate runs")
        .result
}

#[test]
fn menace_incarnate_wrapped_follows_a_changed_knack() {
    crate::support::init();
    let ruleset = fudge_firefight();
    let rule = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/fudge-firefight/house-rules/knack-menace.rhai"),
    )
    .unwrap();
    let lines = rule.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//")).count();
    assert!(lines < 10, "the wrap is short: {lines} lines of code");
    let mut c = Campaign::create(
        None,
        NewCampaign {
            name: "road".into(),
            ruleset: &ruleset,
            settings: Default::default(),
            seed: Some(3),
            limits: Default::default(),
            house_rules: vec![HouseRule { name: "knack-menace.rhai".into(), source: rule }],
        },
    )
    .unwrap();
    for (name, extra) in [
        ("Menace", json!({"owner": "ann", "traits": {"Grit": "Good"}, "knacks": ["Menace Incarnate"]})),
        ("Goon", json!({"traits": {"Grit": "Fair"}})),
        ("Rival", json!({"major": true, "traits": {"Grit": "Fair"}})),
    ] {
        let mut p = extra.as_object().unwrap().clone();
        p.insert("name".into(), json!(name));
        c.act(&Role::Gm, &ActRequest::new("create_character", &p)).unwrap();
    }
    // The menace (Good) breaks Goon (Fair) as the book says; the house rule shakes Rival.
    let r = menace(&mut c);
    assert_eq!((&r["cowed"], &r["steady"], &r["shaken"]), (&json!(["Goon"]), &json!([]), &json!(["Rival"])), "{r}");

    // The ruleset's Knack changes: minor characters now hold at +1. The same house rule, loaded
    // again over it, follows: Goon holds, Rival is still shaken.
    let mut changed = ruleset.clone();
    let knacks = changed.files.get_mut("knacks.rhai").unwrap();
    let before = "let res = trait_level(t, c, grit) + wound_penalty(t, c) + r.total;";
    assert!(knacks.contains(before), "the Knack's minor check is where this test changes it");
    *knacks = knacks.replace(before, "let res = trait_level(t, c, grit) + wound_penalty(t, c) + r.total + 1;");
    c.reload(Some(&Role::Gm), Some(changed), None).unwrap();
    c.act(&Role::Gm, &ActRequest::new("end_combat", &params(json!({})))).unwrap();
    let r = menace(&mut c);
    assert_eq!((&r["cowed"], &r["steady"], &r["shaken"]), (&json!([]), &json!(["Goon"]), &json!(["Rival"])), "{r}");
}

/// House rules that use `original` where it has nothing to call, or something else: each with
/// the file:line:col and the words its refusal must use.
const MISUSES: &[(&str, &str, &str, &[&str])] = &[
    ("top_level", "let x = original();", "x.rhai:1:9", &["top level"]),
    (
        "replaces_nothing",
        "fn exploit_weakness_costs() { original() }",
        "x.rhai:1:31",
        &["did you mean exploit_weakness_cost"],
    ),
    ("other_arity", "fn exploit_weakness_cost() { original(1) }", "x.rhai:1:30", &["passes 1 argument"]),
    ("method", "fn exploit_weakness_cost() { 1.original() }", "x.rhai:1:32", &["not as a method"]),
    ("capturing", "fn exploit_weakness_cost() { original!() }", "x.rhai:1:30", &["original!"]),
    ("pointer", "fn exploit_weakness_cost() { call(Fn(\"original\")) }", "x.rhai:1:35", &["Fn(\"original\")"]),
    ("defines_original", "fn original() { 1 }", "x.rhai:1:15", &["kept"]),
    ("names_the_copy", "fn afflict_cost() { original__exploit_weakness_cost() }", "x.rhai:1:21", &["kept"]),
];

#[test]
fn original_is_refused_where_it_has_nothing_to_call() {
    let mut c = campaign(&plugin(COSTS, &costs(6)));
    let before = snapshot(&c);
    for (attack, text, place, words) in MISUSES {
        let r = refused(attack, || c.reload(Some(&Role::Gm), None, Some(house(&[("x.rhai", text)]))).map_err(report));
        says(&r, words, attack);
        assert!(
            r.diagnostics.iter().any(|d| d.text.starts_with(place)),
            "{attack}: the refusal names {place}: {:?}",
            r.diagnostics.iter().map(|d| &d.text).collect::<Vec<_>>()
        );
        intact(&c, &before, attack);
    }
    // A wrap of a wrap cannot be written: two house rules may not define one function.
    let wrap = "fn exploit_weakness_cost() { original() - 1 }";
    let r = refused("wrap_of_a_wrap", || {
        c.reload(Some(&Role::Gm), None, Some(house(&[("a.rhai", wrap), ("b.rhai", wrap)]))).map_err(report)
    });
    says(&r, &["already defined in another house rule at a.rhai:1:28"], "wrap_of_a_wrap");
    // A ruleset function has no original.
    let source = plugin(COSTS, &format!("{}\nfn helper() {{ original() }}", costs(6)));
    let e = houserule_app::rules::Rules::load(&source, &[], &Limits::default()).expect_err("refused");
    assert!(e.to_string().contains("rules.rhai:") && e.to_string().contains("is for house rules"), "{e}");
    intact(&c, &before, "ruleset_original");
}

#[test]
fn original_reaches_only_the_function_it_is_written_in() {
    let mut c = campaign(&plugin(COSTS, &costs(6)));
    let rules =
        "fn exploit_weakness_cost() { original() * 100 }\nfn afflict_cost() { original() + exploit_weakness_cost() }";
    c.reload(Some(&Role::Gm), None, Some(house(&[("both.rhai", rules)]))).unwrap();
    let r = price(&mut c);
    assert_eq!(r["exploit"], 600, "exploit's original is the ruleset's exploit (6)");
    assert_eq!(r["afflict"], 601, "afflict's original is the ruleset's afflict (1), not exploit's");

    // A name built at run time reaches no original: only the call written in the function does.
    let built = "fn afflict_cost() { let n = \"orig\" + \"inal\"; call(Fn(n)) }";
    c.reload(Some(&Role::Gm), None, Some(house(&[("built.rhai", built)]))).unwrap();
    let before = snapshot(&c);
    let r = refused("built_name", || {
        c.act(&Role::Gm, &ActRequest::new("price", &params(json!({})))).map_err(|e| e.report())
    });
    says(&r, &["works only inside that function"], "built_name");
    intact(&c, &before, "built_name");
}

#[test]
fn a_wrap_runs_inside_the_same_sandbox() {
    let mut c = campaign(&plugin(COSTS, &costs(6)));
    for (attack, text, words) in [
        (
            "endless_wrap",
            "fn exploit_weakness_cost() { let x = 0; loop { x += original(); } }",
            &["too many operations", "time"][..],
        ),
        (
            "deep_wrap",
            "fn exploit_weakness_cost() { original() + exploit_weakness_cost() }",
            &["nested too deeply"][..],
        ),
    ] {
        c.reload(Some(&Role::Gm), None, Some(house(&[("x.rhai", text)]))).unwrap();
        let before = snapshot(&c);
        let r =
            refused(attack, || c.act(&Role::Gm, &ActRequest::new("price", &params(json!({})))).map_err(|e| e.report()));
        says(&r, words, attack);
        intact(&c, &before, attack);
    }
}

fn effect_of<'a>(functions: &'a [HouseFunction], name: &str) -> &'a HouseFunction {
    functions.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name} is listed: {functions:?}"))
}

#[test]
fn each_house_function_is_said_to_wrap_replace_hook_add_or_change_nothing() {
    let mut c = campaign(&plugin(COSTS, &costs(6)));
    let text = "fn exploit_weakness_cost() { original() - 2 }\n\
                fn afflict_cost() { 0 }\n\
                fn on_turn_start(t, turn) { t.set_var(\"cr_back\", cheer(turn)); }\n\
                fn cheer(turn) { turn * 10 }\n\
                fn exploit_weakness_costs() { 4 }\n\
                fn on_turn_start(t) { 1 }\n";
    c.reload(Some(&Role::Gm), None, Some(house(&[("mixed.rhai", text)]))).unwrap();
    let functions = c.rules().house_functions().to_vec();
    assert_eq!(effect_of(&functions, "exploit_weakness_cost").effect, HouseEffect::Wraps);
    assert_eq!(effect_of(&functions, "afflict_cost").effect, HouseEffect::Replaces);
    let hook = functions.iter().find(|f| f.name == "on_turn_start" && f.arity == 2).unwrap();
    assert_eq!((hook.effect, hook.hook.as_deref()), (HouseEffect::Replaces, Some("on_turn_start")), "a hook: {hook:?}");
    assert_eq!(effect_of(&functions, "cheer").effect, HouseEffect::Adds, "the hook calls it");

    let typo = effect_of(&functions, "exploit_weakness_costs");
    assert_eq!(typo.effect, HouseEffect::Unused, "nothing calls the misspelt name");
    assert_eq!(typo.nearest.as_deref(), Some("exploit_weakness_cost/0"));
    let warning = typo.warning_text().expect("a function that changes nothing is warned about");
    assert!(warning.starts_with("mixed.rhai:5:29: warning:"), "the warning names its place: {warning}");
    assert!(warning.contains("did you mean exploit_weakness_cost/0"), "{warning}");
    let arity = functions.iter().find(|f| f.name == "on_turn_start" && f.arity == 1).unwrap();
    assert_eq!(arity.effect, HouseEffect::Unused, "a hook with the wrong parameters never runs: {arity:?}");
    assert!(arity.warning.as_deref().unwrap_or_default().contains("takes 2 parameter(s)"), "{arity:?}");

    // The hook runs at its moment.
    let r = c.act(&Role::Gm, &ActRequest::new("next_turn", &params(json!({})))).unwrap().result;
    assert_eq!(r, json!(20), "the house rule's on_turn_start ran at turn 2, and called its helper");
}

#[test]
fn a_moment_must_be_defined_and_called_by_the_ruleset() {
    crate::support::init();
    let cases = [
        ("undefined", "fn price(t, p) { 1 }\nfn next_turn(t, p) { 1 }", "no ruleset script defines on_turn_start"),
        (
            "never_called",
            "fn price(t, p) { 1 }\nfn next_turn(t, p) { 1 }\nfn on_turn_start(t, turn) {}",
            "never called",
        ),
    ];
    for (case, rules, words) in cases {
        let source = plugin(COSTS, rules);
        let e = houserule_app::rules::Rules::load(&source, &[], &Limits::default()).expect_err(case);
        assert!(e.to_string().contains("hooks.moments") && e.to_string().contains(words), "{case}: {e}");
    }
}
