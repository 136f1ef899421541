//! share, reveal, post, info, and opening files that came from elsewhere.

use crate::support::{generic_campaign, houserule, houserule_with, json, repo};
use houserule_core::dice::RollSource;
use serde_json::Value;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

/// A played generic campaign with GM-only things in it.
fn played() -> (tempfile::TempDir, String) {
    let (d, f) = generic_campaign();
    json(&["act", &f, "create_character", "-p", "name=Frody", "-p", "owner=bo"], 0, "act");
    json(&["act", &f, "create_character", "-p", "name=Gandolf", "-p", "owner=ann"], 0, "act");
    json(&["act", &f, "create_npc", "-p", "name=Crunch", "-p", "gm_notes=Secretly afraid of kittens"], 0, "act");
    json(&["act", &f, "create_pool", "-p", "name=Doom", "-p", "visibility=gm", "-p", "initial=77"], 0, "act");
    json(&["act", &f, "secret_roll", "-p", "expr=1d20", "-p", "label=ambush odds"], 0, "act");
    json(&["act", &f, "roll", "--as", "player:ann", "-p", "expr=3d6", "-p", "label=climb"], 0, "act");
    json(&["act", &f, "roll", "--as", "player:bo", "-p", "expr=2d6"], 0, "act");
    (d, f)
}

fn bytes(path: &str) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

#[test]
fn a_full_copy_is_one_clean_file_that_opens_elsewhere_and_plays_on() {
    let (d, f) = played();
    let out = d.path().join("for-the-new-gm.houserule").display().to_string();
    let r = json(&["share", &f, &out], 0, "share");
    assert!(r.get("for_role").is_none());
    assert!(
        !Path::new(&format!("{out}-wal")).exists() && !Path::new(&format!("{out}-shm")).exists(),
        "no WAL side files"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join("campaign.houserule");
    std::fs::copy(&out, &moved).unwrap();
    let moved = moved.display().to_string();
    json(&["verify", &moved], 0, "verify");
    let out = json(&["act", &moved, "roll", "--as", "player:bo", "-p", "expr=1d6"], 0, "act");
    assert!(out["result"]["total"].as_i64().unwrap() >= 1, "the copy plays on, with the campaign's own rules");
    let info = json(&["info", &moved], 0, "info");
    assert!(info["ruleset_note"].as_str().unwrap().contains("the same rules Houserule has"), "{info}");
}

#[test]
fn a_players_copy_holds_no_gm_only_value_and_still_verifies() {
    let (d, f) = played();
    let gm_view = json(&["view", &f], 0, "view");
    assert_eq!(gm_view["pools"]["doom"]["count"], 77);
    let out = d.path().join("ann.houserule").display().to_string();
    let r = json(&["share", &f, &out, "--for", "player:ann"], 0, "share");
    assert!(r["redacted_items"].as_u64().unwrap() >= 3);
    let raw = bytes(&out);
    for secret in ["Secretly afraid of kittens", "ambush odds", "\"token\":77", "\"initial\",\"value\":77"] {
        assert!(!raw.contains(secret), "the copy must not contain {secret:?}");
    }
    let seed = rusqlite::Connection::open(&f)
        .unwrap()
        .query_row("SELECT value FROM secrets WHERE key = 'seed'", [], |r| r.get::<_, String>(0))
        .unwrap();
    assert!(!raw.contains(&seed), "the copy must not contain the dice seed");
    let v = json(&["verify", &out], 0, "verify");
    assert_eq!(v["ok"], true);
    assert_eq!(
        (v["rolls_pending"].as_u64(), v["rolls_secret"].as_u64()),
        (Some(2), Some(1)),
        "ann's and bo's rolls wait for the seed; the GM's secret roll is counted: {v}"
    );
    let view = json(&["view", &out], 0, "view");
    assert!(view["pools"]["doom"]["count"].is_null(), "the stored view is ann's");
    assert_eq!(view["viewer"], "player:ann");
    let log = serde_json::to_string(&json(&["log", &out], 0, "log")).unwrap();
    assert!(log.contains("climb") && !log.contains("ambush odds"));
    let e = json(&["act", &out, "roll", "-p", "expr=1d6"], 1, "error");
    assert_eq!(e["error"]["code"], "player_copy");
    let e = json(&["view", &out, "--as", "player:bo"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("player:ann's copy"), "{e}");

    // Later the GM shares the full file: it proves every redacted item.
    let full = d.path().join("full.houserule").display().to_string();
    json(&["share", &f, &full], 0, "share");
    let v = json(&["verify", &out, "--against", &full], 0, "verify");
    let against = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "against").unwrap();
    assert_eq!(against["ok"], true, "{against}");
}

#[test]
fn reveal_lets_anyone_check_the_rolls_and_a_redone_roll_fails() {
    let (d, f) = played();
    let before = d.path().join("bo-before.houserule").display().to_string();
    json(&["share", &f, &before, "--for", "player:bo"], 0, "share");

    // The GM replaces bo's 2d6 after the fact and rewrites the chain so every hash checks.
    redo_last_roll(&f);
    let v = json(&["verify", &f], 1, "verify");
    let dice = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "dice").unwrap();
    assert_eq!(dice["ok"], false, "the GM's own file knows the seed: {dice}");

    // A player cannot tell before the reveal: the rolls wait for their seed…
    let doctored = d.path().join("bo-doctored.houserule").display().to_string();
    json(&["share", &f, &doctored, "--for", "player:bo"], 0, "share");
    let v = json(&["verify", &doctored], 0, "verify");
    assert_eq!(v["rolls_pending"], 2, "{v}");
    // …and after it, the player's copy shows the redone roll.
    let entry = json(&["reveal", &f], 0, "reveal");
    assert_eq!(entry["kind"], "reveal");
    let revealed = d.path().join("bo-revealed.houserule").display().to_string();
    json(&["share", &f, &revealed, "--for", "player:bo"], 1, "error");
    let copy_check = houserule(&["share", &f, &revealed, "--for", "player:bo"]);
    assert!(
        copy_check.stderr.contains("does not come from the committed seed"),
        "a copy that would not verify is not written: {}",
        copy_check.stderr
    );
    let v = json(&["verify", &f], 1, "verify");
    let dice = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "dice").unwrap();
    assert!(dice["detail"].as_str().unwrap().contains("does not come from the committed seed"), "{dice}");

    // On an honest campaign, a reveal lets a player's copy recompute every roll it can see.
    let (d2, clean) = played();
    json(&["reveal", &clean], 0, "reveal");
    let clean_copy = d2.path().join("bo.houserule").display().to_string();
    json(&["share", &clean, &clean_copy, "--for", "player:bo"], 0, "share");
    let v = json(&["verify", &clean_copy], 0, "verify");
    assert_eq!(v["rolls_pending"], 0);
    assert!(
        v["rolls_recomputed"].as_u64().unwrap() >= 2 && v["rolls_secret"].as_u64().unwrap() >= 1,
        "the secret roll is counted, the others recomputed: {v}"
    );
    json(&["verify", &before], 0, "verify");
}

