//! Undo restores exactly: random play on every bundled ruleset, then the GM undoes to a random
//! earlier event (and again, to the latest action) and the table must equal, part for part, the
//! table as it was then — while the dice counter never goes back, the undone events stay in the
//! log voided, and the file verifies. Corrections set one value through the engine's checks.

use crate::random_play::{entropy, random_action, Dice, PLAYERS};
use crate::support::{bundled, init};
use houserule_app::catalog;
use houserule_app::request::ActRequest;
use houserule_app::undo::Correction;
use houserule_app::{Campaign, NewCampaign};
use houserule_core::dice::Entropy;
use houserule_core::event::EventKind;
use houserule_core::table::Table;
use houserule_core::view::ActionForm;
use houserule_core::Role;
use serde_json::json;

/// The parts of a table undo restores (not the dice counter, the rules or the permissions).
fn restorable(t: &Table) -> Table {
    Table {
        next_roll: 0,
        rules: Default::default(),
        typed_dice: Default::default(),
        someone_in_turns: false,
        ..t.clone()
    }
}

fn roles() -> Vec<Role> {
    let mut r: Vec<Role> = PLAYERS.iter().map(|p| Role::Player(p.to_string())).collect();
    r.push(Role::Gm);
    r.push(Role::Gm);
    r
}

/// Plays `steps` random actions; returns the table after every event so far, by event number.
fn play(c: &mut Campaign, dice: &mut Dice, steps: usize, states: &mut Vec<Table>) {
    let roles = roles();
    for _ in 0..steps {
        let role = &roles[dice.below(roles.len())];
        let forms: Vec<ActionForm> = c.actions(role);
        let Some((action, params)) = random_action(&forms, dice) else { continue };
        let e = Entropy::parse(&entropy(dice)).unwrap();
        if c.act(role, &ActRequest::new(&action, &params).with_entropy(Some(e))).is_ok() {
            states.push(c.table().clone());
        }
    }
}

