//! One redaction, everywhere: random play on every bundled ruleset — actions, and posts to
//! everyone, to the GM and whispered, some carrying an action — and for every player
//! everything that player can receive — their view, their log, the answers to their own calls
//! (results and refusals), the events pushed to them, the forum posts anyone may read, and a
//! `share --for` copy of the file — must hold none of the values the rules keep from them. The
//! GM writes handouts and reveals them to some players, to everyone or to nobody as play goes,
//! and gives entities portraits (a hidden entity's portrait is as secret as the entity).
//!
//! What is secret is worked out here from first principles, from the GM's raw table and the
//! raw items of every event with `Role::sees` — not by the code under test — and compared by
//! value: a secret string or number that turns up anywhere the player can look is a leak,
//! whatever field it hides in.

use crate::random_play::{entropy, random_action, Dice, PLAYERS};
use crate::support::{bundled, init};
use houserule_app::calls::{Call, Caller};
use houserule_app::catalog;
use houserule_app::front::App;
use houserule_app::share::share;
use houserule_core::event::Body;
use houserule_core::table::Table;
use houserule_core::view::ActionForm;
use houserule_core::{Role, Visibility};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every string and distinctive number in a JSON value.
fn leaves(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) if s.chars().count() >= 4 => {
            out.insert(s.clone());
        }
        Value::Number(n) if n.as_i64().is_some_and(|i| i.abs() >= 100) => {
            out.insert(n.to_string());
        }
        Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
        Value::Object(m) => m.values().for_each(|x| leaves(x, out)),
        _ => {}
    }
}

/// Every name of an object in a JSON value.
fn names(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| names(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.insert(k.clone());
            names(x, out)
        }),
        _ => {}
    }
}

/// What `viewer` may and may not know, by the rule alone: the visible values, and each hidden
/// value with the place it hides in (to say where a leak came from). `tables` is the table after
/// every event: a value the viewer could see at any moment is no secret from them later.
fn knowledge(
    tables: &[Table],
    items: &[houserule_core::event::Item],
    manifest: &Value,
    actors: &Value,
    viewer: &Role,
) -> (BTreeSet<String>, BTreeMap<String, String>) {
    let (mut seen, mut hidden) = (BTreeSet::new(), BTreeMap::new());
    // The ruleset itself is public: words it uses, as values or as names, are no secret; so
    // are who acted and when (event headers: `actors`).
    leaves(manifest, &mut seen);
    leaves(actors, &mut seen);
    names(manifest, &mut seen);
    let mut put = |vis: Visibility, owner: Option<&str>, v: &Value, place: &dyn Fn() -> String| {
        if viewer.sees(vis, owner) {
            leaves(v, &mut seen)
        } else {
            let mut values = BTreeSet::new();
            leaves(v, &mut values);
            for value in values {
                hidden.entry(value).or_insert_with(place);
            }
        }
    };
    for table in tables {
        // The round, the settings and the roll counter are on everyone's table.
        put(Visibility::Public, None, &json!([table.round, table.settings, table.next_roll]), &|| "the table".into());
        for e in table.entities.values() {
            let owner = e.owner.as_deref();
            put(e.visibility, owner, &json!([e.id, e.name, e.portrait]), &|| format!("entity {}", e.id));
            for (name, f) in &e.fields {
                // A field's name is as secret as its value.
                put(e.visibility.stricter(f.visibility), owner, &json!([name, f.value]), &|| {
                    format!("{}.{name}", e.id)
                });
            }
            for t in &e.traits {
                put(e.visibility.stricter(t.visibility), owner, &json!([t.name, t.note, t.tags]), &|| {
                    format!("{} trait {}", e.id, t.name)
                });
            }
            for (name, p) in &e.pools {
                // A pool's name and place are as public as its entity; its counts, as its own visibility.
                put(e.visibility, owner, &json!([name, format!("{}.{name}", e.id)]), &|| {
                    format!("{} pool {name}", e.id)
                });
                put(e.visibility.stricter(p.visibility), owner, &json!(p.counts), &|| {
                    format!("{} pool {name} counts", e.id)
                });
            }
        }
        for (name, f) in &table.vars {
            put(f.visibility, None, &f.value, &|| format!("variable {name}"));
        }
        for (name, p) in &table.pools {
            put(Visibility::Public, None, &json!(name), &|| format!("pool {name}"));
            put(p.visibility, None, &json!(p.counts), &|| format!("pool {name} counts"));
        }
        // A handout is read by the GM, by everyone once revealed to everyone, and by the
        // players it is revealed to by name: nobody else learns anything of it, its id included.
        for (id, h) in &table.handouts {
            let reads = viewer.is_gm() || h.everyone || matches!(viewer, Role::Player(p) if h.readers.contains(p));
            let vis = if reads { Visibility::Public } else { Visibility::Gm };
            put(vis, None, &json!([id, h.title, h.text, h.picture]), &|| format!("handout {id}"));
        }
    }
    // Narration, rolls, parameters and results are as secret as the rules or the manifest made
    // them. A change's visibility is what the redaction under test derives, so it is not taken
    // on trust: the values changes carry are judged by the table above.
    for (i, item) in items.iter().enumerate() {
        // What an item shows to those who may not read it (its label and public facts) is public.
        put(Visibility::Public, None, &json!([item.label, item.public]), &|| format!("item {i} label"));
        match &item.body {
            Some(Body::Change { .. }) | None => {}
            Some(body) => put(item.visibility, item.owner.as_deref(), &serde_json::to_value(body).unwrap(), &|| {
                format!("item {i} ({})", item.visibility)
            }),
        }
    }
    // A value the viewer may see somewhere is not a secret, even if it is hidden elsewhere.
    // A word this test made up that shows inside a visible text (a narration line) is seen too.
    hidden.retain(|value, _| {
        let in_a_text = value.starts_with("zq") && seen.iter().any(|s| s.contains(value.as_str()));
        !seen.contains(value) && !in_a_text
    });
    (seen, hidden)
}

