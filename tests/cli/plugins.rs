//! check, test, simulate.

use crate::support::{houserule, json, repo};

fn copy_generic() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = repo().join("plugins/generic");
    for entry in std::fs::read_dir(&src).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    dir
}

#[test]
fn check_accepts_a_good_plugin() {
    let generic = repo().join("plugins/generic").display().to_string();
    let v = json(&["check", &generic], 0, "check");
    assert_eq!(v["plugin"]["id"], "generic");
    assert!(v["scenarios"].as_u64().unwrap() >= 3);
}

#[test]
fn check_reports_file_line_col() {
    let dir = copy_generic();
    let rules = dir.path().join("rules.rhai");
    let text = std::fs::read_to_string(&rules).unwrap().replacen(
        "fn narrate(t, p) {\n    t.say(p.text);",
        "fn narrate(t, p) {\n    t.say(p.text;",
        1,
    );
    std::fs::write(&rules, text).unwrap();
    let d = dir.path().display().to_string();
    let r = houserule(&["check", &d]);
    assert_eq!(r.code, 1);
    let line = r.stdout.lines().next().unwrap_or_default();
    assert!(
        line.starts_with("rules.rhai:") && line.split(':').nth(1).unwrap().parse::<usize>().is_ok(),
        "file:line:col: {}",
        r.stdout
    );
    let v = json(&["check", &d], 1, "check");
    let p = &v["problems"][0];
    assert_eq!(p["file"], "rules.rhai");
    assert!(p["line"].as_u64().unwrap() > 0 && p["column"].as_u64().unwrap() > 0, "{p}");

    let manifest = dir.path().join("plugin.toml");
    std::fs::write(&rules, std::fs::read_to_string(repo().join("plugins/generic/rules.rhai")).unwrap()).unwrap();
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("params.n = { type = \"int\", min = 1, max = 100000 }", "params.n = { type = \"number\" }");
    std::fs::write(&manifest, text).unwrap();
    let r = houserule(&["check", &d]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("plugin.toml:") && r.stdout.contains("actions.move_tokens.params.n.type"),
        "the manifest error names line and field: {}",
        r.stdout
    );
}

#[test]
fn test_runs_scenarios_and_fails_when_one_fails() {
    let generic = repo().join("plugins/generic").display().to_string();
    let v = json(&["test", &generic], 0, "test");
    assert_eq!(v["failed"], 0);
    let dir = copy_generic();
    std::fs::write(
        dir.path().join("tests/wrong.toml"),
        "name = \"wrong on purpose\"\n[[step]]\nact = \"roll\"\nparams = { expr = \"2d6\" }\ndice = [3, 4]\nresult = { total = 8 }\n",
    )
    .unwrap();
    let d = dir.path().display().to_string();
    let v = json(&["test", &d], 1, "test");
    assert_eq!(v["failed"], 1);
    assert_eq!(v["scenarios"][0]["failures"][0]["message"], "roll as gm: result.total: expected 8, got 7");
}

