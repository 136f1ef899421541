//! Tests of `tx_scene.rs`: scenes, tokens, fog and moves through a transaction.
use super::*;
use crate::dice::Forced;
use crate::event::{Body, EventKind, Header};
use crate::manifest::Manifest;
use crate::scene::grid::Grid;
use crate::table::Table;
use crate::tx::{DiceSupply, NewEntity};
use crate::visibility::{Role, Visibility};
use proptest::prelude::*;
use std::sync::Arc;

fn tx() -> Tx {
    let m = Manifest::parse(
        "plugin.toml",
        "id = \"t\"\nname = \"T\"\nversion = \"1\"\napi = 1\nentry = \"rules.rhai\"\n[kinds.character]\n",
    )
    .unwrap();
    let mut t = Tx::new(Table::default(), Arc::new(m), Role::Gm, None, DiceSupply::Forced(Forced::new([])));
    t.create("character", "Mack", NewEntity { owner: Some("ann".into()), ..Default::default() }).unwrap();
    t.create("character", "Dutch", NewEntity { owner: Some("bob".into()), ..Default::default() }).unwrap();
    let hidden = NewEntity { visibility: Some(Visibility::Gm), ..Default::default() };
    t.create("character", "Sekret Boss", hidden).unwrap();
    t.items.clear();
    t
}

fn head(name: &str) -> SceneHead {
    SceneHead { name: name.into(), background: None, grid: Grid::default(), players_move_any: false }
}

fn token(entity: Option<&str>, label: Option<&str>, cell: Cell, hidden: bool) -> Token {
    Token { entity: entity.map(Into::into), label: label.map(Into::into), cell, size: 1, image: None, hidden }
}

/// The table the recorded changes fold into, from `start`.
fn fold(start: &Table, t: &Tx) -> Table {
    let mut table = start.clone();
    for item in &t.items {
        if let Some(Body::Change { change }) = &item.body {
            table.apply(change).expect("a recorded change applies");
        }
    }
    table
}

fn street(t: &mut Tx) {
    t.create_scene("street", head("Street")).unwrap();
    t.show_scene(Some("street")).unwrap();
    t.place_token("street", "mack", token(Some("mack"), None, Cell(0, 0), false)).unwrap();
    t.place_token("street", "dutch", token(Some("dutch"), None, Cell(5, 0), false)).unwrap();
}

#[test]
fn a_move_changes_the_cell_is_recorded_folds_and_is_undone() {
    let mut t = tx();
    let start = t.table.clone();
    street(&mut t);
    let before_move = t.table.clone();
    let path = vec![Cell(0, 0), Cell(1, 0), Cell(2, 1)];
    let m = t.move_token("mack", path.clone()).unwrap();
    assert_eq!(t.table.scenes.find_token("mack").unwrap().2.cell, Cell(2, 1), "Mack ends at the path's end");
    assert_eq!(t.scene("street").unwrap().moves_of("mack", m.round).count(), 1, "the move is recorded");
    assert_eq!(fold(&start, &t), t.table, "the recorded changes fold into the live table");
    let mut undone = t.table.clone();
    for c in crate::undo::restore(&t.table, &before_move) {
        undone.apply(&c).unwrap();
    }
    assert_eq!(undone, before_move, "undo puts Mack back on (0,0) and forgets the move");
}

#[test]
fn a_path_not_starting_at_the_token_or_too_long_is_refused_and_changes_nothing() {
    let mut t = tx();
    street(&mut t);
    let before = (t.table.clone(), t.items.len());
    let err = t.move_token("mack", vec![Cell(1, 0), Cell(2, 0)]).unwrap_err();
    assert!(err.to_string().contains("starts where the token stands (0,0)"), "said why: {err}");
    let long: Vec<Cell> = (0..300).map(|i| Cell(i, 0)).collect();
    let err = t.move_token("mack", long).unwrap_err();
    assert!(err.to_string().contains("at most") || err.to_string().contains("to 256"), "said the bound: {err}");
    assert_eq!((t.table.clone(), t.items.len()), before, "nothing changed, nothing recorded");
}