/// Everything `viewer` received, as one JSON value.
struct Received(Vec<Value>);

/// A value without the lines and columns of the script a refusal came from: the ruleset's
/// scripts are public, so where in them a refusal sits is no secret (and a line number can
/// equal a hidden count by chance).
fn without_script_positions(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(without_script_positions).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| match (k.as_str(), x) {
                    ("script", Value::Object(s)) => {
                        let mut s = s.clone();
                        s.remove("line");
                        s.remove("column");
                        (k.clone(), without_script_positions(&Value::Object(s)))
                    }
                    _ => (k.clone(), without_script_positions(x)),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

impl Received {
    fn leaks(&self, secrets: &BTreeMap<String, String>) -> Vec<String> {
        let mut found = BTreeSet::new();
        for v in &self.0 {
            leaves(&without_script_positions(v), &mut found);
        }
        let mut leaks: BTreeSet<String> = found.into_iter().filter(|v| secrets.contains_key(v)).collect();
        // A word this test made up is found even inside a longer text (a narration line).
        let text = serde_json::to_string(&self.0).expect("JSON values serialise");
        leaks.extend(secrets.keys().filter(|s| s.starts_with("zq") && text.contains(s.as_str())).cloned());
        leaks.into_iter().collect()
    }
}

/// Plays `steps` random actions; returns each leak found, described.
/// A handout operation of the GM's: a new handout with words made up here, or one of those
/// there are changed, revealed to everyone, to some players, or to nobody.
fn handout_op(app: &App, gm: &Caller, dice: &mut Dice) -> Value {
    let view = app.ask::<Value>(gm, Call::read("view", json!({})).unwrap()).unwrap();
    let ids: Vec<&str> = view["handouts"].as_array().unwrap().iter().filter_map(|h| h["id"].as_str()).collect();
    let mut word = |prefix: &str| format!("{prefix}zq{:06x}", dice.below(1 << 24));
    let (title, text) = (word("Handout "), word("Meet at "));
    if ids.is_empty() || dice.below(3) == 0 {
        return json!({"op": "write", "title": title, "text": text});
    }
    let id = ids[dice.below(ids.len())];
    match dice.below(4) {
        0 => json!({"op": "reveal", "id": id, "everyone": true}),
        1 => {
            let some: Vec<&str> = PLAYERS.iter().copied().filter(|_| dice.below(2) == 0).collect();
            json!({"op": "reveal", "id": id, "players": some})
        }
        2 => json!({"op": "reveal", "id": id}),
        _ => json!({"op": "write", "id": id, "title": title, "text": text}),
    }
}

/// The GM imports a few pictures of their own colours (a portrait names one by its digest).
fn pictures(app: &App, gm: &Caller, seed: u64) -> Vec<String> {
    use base64::Engine;
    (0..3u8)
        .map(|i| {
            let colour = image::Rgba([seed as u8, i * 80, 200 - i * 60, 255]);
            let mut png = std::io::Cursor::new(Vec::new());
            image::RgbaImage::from_pixel(8, 8, colour).write_to(&mut png, image::ImageFormat::Png).unwrap();
            let data = base64::engine::general_purpose::STANDARD.encode(png.into_inner());
            let call = Call::read("import_picture", json!({"name": format!("p{i}.png"), "data": data})).unwrap();
            app.ask::<Value>(gm, call).unwrap()["digest"].as_str().unwrap().to_string()
        })
        .collect()
}

/// A portrait operation of the GM's: an entity on the table given one of `pictures`, or none.
fn portrait_op(app: &App, gm: &Caller, dice: &mut Dice, pictures: &[String]) -> Option<Value> {
    let view = app.ask::<Value>(gm, Call::read("view", json!({})).unwrap()).unwrap();
    let ids: Vec<&String> = view["entities"].as_object()?.keys().collect();
    let entity = ids.get(dice.below(ids.len().max(1)))?;
    let picture = (dice.below(4) != 0).then(|| pictures[dice.below(pictures.len())].clone());
    Some(json!({"op": "portrait", "entity": entity, "picture": picture}))
}

fn play(ruleset: &str, seed: u64, steps: usize, dir: &Path) -> Vec<String> {
    let catalog = catalog::default_catalog();
    let r = catalog.get(ruleset).unwrap_or_else(|| panic!("ruleset {ruleset}"));
    let file = dir.join(format!("{ruleset}-{seed}.houserule"));
    let app = App::new(None);
    let events = app.subscribe();
    crate::support::create_in(&app, &file, &r.id, "leak hunt");
    let gm = crate::support::browser(Role::Gm);
    let players: Vec<Caller> = PLAYERS.iter().map(|p| crate::support::browser(Role::Player(p.to_string()))).collect();
    let mut dice = Dice(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut received: Vec<Received> = players.iter().map(|_| Received(vec![])).collect();
    let portraits = pictures(&app, &gm, seed);
    for _ in 0..steps {
        let who = dice.below(players.len() + 2);
        let caller = if who >= players.len() { &gm } else { &players[who] };
        // Now and then the GM takes the last action back: what an undo restores is as secret
        // as what it undoes.
        if who >= players.len() && dice.below(8) == 0 {
            let _ = app.ask::<Value>(caller, Call::read("undo", json!({})).unwrap());
            continue;
        }
        // Now and then the GM writes a handout, changes one, or shows it to some or all.
        if who >= players.len() && dice.below(5) == 0 {
            let op = handout_op(&app, caller, &mut dice);
            if app.ask::<Value>(caller, Call::read("handout", op).unwrap()).is_ok() {
                HANDOUT_OPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            continue;
        }
        // Now and then the GM gives someone a portrait, or takes one off.
        if who >= players.len() && dice.below(5) == 0 {
            let Some(op) = portrait_op(&app, caller, &mut dice, &portraits) else { continue };
            if app.ask::<Value>(caller, Call::read("scene", op).unwrap()).is_ok() {
                PORTRAIT_OPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            continue;
        }
        // Table talk: a post with a word made up here, to everyone, to the GM, or whispered.
        let post = (dice.below(3) == 0).then(|| {
            let to = match (caller.role.is_gm(), dice.below(3)) {
                (_, 0) => "everyone".to_string(),
                (true, 1) => "gm".to_string(),
                (true, _) => format!("player:{}", PLAYERS[dice.below(PLAYERS.len())]),
                (false, _) => "gm".to_string(),
            };
            json!({"text": format!("I say zq{:06x} to {to}", dice.below(1 << 24)), "to": to})
        });
        let forms: Vec<ActionForm> =
            serde_json::from_value(app.ask::<Value>(caller, Call::read("actions", json!({})).unwrap()).unwrap())
                .unwrap();
        let picked = random_action(&forms, &mut dice);
        if let (Some(post), true) = (&post, picked.is_none() || dice.below(2) == 0) {
            let answer = app.ask::<Value>(caller, Call::read("say", post.clone()).unwrap());
            if who < players.len() {
                received[who].0.push(answer.unwrap_or_else(|e| serde_json::to_value(e).unwrap()));
            }
            continue;
        }
        let Some((action, params)) = picked else { continue };
        // Entropy from the test's own generator, as a browser would send it: a failure replays.
        let mut act = json!({"action": action, "params": params, "entropy": entropy(&mut dice)});
        if let Some(post) = post {
            act["post"] = post; // the post carries the action
        }
        let answer = app.ask::<Value>(caller, Call::read("act", act).unwrap());
        if who < players.len() {
            received[who].0.push(match answer {
                Ok(v) => {
                    PLAYER_ACTIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    v
                }
                Err(e) => serde_json::to_value(e).unwrap(),
            });
        }
    }
    // The GM's raw truth: the table and every stored item.
    let c = houserule_app::Campaign::open(&file).unwrap();
    let (mut items, mut tables, mut table) = (vec![], vec![], Table::default());
    let mut actors = vec![];
    c.store()
        .each_event(1, |row| {
            actors.push(json!(row.parse_header()?.actor));
            let these = row.parse_items()?;
            houserule_core::event::fold(&mut table, &these).unwrap();
            tables.push(table.clone());
            let private_posts = these
                .iter()
                .filter(|i| matches!(i.body, Some(Body::Post { .. })) && i.visibility != Visibility::Public)
                .count();
            WHISPERS.fetch_add(private_posts, std::sync::atomic::Ordering::Relaxed);
            items.extend(these);
            Ok(())
        })
        .unwrap();
    assert_eq!(&table, c.table(), "the fold of every event is the table");
    let pushed: Vec<houserule_app::events::AppEvent> = events.try_iter().collect();
    let public_posts: Vec<Value> = c
        .log(&Role::Public, 1)
        .unwrap()
        .iter()
        .map(|e| json!(houserule_core::post::post(e, &c.info(), "f", houserule_core::post::PostFormat::Markdown)))
        .collect();
    let mut failures = vec![];
    for (i, player) in players.iter().enumerate() {
        let manifest = serde_json::to_value(&*c.rules().manifest).unwrap();
        let (_, secrets) = knowledge(&tables, &items, &manifest, &json!(actors), &player.role);
        let r = &mut received[i];
        r.0.push(app.ask::<Value>(player, Call::read("view", json!({})).unwrap()).unwrap());
        r.0.push(app.ask::<Value>(player, Call::read("log", json!({"limit": 2000})).unwrap()).unwrap());
        r.0.push(app.ask::<Value>(player, Call::read("actions", json!({})).unwrap()).unwrap());
        // The server's path: the one-call refresh and the log page, written straight to text.
        for (method, params) in [("table", json!({"limit": 2000})), ("log", json!({"limit": 2000}))] {
            let text = app.call(player, Call::read(method, params).unwrap()).unwrap();
            r.0.push(serde_json::from_str(&text).unwrap());
        }
        // What the server would push to this player.
        r.0.extend(
            pushed
                .iter()
                .filter(|e| match e {
                    houserule_app::events::AppEvent::Session { event } => event.may_reach(&player.role),
                    _ => true,
                })
                .map(|e| serde_json::to_value(e).unwrap()),
        );
        // Each of their own log entries as a forum post.
        for entry in
            app.ask::<Value>(player, Call::read("log", json!({"limit": 2000})).unwrap()).unwrap().as_array().unwrap()
        {
            let seq = entry["seq"].as_u64().unwrap();
            r.0.push(app.ask::<Value>(player, Call::read("forum_post", json!({"seq": seq})).unwrap()).unwrap());
        }
        r.0.extend(public_posts.iter().cloned());
        let copy = dir.join(format!("{ruleset}-{seed}-{}.houserule", PLAYERS[i]));
        share(&file, &copy, Some(&player.role)).unwrap();
        let bytes = std::fs::read(&copy).unwrap();
        let leaks = r.leaks(&secrets);
        // The copy is a file, not JSON: look for every secret word this test made up in its bytes.
        let text = String::from_utf8_lossy(&bytes);
        let in_file: Vec<&String> =
            secrets.keys().filter(|s| s.starts_with("zq") && text.contains(s.as_str())).collect();
        if !leaks.is_empty() || !in_file.is_empty() {
            let mut found = vec![];
            for word in leaks.iter().chain(in_file.iter().copied()) {
                let copy_store = houserule_app::store::Store::open(&copy).unwrap();
                copy_store
                    .each_event(1, |row| {
                        if row.items.contains(word.as_str()) {
                            let action = row.parse_header().ok().and_then(|h| h.action).unwrap_or_default();
                            found.push(format!(
                                "'{word}' (hidden as {}) in event {} ({action})",
                                secrets[word], row.seq
                            ));
                        }
                        Ok(())
                    })
                    .unwrap();
            }
            failures.push(format!(
                "{ruleset} (seed {seed}): {} received {leaks:?} {in_file:?}: {}",
                player.role,
                found.join("; ")
            ));
        }
    }
    failures
}

#[test]
fn no_player_receives_what_the_rules_keep_from_them() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    for (ruleset, _, _) in bundled() {
        let ruleset = ruleset.as_str();
        for seed in 1..=6 {
            failures.extend(play(ruleset, seed, 40, dir.path()));
        }
    }
    assert!(failures.is_empty(), "players received what the rules keep from them:\n{}", failures.join("\n"));
    let taken = PLAYER_ACTIONS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(taken >= 100, "the players really played (only {taken} of their actions were taken)");
    let whispers = WHISPERS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(whispers >= 50, "whispers and words to the GM were really written (only {whispers})");
    let handouts = HANDOUT_OPS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(handouts >= 50, "handouts were really written and shown (only {handouts})");
    let portraits = PORTRAIT_OPS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(portraits >= 30, "portraits were really given and taken off (only {portraits})");
}

/// Portrait operations the GM made (not refused).
static PORTRAIT_OPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Handout operations the GM made (not refused).
static HANDOUT_OPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Posts not everyone may read, so the test cannot pass by writing none.
static WHISPERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Actions the players took (not refused), so the test cannot pass by refusing them all.
static PLAYER_ACTIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The test can fail: a copy of the GM's table handed to a player is caught.
#[test]
fn a_planted_leak_is_caught() {
    init();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plant.houserule");
    let app = App::new(None);
    crate::support::create_in(&app, &file, "generic", "plant");
    let gm = crate::support::browser(Role::Gm);
    let npc = json!({"action": "create_npc", "params": {"name": "Crunch", "gm_notes": "zq00c0de"}});
    app.call(&gm, Call::read("act", npc).unwrap()).unwrap();
    let c = houserule_app::Campaign::open(&file).unwrap();
    let ann = Role::Player("ann".into());
    let (_, secrets) = knowledge(std::slice::from_ref(c.table()), &[], &json!({}), &json!([]), &ann);
    assert!(secrets.contains_key("zq00c0de"), "the GM's note is a secret from ann: {secrets:?}");
    let honest = Received(vec![serde_json::to_value(c.view(&ann)).unwrap()]);
    assert!(honest.leaks(&secrets).is_empty(), "ann's own view holds no secret");
    let planted = Received(vec![serde_json::to_value(c.view(&Role::Gm)).unwrap()]);
    assert_eq!(planted.leaks(&secrets), vec!["zq00c0de".to_string()], "the GM's view handed to ann is a leak");
}
