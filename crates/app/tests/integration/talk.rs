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