#[test]
fn simulate_summarises_results() {
    let dir = tempfile::tempdir().unwrap();
    let setup = dir.path().join("setup.toml");
    std::fs::write(
        &setup,
        "name = \"setup\"\n[[step]]\nact = \"create_character\"\nparams = { name = \"Gandolf\", traits = [\"Magic\"] }\n[[step]]\nact = \"add_trait\"\nparams = { character = \"gandolf\", trait = \"Wizardry\", rating = 3 }\n",
    )
    .unwrap();
    let generic = repo().join("plugins/generic").display().to_string();
    let s = setup.display().to_string();
    let args = [
        "simulate",
        &generic,
        "trait_roll",
        "--setup",
        &s,
        "-p",
        "character=gandolf",
        "-p",
        "trait=Wizardry",
        "-p",
        "target=15",
        "--times",
        "20000",
    ];
    let v = json(&args, 0, "simulate");
    let rate = v["results"]["success"]["rate"].as_f64().unwrap();
    // d20 + 3 >= 15 means 12 or more on the d20: 9 faces in 20.
    assert!((rate - 0.45).abs() < 0.015, "success rate {rate} should be about 0.45");
    // Each run's dice depend only on its number: one worker or three, the same results.
    let mut seen = vec![];
    for workers in ["1", "3"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_houserule"))
            .args(args.iter().chain(&["--json"]))
            .env("HOUSERULE_SIMULATION_WORKERS", workers)
            .env("HOUSERULE_PLUGINS", repo().join("plugins"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        seen.push(v["results"].clone());
    }
    assert_eq!(seen[0], seen[1], "the results do not depend on how many workers share the runs");
    assert_eq!(seen[0], v["results"]);
}

#[test]
fn the_lab_answers_the_goblin_barbecue_question_with_and_without_a_house_rule() {
    let dir = tempfile::tempdir().unwrap();
    let easier = dir.path().join("easier.rhai");
    // Successes on 3+ instead of 4+: a wrap of the ruleset's own number.
    std::fs::write(&easier, "fn success_face() { original() - 1 }\n").unwrap();
    let fumbles = repo().join("plugins/fumbles").display().to_string();
    let setup = repo().join("plugins/fumbles/tests/lab_goblin_barbecue.toml").display().to_string();
    let csv = dir.path().join("runs.csv");
    let args = [
        "lab",
        &fumbles,
        "--setup",
        &setup,
        "--house-rules",
        &easier.display().to_string(),
        "--times",
        "400",
        "--seed",
        "3",
        "--csv",
        &csv.display().to_string(),
    ];
    let v = json(&args, 0, "lab");
    let (plain, house) = (&v["ruleset"], &v["house"]);
    let rate = |s: &serde_json::Value| s["win_rate"].as_f64().unwrap();
    assert!(rate(plain) > 0.0 && rate(plain) < 1.0, "Gandolf alone sometimes wins, sometimes not: {plain}");
    assert!(rate(house) > rate(plain), "successes on 3+ win more often: {} vs {}", rate(house), rate(plain));
    let (lo, hi) = (plain["win_interval"][0].as_f64().unwrap(), plain["win_interval"][1].as_f64().unwrap());
    assert!(lo < rate(plain) && rate(plain) < hi && hi - lo < 0.12, "a 95% interval around the rate: ({lo}, {hi})");
    let turns = &plain["outcomes"]["turns"]["histogram"];
    let counted: u64 = turns.as_array().unwrap().iter().map(|b| b[1].as_u64().unwrap()).sum();
    assert_eq!(counted, 400, "every run's turns are in the histogram");
    assert_eq!(house["house_rules"][0], "easier.rhai");
    // Every run is in the CSV, and the same seed gives the same answer.
    let lines = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert_eq!(lines, 1 + 800, "a header and one line per run on each side");
    assert_eq!(json(&args, 0, "lab"), v, "the lab is deterministic for a seed");
    // A ruleset without a lab policy says so.
    let generic = repo().join("plugins/generic").display().to_string();
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "name = \"nothing\"\n").unwrap();
    let e = json(&["lab", &generic, "--setup", &empty.display().to_string(), "--times", "10"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("cannot play the balance lab"), "{e}");
}

#[test]
fn every_rulesets_lab_set_up_plays_to_its_end() {
    let mut played = Vec::new();
    for plugin in std::fs::read_dir(repo().join("plugins")).unwrap().map(|e| e.unwrap().path()) {
        let Ok(tests) = std::fs::read_dir(plugin.join("tests")) else { continue };
        for setup in tests.map(|e| e.unwrap().path()) {
            let name = setup.file_name().unwrap().to_string_lossy().to_string();
            if !(name.starts_with("lab_") && name.ends_with(".toml")) {
                continue;
            }
            let args = ["lab", &plugin.display().to_string(), "--setup", &setup.display().to_string(), "--times", "40"];
            let v = json(&args, 0, "lab");
            let side = &v["ruleset"];
            assert_eq!(side["runs"], 40, "{name}: {v}");
            assert_eq!(side["outcomes"]["turns"]["kind"], "number", "{name}: every run says how many turns it took");
            assert_eq!(side["outcomes"]["unfinished"]["yes"], 0, "{name}: every run ends well before 200 turns");
            played.push(name);
        }
    }
    // Every bundled ruleset has a policy and a set-up, but generic, which has no scene to play.
    for ruleset in std::fs::read_dir(repo().join("plugins")).unwrap().map(|e| e.unwrap().file_name()) {
        let ruleset = ruleset.to_string_lossy();
        if ruleset == "generic" {
            continue;
        }
        assert!(
            std::fs::read_dir(repo().join("plugins").join(&*ruleset).join("tests")).unwrap().any(|e| e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("lab_")),
            "{ruleset} has a lab set-up"
        );
    }
    assert!(played.len() >= 5, "{played:?}");
}

#[test]
fn the_lab_plays_a_campaign_from_its_table_with_and_without_its_house_rules() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("goblins.houserule").display().to_string();
    ok(&["new", &file, "--ruleset", "fumbles"]);
    let traits =
        "traits=IQ of 180,Magic!,Barrier,Fireball,Levitate,Scorching Hellfire,pyromaniac,dead-pan snarker,wizard staff";
    ok(&["act", &file, "create_character", "--param", "name=Gandolf", "--param", "owner=ann", "--param", traits]);
    // Nothing to play yet: the lab says so.
    let e = json(&["lab", &file, "--times", "10"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("no scene to play"), "{e}");
    ok(&[
        "act",
        &file,
        "start_challenge",
        "--param",
        "name=War band",
        "--param",
        "cr=6",
        "--param",
        "toughness=2",
        "--param",
        "smash=1",
    ]);
    let rules = dir.path().join("house");
    std::fs::create_dir(&rules).unwrap();
    std::fs::write(rules.join("three-up.rhai"), "fn success_face() { original() - 1 }\n").unwrap();
    ok(&["house-rules", "import", &file, &rules.display().to_string()]);
    let v = json(&["lab", &file, "--times", "300", "--seed", "2"], 0, "lab");
    assert_eq!(v["house"]["house_rules"][0], "three-up.rhai", "{v}");
    let rate = |s: &serde_json::Value| s["win_rate"].as_f64().unwrap();
    assert!(rate(&v["house"]) > rate(&v["ruleset"]) + 0.05, "{v}");
    let e = json(&["lab", &file, "--setup", &file], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("is a campaign"), "{e}");
}

/// Runs `houserule` and insists it succeeded.
fn ok(args: &[&str]) {
    let run = houserule(args);
    assert_eq!(run.code, 0, "{args:?}: {}{}", run.stdout, run.stderr);
}
