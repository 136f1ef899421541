//! Decks through real actions on a campaign file: a shuffle is rolled from the campaign's dice
//! and the file verifies (every shuffle rolled again), an undo puts a dealt card back on the
//! pile, and a player never receives another's face-down card nor the pile's order.

use crate::support::{campaign_file, params, plugin, verified};
use houserule_app::request::ActRequest;
use houserule_app::Campaign;
use houserule_core::Role;
use serde_json::{json, Value};

const MANIFEST: &str = r#"
[actions.deck]
who = ["gm"]

[actions.deal]
who = ["gm"]

[actions.shuffle]
who = ["gm"]
"#;

const RULES: &str = r#"
fn deck(t, p) { t.new_deck("d"); }
fn deal(t, p) { t.draw_card("d", "mack", false); t.draw_card("d", "dutch", true); }
fn shuffle(t, p) { t.discard_hands("d"); t.shuffle_deck("d"); }
"#;

fn act(c: &mut Campaign, role: &Role, action: &str, p: Value) -> Value {
    let acted = c.act(role, &ActRequest::new(action, &params(p))).unwrap_or_else(|e| panic!("{action}: {e}"));
    json!({"event": acted.event, "result": acted.result})
}

#[test]
fn a_dealt_card_goes_back_on_undo_and_the_file_verifies_every_shuffle() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = campaign_file(&plugin(MANIFEST, RULES), &dir.path().join("cards.houserule"));
    let gm = Role::Gm;
    act(&mut c, &gm, "make", json!({"name": "Mack", "owner": "ann"}));
    act(&mut c, &gm, "make", json!({"name": "Dutch", "owner": "bob"}));
    act(&mut c, &gm, "deck", json!({}));
    let before = c.table().decks["d"].clone();
    assert_eq!(before.pile.len(), 54, "a new standard deck is all in the pile");
    assert_ne!(before.pile, houserule_core::deck::standard_54(), "the seeded shuffle moved the cards");
    act(&mut c, &gm, "deal", json!({}));
    let dealt = c.table().decks["d"].clone();
    assert_eq!(dealt.hand("mack", false), &before.pile[..1], "Mack was dealt the top card face down");
    c.undo(&gm, Some(c.head().0 - 1)).unwrap();
    assert_eq!(c.table().decks["d"], before, "the undo puts both dealt cards back on top of the pile");
    act(&mut c, &gm, "deal", json!({}));
    let mack_card = c.table().decks["d"].hand("mack", false)[0].clone();
    let bob = Role::Player("bob".into());
    let view = c.view(&bob);
    let mack = view.decks[0].hands.iter().find(|h| h.holder == "mack").expect("bob sees Mack holds a card");
    assert!(mack.down.is_empty() && mack.down_count == 1, "bob sees only that Mack holds one face-down card");
    let log: Vec<Value> = (1..=c.head().0).map(|seq| json!(c.log(&bob, seq).unwrap())).collect();
    let text = serde_json::to_string(&log).unwrap();
    assert!(!text.contains("\"holder\":\"mack\",\"face_up\":false"), "bob's log shows Mack's face-down hand");
    assert!(!text.contains("\"part\":\"pile\""), "bob's log shows the draw pile's order");
    let ann = c.view(&Role::Player("ann".into()));
    assert_eq!(ann.decks[0].hands.iter().find(|h| h.holder == "mack").unwrap().down, [mack_card], "ann sees hers");
    act(&mut c, &gm, "shuffle", json!({}));
    let report = verified(&c);
    assert!(report.ok, "the file verifies, every shuffle rolled again: {report:?}");
}
