//! Nobody waits behind a running action: while one action's script runs up to its deadline,
//! other players' views and log pages are answered at once (the table is read as of its last
//! change, the log through the app's own connections), never behind the campaign's lock.

use crate::support::{ask, browser, campaign_file, desktop, plugin};
use houserule_app::front::App;
use houserule_core::Role;
use serde_json::json;
use std::time::{Duration, Instant};

/// A script the sandbox cannot stop from inside (a sort swallows its comparer's errors): it
/// runs until the parent's deadline kills its worker.
const SLOW: &str = r#"
fn slow(t, p) {
    t.say("thinking");
    let a = [];
    for i in 0..9000 { a.push(9000 - i) }
    a.sort(|x, y| { let n = 0; while n < 100000 { n += 1; } x - y });
}
"#;

#[test]
fn views_and_log_pages_answer_while_an_action_runs_to_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("slow.houserule");
    drop(campaign_file(&plugin("[actions.slow]\nwho = [\"gm\"]\n", SLOW), &path));
    let app = App::new(None);
    app.open(&path).unwrap();
    let gm = desktop(Role::Gm);
    ask(&app, &gm, "act", json!({"action": "make", "params": {"name": "Frody", "owner": "ann"}})).unwrap();
    let ann = browser(Role::Player("ann".into()));

    let started = Instant::now();
    let acting = {
        let (app, gm) = (app.clone(), gm.clone());
        std::thread::spawn(move || {
            let refused = ask(&app, &gm, "act", json!({"action": "slow"})).expect_err("the slow script is stopped");
            (refused, started.elapsed())
        })
    };
    let mut slowest = Duration::ZERO;
    let mut asked = 0;
    while started.elapsed() < Duration::from_millis(400) {
        for method in ["view", "log", "table"] {
            let t = Instant::now();
            ask(&app, &ann, method, json!({})).unwrap_or_else(|e| panic!("{method}: {e:?}"));
            slowest = slowest.max(t.elapsed());
            asked += 1;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let last_answer = started.elapsed();
    let (refused, took) = acting.join().unwrap();
    assert!(refused.message.contains("time"), "the action ran to its deadline: {refused:?}");
    assert!(took > last_answer, "the action ran all the while ({took:?}, last answer at {last_answer:?})");
    assert!(asked >= 9, "ann asked {asked} times while the action ran");
    assert!(slowest < Duration::from_millis(50), "a view or log page waited {slowest:?} behind a running action");
}
