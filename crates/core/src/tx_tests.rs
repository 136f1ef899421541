//! Tests of `tx.rs`: transactions, their caps, and replaying what a worker produced.
use super::*;

fn manifest() -> Arc<Manifest> {
    Arc::new(
        Manifest::parse(
            "plugin.toml",
            r#"
id = "t"
name = "T"
version = "1"
api = 1
entry = "rules.rhai"
[kinds.character]
fields.secret = { visibility = "gm" }
pools.hero = { cap = 1, initial = 1 }
[pools.white_bag]
initial = 20
visibility = "hidden"
[pools.black_bowl]
initial = 20
visibility = "gm"
"#,
        )
        .unwrap(),
    )
}

fn tx(dice: DiceSupply) -> Tx {
    let m = manifest();
    let mut table = Table::default();
    for (n, p) in &m.pools {
        table.pools.insert(n.clone(), p.build(&table.settings));
    }
    Tx::new(table, m, Role::Gm, Some("test".into()), dice)
}

#[test]
fn creating_entities_gives_them_their_kind() {
    let mut t = tx(DiceSupply::Forced(Forced::new([])));
    let id = t.create("character", "Gandolf", NewEntity { owner: Some("ann".into()), ..Default::default() }).unwrap();
    let id2 = t.create("character", "Gandolf", NewEntity::default()).unwrap();
    assert_eq!((id.as_str(), id2.as_str()), ("gandolf", "gandolf_2"));
    assert_eq!(t.table.entities["gandolf"].pools["hero"].total(), 1);
    assert!(
        matches!(t.create("dragon", "Smaug", NewEntity::default()), Err(TxError::Rule(m)) if m.contains("not an entity kind"))
    );
    t.set_field("gandolf", "secret", Some(Value::from(3)), None).unwrap();
    assert_eq!(
        t.table.entities["gandolf"].fields["secret"].visibility,
        Visibility::Gm,
        "declared field visibility applies"
    );
}

#[test]
fn hidden_pool_changes_carry_only_a_label() {
    let mut t = tx(DiceSupply::Forced(Forced::new([])));
    t.transfer("black_bowl", "white_bag", 4, None).unwrap();
    let bag_item = t
        .items
        .iter()
        .find(
            |i| matches!(&i.body, Some(Body::Change { change: Change::Pool { pool, .. } }) if pool.name == "white_bag"),
        )
        .unwrap();
    assert_eq!(bag_item.visibility, Visibility::Hidden);
    assert_eq!(bag_item.label.as_deref(), Some("white bag changed (it is not empty)"));
    assert!(bag_item.salt.is_some(), "secret items are salted");
    assert_eq!(t.table.pools["white_bag"].total() + t.table.pools["black_bowl"].total(), 40);
}

#[test]
fn traits_refuse_use_when_sealed() {
    let mut t = tx(DiceSupply::Forced(Forced::new([])));
    t.create("character", "Frody", NewEntity::default()).unwrap();
    t.add_trait("frody", Trait::named("Frying Pan")).unwrap();
    assert_eq!(t.use_trait("frody", "frying pan").unwrap(), 1);
    t.set_trait_state("frody", "Frying Pan", TraitState::Sealed).unwrap();
    let e = t.use_trait("frody", "Frying Pan").unwrap_err();
    assert_eq!(e.to_string(), "the trait \"Frying Pan\" is sealed");
    assert!(t.add_trait("frody", Trait::named("frying pan")).is_err(), "no duplicate traits");
}

#[test]
fn seeded_rolls_advance_the_counter() {
    let mut t = tx(DiceSupply::Seeded { seed: [3u8; 32], entropy: None });
    let a = t.roll("2d6", RollOptions::default()).unwrap();
    let b = t.roll("2d6", RollOptions::default()).unwrap();
    assert_eq!(a.source, RollSource::Generated { counter: 0, entropy: None });
    assert_eq!(b.source, RollSource::Generated { counter: 1, entropy: None });
    assert_eq!(t.table.next_roll, 2);
    let mut f = tx(DiceSupply::Forced(Forced::new([20, 1])));
    let r = f
        .roll(
            "2d20",
            RollOptions {
                marks: vec![("complication".into(), Cmp::Ge(20)), ("critical".into(), Cmp::Le(1))],
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(r.terms[0].dice[0].marks, vec!["complication"]);
    assert_eq!(r.terms[0].dice[1].marks, vec!["critical"]);
    assert!(f.roll("1d6", RollOptions::default()).is_err());
    assert!(f.dice_error.is_some());
}

#[test]
fn a_missing_trait_names_only_the_near_ones_the_actor_may_see() {
    let mut t = tx(DiceSupply::Forced(Forced::new([])));
    t.create("character", "Frody", NewEntity { owner: Some("ann".into()), ..Default::default() }).unwrap();
    t.add_trait("frody", Trait::named("Notice")).unwrap();
    t.add_trait("frody", Trait { visibility: Visibility::Gm, ..Trait::named("Nightmare") }).unwrap();
    let e = t.find_trait("frody", "notise").unwrap_err().to_string();
    assert!(e.ends_with("; did you mean Notice?"), "{e}");
    assert!(t.find_trait("frody", "Nightmore").unwrap_err().to_string().contains("did you mean Nightmare?"));
    // Ann may not see the GM's trait: her refusal never names it.
    t.role = Role::Player("ann".into());
    let e = t.find_trait("frody", "Nightmore").unwrap_err().to_string();
    assert!(!e.contains("Nightmare") && !e.contains("did you mean"), "{e}");
}
