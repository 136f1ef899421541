//! `houserule roll`.

use crate::support::{houserule, json, repo};
use serde_json::Value;

#[test]
fn roll_keeps_every_face_and_counts_successes() {
    let v = json(&["roll", "7d6cs>=4", "--dice", "4,5,6,1,2,3,4"], 0, "roll");
    assert_eq!(v["rolls"][0]["successes"], 4);
    let v = json(&["roll", "4dF+1", "--dice=+,+,-,0"], 0, "roll");
    assert_eq!(v["rolls"][0]["total"], 2);
    let v = json(&["roll", "1d6!", "--dice", "6,6,3"], 0, "roll");
    assert_eq!(v["rolls"][0]["total"], 15);
    let dice = v["rolls"][0]["terms"][0]["dice"].as_array().unwrap();
    assert_eq!(dice.len(), 3, "an exploding die keeps each face");
    assert_eq!(dice[0]["exploded"], true);
}

#[test]
fn seeded_rolls_repeat_and_times_gives_a_distribution() {
    let a = json(&["roll", "3d6", "--seed", "9", "--times", "6"], 0, "roll");
    let b = json(&["roll", "3d6", "--seed", "9", "--times", "6"], 0, "roll");
    assert_eq!(a["rolls"], b["rolls"], "the same seed gives the same rolls");
    assert_eq!(a["rolls"].as_array().unwrap().len(), 6);
    let many = json(&["roll", "2d6", "--seed", "1", "--times", "36000"], 0, "roll");
    let sevens =
        many["stats"]["histogram"].as_array().unwrap().iter().find(|h| h[0] == 7).unwrap()[1].as_u64().unwrap();
    assert!((5700..6300).contains(&sevens), "2d6 shows 7 about 1 time in 6: {sevens} of 36000");
    let text = houserule(&["roll", "2d6", "--seed", "1", "--times", "1000"]);
    assert!(text.stdout.contains("1000 rolls of 2d6"), "{}", text.stdout);
}

