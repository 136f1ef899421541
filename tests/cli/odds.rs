//! `houserule odds`, and dice read in a campaign's dialect.

use crate::support::{houserule, json};

#[test]
fn odds_prints_the_exact_chance_to_meet_a_target() {
    let text = houserule(&["odds", "7d6cs>=4", "--target", "3"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("exact odds"), "{}", text.stdout);
    assert!(text.stdout.contains("chance of 3 or more: 0.7734375"), "{}", text.stdout);
    let v = json(&["odds", "2d6", "--target", "7"], 0, "odds");
    assert_eq!(v["method"], "exact");
    let rows = v["table"].as_array().unwrap();
    assert_eq!(rows.len(), 11, "2d6 shows 2 to 12");
    assert_eq!(rows[0]["total"], 2);
    assert!((rows[5]["chance"].as_f64().unwrap() - 6.0 / 36.0).abs() < 1e-12, "7 comes up 6 times in 36");
    assert!((v["target"]["chance"].as_f64().unwrap() - 21.0 / 36.0).abs() < 1e-12);
    assert!(v["target"].get("interval").is_none(), "exact odds need no interval");
}

#[test]
fn odds_says_when_it_simulates() {
    let text = houserule(&["odds", "5d6u", "--target", "18"]);
    assert!(text.stdout.contains("simulated from 100000 rolls"), "{}", text.stdout);
    assert!(text.stdout.contains("95% confidence interval"), "{}", text.stdout);
    let v = json(&["odds", "5d6u", "--target", "18"], 0, "odds");
    assert_eq!(v["method"], "simulation");
    let [lo, hi] = [0, 1].map(|i| v["target"]["interval"][i].as_f64().unwrap());
    assert!(lo <= 0.5 && 0.5 <= hi, "totals 15 to 20 are equally likely, so 18+ is 1/2: ({lo}, {hi})");
}

#[test]
fn the_other_dialects_forms_are_explained_or_read_with_dialect() {
    let e = json(&["odds", "10d10>8"], 1, "error");
    let message = e["error"]["message"].as_str().unwrap();
    assert!(message.contains("column 6") && message.contains("'>=8'") && message.contains("Roll20"), "{message}");
    let v = json(&["odds", "10d10>8", "--dialect", "roll20", "--target", "3"], 0, "odds");
    assert_eq!(v["dialect"], "roll20");
    let same = json(&["odds", "10d10>=8", "--target", "3"], 0, "odds");
    assert_eq!(v["table"], same["table"], "Roll20's >8 is 8 or more, as >=8 is in both");
    let r = json(&["roll", "5d10>7f<3", "--dialect", "roll20", "--dice", "8,9,1,2,5"], 0, "roll");
    assert_eq!(r["rolls"][0]["total"], 0, "two successes, two failures");
    assert_eq!(r["rolls"][0]["dialect"], "roll20", "the roll records its dialect");
}

#[test]
fn a_campaign_on_the_roll20_dialect_reads_its_dice_that_way_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.houserule").display().to_string();
    json(&["new", &file, "--ruleset", "generic", "--seed", "3", "--set", "dice_dialect=roll20"], 0, "new");
    let acted = json(&["act", &file, "roll", "-p", "expr=10d10>=8", "--dice", "8,9,10,1,2,3,4,5,6,7"], 0, "act");
    assert!(acted.to_string().contains("\"successes\":3"), "10d10>=8 counts 3 successes in Roll20: {acted}");
    let generated = json(&["act", &file, "roll", "-p", "expr=4d6r<2cs>=5"], 0, "act");
    assert!(generated.to_string().contains("roll20"), "the roll records its dialect: {generated}");
    json(&["reveal", &file], 0, "reveal");
    let verified = json(&["verify", &file], 0, "verify");
    assert!(verified.to_string().contains("dice"), "{verified}");
    // The default dialect refuses the Roll20 form with both spellings.
    let other = dir.path().join("d.houserule").display().to_string();
    json(&["new", &other, "--ruleset", "generic", "--seed", "3"], 0, "new");
    let e = json(&["act", &other, "roll", "-p", "expr=10d10>8"], 1, "error");
    assert!(e.to_string().contains("'>=8'"), "{e}");
}

#[test]
fn a_rulesets_own_rolls_mean_the_same_in_either_dialect() {
    // Fumbles rolls `Nd6cs>=4` to count successes; Roll20 reads `cs` as a critical range that
    // counts nothing. The dialect is for what players type, never for the rules' own rolls.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.houserule").display().to_string();
    json(&["new", &file, "--ruleset", "fumbles", "--seed", "3", "--set", "dice_dialect=roll20"], 0, "new");
    json(
        &[
            "act",
            &file,
            "create_character",
            "-p",
            "name=Gandolf",
            "-p",
            "traits=[\"Magic!\",\"Fireball\",\"Levitate\"]",
        ],
        0,
        "act",
    );
    let acted = json(
        &[
            "act",
            &file,
            "trait_check",
            "-p",
            "character=gandolf",
            "-p",
            "traits=[\"Magic!\",\"Fireball\",\"Levitate\"]",
            "--dice",
            "4,6,1",
        ],
        0,
        "act",
    );
    assert!(acted.to_string().contains("\"successes\":2"), "4, 6 and 1 are two successes in any dialect: {acted}");
    json(&["reveal", &file], 0, "reveal");
    let verified = json(&["verify", &file], 0, "verify");
    assert!(verified.to_string().contains("dice"), "{verified}");
}
