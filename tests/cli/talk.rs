//! `houserule say`: posts in and out of character, to the GM, whispered; and a post as a
//! forum post (edits: crates/app/tests/integration/talk.rs).

use crate::support::{houserule, json};

#[test]
fn posts_are_written_read_by_their_audience_edited_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.houserule").display().to_string();
    json(&["new", &file, "--ruleset", "fumbles", "--seed", "5"], 0, "new");
    json(
        &["act", &file, "create_character", "-p", "name=Gandolf", "-p", "owner=ann", "-p", "traits=Magic!,Fireball"],
        0,
        "act",
    );
    // In character, to everyone, in light Markdown.
    let said = json(
        &["say", &file, "--as", "player:ann", "--character", "gandolf", "I cast **Fireball** at the _goblins_!"],
        0,
        "log-entry",
    );
    assert_eq!(said["kind"], "post");
    let body = &said["items"][0]["post"];
    assert_eq!(body["character"], "gandolf");
    assert_eq!(body["character_name"], "Gandolf");
    // Not as someone else's character, not whispering to another player.
    let e = json(&["say", &file, "--as", "player:bo", "--character", "gandolf", "Me!"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("does not play Gandolf"), "{e}");
    let e = json(&["say", &file, "--as", "player:ann", "--to", "player:bo", "psst"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("between the GM and one player"), "{e}");
    // A word to the GM: ann and the GM read it, bo does not.
    json(&["say", &file, "--as", "player:ann", "--to", "gm", "Gandolf is secretly zqcursed."], 0, "log-entry");
    let bo = houserule(&["log", &file, "--as", "player:bo"]);
    assert!(!bo.stdout.contains("zqcursed") && bo.stdout.contains("Fireball"), "{}", bo.stdout);
    let gm = houserule(&["log", &file]);
    assert!(gm.stdout.contains("zqcursed") && gm.stdout.contains("[to the GM]"), "{}", gm.stdout);
    // The forum post of the open one, in BBCode, with its verify line.
    let seq = said["seq"].to_string();
    let post = houserule(&["post", &file, &seq, "--format", "bbcode"]);
    assert!(post.stdout.contains("[b]Fireball[/b]") && post.stdout.contains("[i]goblins[/i]"), "{}", post.stdout);
    assert!(post.stdout.contains("Gandolf (ann)") && post.stdout.contains("houserule verify"), "{}", post.stdout);
    let last = houserule(&["post", &file]);
    assert!(last.stdout.contains("Fireball"), "the last post anyone may read: {}", last.stdout);
    assert!(!last.stdout.contains("zqcursed"));
}
