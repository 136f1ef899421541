//! No player, script or file writes to the GM's terminal: every control character — each of
//! C0 but NUL (which no argument can hold), DEL, C1, the line separators and the controls that
//! reorder text — given through every command that prints what players write (`act`, `say`,
//! then `log`, `view`, `info`, `actions`), and carried by a ruleset's own texts, reaches
//! neither stdout nor stderr raw, and no line break anyone typed starts a line of its own.

use crate::support::{generic_campaign, houserule, houserule_with, json, repo, Run};

/// Every character the rule for text refuses somewhere, but NUL.
fn controls() -> Vec<char> {
    let c0 = (1u32..0x20).filter_map(char::from_u32);
    let c1 = (0x7fu32..0xa0).filter_map(char::from_u32);
    let others = ['\u{061C}', '\u{200E}', '\u{200F}', '\u{2028}', '\u{2029}'];
    let bidi = ('\u{202A}'..='\u{202E}').chain('\u{2066}'..='\u{2069}');
    c0.chain(c1).chain(others).chain(bidi).collect()
}

/// A line a player could forge if their line break started a line.
const FORGED: &str = "#99 roll by gm [20]";

/// Neither output holds a control character but the line breaks between lines, and no line
/// starts as a forged log line.
fn clean(run: &Run, what: &str) {
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        for line in text.split('\n') {
            let raw = line.chars().find(|c| c.is_control() || controls().contains(c));
            assert!(raw.is_none(), "{what}: {stream} holds U+{:04X} raw: {line:?}", raw.unwrap_or('\0') as u32);
            assert!(!line.starts_with(FORGED), "{what}: {stream} shows a forged line: {line:?}");
        }
    }
}

#[test]
fn what_players_type_never_reaches_the_terminal_raw() {
    let (_dir, file) = generic_campaign();
    json(&["act", &file, "create_character", "-p", "name=Gandolf", "-p", "owner=ann"], 0, "act");
    for c in controls() {
        let text = format!("x{c}y\n{FORGED}");
        let shown = format!("U+{:04X}", c as u32);
        let runs = [
            houserule(&["act", &file, "narrate", "-p", &format!("text={text}")]),
            houserule(&["act", &file, "create_character", "-p", &format!("name={text}")]),
            houserule(&["act", &file, "add_trait", "-p", "character=gandolf", "-p", &format!("trait={text}")]),
            houserule(&["act", &file, &format!("bad{c}action")]),
            houserule(&["act", &file, "narrate", "-p", &format!("wrong{c}param=1")]),
            houserule(&["say", &file, "--as", "player:ann", &text]),
            houserule(&["say", &file, "--as", "player:ann", "--to", &format!("player:x{c}"), "hi"]),
            houserule(&["say", &file, "--as", "player:ann", "--character", &format!("gan{c}dolf"), "hi"]),
        ];
        for (i, run) in runs.iter().enumerate() {
            clean(run, &format!("{shown}, command {}", i + 1));
        }
    }
    for args in [
        vec!["log", &file],
        vec!["log", &file, "--json"],
        vec!["view", &file],
        vec!["view", &file, "--json"],
        vec!["info", &file],
        vec!["actions", &file],
    ] {
        clean(&houserule(&args), &args.join(" "));
    }
    let log = houserule(&["log", &file]);
    assert!(
        log.stdout.contains("\\n#99 roll by gm"),
        "a line break typed in narration is shown as one: {}",
        log.stdout
    );
}

#[test]
fn a_rulesets_own_texts_never_reach_the_terminal_raw() {
    let plugins = tempfile::tempdir().unwrap();
    let dir = plugins.path().join("loud");
    std::fs::create_dir(&dir).unwrap();
    let generic = repo().join("plugins/generic");
    for f in std::fs::read_dir(&generic).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()) {
        std::fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
    }
    let manifest = std::fs::read_to_string(dir.join("plugin.toml")).unwrap();
    let loud = manifest
        .replacen("id = \"generic\"", "id = \"loud\"", 1)
        .replace("label = \"Narrate\"", "label = \"Narrate\\u001b]0;owned\\u0007\\n#99 roll by gm [20]\"");
    assert_ne!(loud, manifest, "the label is planted");
    std::fs::write(dir.join("plugin.toml"), loud).unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("l.houserule").display().to_string();
    let made = houserule_with(&["new", &file, "--ruleset", "loud", "--seed", "1"], plugins.path());
    assert_eq!(made.code, 0, "{}", made.stderr);
    for args in [vec!["actions", &file], vec!["actions", &file, "--json"], vec!["rulesets"]] {
        clean(&houserule_with(&args, plugins.path()), &args.join(" "));
    }
}