/// Every roll of an action mixes in the entropy its actor supplied: after a reveal, `verify`
/// recomputes each from the seed, its counter and that entropy — and a roll whose recorded
/// entropy was changed (the chain resealed, so only the dice check can tell) fails.
#[test]
fn rolls_mix_in_the_actors_entropy_and_verify_recomputes_it() {
    let (_d, f) = played();
    // The roll doctored below has many dice: other entropy gives the same faces of a 2d6 once
    // in 36 (the recomputed roll then matches, and rightly so), which made this test flaky.
    json(&["act", &f, "roll", "--as", "player:ann", "-p", "expr=20d20"], 0, "act");
    let log = json(&["log", &f], 0, "log");
    let generated: Vec<&Value> = log
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["items"].as_array().unwrap())
        .filter(|i| i["type"] == "roll" && i["roll"]["source"]["generated"].is_object())
        .collect();
    assert!(!generated.is_empty());
    for roll in &generated {
        let e = roll["roll"]["source"]["generated"]["entropy"].as_str().unwrap_or("");
        assert_eq!(e.len(), 64, "each generated roll records its action's entropy: {roll}");
    }
    json(&["reveal", &f], 0, "reveal");
    let v = json(&["verify", &f], 0, "verify");
    assert!(v["rolls_recomputed"].as_u64().unwrap() >= generated.len() as u64, "{v}");

    doctor_last_roll(&f, |roll| {
        if let RollSource::Generated { entropy, .. } = &mut roll.source {
            let mut other = entropy.expect("recorded").0;
            other[0] ^= 1;
            *entropy = Some(houserule_core::dice::Entropy(other));
        }
    });
    let v = json(&["verify", &f], 1, "verify");
    let dice = v["checks"].as_array().unwrap().iter().find(|c| c["name"] == "dice").unwrap();
    assert!(dice["detail"].as_str().unwrap().contains("does not come from the committed seed"), "{dice}");
}

