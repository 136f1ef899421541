//! A house rule the GM keeps secret reaches no player (issue 36, point 1): not its name, its
//! source nor what it does — in the rule book, the table, the log or the events a player is
//! told of. The GM's own book holds it, marked, so the test would see a leak if there were one.

use crate::support::{ask, browser, create_in, init};
use houserule_app::events::AppEvent;
use houserule_app::front::App;
use houserule_core::Role;
use serde_json::{json, Value};

const SECRET_NAME: &str = "hidden-plan.rhai";
const SECRET_MARK: &str = "zq-the-duke-is-the-thief";

/// Every answer a player's browser gets when it opens the table and the Rules tab.
fn player_hears(app: &App, who: &str) -> Vec<String> {
    let ann = browser(Role::Player(who.into()));
    ["campaign", "rule_book", "table", "log", "view", "actions", "manifest"]
        .iter()
        .map(|m| ask(app, &ann, m, json!({})).map(|v| v.to_string()).unwrap_or_else(|e| format!("{m} refused: {e:?}")))
        .collect()
}

fn mentions_secret(text: &str) -> bool {
    text.contains("hidden-plan") || text.contains(SECRET_MARK)
}

#[test]
fn a_secret_house_rule_reaches_no_player() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let app = App::new(None);
    create_in(&app, &dir.path().join("secret.houserule"), "generic", "secrets");
    let events = app.subscribe();
    let gm = browser(Role::Gm);
    let public = json!({"name": "louder.rhai", "text": "fn narrate(t, p) { original(t, p) }\n"});
    ask(&app, &gm, "save_house_rule", public).expect("the public rule loads");
    let secret_text = format!("// {SECRET_MARK}\nfn on_round_end(t, round) {{ original(t, round) }}\n");
    let secret = json!({"name": SECRET_NAME, "text": secret_text, "secret": true});
    let report = ask(&app, &gm, "save_house_rule", secret).expect("the secret rule loads");
    assert!(report.to_string().contains(SECRET_NAME), "the GM's own save names it: {report}");

    let gm_book: Value = ask(&app, &gm, "rule_book", json!({})).unwrap();
    let marked = gm_book["house"].as_array().unwrap().iter().find(|h| h["name"] == SECRET_NAME);
    assert_eq!(marked.map(|h| h["secret"].clone()), Some(json!(true)), "the GM's book holds it, marked: {gm_book}");

    let heard = player_hears(&app, "ann");
    let leaks: Vec<&String> = heard.iter().filter(|t| mentions_secret(t)).collect();
    assert!(leaks.is_empty(), "ann was told of the secret rule: {leaks:?}");
    assert!(heard[1].contains("louder.rhai"), "ann reads the public rule: {}", heard[1]);
    assert!(heard[2].contains("keep secret"), "ann's log says a secret rule changed: {}", heard[2]);

    let told: Vec<String> = events
        .try_iter()
        .filter(|e| !matches!(e, AppEvent::Session { event } if !event.may_reach(&Role::Player("ann".into()))))
        .map(|e| serde_json::to_string(&e).unwrap())
        .collect();
    assert!(told.iter().any(|e| e.contains("reloaded")), "ann is told the rules changed: {told:?}");
    assert!(!told.iter().any(|e| mentions_secret(e)), "an event ann is told of names the secret rule: {told:?}");
}

#[test]
fn a_rule_made_secret_later_leaves_the_players_book() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let app = App::new(None);
    create_in(&app, &dir.path().join("later.houserule"), "generic", "later");
    let gm = browser(Role::Gm);
    let rule =
        json!({"name": SECRET_NAME, "text": format!("// {SECRET_MARK}\nfn narrate(t, p) {{ original(t, p) }}\n")});
    ask(&app, &gm, "save_house_rule", rule).unwrap();
    let ann = browser(Role::Player("ann".into()));
    let before = ask(&app, &ann, "rule_book", json!({})).unwrap().to_string();
    assert!(mentions_secret(&before), "a rule not secret is ann's to read: {before}");
    ask(&app, &gm, "house_rule_secret", json!({"name": SECRET_NAME, "secret": true})).unwrap();
    let after = ask(&app, &ann, "rule_book", json!({})).unwrap().to_string();
    assert!(!mentions_secret(&after), "once secret, ann's book holds nothing of it: {after}");
    let refused = ask(&app, &ann, "house_rule_secret", json!({"name": SECRET_NAME, "secret": false}));
    assert!(refused.is_err(), "a player cannot share the GM's secret rule");
}

/// The bytes of a SQLite file and its side files, as they would travel.
fn file_bytes(path: &std::path::Path) -> Vec<u8> {
    let mut bytes = std::fs::read(path).unwrap();
    for side in ["-wal", "-journal"] {
        bytes.extend(std::fs::read(format!("{}{side}", path.display())).unwrap_or_default());
    }
    bytes
}

#[test]
fn a_players_copy_holds_nothing_of_a_secret_rule_and_a_full_copy_keeps_it_secret() {
    use houserule_app::share::{compare, share, SharedCopy};
    init();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("copies.houserule");
    let app = App::new(None);
    create_in(&app, &file, "generic", "copies");
    let gm = browser(Role::Gm);
    let public = json!({"name": "louder.rhai", "text": "fn narrate(t, p) { original(t, p) }\n"});
    ask(&app, &gm, "save_house_rule", public).unwrap();
    let secret_text = format!("// {SECRET_MARK}\nfn on_round_end(t, round) {{ original(t, round) }}\n");
    ask(&app, &gm, "save_house_rule", json!({"name": SECRET_NAME, "text": secret_text, "secret": true})).unwrap();
    ask(&app, &gm, "act", json!({"action": "narrate", "params": {"text": "The lamps gutter."}})).unwrap();

    let copy = dir.path().join("ann.houserule");
    share(&file, &copy, Some(&Role::Player("ann".into()))).expect("ann's copy is made");
    let bytes = file_bytes(&copy);
    let text = String::from_utf8_lossy(&bytes);
    assert!(!mentions_secret(&text), "ann's copy holds the secret rule's name or source");
    assert!(text.contains("louder.rhai"), "ann's copy carries the public house rule");
    let opened = SharedCopy::open(&copy).unwrap();
    let report = opened.verify();
    assert!(report.ok, "ann's copy verifies on its own: {report:?}");
    let full = houserule_app::store::Store::open(&file).unwrap();
    let against = compare(opened.store(), &full);
    assert!(against.ok, "every event of ann's copy is in the full file: {against:?}");

    let whole = dir.path().join("whole.houserule");
    share(&file, &whole, None).expect("a full copy is made");
    let store = houserule_app::store::Store::open(&whole).unwrap();
    let marks = houserule_app::reload::secret_names(&store).unwrap();
    assert!(marks.contains(SECRET_NAME), "the full copy keeps the rule secret: {marks:?}");
}
