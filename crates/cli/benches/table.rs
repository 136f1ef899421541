//! The table as players feel it, over `houserule serve`'s WebSocket, on campaigns of 1k, 10k and
//! 100k events: `cargo bench -p houserule --bench table`. The figures in docs/performance.md
//! come from this run.
//!
//! - **Action cycle**: three players and the GM are connected; the players take turns acting
//!   (`act`, a 2d6 roll with fresh entropy). A cycle is the time from sending the action until
//!   every connection — the actor and each other client reacting to the pushed `committed`
//!   event — has refreshed what it shows with one `table` call that includes the new event. All
//!   the while another player keeps joining afresh and loading the log's newest page and the
//!   page before it, as the UI does on every join, reconnect and "older".
//! - **Log page**: that newcomer's page loads, timed on their own (criterion).
//! - **`houserule act` process**: the whole command, start to exit, on the same file (criterion).
#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use criterion::{criterion_group, criterion_main, Criterion};
use houserule_app::request::ActRequest;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::{Limits, Role};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::{connect, Message, WebSocket};

/// Campaign sizes (events); `HOUSERULE_BENCH_SIZES=1000,10000` picks others.
fn sizes() -> Vec<u64> {
    std::env::var("HOUSERULE_BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000])
}
const SECRET: &str = "bench-secret-0123456789";
const PLAYERS: [&str; 3] = ["ann", "bo", "cy"];
/// Action cycles timed per campaign size (after a warm-up).
const CYCLES: usize = 400;

fn houserule() -> &'static str {
    env!("CARGO_BIN_EXE_houserule")
}