/// Changes the faces of the last generated roll (a 2d6: every die turned to another face, so
/// the roll differs even when it was a double six) and recomputes every hash after it.
fn redo_last_roll(file: &str) {
    doctor_last_roll(file, |roll| {
        for d in roll.terms[0].dice.iter_mut() {
            d.face = if d.face == 6 { 5 } else { 6 };
        }
        roll.total = roll.terms[0].dice.iter().map(|d| d.face).sum();
    });
}

/// Changes the last generated roll with `change` and recomputes every hash after it, as a
/// GM editing their own file would.
fn doctor_last_roll(file: &str, change: impl Fn(&mut houserule_core::dice::Roll)) {
    let conn = rusqlite::Connection::open(file).unwrap();
    let rows: Vec<(i64, String, String)> = conn
        .prepare("SELECT seq, header, items FROM events ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let last = rows.iter().rev().find(|(_, _, items)| items.contains("\"generated\"")).unwrap().0;
    let mut prev = houserule_core::event::GENESIS;
    for (seq, header, items) in rows {
        let mut items: Vec<houserule_core::event::Item> = serde_json::from_str(&items).unwrap();
        if seq == last {
            for item in items.iter_mut() {
                if let Some(houserule_core::event::Body::Roll { roll }) = &mut item.body {
                    change(roll);
                }
            }
        }
        let mut header: houserule_core::event::Header = serde_json::from_str(&header).unwrap();
        header.prev = hex::encode(prev);
        let ev = houserule_core::event::Event { header, items };
        let commitments = ev.commitments().unwrap();
        let hash = houserule_core::event::event_hash(&prev, seq as u64, &ev.header_json(), &commitments);
        conn.execute(
            "UPDATE events SET hash = ?1, header = ?2, items = ?3, commitments = ?4 WHERE seq = ?5",
            rusqlite::params![
                hash.to_vec(),
                ev.header_json(),
                serde_json::to_string(&ev.items).unwrap(),
                commitments,
                seq
            ],
        )
        .unwrap();
        prev = hash;
    }
}

fn refused(file: &str, expected: &str) {
    let r = houserule(&["view", file]);
    assert_eq!(r.code, 1, "{file} must be refused: {} {}", r.stdout, r.stderr);
    assert!(r.stderr.contains(expected), "expected {expected:?} in: {}", r.stderr);
}

