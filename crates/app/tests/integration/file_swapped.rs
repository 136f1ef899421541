//! The log a viewer reads is the campaign in play's, even once its file is gone (issue 35,
//! point 2): with another campaign moved over its path, a page of the log, read on one of the
//! app's own connections, never comes from the file now at the path, and reading never writes
//! the campaign in play into it (its write-ahead log leaves the path once a reader finds it gone);
//! with the file deleted, the log is still read, from the file the campaign holds.

use crate::support::{ask, browser, create_in, init};
use houserule_app::front::App;
use houserule_core::Role;
use serde_json::json;

fn narrate(app: &App, text: &str) {
    ask(app, &browser(Role::Gm), "act", json!({"action": "narrate", "params": {"text": text}})).unwrap();
}

#[test]
fn a_file_moved_over_the_campaign_in_play_is_never_read_as_its_log() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let (path, other) = (dir.path().join("play.houserule"), dir.path().join("other.houserule"));
    let impostor = App::new(None);
    create_in(&impostor, &other, "generic", "impostor");
    narrate(&impostor, "A line from the impostor file.");
    drop(impostor);

    let app = App::new(None);
    create_in(&app, &path, "generic", "in play");
    narrate(&app, "The bells ring at midnight.");
    std::fs::rename(&other, &path).unwrap();

    // Viewers reading at once: more than the app keeps connections for, so new ones are opened.
    let logs: Vec<(Role, String)> = std::thread::scope(|s| {
        let reading: Vec<_> = (0..12)
            .map(|i| {
                let who = if i % 2 == 0 { Role::Gm } else { Role::Player("ann".into()) };
                let app = &app;
                s.spawn(move || (who.clone(), ask(app, &browser(who), "log", json!({})).unwrap().to_string()))
            })
            .collect();
        reading.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for (who, log) in logs {
        assert!(!log.contains("impostor"), "{who:?} reads the file moved over the path: {log}");
        assert!(log.contains("bells ring"), "{who:?} still reads the campaign in play: {log}");
    }
    drop(app);
    let moved = houserule_app::Campaign::open(&path).expect("the file moved over the path is left whole");
    let log: Vec<String> = moved.log(&Role::Gm, 1).unwrap().iter().map(|e| serde_json::to_string(e).unwrap()).collect();
    assert_eq!(moved.info().name, "impostor", "the file moved over the path is still itself");
    assert!(!log.iter().any(|e| e.contains("bells ring")), "the campaign in play was written into it: {log:?}");
}

#[test]
fn a_deleted_campaign_in_play_is_still_read_as_its_log() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("play.houserule");
    let app = App::new(None);
    create_in(&app, &path, "generic", "in play");
    narrate(&app, "The bells ring at midnight.");
    std::fs::remove_file(&path).unwrap();
    let logs: Vec<Result<String, String>> = std::thread::scope(|s| {
        let reading: Vec<_> = (0..12)
            .map(|_| {
                s.spawn(|| {
                    ask(&app, &browser(Role::Gm), "log", json!({})).map(|v| v.to_string()).map_err(|e| format!("{e:?}"))
                })
            })
            .collect();
        reading.into_iter().map(|r| r.join().unwrap()).collect()
    });
    for log in logs {
        let log = log.expect("the log of the campaign in play is read from the file it holds");
        assert!(log.contains("bells ring"), "{log}");
    }
    assert!(!path.exists(), "reading made no new file at the path");
}
