//! The host API reference, generated from the registered functions themselves (their
//! signatures and doc comments), so the documentation cannot drift from the code.

use super::{cards, entities, info, pools, rolls, scene, turns, Handle};
use rhai::Engine;
use serde_json::Value;
use std::collections::BTreeSet;

type Register = fn(&mut Engine);

const SECTIONS: &[(&str, &str, Register)] = &[
    ("Who acts, settings, rounds and narration", "info", info::register),
    ("Entities, fields, variables and traits", "entities", entities::register),
    ("Token pools", "pools", pools::register),
    ("Dice", "rolls", rolls::register),
    ("Turn order", "turns", turns::register),
    ("Cards", "cards", cards::register),
    ("The map", "scene", scene::register),
];

fn metadata(engine: &Engine) -> Vec<Value> {
    let json = engine.gen_fn_metadata_to_json(false).expect("metadata serialises");
    let v: Value = serde_json::from_str(&json).expect("metadata parses");
    v.get("functions").and_then(Value::as_array).cloned().unwrap_or_default()
}

fn key(f: &Value) -> String {
    f.get("signature").and_then(Value::as_str).unwrap_or_default().to_string()
}

/// The reference as Markdown.
pub fn markdown() -> String {
    let mut engine = Engine::new_raw();
    engine.register_type_with_name::<Handle>("Table");
    let mut seen: BTreeSet<String> = metadata(&engine).iter().map(key).collect();
    let mut out = String::from(
        "# Host API reference\n\n\
         Generated from the engine by `houserule api-reference`; do not edit by hand.\n\n\
         Every rule function receives the table handle `t` as its first argument. A script can reach\n\
         the campaign only through these methods. Each call that changes the table is recorded in the\n\
         action's event; if the action fails, none of its changes are kept. A method that refuses\n\
         (taking more tokens than a pool holds, using a sealed trait) ends the action with that reason.\n",
    );
    for (title, _, register) in SECTIONS {
        register(&mut engine);
        let mut funcs: Vec<Value> = metadata(&engine).into_iter().filter(|f| !seen.contains(&key(f))).collect();
        funcs.sort_by_key(key);
        out.push_str(&format!("\n## {title}\n\n"));
        for f in &funcs {
            seen.insert(key(f));
            let sig = key(f).replace("t: Table, ", "").replace("(t: Table)", "()");
            let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
            let sig = sig.strip_prefix(name).map(|rest| format!("t.{name}{rest}")).unwrap_or(sig);
            out.push_str(&format!("### `{sig}`\n\n"));
            let docs: Vec<String> = f
                .get("docComments")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter().filter_map(Value::as_str).map(|l| l.trim_start_matches("///").trim().to_string()).collect()
                })
                .unwrap_or_default();
            out.push_str(&docs.join("\n"));
            out.push_str("\n\n");
        }
    }
    out
}
