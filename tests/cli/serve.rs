//! `houserule serve`: the WebSocket protocol and who may do what — join links, one identity
//! per connection, the Origin and Host checks, typed dice and entropy, and other writers.

use crate::support::repo;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use tungstenite::client::IntoClientRequest;
use tungstenite::{connect, Message, WebSocket};

const SECRET: &str = "s3cret-for-the-tests";

pub(crate) struct Server {
    child: Child,
    pub(crate) addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

pub(crate) fn start(file: &str) -> Server {
    start_with(file, &repo().join("plugins"))
}

fn start_with(file: &str, plugins: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_houserule"))
        .args(["serve", file, "--gm-secret", SECRET])
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

/// Fresh entropy as a browser sends it (distinct per call, which is all a test needs).
fn entropy() -> String {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!("{:064x}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

pub(crate) struct Client {
    ws: WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    next: u64,
    pub(crate) events: Vec<Value>,
    /// Every frame received, as sent.
    wire: Vec<String>,
}

impl Client {
    fn connect(server: &Server) -> Client {
        Client::connect_at(&server.addr)
    }

    /// A connection to the table at `addr` (`IP:PORT`), as a page served from there opens it.
    pub(crate) fn connect_at(addr: &str) -> Client {
        let (ws, _) = connect(format!("ws://{addr}/ws")).unwrap();
        Client { ws, next: 0, events: vec![], wire: vec![] }
    }

    pub(crate) fn join(server: &Server, hello: Value) -> (Client, Value) {
        let mut c = Client::connect(server);
        let r = c.call("hello", hello);
        (c, r)
    }

    /// The GM, joined with the secret.
    pub(crate) fn gm(server: &Server) -> Client {
        let (gm, hello) = Client::join(server, json!({"secret": SECRET}));
        assert_eq!(hello["role"], "gm", "{hello}");
        gm
    }

    /// A player, joined with a link the GM makes for them now.
    pub(crate) fn player(server: &Server, gm: &mut Client, name: &str) -> Client {
        let link = gm.call("invite", json!({"player": name}));
        let (c, hello) = Client::join(server, json!({"invite": link["token"]}));
        assert_eq!(hello["role"], format!("player:{name}"), "{hello}");
        c
    }

    /// Sends a request and returns `result` or `{"error": …}`, keeping events that come between.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.ws.send(Message::Text(json!({"id": id, "method": method, "params": params}).to_string().into())).unwrap();
        loop {
            let msg = self.ws.read().unwrap();
            let Message::Text(t) = msg else { continue };
            self.wire.push(t.to_string());
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v.get("event").is_some() {
                self.events.push(v);
                continue;
            }
            assert_eq!(v["id"], id);
            return v.get("result").cloned().unwrap_or_else(|| json!({"error": v["error"]}));
        }
    }

    /// An action as the UI sends it: with fresh entropy.
    pub(crate) fn act(&mut self, action: &str, params: Value) -> Value {
        self.call("act", json!({"action": action, "params": params, "entropy": entropy()}))
    }

    pub(crate) fn error_code(v: &Value) -> &str {
        v["error"]["code"].as_str().unwrap_or("")
    }

    /// Waits for the next pushed event.
    fn event(&mut self) -> Value {
        if !self.events.is_empty() {
            return self.events.remove(0);
        }
        loop {
            let Message::Text(t) = self.ws.read().unwrap() else { continue };
            self.wire.push(t.to_string());
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v.get("event").is_some() {
                return v;
            }
        }
    }
}

#[test]
fn players_join_by_link_the_gm_by_secret_and_nobody_acts_as_someone_else() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("table.houserule").display().to_string();
    let server = start(&file);

    let (_, by_name) = Client::join(&server, json!({"name": "ann"}));
    assert_eq!(Client::error_code(&by_name), "bad_request", "joining by name alone is gone: {by_name}");
    let (_, wrong) = Client::join(&server, json!({"secret": "guess"}));
    assert_eq!(Client::error_code(&wrong), "forbidden");
    let (mut nobody, _) = Client::join(&server, json!({}));
    assert_eq!(Client::error_code(&nobody.call("view", json!({}))), "forbidden", "nobody sees anything before joining");
    let mut gm = Client::gm(&server);
    assert_eq!(Client::error_code(&gm.call("invite", json!({"player": "ann"}))), "no_campaign");

    let rulesets = gm.call("rulesets", json!({}));
    assert!(rulesets.as_array().unwrap().iter().any(|r| r["id"] == "fumbles" && r["settings"]["mad"]["default"] == 7));
    let info = gm.call("create", json!({"ruleset": "fumbles", "name": "Goblin night", "settings": {"mad": 6}}));
    assert_eq!(info["ruleset"]["id"], "fumbles", "{info}");

    for name in ["gm", "GM", "public", ""] {
        let refused = gm.call("invite", json!({"player": name}));
        assert_eq!(Client::error_code(&refused), "bad_param", "no link for '{name}': {refused}");
    }
    let mut ann = Client::player(&server, &mut gm, "ann");
    let bo_link = gm.call("invite", json!({"player": "bo"}));
    let bo_token = bo_link["token"].as_str().unwrap().to_string();
    assert!(bo_token.len() >= 32, "at least 128 bits: {bo_token}");
    let again = ann.call("hello", json!({"invite": bo_token}));
    assert_eq!(Client::error_code(&again), "forbidden", "a joined connection cannot become someone else: {again}");
    let again = ann.call("hello", json!({"secret": SECRET}));
    assert_eq!(Client::error_code(&again), "forbidden", "not even the GM, with the right secret");
    assert_eq!(ann.call("hello", json!({}))["role"], "player:ann", "a bare hello just says who you are");
    assert_eq!(Client::error_code(&ann.call("invite", json!({"player": "ann"}))), "forbidden", "links are the GM's");
    let mut listed = gm.call("invites", json!({}));
    let listed = listed.as_array_mut().unwrap();
    assert_eq!(listed.iter().map(|i| i["player"].as_str().unwrap()).collect::<Vec<_>>(), ["ann", "bo"]);
    assert!(!listed.iter().any(|i| i.to_string().contains(&bo_token)), "a link's token is shown once only");

    gm.act(
        "create_character",
        json!({"name": "Gandolf", "owner": "ann", "traits": ["Magic!", "Fireball", "Barrier", "Levitate"]}),
    );
    let pushed = ann.event();
    assert_eq!(pushed["event"]["event"]["type"], "committed", "ann hears of the GM's action at once: {pushed}");
    gm.act("start_challenge", json!({"name": "Goblins", "cr": 6, "toughness": 2, "smash": 1}));
    gm.act("add_capstone", json!({"challenge": "goblins", "at": 3, "note": "The chieftain arrives"}));

    // Typed dice: refused until the GM allows them, then marked as typed.
    let roll = json!({"action": "challenge_roll", "params": {"character": "gandolf", "attack": ["Fireball", "Magic!", "Levitate"], "defense": ["Barrier"]}, "dice": [6, 6, 5, 4], "entropy": entropy()});
    let refused = ann.call("act", roll.clone());
    assert_eq!(Client::error_code(&refused), "forbidden", "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("type in your own dice"), "{refused}");
    let allowed = gm.call("allow_typed_dice", json!({"player": "ann", "allowed": true}));
    assert_eq!(allowed["kind"], "permission", "{allowed}");
    assert!(
        ann.call("view", json!({}))["typed_dice"].as_array().unwrap().contains(&json!("ann")),
        "ann can see she may"
    );
    let out = ann.call("act", roll);
    assert_eq!(out["event"]["actor"], "player:ann", "{out}");
    let rolls: Vec<&Value> = out["event"]["items"].as_array().unwrap().iter().filter(|i| i["type"] == "roll").collect();
    assert!(!rolls.is_empty() && rolls.iter().all(|r| r["roll"]["source"] == "forced"), "typed dice are marked: {out}");

    // Without entropy from the player's own device, no action.
    let bare = ann.call("act", json!({"action": "end_turn", "params": {}}));
    assert_eq!(Client::error_code(&bare), "bad_request", "{bare}");
    assert_eq!(Client::error_code(&ann.act("end_turn", json!({}))), "forbidden", "a GM-only action");
    assert_eq!(
        Client::error_code(
            &ann.call("act", json!({"action": "end_turn", "params": {}, "as": "gm", "entropy": entropy()}))
        ),
        "forbidden",
        "a player cannot act as the GM"
    );
    assert_eq!(
        Client::error_code(&ann.call("view", json!({"as": "player:bo"}))),
        "forbidden",
        "nor look as another player"
    );
    assert_eq!(Client::error_code(&ann.call("house_rules", json!({}))), "forbidden");
    assert_eq!(
        Client::error_code(&ann.call("allow_typed_dice", json!({"player": "bo", "allowed": true}))),
        "forbidden",
        "nor hand out permissions"
    );

    let ann_view = ann.call("view", json!({}));
    assert_eq!(ann_view["viewer"], "player:ann");
    assert_eq!(ann_view["entities"]["goblins"]["fields"]["cr"], 5, "the CR dropped: 3 successes − Toughness 2 = 1");
    let gm_view = gm.call("view", json!({"as": "player:ann"}));
    assert_eq!(gm_view["viewer"], "player:ann", "the GM may preview a player's view");
    let full = gm.call("view", json!({}));
    let capstone_note =
        |v: &Value| v["entities"].as_object().unwrap().values().any(|e| e["fields"]["note"] == "The chieftain arrives");
    assert!(capstone_note(&full) && !capstone_note(&ann_view), "a GM-only capstone note stays out of ann's view");

    // Revoked: bo's link lets nobody in any more.
    assert_eq!(gm.call("revoke_invite", json!({"player": "bo"})), json!(true));
    let (_, late) = Client::join(&server, json!({"invite": bo_token}));
    assert_eq!(Client::error_code(&late), "forbidden", "{late}");

    let saved = gm.call("save_house_rule", json!({"name": "broken.rhai", "text": "fn afflict_cost( { 0 }"}));
    assert_eq!(Client::error_code(&saved), "invalid_house_rule");
    assert!(saved["error"]["diagnostics"][0]["text"].as_str().unwrap().starts_with("broken.rhai:1:"), "{saved}");
    let log = ann.call("log", json!({}));
    assert!(log.as_array().unwrap().len() >= 5);

    // The campaign file keeps digests of the links, never the tokens.
    drop(server);
    let bytes = std::fs::read(&file).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains(&bo_token), "a token is not in the file");
}

/// Connects with a chosen Host and Origin, as a page elsewhere (or a rebound name) would.
fn handshake(server: &Server, host: &str, origin: Option<&str>) -> Result<(), u16> {
    let mut request = format!("ws://{}/ws", server.addr).into_client_request().unwrap();
    request.headers_mut().insert("host", host.parse().unwrap());
    if let Some(o) = origin {
        request.headers_mut().insert("origin", o.parse().unwrap());
    }
    let stream = TcpStream::connect(&server.addr).unwrap();
    match tungstenite::client(request, stream) {
        Ok(_) => Ok(()),
        Err(tungstenite::handshake::HandshakeError::Failure(tungstenite::Error::Http(r))) => Err(r.status().as_u16()),
        Err(e) => panic!("unexpected handshake failure: {e}"),
    }
}

#[test]
fn only_the_servers_own_pages_reach_it_and_guessing_runs_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule").display().to_string();
    crate::support::json(&["new", &file, "--ruleset", "generic"], 0, "new");
    let server = start(&file);
    let port = server.addr.rsplit_once(':').unwrap().1.to_string();
    assert_ne!(port, "7878", "a free port, not a fixed one");
    let own = format!("http://{}", server.addr);
    assert_eq!(handshake(&server, &server.addr, Some(&own)), Ok(()), "the server's own page");
    assert_eq!(handshake(&server, &server.addr, None), Ok(()), "a program that is not a web page");
    assert_eq!(handshake(&server, &server.addr, Some("http://evil.example")), Err(403), "a page elsewhere");
    assert_eq!(handshake(&server, &server.addr, Some("null")), Err(403), "a sandboxed frame");
    let rebound = format!("evil.example:{port}");
    assert_eq!(
        handshake(&server, &rebound, Some(&format!("http://{rebound}"))),
        Err(403),
        "a page whose name was rebound to this address"
    );

    // Ten wrong guesses, and the right secret is refused too until the window passes.
    for i in 0..10 {
        let (_, wrong) = Client::join(&server, json!({"secret": format!("guess-number-{i}")}));
        assert_eq!(Client::error_code(&wrong), "forbidden");
    }
    let (_, locked) = Client::join(&server, json!({"secret": SECRET}));
    assert_eq!(Client::error_code(&locked), "forbidden", "{locked}");
    assert!(locked["error"]["message"].as_str().unwrap().contains("too many"), "{locked}");
}

/// Reads until the server closes the connection; the close frame's code and reason.
pub(crate) fn closed(c: &mut Client) -> (u16, String) {
    loop {
        match c.ws.read() {
            Ok(Message::Close(Some(f))) => return (u16::from(f.code), f.reason.to_string()),
            Ok(Message::Close(None)) => return (0, String::new()),
            Ok(_) => continue,
            Err(e) => panic!("the connection ended without a close frame: {e}"),
        }
    }
}

#[test]
fn a_removed_player_is_disconnected_and_cannot_come_back_with_the_old_link() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule").display().to_string();
    crate::support::json(&["new", &file, "--ruleset", "generic"], 0, "new");
    let server = start(&file);
    let mut gm = Client::gm(&server);
    let link = gm.call("invite", json!({"player": "ann"}));
    let token = link["token"].as_str().unwrap().to_string();
    let mut tabs: Vec<Client> = (0..2)
        .map(|_| {
            let (c, hello) = Client::join(&server, json!({"invite": token}));
            assert_eq!(hello["role"], "player:ann", "{hello}");
            assert!(hello["file"].is_null(), "where the GM keeps the file is not the players' business: {hello}");
            c
        })
        .collect();
    let mut bo = Client::player(&server, &mut gm, "bo");