#[test]
fn a_player_moves_only_their_own_tokens_unless_the_scene_allows() {
    let mut t = tx();
    street(&mut t);
    t.may_move(&Role::Player("ann".into()), "mack").expect("Ann moves her own Mack");
    let err = t.may_move(&Role::Player("ann".into()), "dutch").unwrap_err();
    assert!(err.to_string().contains("ann may move only their own tokens"), "said why: {err}");
    t.update_scene("street", SceneHead { players_move_any: true, ..head("Street") }).unwrap();
    t.may_move(&Role::Player("ann".into()), "dutch").expect("the scene lets anyone move any token");
}

#[test]
fn a_polygon_corner_that_is_not_a_number_is_refused() {
    let mut t = tx();
    street(&mut t);
    let fog = Fog { on: true, polygons: vec![vec![(0.0, 0.0), (f64::NAN, 1.0), (1.0, 1.0)]], ..Fog::default() };
    let err = t.set_fog("street", fog).unwrap_err();
    assert!(err.to_string().contains("revealed polygon"), "named the polygon: {err}");
    assert!(!t.scene("street").unwrap().fog.on, "the fog was not set");
}

#[test]
fn an_entity_with_a_token_is_not_removed_from_under_it() {
    let mut t = tx();
    street(&mut t);
    let err = t.change(crate::table::Change::Remove { id: "mack".into() }).unwrap_err();
    assert!(err.to_string().contains("remove the token first"), "said why: {err}");
}

/// What a secret token is made of, for the search.
struct Secret {
    id: String,
    cell: Cell,
}

#[derive(Debug, Clone)]
enum Kind {
    Hidden,
    GmEntity,
    Backstage,
    Fogged,
    Open,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::Hidden), Just(Kind::GmEntity), Just(Kind::Backstage), Just(Kind::Fogged), Just(Kind::Open)]
}

fn header() -> Header {
    Header {
        seq: 1,
        prev: "0".repeat(64),
        at: "2026-01-01T00:00:00Z".into(),
        kind: EventKind::Action,
        actor: Some(Role::Gm),
        action: None,
        detail: None,
        state: None,
    }
}