#[test]
fn bad_expressions_and_limits_are_errors_with_a_column() {
    let e = json(&["roll", "4d6kh"], 0, "roll");
    assert_eq!(e["rolls"][0]["terms"][0]["term"], "4d6kh1", "a bare kh keeps one");
    let e = json(&["roll", "4d6 x"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("column 5"), "{e}");
    let e = json(&["roll", "2000d6"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("limit of 1000"), "{e}");
    let e = json(&["roll", "1d6!", "--dice", &vec!["6"; 150].join(",")], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("more than 100 times"), "{e}");
    let e = json(&["roll", "1d6", "--dice", "7"], 1, "error");
    assert!(e["error"]["message"].as_str().unwrap().contains("cannot come up on a d6"), "{e}");
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // A thousand rolls of JSON: far more than a pipe holds, so the reader leaves first.
    let mut child = Command::new(env!("CARGO_BIN_EXE_houserule"))
        .args(["roll", "20d6", "--times", "1000", "--seed", "1", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(0) | Some(141)), "exit {:?}, stderr: {stderr}", out.status.code());
    assert!(!stderr.contains("panicked"), "no panic on a closed pipe: {stderr}");
    assert!(stderr.trim().is_empty(), "nothing to say about it: {stderr}");
}

/// The total of the one roll `houserule roll EXPR --dice FACES [--dialect D] --json` makes.
fn total(expr: &str, faces: &str, dialect: &str) -> i64 {
    let v = json(&["roll", expr, "--dice", faces, "--dialect", dialect], 0, "roll");
    v["rolls"][0]["total"].as_i64().unwrap_or_else(|| panic!("{expr} on {faces}: no total in {v}"))
}

#[test]
fn a_group_that_keeps_a_plain_number_totals_it() {
    let text = houserule(&["roll", "{1d4, 4}kh1", "--dice", "2"]);
    assert!(text.stdout.contains("= 4 (forced)"), "the 4 beats a 2: {}", text.stdout);
    assert_eq!(total("{1d6, 3}kh1", "1", "houserule"), 3, "the 3 beats a 1");
    assert_eq!(total("{1d6, 3}kh1", "5", "houserule"), 5, "a 5 beats the 3");
    assert_eq!(total("{1d20+5, 15}kl1", "17", "houserule"), 15, "15 is lower than 17+5");
    assert_eq!(total("{1d20+5, 15}kl1", "3", "houserule"), 8, "3+5 is lower than 15");
    assert_eq!(total("{1d4, 2}cs>=2", "1", "houserule"), 1, "the 2 counts as a roll of its own");
}

#[test]
fn a_success_count_keeps_its_arithmetic_in_text_json_statistics_and_odds() {
    let text = houserule(&["roll", "3d6cs>=4+2", "--dice", "4,5,1"]);
    assert!(text.stdout.contains("= 4 (2 successes) (forced)"), "{}", text.stdout);
    let v = json(&["roll", "3d6cs>=4+2", "--dice", "4,5,1"], 0, "roll");
    assert_eq!((v["rolls"][0]["total"].as_i64(), v["rolls"][0]["successes"].as_i64()), (Some(4), Some(2)));
    assert_eq!(total("3d6cs>=4+1d4", "4,5,1,3", "houserule"), 5, "the d4 is rolled and added");
    let v = json(&["roll", "3d6cs>=4+2", "--dice", "4,5,1,4,4,4", "--times", "2"], 0, "roll");
    assert_eq!(v["stats"]["histogram"], serde_json::json!([[4, 1], [5, 1]]), "statistics are of totals: {v}");
    // Many seeded rolls land only on totals the odds give, and as often as they say.
    let many = json(&["roll", "3d6cs>=4+1d4", "--seed", "5", "--times", "20000"], 0, "roll");
    let odds = json(&["odds", "3d6cs>=4+1d4"], 0, "odds");
    let chance = |t: i64| {
        odds["table"].as_array().unwrap().iter().find(|r| r["total"] == t).map(|r| r["chance"].as_f64().unwrap())
    };
    for bin in many["stats"]["histogram"].as_array().unwrap() {
        let (t, n) = (bin[0].as_i64().unwrap(), bin[1].as_f64().unwrap());
        let p = chance(t).unwrap_or_else(|| panic!("rolled a total of {t}, which the odds say cannot come up"));
        let spread = 5.0 * (20_000.0 * p * (1.0 - p)).sqrt() + 5.0;
        assert!((n - 20_000.0 * p).abs() <= spread, "a total of {t}: rolled {n} times in 20000, the odds say {p}");
    }
}

#[test]
fn roll20_comparisons_take_in_their_number() {
    assert_eq!(total("10d10>8", "8,8,8,8,8,8,8,8,8,8", "roll20"), 10, "ten 8s are ten successes on Roll20");
    assert_eq!(total("3d6!>4", "4,1,5,2,3", "roll20"), 15, "a 4 explodes");
    assert_eq!(total("2d8r<2", "2,5,1,3", "roll20"), 8, "a 2 is rerolled");
    assert_eq!(total("5d10>7f<3", "7,8,3,4,5", "roll20"), 1, "7 succeeds, 3 fails");
    assert_eq!(total("{3d20+5}>21", "16,15,20", "roll20"), 2, "16+5 reaches 21");
    let v = json(&["roll", "1d20cs>19", "--dialect", "roll20", "--dice", "19"], 0, "roll");
    assert_eq!(v["rolls"][0]["terms"][0]["dice"][0]["critical"], true, "19 is in the critical range: {v}");
}

#[test]
fn the_default_dialect_reads_what_only_roll20_means_and_refuses_what_conflicts() {
    assert_eq!(total("10d10>=8", "8,9,10,1,2,3,4,5,6,7", "houserule"), 3);
    assert_eq!(total("{2d6, 2d6}>=7", "3,4,6,2", "houserule"), 2);
    let e = json(&["roll", "10d10>8"], 1, "error");
    let message = e["error"]["message"].as_str().unwrap();
    assert!(message.contains("column 6") && message.contains("'>=8'") && message.contains("Roll20"), "{message}");
}

#[test]
fn each_roll_is_listed_only_when_few_are_asked_for() {
    let listed = |args: &[&str]| json(args, 0, "roll")["rolls"].as_array().unwrap().len();
    assert_eq!(listed(&["roll", "1d6", "--seed", "1", "--times", "1000"]), 1000);
    assert_eq!(listed(&["roll", "1d6", "--seed", "1", "--times", "1001"]), 0, "above 1000 only the statistics");
    let lines = |times: &str| {
        let r = houserule(&["roll", "1d6", "--seed", "1", "--times", times]);
        r.stdout.lines().filter(|l| l.starts_with("1d6 [")).count()
    };
    assert_eq!((lines("20"), lines("21")), (20, 0), "the text lists up to 20 rolls");
    let help = houserule(&["roll", "--help"]);
    assert!(help.stdout.contains("at most 20 (1000 with --json)"), "--help says the rule: {}", help.stdout);
}

/// `houserule ARGS` with at most `kib` KiB of data memory (Linux's `ulimit -d`).
#[cfg(target_os = "linux")]
fn houserule_within(kib: u32, args: &[&str]) -> std::process::Output {
    let script = format!("ulimit -d {kib} && exec \"$0\" \"$@\"");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_houserule"))
        .args(args)
        .env("HOUSERULE_PLUGINS", repo().join("plugins"))
        .output()
        .expect("sh runs")
}

#[cfg(target_os = "linux")]
#[test]
fn a_hundred_thousand_rolls_fit_in_the_memory_of_ten() {
    // 32 MiB of data: ten rolls need a few; keeping 100,000 rolls of 20d6 needed hundreds.
    let few = houserule_within(32 * 1024, &["roll", "20d6", "--seed", "1", "--times", "10"]);
    assert!(few.status.success(), "ten rolls run within the limit: {}", String::from_utf8_lossy(&few.stderr));
    for extra in [&[][..], &["--json"][..]] {
        let mut args = vec!["roll", "20d6", "--seed", "1", "--times", "100000"];
        args.extend_from_slice(extra);
        let out = houserule_within(32 * 1024, &args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?} within 32 MiB: {}", String::from_utf8_lossy(&out.stderr));
        if extra.is_empty() {
            assert!(stdout.contains("100000 rolls of 20d6"), "{stdout}");
        } else {
            let v: Value = serde_json::from_str(&stdout).unwrap();
            let counted: u64 = v["stats"]["histogram"].as_array().unwrap().iter().map(|b| b[1].as_u64().unwrap()).sum();
            assert_eq!(counted, 100_000, "every roll is in the statistics");
        }
    }
}
