//! Posts: an edit by its author while the table has not moved on, kept beside the original.

use crate::support::campaign;
use houserule_app::catalog;
use houserule_app::request::ActRequest;
use houserule_app::request::PostRequest;
use houserule_core::talk::PostDraft;
use houserule_core::Role;

#[test]
fn a_post_is_edited_by_its_author_until_the_next_action() {
    let mut c = campaign(&catalog::default_catalog().get("generic").unwrap().source);
    let ann = Role::Player("ann".into());
    let draft = PostDraft { text: "I open the dor.".into(), ..Default::default() };
    let (first, _) = c.post(&ann, &PostRequest::new(draft)).unwrap();
    let e = c.edit_post(&Role::Player("bo".into()), first.seq, "Mine now").unwrap_err();
    assert!(e.to_string().contains("only its author"), "{e}");
    let (edit, _) = c.edit_post(&ann, first.seq, "I open the door.").unwrap();
    let body = serde_json::to_value(&edit.items[0]).unwrap();
    assert_eq!(body["post"]["edits"], first.seq, "the edit says what it replaces");
    assert!(c.log(&Role::Gm, 1).unwrap().iter().any(|e| e.seq == first.seq), "the original stays in the log");
    c.act(
        &Role::Gm,
        &ActRequest::new("roll", &serde_json::from_str(r#"{"expr": "1d6"}"#).unwrap()).with_dice(Some(vec![3])),
    )
    .unwrap();
    let e = c.edit_post(&ann, edit.seq, "Too late").unwrap_err();
    assert!(e.to_string().contains("moved on"), "{e}");
}

#[test]
fn a_post_that_carried_an_action_stays_as_it_was_rolled() {
    let mut c = campaign(&catalog::default_catalog().get("generic").unwrap().source);
    let ann = Role::Player("ann".into());
    let draft = PostDraft { text: "I swing wildly.".into(), ..Default::default() };
    let params = serde_json::from_str(r#"{"expr": "1d20"}"#).unwrap();
    let acted = c.act(&ann, &ActRequest::new("roll", &params).with_dice(Some(vec![2])).with_post(draft)).unwrap();
    let e = c.edit_post(&ann, acted.event.seq, "I swing carefully.").unwrap_err();
    assert!(e.to_string().contains("as it was rolled"), "{e}");
}

#[test]
fn a_post_rolls_the_dice_it_names_as_it_is_written_and_verify_recomputes_them() {
    let mut c = campaign(&catalog::default_catalog().get("fumbles").unwrap().source);
    let (ann, bo) = (Role::Player("ann".into()), Role::Player("bo".into()));
    let post = |text: &str, to: Option<&str>| {
        let draft = PostDraft { text: text.into(), to: to.map(str::to_string), ..Default::default() };
        let mut request = PostRequest::new(draft);
        request.entropy = Some(houserule_core::dice::Entropy([7; 32]));
        request
    };
    let rolls_of = |e: &houserule_core::view::LogEntry| -> Vec<(String, i64)> {
        e.items
            .iter()
            .filter_map(|i| match serde_json::to_value(i).unwrap() {
                v if v["type"] == "roll" => {
                    Some((v["roll"]["label"].as_str()?.to_string(), v["roll"]["total"].as_i64()?))
                }
                _ => None,
            })
            .collect()
    };
    let (public, _) = c.post(&ann, &post("The random table says [[1d100]], and I add [[1d6+2]].", None)).unwrap();
    let rolled = rolls_of(&public);
    assert_eq!(rolled.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), ["1d100", "1d6+2"], "two rolls, in order");
    assert!((1..=100).contains(&rolled[0].1) && (3..=8).contains(&rolled[1].1), "totals in range: {rolled:?}");
    let seen_by_bo = c.log(&bo, public.seq).unwrap().into_iter().find(|e| e.seq == public.seq).unwrap();
    assert_eq!(rolls_of(&seen_by_bo), rolled, "everyone who reads the post sees its rolls");

    let (whisper, _) = c.post(&ann, &post("/r 1d20", Some("gm"))).unwrap();
    assert_eq!(rolls_of(&whisper).len(), 1, "'/r' rolls the rest of the line");
    let hidden = c.log(&bo, whisper.seq).unwrap().into_iter().find(|e| e.seq == whisper.seq);
    assert!(hidden.is_none_or(|e| rolls_of(&e).is_empty()), "a roll to the GM reaches no other player");

    let report = crate::support::verified(&c);
    assert!(report.ok, "{:?}", report.checks);
    assert_eq!(report.rolls_recomputed, 3, "verify recomputes every roll a post made from the seed");

    let e = c.post(&ann, &post("I try [[2d6+]] now", None)).unwrap_err();
    assert!(e.to_string().starts_with("text: the dice at column "), "the error points into the text: {e}");
    let e = c.edit_post(&ann, public.seq, "The random table says 50.").unwrap_err();
    assert!(e.to_string().contains("a roll stays as it was rolled"), "{e}");
}