    let serving = gm.call("hosting", json!({}));
    let who: Vec<&str> = serving["connected"].as_array().unwrap().iter().filter_map(|v| v["who"].as_str()).collect();
    assert_eq!(who, ["gm", "player:ann", "player:ann", "player:bo"], "{serving}");
    assert_eq!(serving["stoppable"], false, "serve is stopped where it runs: {serving}");
    assert_eq!(Client::error_code(&gm.call("host_stop", json!({}))), "forbidden", "not from a browser");
    assert_eq!(Client::error_code(&bo.call("remove_player", json!({"player": "ann"}))), "forbidden", "the GM's");
    assert_eq!(Client::error_code(&bo.call("hosting", json!({}))), "forbidden", "who is connected is the GM's");

    let removed = gm.call("remove_player", json!({"player": "ann"}));
    assert_eq!(removed, json!({"link_ended": true, "connections": 2}));
    for tab in &mut tabs {
        assert_eq!(closed(tab), (4001, "the GM removed you from the table".to_string()));
    }
    let (_, back) = Client::join(&server, json!({"invite": token}));
    assert_eq!(Client::error_code(&back), "forbidden", "the old link is dead: {back}");
    assert_eq!(bo.call("hello", json!({}))["role"], "player:bo", "bo plays on");
    let left = gm.call("hosting", json!({}));
    assert!(!left.to_string().contains("player:ann"), "{left}");
}