fn check(ruleset: &str, seed: u64) -> Result<(), String> {
    let catalog = catalog::default_catalog();
    let r = catalog.get(ruleset).unwrap();
    let new = NewCampaign {
        name: "undo".into(),
        ruleset: &r.source,
        settings: Default::default(),
        seed: Some(seed),
        limits: Default::default(),
        house_rules: vec![],
    };
    let mut c = Campaign::create(None, new).map_err(|e| e.to_string())?;
    let mut dice = Dice(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
    // states[i] is the table after event i + 1.
    let mut states = vec![c.table().clone()];
    play(&mut c, &mut dice, 30, &mut states);
    let head = c.head().0;
    if head < 3 {
        return Ok(());
    }
    let to = 1 + dice.below(head as usize - 1) as u64;
    let counter = c.table().next_roll;
    let entry = c.undo(&Role::Gm, Some(to)).map_err(|e| format!("{ruleset}/{seed}: undo to {to}: {e}"))?;
    if restorable(c.table()) != restorable(&states[to as usize - 1]) {
        return Err(format!("{ruleset}/{seed}: undo to #{to} did not give the table as it was after #{to}"));
    }
    if c.table().next_roll != counter {
        return Err(format!("{ruleset}/{seed}: the dice counter went back"));
    }
    let voided = entry.detail.as_ref().and_then(|d| d["voided"].as_array().cloned()).unwrap_or_default();
    if voided.len() as u64 != head - to {
        return Err(format!("{ruleset}/{seed}: undo to #{to} of {head} voided {voided:?}"));
    }
    let log = c.log(&Role::Gm, 1).map_err(|e| e.to_string())?;
    if !log.iter().filter(|e| e.seq > to && e.seq <= head).all(|e| e.voided_by == Some(entry.seq)) {
        return Err(format!("{ruleset}/{seed}: the undone events are not all marked voided"));
    }
    // Play on, then undo the latest action alone.
    let mut after: Vec<Table> = vec![c.table().clone()];
    play(&mut c, &mut dice, 6, &mut after);
    if after.len() > 1 {
        let before_last = after[after.len() - 2].clone();
        c.undo(&Role::Gm, None).map_err(|e| format!("{ruleset}/{seed}: undo the last: {e}"))?;
        if restorable(c.table()) != restorable(&before_last) {
            return Err(format!("{ruleset}/{seed}: undoing the last action did not restore the table before it"));
        }
    }
    let report = crate::support::verified(&c);
    if !report.ok {
        return Err(format!("{ruleset}/{seed}: verify fails after undo: {report:?}"));
    }
    Ok(())
}

#[test]
fn undo_restores_the_table_exactly_on_every_ruleset() {
    init();
    let mut failures = vec![];
    for (ruleset, _, _) in bundled() {
        let ruleset = ruleset.as_str();
        for seed in 1..=4 {
            if let Err(e) = check(ruleset, seed) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn undo_refuses_what_cannot_be_taken_back() {
    init();
    let catalog = catalog::default_catalog();
    let r = catalog.get("generic").unwrap();
    let new = NewCampaign {
        name: "u".into(),
        ruleset: &r.source,
        settings: Default::default(),
        seed: Some(1),
        limits: Default::default(),
        house_rules: vec![],
    };
    let mut c = Campaign::create(None, new).unwrap();
    assert!(c.undo(&Role::Gm, None).unwrap_err().to_string().contains("nothing to undo"));
    let make = json!({"name": "Gandolf", "owner": "ann"});
    c.act(&Role::Gm, &ActRequest::new("create_character", make.as_object().unwrap())).unwrap();
    c.act(&Role::Gm, &ActRequest::new("roll", json!({"expr": "1d20"}).as_object().unwrap())).unwrap();
    let roll_seq = c.head().0;
    c.act(&Role::Gm, &ActRequest::new("roll", json!({"expr": "1d20"}).as_object().unwrap())).unwrap();
    let undo = c.undo(&Role::Gm, Some(roll_seq - 2)).unwrap();
    let again = c.undo(&Role::Gm, Some(roll_seq)).unwrap_err().to_string();
    assert!(again.contains(&format!("undo at #{}", undo.seq)), "inside a stretch already undone: {again}");
    assert_eq!(c.head().0, undo.seq, "a refused undo writes nothing");

    // A correction goes through the engine's checks and logs the reason.
    let hp = Correction::Field { entity: "gandolf".into(), field: "notes".into(), value: Some(json!("bruised")) };
    let e = c.correct(&Role::Gm, &hp, "").unwrap_err();
    assert_eq!(e.report().param.as_deref(), Some("reason"));
    // The character was undone above: correcting it is refused, by the engine's own check.
    let gone = c.correct(&Role::Gm, &hp, "typo").unwrap_err().to_string();
    assert!(gone.contains("gandolf"), "{gone}");
    c.undo(&Role::Gm, None).ok();
    c.act(&Role::Gm, &ActRequest::new("create_character", make.as_object().unwrap())).unwrap();
    let fixed = c.correct(&Role::Gm, &hp, "the GM misread the sheet").unwrap();
    assert_eq!(fixed.kind, EventKind::Correction);
    assert_eq!(c.table().entities["gandolf"].fields["notes"].value, json!("bruised"));
    assert!(c.correct(&Role::Gm, &hp, "again").unwrap_err().to_string().contains("nothing to correct"));
    let undone = c.undo(&Role::Gm, None).unwrap();
    assert!(
        c.table().entities["gandolf"].fields.get("notes").is_none_or(|f| f.value != json!("bruised")),
        "a correction can be undone too: {undone:?}"
    );
    assert!(crate::support::verified(&c).ok);
}

/// A plugin may say an action cannot be undone, and why; undo then refuses with that reason.
#[test]
fn an_action_the_manifest_marks_not_undoable_stays() {
    use crate::support::{campaign, params, plugin};
    let source = plugin(
        r#"
[actions.reveal_secret]
who = ["gm"]
not_undoable = "the players have heard the secret; it cannot be unheard"
"#,
        r#"fn reveal_secret(t, p) { t.say("The butler did it."); }"#,
    );
    let mut c = campaign(&source);
    c.act(&Role::Gm, &ActRequest::new("make", &params(json!({"name": "Ann"})))).unwrap();
    c.act(&Role::Gm, &ActRequest::new("reveal_secret", &params(json!({})))).unwrap();
    let e = c.undo(&Role::Gm, None).unwrap_err().to_string();
    assert!(e.contains("cannot be undone") && e.contains("cannot be unheard"), "{e}");
    let e = c.undo(&Role::Gm, Some(1)).unwrap_err().to_string();
    assert!(e.contains("reveal_secret"), "an undo reaching past it is refused too: {e}");
}
