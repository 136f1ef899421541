//! `houserule serve`: the WebSocket protocol and who may do what.

use crate::support::repo;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use tungstenite::{connect, Message, WebSocket};

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

fn start(file: &str) -> Server {
    start_with(file, &repo().join("plugins"))
}

fn start_with(file: &str, plugins: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_houserule"))
        .args(["serve", file, "--port", "0", "--gm-secret", "s3cret"])
        .env("HOUSERULE_PLUGINS", plugins)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first.split("http://").nth(1).unwrap().trim_end_matches('/').to_string();
    std::thread::spawn(move || for _ in lines {});
    Server { child, addr }
}

struct Client {
    ws: WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    next: u64,
    events: Vec<Value>,
}

impl Client {
    fn join(server: &Server, hello: Value) -> (Client, Value) {
        let (ws, _) = connect(format!("ws://{}/ws", server.addr)).unwrap();
        let mut c = Client { ws, next: 0, events: vec![] };
        let r = c.call("hello", hello);
        (c, r)
    }

    /// Sends a request and returns `result` or `{"error": …}`, keeping events that come between.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.ws.send(Message::Text(json!({"id": id, "method": method, "params": params}).to_string().into())).unwrap();
        loop {
            let msg = self.ws.read().unwrap();
            let Message::Text(t) = msg else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v.get("event").is_some() {
                self.events.push(v);
                continue;
            }
            assert_eq!(v["id"], id);
            return v.get("result").cloned().unwrap_or_else(|| json!({"error": v["error"]}));
        }
    }

    fn error_code(v: &Value) -> &str {
        v["error"]["code"].as_str().unwrap_or("")
    }

    /// Waits for the next pushed event.
    fn event(&mut self) -> Value {
        if !self.events.is_empty() {
            return self.events.remove(0);
        }
        loop {
            let Message::Text(t) = self.ws.read().unwrap() else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v.get("event").is_some() {
                return v;
            }
        }
    }
}

#[test]
fn players_join_by_name_the_gm_by_secret_and_nobody_acts_as_someone_else() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("table.houserule").display().to_string();
    let server = start(&file);

    let (mut ann, hello) = Client::join(&server, json!({"name": "ann"}));
    assert_eq!(hello["role"], "player:ann");
    assert!(hello["campaign"].is_null(), "nothing is played yet");
    let (_, wrong) = Client::join(&server, json!({"name": "mallory", "secret": "guess"}));
    assert_eq!(Client::error_code(&wrong), "forbidden");
    let (mut gm, hello) = Client::join(&server, json!({"secret": "s3cret"}));
    assert_eq!(hello["role"], "gm");

    assert_eq!(
        Client::error_code(&ann.call("create", json!({"ruleset": "fumbles"}))),
        "forbidden",
        "only the GM creates the campaign"
    );
    let rulesets = gm.call("rulesets", json!({}));
    assert!(rulesets.as_array().unwrap().iter().any(|r| r["id"] == "fumbles" && r["settings"]["mad"]["default"] == 7));
    let info = gm.call("create", json!({"ruleset": "fumbles", "name": "Goblin night", "settings": {"mad": 6}}));
    assert_eq!(info["ruleset"]["id"], "fumbles", "{info}");
    assert_eq!(ann.event()["event"]["type"], "opened", "players hear that the campaign is open");

    gm.call("act", json!({"action": "create_character", "params": {"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Fireball", "Barrier", "Levitate"]}}));
    let pushed = ann.event();
    assert_eq!(pushed["event"]["event"]["type"], "committed", "ann hears of the GM's action at once: {pushed}");
    gm.call(
        "act",
        json!({"action": "start_challenge", "params": {"name": "Goblins", "cr": 6, "toughness": 2, "smash": 1}}),
    );
    gm.call(
        "act",
        json!({"action": "add_capstone", "params": {"challenge": "goblins", "at": 3, "note": "The chieftain arrives"}}),
    );

    let out = ann.call("act", json!({"action": "challenge_roll", "params": {"character": "gandolf", "attack": ["Fireball", "Magic!", "Levitate"], "defense": ["Barrier"]}, "dice": [6, 6, 5, 4]}));
    assert_eq!(out["event"]["actor"], "player:ann", "{out}");
    assert_eq!(
        Client::error_code(&ann.call("act", json!({"action": "end_turn", "params": {}}))),
        "forbidden",
        "a GM-only action"
    );
    assert_eq!(
        Client::error_code(&ann.call("act", json!({"action": "end_turn", "params": {}, "as": "gm"}))),
        "forbidden",
        "a player cannot act as the GM"
    );
    assert_eq!(
        Client::error_code(&ann.call("view", json!({"as": "player:bo"}))),
        "forbidden",
        "nor look as another player"
    );
    assert_eq!(Client::error_code(&ann.call("house_rules", json!({}))), "forbidden");

    let ann_view = ann.call("view", json!({}));
    assert_eq!(ann_view["viewer"], "player:ann");
    assert_eq!(ann_view["entities"]["goblins"]["fields"]["cr"], 5, "the CR dropped: 3 successes − Toughness 2 = 1");
    let gm_view = gm.call("view", json!({"as": "player:ann"}));
    assert_eq!(gm_view["viewer"], "player:ann", "the GM may preview a player's view");
    let full = gm.call("view", json!({}));
    let capstone_note =
        |v: &Value| v["entities"].as_object().unwrap().values().any(|e| e["fields"]["note"] == "The chieftain arrives");
    assert!(capstone_note(&full) && !capstone_note(&ann_view), "a GM-only capstone note stays out of ann's view");

    let saved = gm.call("save_house_rule", json!({"name": "broken.rhai", "text": "fn afflict_cost( { 0 }"}));
    assert_eq!(Client::error_code(&saved), "invalid_house_rule");
    assert!(saved["error"]["diagnostics"][0]["text"].as_str().unwrap().starts_with("broken.rhai:1:"), "{saved}");
    let log = ann.call("log", json!({}));
    assert!(log.as_array().unwrap().len() >= 5);
}

