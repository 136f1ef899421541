//! Editing rules mid-session: saved files reload, broken edits keep the last good rules, state
//! survives, and house rules replace single functions.

use crate::support::params;
use houserule_app::request::ActRequest;
use houserule_app::session::{RuleFolders, Session, SessionEvent};
use houserule_app::{Campaign, NewCampaign};
use houserule_core::event::EventKind;
use houserule_core::{Limits, Role};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::time::Duration;

fn repo_plugin(id: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins").join(id)
}

/// Copies a bundled plugin folder (top level only) into `dir`.
fn copy_plugin(id: &str, dir: &Path) -> PathBuf {
    let to = dir.join(id);
    std::fs::create_dir_all(to.join("tests")).unwrap();
    for entry in std::fs::read_dir(repo_plugin(id)).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
    to
}

fn next_reload(events: &Receiver<SessionEvent>) -> SessionEvent {
    loop {
        match events.recv_timeout(Duration::from_secs(10)).expect("a reload is reported within 10 s of saving") {
            SessionEvent::Committed { .. } | SessionEvent::Watching { .. } => continue,
            other => return other,
        }
    }
}

fn act(s: &Session, role: &Role, action: &str, p: Value) -> Value {
    s.act(role, &ActRequest::new(action, &params(p))).unwrap_or_else(|e| panic!("{action}: {e}")).result
}

fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{} should contain {from:?}", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_boss_ability_cost_edited_mid_challenge_applies_to_the_next_use() {
    crate::support::init();
    let dir = tempfile::tempdir().unwrap();
    let plugin_dir = copy_plugin("fumbles", dir.path());
    let source = houserule_app::folders::read_plugin(&plugin_dir, &Limits::default()).unwrap();
    let c = Campaign::create(
        Some(&dir.path().join("tower.houserule")),
        // Nobody attacks in this test, so the optional three-turn drought rule is off.
        NewCampaign {
            name: "Tower".into(),
            ruleset: &source,
            settings: [("attack_drought".to_string(), json!(false))].into_iter().collect(),
            seed: Some(5),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .unwrap();
    let s = Session::new(c);
    let gm = Role::Gm;
    for (name, owner, traits) in [
        ("Gandolf", "ann", json!(["Magic!", "Fireball"])),
        ("Frody", "bo", json!(["frying pan", "agility"])),
        ("Aragurn", "cy", json!(["bow", "stealth"])),
    ] {
        act(&s, &gm, "create_character", json!({"name": name, "owner": owner, "traits": traits}));
    }
    act(&s, &gm, "start_challenge", json!({"name": "Dark Tower", "cr": 30, "toughness": 1, "smash": 1}));
    act(
        &s,
        &gm,
        "add_boss",
        json!({"challenge": "Dark Tower", "name": "Sauromon", "traits": ["staff of power", "voice of command", "orc army"]}),
    );
    let r = act(&s, &gm, "boss_ability", json!({"ability": "afflict", "target": "Gandolf", "trait": "Fireball"}));
    assert_eq!(r["cost"], 1, "as written, an affliction costs 1 CR");
    act(&s, &gm, "end_turn", json!({}));

    let events = s.subscribe();
    s.watch(RuleFolders { ruleset: Some(plugin_dir.clone()), house: None }, houserule_app::watch::DEBOUNCE).unwrap();

    // 1. The GM rewrites the cost on disk; the next affliction uses it.
    let boss = plugin_dir.join("boss.rhai");
    edit(&boss, "fn afflict_cost() { 1 }", "fn afflict_cost() { 3 }");
    let SessionEvent::Reloaded { report } = next_reload(&events) else { panic!("the edit should reload") };
    assert_eq!(report.changed, vec!["ruleset/boss.rhai"]);
    let cr_before = s.campaign().view(&gm).entities["dark_tower"].fields["cr"].clone();
    let r = act(&s, &gm, "boss_ability", json!({"ability": "afflict", "target": "Frody", "trait": "frying pan"}));
    assert_eq!(r["cost"], 3, "the edited cost applies");
    assert_eq!(r["cr"], cr_before.as_i64().unwrap() - 3);
    act(&s, &gm, "end_turn", json!({}));

    // 2. A syntax error is reported with its place; the previous rule still applies.
    edit(&boss, "fn afflict_cost() { 3 }", "fn afflict_cost() { 3 ");
    let SessionEvent::ReloadFailed { problems } = next_reload(&events) else { panic!("a broken edit is reported") };
    let p = &problems[0];
    assert_eq!(p.file, "boss.rhai");
    assert!(p.line.is_some() && p.column.is_some(), "the error has a line and column: {}", p.text);
    assert!(p.text.starts_with("boss.rhai:"), "{}", p.text);
    let state = s.campaign().view(&gm);
    assert_eq!(
        state.entities["gandolf"].traits.iter().find(|t| t.name == "Fireball").unwrap().state,
        houserule_core::traits::TraitState::Sealed,
        "state survives every reload"
    );
    let cr_before = state.entities["dark_tower"].fields["cr"].as_i64().unwrap();
    let r = act(&s, &gm, "boss_ability", json!({"ability": "afflict", "target": "Aragurn", "trait": "bow"}));
    assert_eq!(r["cost"], 3, "the last good rules keep running");
    assert_eq!(r["cr"], cr_before - 3);
    act(&s, &gm, "end_turn", json!({}));

    // 3. The fix applies.
    edit(&boss, "fn afflict_cost() { 3 ", "fn afflict_cost() { 2 }");
    let SessionEvent::Reloaded { .. } = next_reload(&events) else { panic!("the fix should reload") };
    let r = act(&s, &gm, "boss_ability", json!({"ability": "black_dice", "count": 2}));
    assert_eq!(r["cost"], 2, "black dice still cost 1 CR each, as written");
    let c = s.campaign();
    assert!(c.rules().source.files["boss.rhai"].contains("fn afflict_cost() { 2 }"), "the fixed rule is in force");
    let log = c.log(&Role::Player("ann".into()), 1).unwrap();
    let reloads: Vec<_> = log.iter().filter(|e| e.kind == EventKind::Reload).collect();
    assert_eq!(reloads.len(), 2, "each good reload is an event everyone can see; the broken edit is not");
    assert!(reloads[0].detail.as_ref().unwrap()["changed"][0] == "ruleset/boss.rhai");
    assert!(crate::support::verified(&c).ok, "the campaign still verifies");
    drop(c);
    drop(s);
    let reopened = Campaign::open(&dir.path().join("tower.houserule")).unwrap();
    assert!(
        reopened.rules().source.files["boss.rhai"].contains("fn afflict_cost() { 2 }"),
        "the file carries the rules in force"
    );
}

#[test]
fn a_house_rule_replaces_one_function_and_the_rest_run_as_written() {
    crate::support::init();
    let source = houserule_app::folders::read_plugin(&repo_plugin("fumbles"), &Limits::default()).unwrap();
    let c = Campaign::create(
        None,
        NewCampaign {
            name: "h".into(),
            ruleset: &source,
            settings: Default::default(),
            seed: Some(5),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .unwrap();
    let s = Session::new(c);
    let gm = Role::Gm;
    act(&s, &gm, "create_character", json!({"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Fireball"]}));
    act(&s, &gm, "create_character", json!({"name": "Frody", "owner": "bo", "traits": ["frying pan", "agility"]}));
    act(&s, &gm, "start_challenge", json!({"name": "Dark Tower", "cr": 30, "toughness": 1, "smash": 1}));
    act(
        &s,
        &gm,
        "add_boss",
        json!({"challenge": "Dark Tower", "name": "Sauromon", "traits": ["staff", "voice", "army"]}),
    );

    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/fumbles/house-rules/boss-cheaper-affliction.rhai"),
    )
    .unwrap();
    let report =
        s.save_house_rule("cheaper-affliction.rhai", &example).unwrap().expect("the house rule changes the rules");
    assert_eq!(report.changed, vec!["house/cheaper-affliction.rhai (added)"]);
    let functions = s.campaign().rules().house_functions().to_vec();
    assert!(functions.iter().all(|f| f.replaces), "the example only replaces ruleset functions: {functions:?}");

    let r = act(&s, &gm, "boss_ability", json!({"ability": "afflict", "target": "Gandolf", "trait": "Fireball"}));
    assert_eq!(r["cost"], 0, "the house rule's cost");
    act(&s, &gm, "end_turn", json!({}));
    let r = act(&s, &gm, "boss_ability", json!({"ability": "black_dice", "count": 2}));
    assert_eq!(r["cost"], 2, "every other rule runs as written");
    let err = s
        .act(
            &gm,
            &ActRequest::new(
                "boss_ability",
                &params(json!({"ability": "afflict", "target": "Gandolf", "trait": "Magic!"})),
            ),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("AFFLICTION") || err.to_string().contains("already used"),
        "limits still apply: {err}"
    );

    // A broken house rule is refused with its place, and changes nothing.
    let err = s.save_house_rule("broken.rhai", "fn afflict_cost( { 0 }").unwrap_err();
    assert!(err.to_string().starts_with("broken.rhai:1:"), "{err}");
    assert_eq!(s.campaign().house_rules().unwrap().scripts.len(), 1);
    // Settings can be overridden too.
    let report = s.save_house_rule("settings.toml", "[settings]\nmad = 5\n").unwrap().unwrap();
    assert_eq!(report.settings["mad"], json!(5));
    assert_eq!(s.campaign().view(&gm).settings["mad"], json!(5));
    let err = s.save_house_rule("settings.toml", "[settings]\nmadness = 5\n").unwrap_err();
    assert!(err.to_string().contains("no setting 'madness'"), "{err}");
    s.remove_house_rule("settings.toml").unwrap();
    assert_eq!(
        s.campaign().view(&gm).settings["mad"],
        json!(7),
        "removing the override restores the campaign's setting"
    );
}