proptest! {
    /// Whatever tokens the GM hides, fogs, backs with a GM-only entity or keeps on a scene the
    /// players do not see — and however they move — no player's view or log entry holds such a
    /// token's id, label, entity name or any cell it stood on.
    #[test]
    fn no_player_learns_anything_of_a_token_they_may_not_see(
        kinds in proptest::collection::vec(kind(), 1..8),
        moves in proptest::collection::vec((0usize..8, 1i32..4), 0..10),
        reveal in proptest::collection::btree_set((0i32..6, 0i32..6).prop_map(|(x, y)| Cell(x, y)), 0..8),
        fog_on in any::<bool>(),
    ) {
        let mut t = tx();
        t.create_scene("street", head("Street")).unwrap();
        t.create_scene("lair", head("Lair")).unwrap();
        t.show_scene(Some("street")).unwrap();
        t.place_token("street", "mack", token(Some("mack"), None, Cell(0, 0), false)).unwrap();
        t.set_fog("street", Fog { on: fog_on, cells: reveal, polygons: vec![] }).unwrap();
        let mut secrets = Vec::new();
        for (i, k) in kinds.iter().enumerate() {
            let id = format!("sekret{i}x");
            let cell = Cell(7000 + 10 * i as i32, 7000 + 10 * i as i32);
            let label = Some(id.as_str());
            let (scene, tok) = match k {
                Kind::Hidden => ("street", token(None, label, cell, true)),
                Kind::GmEntity => ("street", token(Some("sekret_boss"), None, cell, false)),
                Kind::Backstage => ("lair", token(None, label, cell, false)),
                Kind::Fogged => ("street", token(None, label, cell, false)),
                Kind::Open => ("street", token(None, Some("crate"), Cell(i as i32, 0), false)),
            };
            if matches!(k, Kind::GmEntity) && t.table.scenes.token_of("sekret_boss").is_some() {
                continue;
            }
            t.place_token(scene, &id, tok).unwrap();
            if !matches!(k, Kind::Open) && (fog_on || !matches!(k, Kind::Fogged)) {
                secrets.push(Secret { id, cell });
            }
        }
        for (which, step) in moves {
            let Some(s) = secrets.get(which) else { continue };
            let (_, tok) = t.token(&s.id).unwrap();
            let to = Cell(tok.cell.0 + step, tok.cell.1);
            prop_assume!(to.0 < s.cell.0 + 10);
            t.move_token(&s.id, vec![tok.cell, to]).unwrap();
        }
        let info = crate::view::CampaignInfo {
            id: "c".into(),
            name: "C".into(),
            ruleset: crate::view::RulesetInfo { id: "t".into(), name: "T".into(), version: "1".into() },
            events: 1,
            head: "0".repeat(64),
            seed_commitment: "0".repeat(64),
        };
        for player in ["ann", "bob"] {
            let role = Role::Player(player.into());
            let view = serde_json::to_string(&crate::view::table_view(&t.table, &role, info.clone())).unwrap();
            let log = serde_json::to_string(&crate::view::log_entry(&header(), &t.items, "h", &role)).unwrap();
            for text in [&view, &log] {
                prop_assert!(text.contains("\"mack\""), "the player sees Mack's token (a sanity check)");
                prop_assert!(!text.contains("Sekret"), "{} learnt the boss's name: {}", player, text);
                for s in &secrets {
                    prop_assert!(!text.contains(&s.id), "{} learnt token {}: {}", player, s.id, text);
                    for dx in 0..10 {
                        let c = format!("{},{}", s.cell.0 + dx, s.cell.1);
                        prop_assert!(!text.contains(&c), "{} learnt where {} stood ({}): {}", player, s.id, c, text);
                    }
                }
            }
        }
    }
}

#[test]
fn a_scene_names_only_pictures_the_campaign_holds_and_undo_takes_an_import_back() {
    use crate::picture::{Format, Picture};
    use crate::scene::Background;
    let mut t = tx();
    let start = t.table.clone();
    let digest = "ab".repeat(32);
    let bg = Background { digest: digest.clone(), width: 640, height: 480 };
    let with_bg = SceneHead { background: Some(bg.clone()), ..head("Cellar") };
    let e = t.create_scene("cellar", with_bg.clone()).unwrap_err().to_string();
    assert!(e.contains("import it first"), "{e}");
    let pic = Picture { name: "cellar.png".into(), format: Format::Png, width: 640, height: 480, bytes: 9000 };
    t.add_picture(&digest, pic.clone()).unwrap();
    assert!(t.add_picture(&digest, pic).is_err(), "the same picture twice");
    let wrong = SceneHead { background: Some(Background { width: 641, ..bg }), ..head("Cellar") };
    assert!(t.create_scene("cellar", wrong).unwrap_err().to_string().contains("640×480"));
    t.create_scene("cellar", with_bg).unwrap();
    let mut marker = token(None, Some("Chest"), Cell(1, 1), false);
    marker.image = Some("cd".repeat(32));
    assert!(t.place_token("cellar", "chest", marker).is_err(), "a token's image is a picture too");
    let now = fold(&start, &t);
    assert_eq!(now.pictures.len(), 1);
    let mut back = now.clone();
    for c in crate::undo::restore(&now, &start) {
        back.apply(&c).unwrap();
    }
    assert!(back.pictures.is_empty() && back.scenes.is_empty(), "undo takes the import and the scene back");
}