#[test]
fn a_short_gm_secret_is_refused() {
    let r = crate::support::houserule(&["serve", "x.houserule", "--gm-secret", "abc"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stderr.contains("at least 16"), "{}", r.stderr);
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
    let mut gm = Client::gm(&server);
    let mut mallory = Client::player(&server, &mut gm, "mallory");
    let mut ann = Client::player(&server, &mut gm, "ann");
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let boom = mallory.act("explode", json!({}));
        // Refused at the memory limit, long before any deadline (the bound is loose: the suite's
        // other tests share the machine's cores while this runs).
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "the bomb is refused within seconds");
        assert_eq!(Client::error_code(&boom), "sandbox", "{boom}");
        assert!(boom["error"]["message"].as_str().unwrap().contains("memory"), "{boom}");
        let fine = ann.act("gather", json!({}));
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
    let mut gm = Client::gm(&server);
    gm.act("create_character", json!({"name": "Gandolf"}));
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

/// `houserule act` on the file `serve` plays, from several processes at once, while a player
/// acts over the WebSocket: every action lands once, the server pushes what the others wrote,
/// and the file verifies.
#[test]
fn other_writers_lose_nothing_and_the_table_hears_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("busy.houserule").display().to_string();
    crate::support::json(&["new", &file, "--ruleset", "generic"], 0, "new");
    let made = crate::support::houserule(&["act", &file, "create_character", "-p", "name=Gandolf", "-p", "owner=ann"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let server = start(&file);
    let mut gm = Client::gm(&server);
    let mut ann = Client::player(&server, &mut gm, "ann");
    let before = gm.call("campaign", json!({}))["events"].as_u64().unwrap();

    let (writers, each) = (3, 4);
    let cli: Vec<_> = (0..writers)
        .map(|w| {
            let file = file.clone();
            std::thread::spawn(move || {
                for i in 0..each {
                    let r = crate::support::houserule(&["act", &file, "roll", "-p", &format!("expr=1d6+{w}{i}")]);
                    assert_eq!(r.code, 0, "writer {w} act {i}: {}", r.stderr);
                    assert!(!r.stderr.contains("UNIQUE"), "{}", r.stderr);
                }
            })
        })
        .collect();
    let mut mine = 0;
    for _ in 0..6 {
        let out = ann.act("roll", json!({"expr": "2d6"}));
        assert!(out.get("error").is_none(), "ann's action is taken while others write: {out}");
        mine += 1;
    }
    for t in cli {
        t.join().unwrap();
    }
    let expected = before + (writers * each) as u64 + mine;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let mut seen = 0;
    while std::time::Instant::now() < deadline {
        seen = gm.call("campaign", json!({}))["events"].as_u64().unwrap();
        if seen == expected {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(seen, expected, "every action from every writer is in the table the server shows");
    // Pushed events arrive between replies; a few more calls give the last ones time to come.
    let heard = |gm: &Client| gm.events.iter().any(|e| e["event"]["event"]["type"] == "written");
    for _ in 0..20 {
        if heard(&gm) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        gm.call("campaign", json!({}));
    }
    assert!(heard(&gm), "the server told its browsers about the other writers' events");
    drop(server);
    let verified = crate::support::houserule(&["verify", &file]);
    assert_eq!(verified.code, 0, "{}", verified.stdout);
}

/// `houserule invite` makes a link the server honours, lists links without their tokens and
/// ends them; `houserule typed-dice` is a public event the server's players see.
#[test]
fn links_and_dice_permissions_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cli.houserule").display().to_string();
    crate::support::json(&["new", &file, "--ruleset", "generic"], 0, "new");
    let made = crate::support::houserule(&["invite", &file, "ann", "--url", "http://127.0.0.1:9/", "--json"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let made: Value = serde_json::from_str(&made.stdout).unwrap();
    let token = made["token"].as_str().unwrap().to_string();
    assert_eq!(made["link"], format!("http://127.0.0.1:9/#join={token}"));
    let refused = crate::support::houserule(&["invite", &file, "gm"]);
    assert_eq!(refused.code, 1, "gm is not a player: {}", refused.stdout);
    let listed = crate::support::houserule(&["invite", &file]);
    assert!(listed.stdout.contains("ann: made") && !listed.stdout.contains(&token), "{}", listed.stdout);
    let allowed = crate::support::houserule(&["typed-dice", &file, "ann", "on"]);
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);

    let server = start(&file);
    let (mut ann, hello) = Client::join(&server, json!({"invite": token}));
    assert_eq!(hello["role"], "player:ann", "{hello}");
    assert_eq!(ann.call("view", json!({}))["typed_dice"], json!(["ann"]));
    let typed =
        ann.call("act", json!({"action": "roll", "params": {"expr": "1d6"}, "dice": [4], "entropy": entropy()}));
    assert!(typed.get("error").is_none(), "ann may type in her dice: {typed}");
    let ended = crate::support::houserule(&["invite", &file, "ann", "--revoke"]);
    assert_eq!(ended.code, 0, "{}", ended.stderr);
    // Her open connection is closed by the server: reading it ends (within 5 s; waiting longer
    // would be a read that times out, which is not a close).
    if let tungstenite::stream::MaybeTlsStream::Plain(s) = ann.ws.get_mut() {
        s.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    }
    let closed = loop {
        match ann.ws.read() {
            Ok(Message::Close(_)) => break true,
            Ok(_) => continue,
            Err(tungstenite::Error::Io(e))
                if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
            {
                break false
            }
            Err(_) => break true,
        }
    };
    assert!(closed, "the link ended from the command line closes the connection that joined with it");
    let (_, late) = Client::join(&server, json!({"invite": token}));
    assert_eq!(Client::error_code(&late), "forbidden", "a link ended from the command line ends at the server: {late}");
}

#[test]
fn a_whisper_reaches_its_two_readers_and_nothing_of_it_crosses_the_wire_to_anyone_else() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.houserule").display().to_string();
    let made = crate::support::houserule(&["new", &file, "--ruleset", "fumbles"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let server = start(&file);
    let mut gm = Client::gm(&server);
    let mut ann = Client::player(&server, &mut gm, "ann");
    let mut bo = Client::player(&server, &mut gm, "bo");
    // Everyone has read the table once, then the GM whispers to bo and speaks to everyone.
    for c in [&mut gm, &mut ann, &mut bo] {
        c.call("table", json!({}));
    }
    let whisper = gm.call("say", json!({"text": "The *key* is under zqsecretmat", "to": "player:bo"}));
    assert_eq!(whisper["kind"], "post", "{whisper}");
    let open = gm.call("say", json!({"text": "Night falls on zqpublicvale."}));
    // bo is told of both and reads the whisper; ann is told only of the open post.
    let told =
        |c: &mut Client, n: usize| (0..n).map(|_| c.event()["event"]["event"]["seq"].clone()).collect::<Vec<_>>();
    assert_eq!(told(&mut bo, 2), vec![whisper["seq"].clone(), open["seq"].clone()]);
    assert_eq!(told(&mut ann, 1), vec![open["seq"].clone()], "ann is told only of the open post");
    let bo_log = bo.call("log", json!({}));
    assert!(bo_log.to_string().contains("zqsecretmat"), "bo reads the whisper");
    let ann_table = ann.call("table", json!({}));
    let ann_log = ann.call("log", json!({}));
    assert!(ann_log.to_string().contains("zqpublicvale"));
    let forum = ann.call("forum_post", json!({"seq": whisper["seq"]}));
    assert!(forum["error"].is_object(), "ann cannot export what she cannot see: {forum}");
    // Ann's player copy of the file, her whole wire: nothing of the whisper.
    let copy = dir.path().join("ann.houserule");
    let shared = crate::support::houserule(&["share", &file, &copy.display().to_string(), "--for", "player:ann"]);
    assert_eq!(shared.code, 0, "{}", shared.stderr);
    let bytes = String::from_utf8_lossy(&std::fs::read(&copy).unwrap()).to_string();
    let wire = ann.wire.join("\n");
    for (what, text) in [("the wire", &wire), ("her copy", &bytes)] {
        assert!(!text.contains("zqsecretmat") && !text.contains("The *key*"), "{what} carries the whisper");
    }
    let seq = whisper["seq"].as_u64().unwrap();
    assert!(
        ann_table["log"]
            .as_array()
            .unwrap()
            .iter()
            .chain(ann_log.as_array().unwrap())
            .all(|e| e["seq"].as_u64() != Some(seq)),
        "the whisper is not even an empty entry in ann's log"
    );
    // A player may whisper only to the GM.
    let e = ann.call("say", json!({"text": "psst", "to": "player:bo"}));
    assert_eq!(Client::error_code(&e), "bad_param", "{e}");
    assert_eq!(e["error"]["param"], "to", "{e}");
}