/// A ruleset of one honest action and one memory bomb.
const BOMB_MANIFEST: &str = r#"
id = "bomb"
name = "Bomb"
version = "1.0.0"
api = 1
entry = "rules.rhai"

[pools.tokens]
cap = 100

[actions.gather]
who = ["player", "gm"]

[actions.explode]
who = ["player", "gm"]
"#;

const BOMB_RULES: &str = r#"
fn gather(t, p) { t.add("tokens", 1); t.pool("tokens") }
fn explode(t, p) { let s = "x"; while s.len() < 60000 { s += s; } s.replace("x", s) }
"#;

#[test]
fn a_players_memory_bomb_leaves_the_table_serving_everyone() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(plugins.join("bomb")).unwrap();
    std::fs::write(plugins.join("bomb/plugin.toml"), BOMB_MANIFEST).unwrap();
    std::fs::write(plugins.join("bomb/rules.rhai"), BOMB_RULES).unwrap();
    let file = dir.path().join("b.houserule").display().to_string();
    let made = crate::support::houserule_with(&["new", &file, "--ruleset", "bomb"], &plugins);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let server = start_with(&file, &plugins);
    let (mut mallory, _) = Client::join(&server, json!({"name": "mallory"}));
    let (mut ann, _) = Client::join(&server, json!({"name": "ann"}));
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let boom = mallory.call("act", json!({"action": "explode"}));
        assert!(started.elapsed() < std::time::Duration::from_secs(1), "the bomb is refused within a second");
        assert_eq!(Client::error_code(&boom), "sandbox", "{boom}");
        assert!(boom["error"]["message"].as_str().unwrap().contains("memory"), "{boom}");
        let fine = ann.call("act", json!({"action": "gather"}));
        assert!(fine["result"].is_number(), "ann still plays: {fine}");
    }
    assert_eq!(ann.call("view", json!({}))["pools"]["tokens"]["count"], 3, "every honest action counted, no bomb did");
    let verified = crate::support::houserule(&["verify", &file]);
    assert_eq!(verified.code, 0, "{}", verified.stdout);
}

/// The processes whose parent is `pid` (Linux).
fn children(pid: u32) -> Vec<u32> {
    let mut out = vec![];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else { continue };
        let after = stat.rsplit_once(')').map(|p| p.1).unwrap_or("");
        if after.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// Whether a process is gone (or a zombie waiting to be reaped).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit_once(')').and_then(|p| p.1.split_whitespace().next()) == Some("Z"),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn the_sandbox_worker_ends_with_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.houserule").display().to_string();
    crate::support::json(&["new", &file, "--ruleset", "generic"], 0, "new");
    let mut server = start(&file);
    let (mut gm, _) = Client::join(&server, json!({"secret": "s3cret"}));
    gm.call("act", json!({"action": "create_character", "params": {"name": "Gandolf"}}));
    let workers = children(server.child.id());
    assert!(!workers.is_empty(), "the server runs its rules in a worker process");
    server.child.kill().unwrap();
    let _ = server.child.wait();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while !workers.iter().all(|w| gone(*w)) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(workers.iter().all(|w| gone(*w)), "a worker outlived its server: {workers:?}");
}
