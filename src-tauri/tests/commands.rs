//! The window's commands on Tauri's mock runtime, with the app's real capability: the commands
//! work end to end, and anything outside the capability is refused.

use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewWindow};

fn app() -> tauri::App<MockRuntime> {
    // This test binary cannot be a sandbox worker; the app's own binary is one.
    houserule_app::sandbox::use_program(std::path::PathBuf::from(env!("CARGO_BIN_EXE_houserule-desktop")));
    // The recent-files list goes to the app's data folder: keep it out of the real one.
    static DATA: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let data = DATA.get_or_init(|| tempfile::tempdir().unwrap());
    std::env::set_var("XDG_DATA_HOME", data.path());
    let mut app = houserule_desktop::builder(mock_builder(), None)
        .build(tauri::generate_context!("tauri.conf.json", test = true))
        .expect("the app builds");
    // One turn of the (mock) event loop runs the app's setup: its state and its window.
    #[allow(deprecated)]
    app.run_iteration(|_, _| {});
    app
}

/// The app's own window (made at start), or a new one with another label.
fn window(app: &tauri::App<MockRuntime>, label: &str) -> WebviewWindow<MockRuntime> {
    app.get_webview_window(label)
        .unwrap_or_else(|| tauri::WebviewWindowBuilder::new(app, label, Default::default()).build().expect("a window"))
}

fn invoke(w: &WebviewWindow<MockRuntime>, cmd: &str, body: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(w, request).map(|b| b.deserialize::<Value>().expect("JSON"))
}

#[test]
fn the_commands_play_a_campaign() {
    let app = app();
    let w = window(&app, "main");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("desk.houserule");

    let hello = invoke(&w, "hello", json!({})).unwrap();
    assert_eq!(hello["role"], "gm");
    assert!(hello["campaign"].is_null());
    let rulesets = invoke(&w, "rulesets", json!({})).unwrap();
    assert!(rulesets.as_array().unwrap().iter().any(|r| r["id"] == "fumbles"));

    let err = invoke(&w, "view", json!({"params": {}})).unwrap_err();
    assert_eq!(err["code"], "no_campaign", "{err}");
    let info = invoke(
        &w,
        "create",
        json!({"params": {"path": file, "ruleset": "generic", "name": "Desk", "settings": {"starting_tokens": 2}}}),
    )
    .unwrap();
    assert_eq!(info["name"], "Desk");

    let out = invoke(
        &w,
        "act",
        json!({"params": {"action": "create_character", "params": {"name": "Frody", "owner": "bo"}}}),
    )
    .unwrap();
    assert_eq!(out["result"]["id"], "frody");
    let out = invoke(
        &w,
        "act",
        json!({"params": {"action": "roll", "params": {"expr": "2d6"}, "dice": [3, 4], "as": "player:bo"}}),
    )
    .unwrap();
    assert_eq!(out["result"]["total"], 7);
    let refused =
        invoke(&w, "act", json!({"params": {"action": "spend_token", "params": {"character": "frody", "n": 9}}}))
            .unwrap_err();
    assert_eq!(refused["code"], "refused", "{refused}");

    let view = invoke(&w, "view", json!({"params": {"as": "player:bo"}})).unwrap();
    assert_eq!(view["viewer"], "player:bo");
    assert_eq!(view["entities"]["frody"]["pools"]["tokens"]["count"], 2);
    let log = invoke(&w, "log", json!({"params": {"limit": 2}})).unwrap();
    assert_eq!(log.as_array().unwrap().len(), 2);
    let forms = invoke(&w, "actions", json!({"params": {}})).unwrap();
    assert!(forms.as_array().unwrap().iter().any(|f| f["name"] == "create_pool"));

    let broken = invoke(
        &w,
        "save_house_rule",
        json!({"params": {"name": "oops.rhai", "text": "fn give_tokens(t, p) { t.transfer( }"}}),
    )
    .unwrap_err();
    assert_eq!(broken["code"], "invalid_house_rule");
    assert!(broken["diagnostics"][0]["text"].as_str().unwrap().starts_with("oops.rhai:1:"), "{broken}");
    let house = invoke(&w, "house_rules", json!({})).unwrap();
    assert!(house["files"].as_array().unwrap().is_empty(), "the broken rule changed nothing");
    assert!(invoke(&w, "manifest", json!({})).unwrap()["kinds"]["character"].is_object());
    // Sharing from the Players panel: a player's copy, written where the GM chose, never over a file.
    let copy = dir.path().join("for-bo.houserule");
    let shared = invoke(&w, "share_copy", json!({"params": {"path": copy, "player": "bo"}})).unwrap();
    assert_eq!(shared["for_role"], "player:bo", "{shared}");
    assert!(copy.is_file());
    let again = invoke(&w, "share_copy", json!({"params": {"path": copy}})).unwrap_err();
    assert_eq!(again["code"], "bad_param", "an existing file is not overwritten: {again}");
    let recent = invoke(&w, "recent", json!({})).unwrap();
    assert!(
        recent.as_array().unwrap().iter().any(|p| p.as_str() == file.canonicalize().unwrap().to_str()),
        "the new campaign is a recent file: {recent}"
    );
}

#[test]
fn anything_outside_the_capability_is_refused() {
    let app = app();
    let w = window(&app, "main");
    // A plugin command the capability does not grant (only the open and save dialogs are).
    let err = invoke(&w, "plugin:dialog|message", json!({"message": "hi"})).unwrap_err();
    assert!(err.to_string().contains("not allowed"), "dialog messages are not granted: {err}");
    // A core command the window was not given.
    let err = invoke(&w, "plugin:window|close", json!({})).unwrap_err();
    assert!(err.to_string().contains("not allowed"), "{err}");
    // A command that does not exist.
    assert!(invoke(&w, "shell_exec", json!({})).is_err());
    // The app's own commands, from a window the capability does not cover.
    let other = window(&app, "other");
    let err = invoke(&other, "hello", json!({})).unwrap_err();
    assert!(err.to_string().contains("not allowed"), "another window gets nothing: {err}");
    // Granted ones work.
    assert!(invoke(&w, "hello", json!({})).is_ok());
}

#[test]
fn the_window_may_call_exactly_the_declared_calls() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/capabilities/main-window.json")).unwrap();
    let capability: Value = serde_json::from_str(&text).unwrap();
    let mut granted: Vec<String> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p.as_str()?.strip_prefix("allow-").map(|c| c.replace('-', "_")))
        .collect();
    granted.sort();
    let mut declared: Vec<String> = houserule_app::calls::CALLS.iter().map(|c| c.name.to_string()).collect();
    declared.sort();
    assert_eq!(granted, declared, "the capability grants the declared calls, no more and no fewer");
    // Each declared call reaches the app layer (an unknown one would be "not found").
    let app = app();
    let w = window(&app, "main");
    for call in houserule_app::calls::CALLS {
        let answer = invoke(&w, call.name, json!({"params": {}}));
        if let Err(e) = &answer {
            assert!(e.get("code").is_some(), "{}: the app layer answers with a coded error, not {e}", call.name);
        }
    }
}
