//! `houserule roll`.

use crate::support::{houserule, json};

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
