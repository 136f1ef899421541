//! A campaign file that goes away under `houserule serve` (issue 35, point 2): once its path no
//! longer names the file the server holds — deleted, renamed away, or another file moved over
//! it — no action is acknowledged: the one that finds it is refused with the reason, every later
//! one too, the GM and the players are told, and the file now at that path is left as it was.

use crate::serve::{start, Client};
use crate::support::json;
use serde_json::{json, Value};

/// Whether a `file_gone` event reached this client (asking a few times: events come between replies).
fn told(c: &mut Client) -> Option<String> {
    for _ in 0..20 {
        let found = c.events.iter().find(|e| e["event"]["event"]["type"] == "file_gone");
        if let Some(e) = found {
            return e["event"]["event"]["message"].as_str().map(str::to_string);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        c.call("campaign", json!({}));
    }
    None
}

fn refused(out: &Value, why: &str) {
    assert_eq!(Client::error_code(out), "storage", "refused as a storage failure: {out}");
    let message = out["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains(why) && message.contains("was not kept"), "says what happened: {message}");
}

#[test]
fn an_action_into_a_deleted_file_is_refused_and_everyone_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gone.houserule").display().to_string();
    json(&["new", &file, "--ruleset", "generic"], 0, "new");
    let server = start(&file);
    let mut gm = Client::gm(&server);
    let mut ann = Client::player(&server, &mut gm, "ann");
    let first = ann.act("roll", json!({"expr": "1d6"}));
    assert!(first.get("error").is_none(), "the file is there: {first}");

    std::fs::remove_file(&file).unwrap();
    refused(&ann.act("roll", json!({"expr": "2d6"})), "deleted or moved away");
    refused(&gm.act("roll", json!({"expr": "3d6"})), "deleted or moved away");
    for (who, c) in [("the GM", &mut gm), ("ann", &mut ann)] {
        let message = told(c).unwrap_or_else(|| panic!("{who} was told the file went away"));
        assert!(message.contains("gone.houserule"), "names the file: {message}");
    }
}

#[test]
fn an_action_into_a_replaced_file_is_refused_and_the_new_file_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("table.houserule").display().to_string();
    let other = dir.path().join("other.houserule").display().to_string();
    for f in [&file, &other] {
        json(&["new", f, "--ruleset", "generic"], 0, "new");
    }
    let events_of = |f: &str| json(&["info", f], 0, "info")["campaign"]["events"].as_u64().unwrap();
    let theirs = events_of(&other);
    let server = start(&file);
    let mut gm = Client::gm(&server);
    assert!(gm.act("roll", json!({"expr": "1d6"})).get("error").is_none());

    std::fs::rename(&other, &file).unwrap();
    refused(&gm.act("roll", json!({"expr": "2d6"})), "replaced by another file");
    refused(&gm.act("roll", json!({"expr": "2d6"})), "replaced by another file");
    drop(server);
    assert_eq!(events_of(&file), theirs, "the file moved in holds its own events only");
    let verified = crate::support::houserule(&["verify", &file]);
    assert_eq!(verified.code, 0, "{}", verified.stdout);
}