#[test]
fn a_damaged_or_doctored_file_is_refused_with_its_own_message() {
    // A corrupted page.
    let (d, f) = played();
    let corrupt = d.path().join("corrupt.houserule").display().to_string();
    json(&["share", &f, &corrupt], 0, "share");
    let len = std::fs::metadata(&corrupt).unwrap().len();
    let mut file = std::fs::OpenOptions::new().write(true).open(&corrupt).unwrap();
    // Half the file's pages, from a quarter in: the damage lands on the tables themselves.
    file.seek(SeekFrom::Start(len / 4)).unwrap();
    file.write_all(&vec![0xA5; (len / 2) as usize]).unwrap();
    drop(file);
    refused(&corrupt, "integrity check failed");

    // A truncated file.
    let cut = d.path().join("cut.houserule").display().to_string();
    json(&["share", &f, &cut], 0, "share");
    let file = std::fs::OpenOptions::new().write(true).open(&cut).unwrap();
    file.set_len(std::fs::metadata(&cut).unwrap().len() / 3).unwrap();
    drop(file);
    refused(&cut, "integrity check failed");

    // An edited event.
    let edited = d.path().join("edited.houserule").display().to_string();
    json(&["share", &f, &edited], 0, "share");
    rusqlite::Connection::open(&edited)
        .unwrap()
        .execute("UPDATE events SET items = replace(items, 'Frody', 'Fredo') WHERE seq = 2", [])
        .unwrap();
    refused(&edited, "hash chain check failed: event 2 was edited");

    // A reordered event.
    let moved = d.path().join("moved.houserule").display().to_string();
    json(&["share", &f, &moved], 0, "share");
    rusqlite::Connection::open(&moved)
        .unwrap()
        .execute_batch("UPDATE events SET seq = 100 WHERE seq = 3; UPDATE events SET seq = 3 WHERE seq = 4; UPDATE events SET seq = 4 WHERE seq = 100;")
        .unwrap();
    refused(&moved, "hash chain check failed at event 3");

    // A newer schema.
    let newer = d.path().join("newer.houserule").display().to_string();
    json(&["share", &f, &newer], 0, "share");
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'", [])
        .unwrap();
    refused(&newer, "schema check failed: made by a newer Houserule (campaign schema 99");

    // A carried script that does not compile.
    let broken = d.path().join("broken.houserule").display().to_string();
    json(&["share", &f, &broken], 0, "share");
    let conn = rusqlite::Connection::open(&broken).unwrap();
    conn.execute("UPDATE blobs SET content = 'fn narrate(t, p) { t.say(p.text; }' WHERE hash = (SELECT hash FROM sources WHERE path = 'rules.rhai')", []).unwrap();
    drop(conn);
    refused(&broken, "rules check failed: ruleset/rules.rhai is not the text the log committed to");
}

#[test]
fn a_campaign_keeps_its_own_pinned_ruleset_and_says_so() {
    // A campaign made when Houserule bundled an older Generic table: made from a copy of it.
    let d = tempfile::tempdir().unwrap();
    let old = d.path().join("plugins/generic");
    std::fs::create_dir_all(&old).unwrap();
    for file in std::fs::read_dir(repo().join("plugins/generic")).unwrap() {
        let path = file.unwrap().path();
        if path.is_file() {
            let text = std::fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap();
            std::fs::write(old.join(name), text.replace("version = \"1.0.0\"", "version = \"0.9.0\"")).unwrap();
        }
    }
    let f = d.path().join("old.houserule").display().to_string();
    let made = houserule_with(&["new", &f, "--ruleset", "generic"], &d.path().join("plugins"));
    assert_eq!(made.code, 0, "{}", made.stderr);
    let info = json(&["info", &f], 0, "info");
    assert!(
        info["ruleset_note"]
            .as_str()
            .unwrap()
            .contains("keeps its own copy of Generic table 0.9.0 (Houserule bundles 1.0.0)"),
        "{info}"
    );
    json(&["act", &f, "roll", "-p", "expr=1d6"], 0, "act");
    json(&["verify", &f], 0, "verify");
}

#[test]
fn a_post_shows_every_die_and_a_line_that_verifies() {
    let (_d, f) = played();
    let md = houserule(&["post", &f]);
    assert_eq!(md.code, 0, "{}", md.stderr);
    assert!(md.stdout.starts_with("**bo** — *roll*"), "{}", md.stdout);
    let v = json(&["post", &f, "--format", "bbcode"], 0, "post");
    let post = v["post"].as_str().unwrap();
    assert!(post.contains("[b]bo[/b]") && post.contains("[quote]"), "{post}");
    let seq = v["event"]["seq"].as_u64().unwrap().to_string();
    let hash = v["event"]["hash"].as_str().unwrap().to_string();
    assert!(post.contains(&format!("--event {seq} --hash {hash}")));
    let faces: Vec<String> = v["event"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "roll")
        .flat_map(|i| {
            i["roll"]["terms"][0]["dice"].as_array().unwrap().iter().map(|d| d["face"].to_string()).collect::<Vec<_>>()
        })
        .collect();
    assert!(post.contains(&format!("2d6 [{}]", faces.join(", "))), "every die is in the post: {post}");
    json(&["verify", &f, "--event", &seq, "--hash", &hash], 0, "verify");
    json(&["verify", &f, "--event", &seq, "--hash", "0123456789abcdef"], 1, "verify");
    let secret = houserule(&["post", &f, "6"]);
    assert!(
        !secret.stdout.contains("ambush odds") && !secret.stdout.contains("1d20 ["),
        "a post shows only public values: {}",
        secret.stdout
    );
}
