//! What the sandbox lets rules do — import their own files, print to the action's log, fail with
//! their place — and what the operating system stops a worker from doing.

use crate::support::{campaign, init, params, plugin};
use houserule_app::request::ActRequest;
use houserule_app::Rules;
use houserule_core::{ActError, Limits, Role};
use serde_json::json;

#[test]
fn imports_of_the_plugins_own_files_work() {
    let mut source =
        plugin("[actions.helped]\nwho = [\"gm\"]\n", "import \"helpers\" as h;\nfn helped(t, p) { h::double(21) }");
    source.files.insert("helpers.rhai".into(), "fn double(x) { x * 2 }".into());
    let mut c = campaign(&source);
    assert_eq!(c.act(&Role::Gm, &ActRequest::new("helped", &params(json!({})))).unwrap().result, json!(42));
    assert_eq!(
        c.act(&Role::Gm, &ActRequest::new("helped", &params(json!({})))).unwrap().result,
        json!(42),
        "again, from the module kept"
    );
}

#[test]
fn print_goes_to_the_action_log_not_stdout() {
    let source = plugin(
        "[actions.chatty]\nwho = [\"gm\"]\n",
        "fn chatty(t, p) { print(\"hello from the rules\"); debug(1 + 1); }",
    );
    let mut c = campaign(&source);
    let out = c.act(&Role::Gm, &ActRequest::new("chatty", &params(json!({})))).unwrap();
    assert_eq!(out.script_log[0], "hello from the rules");
    assert!(out.script_log[1].contains('2'));
}

#[test]
fn errors_point_into_the_script() {
    let source =
        plugin("[actions.typo]\nwho = [\"gm\"]\n", "fn helper(x) {\n  x + \"a\" * 2\n}\nfn typo(t, p) { helper(1) }");
    let mut c = campaign(&source);
    let ActError::Script(s) = c.act(&Role::Gm, &ActRequest::new("typo", &params(json!({})))).unwrap_err() else {
        panic!("expected a script error")
    };
    let line = source.files["rules.rhai"].lines().nth(s.line - 1).unwrap();
    assert!(line.contains("x + \"a\" * 2"), "the error points at the faulty line inside helper, got {s} -> {line:?}");
    assert!(s.column > 0);
    assert_eq!(s.trace, vec!["typo", "helper"]);
}

#[cfg(target_os = "linux")]
#[test]
fn the_worker_cannot_open_files_connect_or_start_processes() {
    init();
    let rules = Rules::load(&plugin("", ""), &[], &Limits::default()).unwrap();
    let probe = rules.probe().unwrap();
    assert!(probe.wall.syscall_filter, "the system-call filter is in place: {:?}", probe.wall);
    assert_eq!(probe.wall.memory_bytes, Some(Limits::default().memory_bytes));
    for (attempt, outcome) in &probe.attempts {
        assert!(outcome.starts_with("refused"), "the worker could {attempt}: {outcome}");
    }
    assert!(probe.attempts.len() >= 6);
}

#[test]
fn a_worker_outlives_the_thread_that_started_it() {
    // Servers start workers from pooled threads that come and go; the worker must stay.
    let source = plugin("", "");
    let mut c = std::thread::spawn(move || {
        let mut c = campaign(&source);
        c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Gandolf"})))).unwrap();
        c
    })
    .join()
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = c.act(&Role::Gm, &ActRequest::new("gain", &params(json!({"character": "gandolf", "n": 2})))).unwrap();
    assert_eq!(out.result, json!(2), "the same worker still answers");
}

/// Children of this process that have ended and not been waited for.
#[cfg(target_os = "linux")]
fn zombies() -> Vec<u32> {
    let me = std::process::id();
    let mut found = vec![];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // pid (comm) state ppid …: the name may hold spaces, so read after its last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.first() == Some(&"Z") && fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(me) {
            found.push(entry.file_name().to_string_lossy().parse().unwrap_or(0));
        }
    }
    found
}

/// A worker is stopped whenever its rules are dropped (a reload, a closed campaign); it is
/// waited for off the caller's thread, and none is left a zombie.
#[cfg(target_os = "linux")]
#[test]
fn stopped_workers_are_waited_for() {
    init();
    let source = plugin("", "");
    for _ in 0..20 {
        drop(Rules::load(&source, &[], &Limits::default()).unwrap());
    }
    // Other tests start and stop workers meanwhile: wait for a moment with none left over.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    let mut left = zombies();
    while !left.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = zombies();
    }
    assert!(left.is_empty(), "stopped workers left as zombies: {left:?}");
}

/// Loading the rules (a new worker starting, then compiling every script) is held to its own
/// deadline, not to an action's: a busy machine that is slow to start a process must not refuse
/// to open a campaign. Before the load deadline, a load was given the action's 750 ms, and a
/// loaded CI machine refused to open a campaign.
#[test]
fn loading_is_held_to_the_load_deadline_not_an_actions() {
    init();
    let source = plugin("[actions.greet]\nwho = [\"gm\"]\n", "fn greet(t, p) { 1 }");
    let tight =
        Limits { deadline: std::time::Duration::ZERO, grace: std::time::Duration::from_millis(1), ..Limits::default() };
    Rules::load(&source, &[], &tight).expect("no process starts in a millisecond; the load has its own deadline");

    let no_time = Limits { load_deadline: std::time::Duration::ZERO, ..tight };
    let refused = Rules::load(&source, &[], &no_time).map(|_| ()).unwrap_err().to_string();
    assert!(refused.contains("loading the rules ran past the time limit (0 ms)"), "{refused}");
}
