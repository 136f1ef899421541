//! Every event the engine can write, it can read: any value a transaction accepts — in a
//! variable, a field, a new entity, a parameter, a result — serialises into items that parse back
//! as they were with the JSON reader's own nesting limit; any value it refuses is over one of the
//! caps, and the refusal names the cap.

use houserule_core::caps::{depth, Caps, READER_DEPTH};
use houserule_core::dice::Forced;
use houserule_core::event::Item;
use houserule_core::manifest::Manifest;
use houserule_core::table::Table;
use houserule_core::tx::{DiceSupply, NewEntity, Tx, TxError};
use houserule_core::Role;
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::sync::Arc;

fn tx() -> Tx {
    let manifest = Manifest::parse(
        "plugin.toml",
        "id = \"t\"\nname = \"T\"\nversion = \"1\"\napi = 1\nentry = \"rules.rhai\"\n[kinds.character]\n",
    )
    .unwrap();
    let mut t = Tx::new(
        Table::default(),
        Arc::new(manifest),
        Role::Gm,
        Some("probe".into()),
        DiceSupply::Forced(Forced::new([])),
    );
    t.create("character", "Gandolf", NewEntity::default()).unwrap();
    t
}

/// JSON values of any shape, nesting up to ~48 levels (past the cap of 32).
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(Value::from),
        "[a-zA-Z0-9 \\\\\"'{}\\[\\]]{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(48, 400, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// One way a value joins a transaction.
type Attempt = Box<dyn Fn(&mut Tx, Value) -> Result<(), TxError>>;

/// A value nested `levels` deep.
fn nested(levels: usize) -> Value {
    let mut v = Value::from(1);
    for _ in 1..levels {
        v = Value::Array(vec![v]);
    }
    v
}

/// The items as the store writes them must parse back unchanged.
fn reads_back(items: &[Item]) -> Result<(), TestCaseError> {
    let text = serde_json::to_string(items).unwrap();
    let back: Vec<Item> = serde_json::from_str(&text)
        .map_err(|e| TestCaseError::fail(format!("a committed event does not read back: {e}")))?;
    prop_assert_eq!(&back, items);
    let raw: Value = serde_json::from_str(&text).unwrap();
    prop_assert!(depth(&raw) < READER_DEPTH, "the event nests {} levels", depth(&raw));
    Ok(())
}

/// Whether `v` is over the value caps.
fn over(caps: &Caps, v: &Value) -> bool {
    depth(v) > caps.max_value_depth || serde_json::to_vec(v).unwrap().len() > caps.max_value_bytes
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn what_a_transaction_accepts_reads_back(v in json(), extra in 0usize..40) {
        let v = if extra > 0 { let mut deep = v; for _ in 0..extra { deep = Value::Array(vec![deep]); } deep } else { v };
        let caps = Caps::default();
        let attempts: Vec<(&str, Attempt)> = vec![
            ("variable", Box::new(|t, v| t.set_var("x", Some(v), None))),
            ("field", Box::new(|t, v| t.set_field("gandolf", "f", Some(v), None))),
            ("new entity", Box::new(|t, v| {
                let mut n = NewEntity::default();
                n.fields.insert("f".into(), v);
                t.create("character", "Frody", n).map(|_| ())
            })),
            ("parameter", Box::new(|t, v| t.record_param("p", v, false))),
            ("result", Box::new(|t, v| t.record_result(v))),
        ];
        for (what, attempt) in attempts {
            let mut t = tx();
            match attempt(&mut t, v.clone()) {
                Ok(()) => {
                    prop_assert!(!over(&caps, &v), "{what}: a value over the caps was accepted (depth {})", depth(&v));
                    reads_back(&t.items)?;
                }
                Err(TxError::Limit(cap)) => prop_assert!(over(&caps, &v), "{what}: refused a value within the caps: {cap}"),
                Err(other) => return Err(TestCaseError::fail(format!("{what}: refused for another reason: {other}"))),
            }
        }
    }
}

#[test]
fn the_deepest_value_accepted_reads_back_and_one_more_level_is_refused() {
    let caps = Caps::default();
    let mut t = tx();
    t.set_var("x", Some(nested(caps.max_value_depth)), None).unwrap();
    let mut n = NewEntity::default();
    n.fields.insert("f".into(), nested(caps.max_value_depth));
    t.create("character", "Deep", n).unwrap();
    let text = serde_json::to_string(&t.items).unwrap();
    let back: Vec<Item> = serde_json::from_str(&text).expect("the deepest accepted values read back");
    assert_eq!(back, t.items);
    let e = t.set_var("y", Some(nested(caps.max_value_depth + 1)), None).unwrap_err();
    assert!(matches!(&e, TxError::Limit(c) if c.detail.contains("the limit is 32")), "{e}");
}

/// A null stored in a variable or a field would read back from the log as "no value"; the
/// transaction treats it as a clear from the start, so what the table holds and what the log
/// replays agree.
#[test]
fn a_null_value_clears_and_reads_back_the_same() {
    let mut t = tx();
    t.set_var("x", Some(Value::from(3)), None).unwrap();
    t.set_field("gandolf", "f", Some(Value::from(3)), None).unwrap();
    t.set_var("x", Some(Value::Null), None).unwrap();
    t.set_field("gandolf", "f", Some(Value::Null), None).unwrap();
    assert!(!t.table.vars.contains_key("x"), "a null variable is cleared");
    assert!(!t.table.entities["gandolf"].fields.contains_key("f"), "a null field is cleared");
    let text = serde_json::to_string(&t.items).unwrap();
    let back: Vec<Item> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, t.items);
    // Clearing what was never there writes nothing.
    let before = t.items.len();
    t.set_var("never", Some(Value::Null), None).unwrap();
    assert_eq!(t.items.len(), before);
}