/// A campaign with `n` events, built once and kept under target/bench-data/.
fn campaign(n: u64) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("table-{n}.houserule"));
    if Campaign::open(&path).map(|c| c.info().events >= n).unwrap_or(false) {
        return path;
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    houserule_app::sandbox::use_program(PathBuf::from(houserule()));
    let source = houserule_app::folders::read_plugin(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins/generic"),
        &Limits::default(),
    )
    .unwrap();
    let mut c = Campaign::create(
        Some(&path),
        NewCampaign {
            name: "bench".into(),
            ruleset: &source,
            settings: Default::default(),
            seed: Some(1),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .unwrap();
    c.store().connection().pragma_update(None, "synchronous", "OFF").unwrap();
    for (i, p) in PLAYERS.iter().enumerate() {
        let make = json!({"name": format!("Hero{i}"), "owner": p});
        c.act(&Role::Gm, &ActRequest::new("create_character", make.as_object().unwrap())).unwrap();
    }
    let roll = json!({"expr": "3d6", "label": "filler"});
    let roll = roll.as_object().unwrap().clone();
    while c.info().events < n {
        c.act(&Role::Player(PLAYERS[(c.info().events % 3) as usize].into()), &ActRequest::new("roll", &roll)).unwrap();
    }
    path
}

/// A working copy of the campaign (the runs add events to it, never to the cached one).
fn working_copy(n: u64, dir: &Path) -> PathBuf {
    let to = dir.join(format!("table-{n}.houserule"));
    std::fs::copy(campaign(n), &to).unwrap();
    to
}

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(file: &Path) -> Server {
    let mut child = Command::new(houserule())
        .args(["serve", &file.display().to_string(), "--gm-secret", SECRET])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first.split("http://").nth(1).unwrap().trim_end_matches('/').to_string();
    std::thread::spawn(move || for _ in lines {});
    Server { child, addr }
}

/// One browser's connection.
struct Client {
    ws: WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    next: u64,
    /// Events pushed while waiting for a reply.
    pending: Vec<Value>,
}

impl Client {
    fn join(addr: &str, hello: Value) -> Client {
        let (ws, _) = connect(format!("ws://{addr}/ws")).unwrap();
        if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
            // As browsers do.
            s.set_nodelay(true).unwrap();
        }
        let mut c = Client { ws, next: 0, pending: vec![] };
        let r = c.call("hello", hello);
        assert!(r.get("role").is_some(), "{r}");
        c
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.ws.send(Message::Text(json!({"id": id, "method": method, "params": params}).to_string().into())).unwrap();
        loop {
            let Message::Text(t) = self.ws.read().unwrap() else { continue };
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v.get("event").is_some() {
                self.pending.push(v);
                continue;
            }
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    panic!("{method}: {e}");
                }
                return v["result"].clone();
            }
        }
    }

    /// Waits for the next pushed event.
    fn event(&mut self) -> Value {
        if !self.pending.is_empty() {
            return self.pending.remove(0);
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

/// The UI's refresh after something changed: one `table` call for what is new.
fn refresh(c: &mut Client, last: &mut u64) {
    let now = c.call("table", json!({"from": *last + 1, "limit": 2000}));
    if let Some(seq) = now["log"].as_array().and_then(|l| l.last()).and_then(|e| e["seq"].as_u64()) {
        *last = seq;
    }
}

fn entropy(n: u64) -> String {
    format!("{:064x}", n.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Plays [`CYCLES`] action cycles while a newcomer keeps joining and loading the log; returns
/// the cycle times and the newcomer's page times.
fn play(n: u64) -> (Vec<Duration>, Vec<Duration>) {
    let dir = tempfile::tempdir().unwrap();
    let file = working_copy(n, dir.path());
    let server = serve(&file);
    let mut gm = Client::join(&server.addr, json!({"secret": SECRET}));
    let tokens: Vec<String> = PLAYERS
        .iter()
        .chain(["dee"].iter())
        .map(|p| gm.call("invite", json!({"player": p}))["token"].as_str().unwrap().to_string())
        .collect();
    let head = gm.call("campaign", json!({}))["events"].as_u64().unwrap();

    // Every connection refreshes on each committed event and reports when it shows it.
    // (client, event, when it shows it); the actor also says when it sent the action.
    let (done_tx, done_rx) = mpsc::channel::<(usize, u64, Instant)>();
    let (sent_tx, sent_rx) = mpsc::channel::<Instant>();
    let mut go = vec![];
    let mut watchers = vec![];
    let mut clients: Vec<Client> = vec![gm];
    for t in &tokens[..PLAYERS.len()] {
        clients.push(Client::join(&server.addr, json!({"invite": t})));
    }
    let total = clients.len();
    for (i, mut c) in clients.into_iter().enumerate() {
        let done = done_tx.clone();
        let sent = sent_tx.clone();
        let (act_tx, act_rx) = mpsc::channel::<u64>();
        go.push(act_tx);
        watchers.push(std::thread::spawn(move || {
            let mut last = head;
            loop {
                // Told to act (a player's turn), or react to what others did.
                match act_rx.try_recv() {
                    Ok(u64::MAX) => return,
                    Ok(k) => {
                        sent.send(Instant::now()).unwrap();
                        let acted =
                            c.call("act", json!({"action": "roll", "params": {"expr": "2d6"}, "entropy": entropy(k)}));
                        let seq = acted["event"]["seq"].as_u64().unwrap();
                        refresh(&mut c, &mut last);
                        assert!(last >= seq);
                        // Its own event is already shown: drop it from the queue.
                        c.pending.retain(|e| e["event"]["event"]["seq"].as_u64().is_none_or(|s| s > seq));
                        done.send((i, seq, Instant::now())).unwrap();
                        continue;
                    }
                    Err(mpsc::TryRecvError::Disconnected) => return,
                    Err(mpsc::TryRecvError::Empty) => {}
                }
                // Wait for an event, briefly, so turns are noticed.
                if c.pending.is_empty() {
                    if let tungstenite::stream::MaybeTlsStream::Plain(s) = c.ws.get_ref() {
                        s.set_read_timeout(Some(Duration::from_millis(2))).unwrap();
                    }
                    let read = c.ws.read();
                    if let tungstenite::stream::MaybeTlsStream::Plain(s) = c.ws.get_ref() {
                        s.set_read_timeout(None).unwrap();
                    }
                    match read {
                        Ok(Message::Text(t)) => c.pending.push(serde_json::from_str(t.as_str()).unwrap()),
                        Ok(_) => {}
                        Err(tungstenite::Error::Io(e))
                            if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
                if c.pending.is_empty() {
                    continue;
                }
                let e = c.event();
                if e["event"]["type"] == "session" && e["event"]["event"]["type"] == "committed" {
                    let seq = e["event"]["event"]["seq"].as_u64().unwrap();
                    if seq > last {
                        refresh(&mut c, &mut last);
                    }
                    done.send((i, seq, Instant::now())).unwrap();
                }
            }
        }));
    }

    // The newcomer: joins afresh and loads the log's newest page and the one before, again and again.
    let stop = Arc::new(AtomicBool::new(false));
    let loads = Arc::new(std::sync::Mutex::new(Vec::new()));
    let joins = Arc::new(AtomicU64::new(0));
    let newcomer = {
        let (stop, loads, joins, addr, token) =
            (stop.clone(), loads.clone(), joins.clone(), server.addr.clone(), tokens[3].clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if std::env::var("HOUSERULE_BENCH_NEWCOMER").is_ok_and(|v| v == "0") {
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
                let mut c = Client::join(&addr, json!({"invite": token}));
                joins.fetch_add(1, Ordering::Relaxed);
                for _ in 0..5 {
                    let t = Instant::now();
                    let now = c.call("table", json!({"limit": 100}));
                    let first = now["log"][0]["seq"].as_u64().unwrap();
                    let older = c.call("log", json!({"before": first, "limit": 100}));
                    assert_eq!(older.as_array().unwrap().len() as u64, 100.min(first - 1));
                    loads.lock().unwrap().push(t.elapsed() / 2);
                }
            }
        })
    };

    let mut cycles = Vec::with_capacity(CYCLES);
    for k in 0..(CYCLES + 20) as u64 {
        let player = 1 + (k as usize % PLAYERS.len());
        go[player].send(k + 1).unwrap();
        let started = sent_rx.recv_timeout(Duration::from_secs(30)).expect("the player acts");
        let mut seen = 0;
        let mut seq = None;
        let mut last = started;
        while seen < total {
            let (_, s, at) = done_rx.recv_timeout(Duration::from_secs(30)).expect("every client refreshes");
            match seq {
                None => seq = Some(s),
                Some(q) if q != s => continue,
                _ => {}
            }
            last = last.max(at);
            seen += 1;
        }
        if k >= 20 {
            cycles.push(last - started);
        }
    }
    stop.store(true, Ordering::Relaxed);
    for g in &go {
        let _ = g.send(u64::MAX);
    }
    drop(go);
    newcomer.join().unwrap();
    for w in watchers {
        w.join().unwrap();
    }
    let mut loads = loads.lock().unwrap().clone();
    if loads.is_empty() {
        loads.push(Duration::ZERO);
    }
    println!("  ({} joins by the newcomer while the table played)", joins.load(Ordering::Relaxed));
    (cycles, loads)
}

fn table(c: &mut Criterion) {
    println!("Action cycle over the WebSocket (act → every client's view refreshed), while a newcomer joins and loads the log:");
    println!("| events | cycles | p50 | p90 | p99 | max | log page p50 | log page p99 |");
    println!("|---|---|---|---|---|---|---|---|");
    for n in sizes() {
        let (mut cycles, mut loads) = play(n);
        cycles.sort();
        loads.sort();
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} |",
            cycles.len(),
            ms(percentile(&cycles, 0.5)),
            ms(percentile(&cycles, 0.9)),
            ms(percentile(&cycles, 0.99)),
            ms(*cycles.last().unwrap()),
            ms(percentile(&loads, 0.5)),
            ms(percentile(&loads, 0.99)),
        );
    }

    let mut group = c.benchmark_group("table");
    group.sample_size(20).measurement_time(Duration::from_secs(10));
    for n in sizes() {
        let dir = tempfile::tempdir().unwrap();
        let file = working_copy(n, dir.path());
        let shown = file.display().to_string();
        // The first open on this machine checks the copy in full and stamps it; time the rest.
        let first = Command::new(houserule()).args(["view", &shown]).output().unwrap();
        assert!(first.status.success());
        group.bench_function(format!("houserule act process, {n} events"), |b| {
            b.iter(|| {
                let out = Command::new(houserule())
                    .args(["act", &shown, "roll", "-p", "expr=2d6"])
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                assert!(out.success());
            })
        });
        let server = serve(&file);
        let mut gm = Client::join(&server.addr, json!({"secret": SECRET}));
        group.bench_function(format!("log page (100 newest events) over the WebSocket, {n} events"), |b| {
            b.iter(|| gm.call("log", json!({"limit": 100})))
        });
        group.bench_function(format!("log page (100 events before the newest page), {n} events"), |b| {
            let head = gm.call("campaign", json!({}))["events"].as_u64().unwrap();
            b.iter(|| gm.call("log", json!({"before": head - 99, "limit": 100})))
        });
    }
    group.finish();
}

criterion_group!(benches, table);
criterion_main!(benches);
