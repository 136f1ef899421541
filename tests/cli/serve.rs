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
    let mut child = Command::new(env!("CARGO_BIN_EXE_houserule"))
        .args(["serve", file, "--port", "0", "--gm-secret", "s3cret"])
        .env("HOUSERULE_PLUGINS", repo().join("plugins"))
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

    assert_eq!(Client::error_code(&ann.call("create", json!({"ruleset": "fumbles"}))), "forbidden", "only the GM creates the campaign");
    let rulesets = gm.call("rulesets", json!({}));
    assert!(rulesets.as_array().unwrap().iter().any(|r| r["id"] == "fumbles" && r["settings"]["mad"]["default"] == 7));
    let info = gm.call("create", json!({"ruleset": "fumbles", "name": "Goblin night", "settings": {"mad": 6}}));
    assert_eq!(info["ruleset"]["id"], "fumbles", "{info}");
    assert_eq!(ann.event()["event"]["type"], "opened", "players hear that the campaign is open");

    gm.call("act", json!({"action": "create_character", "params": {"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Fireball", "Barrier", "Levitate"]}}));
    let pushed = ann.event();
    assert_eq!(pushed["event"]["event"]["type"], "committed", "ann hears of the GM's action at once: {pushed}");
    gm.call("act", json!({"action": "start_challenge", "params": {"name": "Goblins", "cr": 6, "toughness": 2, "smash": 1}}));
    gm.call("act", json!({"action": "add_capstone", "params": {"challenge": "goblins", "at": 3, "note": "The chieftain arrives"}}));

    let out = ann.call("act", json!({"action": "challenge_roll", "params": {"character": "gandolf", "attack": ["Fireball", "Magic!", "Levitate"], "defense": ["Barrier"]}, "dice": [6, 6, 5, 4]}));
    assert_eq!(out["event"]["actor"], "player:ann", "{out}");
    assert_eq!(Client::error_code(&ann.call("act", json!({"action": "end_turn", "params": {}}))), "forbidden", "a GM-only action");
    assert_eq!(Client::error_code(&ann.call("act", json!({"action": "end_turn", "params": {}, "as": "gm"}))), "forbidden", "a player cannot act as the GM");
    assert_eq!(Client::error_code(&ann.call("view", json!({"as": "player:bo"}))), "forbidden", "nor look as another player");
    assert_eq!(Client::error_code(&ann.call("house_rules", json!({}))), "forbidden");

    let ann_view = ann.call("view", json!({}));
    assert_eq!(ann_view["viewer"], "player:ann");
    assert_eq!(ann_view["entities"]["goblins"]["fields"]["cr"], 5, "the CR dropped: 3 successes − Toughness 2 = 1");
    let gm_view = gm.call("view", json!({"as": "player:ann"}));
    assert_eq!(gm_view["viewer"], "player:ann", "the GM may preview a player's view");
    let full = gm.call("view", json!({}));
    let capstone_note = |v: &Value| v["entities"].as_object().unwrap().values().any(|e| e["fields"]["note"] == "The chieftain arrives");
    assert!(capstone_note(&full) && !capstone_note(&ann_view), "a GM-only capstone note stays out of ann's view");

    let saved = gm.call("save_house_rule", json!({"name": "broken.rhai", "text": "fn afflict_cost( { 0 }"}));
    assert_eq!(Client::error_code(&saved), "invalid_house_rule");
    assert!(saved["error"]["diagnostics"][0]["text"].as_str().unwrap().starts_with("broken.rhai:1:"), "{saved}");
    let log = ann.call("log", json!({}));
    assert!(log.as_array().unwrap().len() >= 5);
}
