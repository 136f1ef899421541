//! The UI's typed client, generated from the Rust types: `ui/src/contract.ts` holds every type
//! the calls take and return (from their JSON Schemas), the events, the error report, and
//! `Calls`, which maps each call of the app layer's one list to its parameters and result.
//! `houserule ui-contract FILE` writes it; a test fails when the committed file is stale.

use houserule_app::calls;
use houserule_app::events::AppEvent;
use houserule_core::ErrorReport;
use schemars::gen::{SchemaGenerator, SchemaSettings};
use schemars::schema::{InstanceType, Schema, SchemaObject, SingleOrVec};
use std::fmt::Write as _;

/// The whole file.
pub fn contract() -> String {
    let mut gen = SchemaGenerator::new(SchemaSettings::draft07());
    let signatures = calls::signatures(&mut gen);
    // The events pushed to front ends and the error every failed call rejects with.
    gen.subschema_for::<AppEvent>();
    gen.subschema_for::<ErrorReport>();
    let mut out = String::from(
        "// The contract between the UI and the app layer, generated from the Rust types by\n\
         // `houserule ui-contract ui/src/contract.ts`. Do not edit: a test fails when it is stale.\n\n",
    );
    for (name, schema) in gen.definitions() {
        doc(&mut out, "", description(schema));
        let _ = writeln!(out, "export type {} = {};\n", ident(name), ts(schema, ""));
    }
    out.push_str(
        "/** Each call of the app layer, by name: its parameters and its result. */\nexport interface Calls {\n",
    );
    for s in &signatures {
        doc(&mut out, "  ", Some(s.doc.trim()));
        let _ = writeln!(out, "  {}: {{ params: {}; result: {} }};", s.name, ts(&s.params, "  "), ts(&s.result, "  "));
    }
    out.push_str("}\n\n/** A call's name. */\nexport type Method = keyof Calls;\n");
    out
}

fn description(schema: &Schema) -> Option<&str> {
    match schema {
        Schema::Object(o) => o.metadata.as_ref().and_then(|m| m.description.as_deref()),
        Schema::Bool(_) => None,
    }
}

fn doc(out: &mut String, indent: &str, text: Option<&str>) {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else { return };
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{indent}/** {} */", lines[0].replace("*/", "*\\/"));
    } else {
        let _ = writeln!(out, "{indent}/**");
        for l in lines {
            let _ = writeln!(out, "{indent} * {}", l.replace("*/", "*\\/"));
        }
        let _ = writeln!(out, "{indent} */");
    }
}

/// A definition's name as a TypeScript identifier.
fn ident(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

fn property(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        serde_json::to_string(name).expect("strings serialise")
    }
}

/// Wraps a union or intersection for use inside another type.
fn grouped(t: String) -> String {
    if t.contains(" | ") || t.contains(" & ") {
        format!("({t})")
    } else {
        t
    }
}

/// The TypeScript type of a schema.
fn ts(schema: &Schema, indent: &str) -> String {
    match schema {
        Schema::Bool(true) => "unknown".into(),
        Schema::Bool(false) => "never".into(),
        Schema::Object(o) => object(o, indent),
    }
}

fn object(o: &SchemaObject, indent: &str) -> String {
    if let Some(r) = &o.reference {
        return ident(r.rsplit('/').next().unwrap_or(r));
    }
    if let Some(values) = &o.enum_values {
        return values
            .iter()
            .map(|v| serde_json::to_string(v).expect("JSON values serialise"))
            .collect::<Vec<_>>()
            .join(" | ");
    }
    if let Some(v) = &o.const_value {
        return serde_json::to_string(v).expect("JSON values serialise");
    }
    let mut parts: Vec<String> = Vec::new();
    if let Some(types) = &o.instance_type {
        let list: Vec<InstanceType> = match types {
            SingleOrVec::Single(t) => vec![**t],
            SingleOrVec::Vec(v) => v.clone(),
        };
        let union: Vec<String> = list.iter().map(|t| instance(*t, o, indent)).collect();
        parts.push(union.join(" | "));
    } else if o.object.as_ref().is_some_and(|ob| !ob.properties.is_empty()) {
        parts.push(instance(InstanceType::Object, o, indent));
    }
    if let Some(sub) = &o.subschemas {
        if let Some(all) = &sub.all_of {
            parts.extend(all.iter().map(|s| ts(s, indent)));
        }
        for alternatives in [&sub.any_of, &sub.one_of].into_iter().flatten() {
            parts.push(alternatives.iter().map(|s| ts(s, indent)).collect::<Vec<_>>().join(" | "));
        }
    }
    match parts.len() {
        0 => "unknown".into(),
        1 => parts.remove(0),
        _ => parts.into_iter().map(grouped).collect::<Vec<_>>().join(" & "),
    }
}

fn instance(t: InstanceType, o: &SchemaObject, indent: &str) -> String {
    match t {
        InstanceType::Null => "null".into(),
        InstanceType::Boolean => "boolean".into(),
        InstanceType::Integer | InstanceType::Number => "number".into(),
        InstanceType::String => "string".into(),
        InstanceType::Array => match o.array.as_ref().and_then(|a| a.items.as_ref()) {
            Some(SingleOrVec::Single(item)) => format!("{}[]", grouped(ts(item, indent))),
            Some(SingleOrVec::Vec(items)) => {
                format!("[{}]", items.iter().map(|s| ts(s, indent)).collect::<Vec<_>>().join(", "))
            }
            None => "unknown[]".into(),
        },
        InstanceType::Object => {
            let Some(ob) = &o.object else { return "Record<string, unknown>".into() };
            let extra = ob
                .additional_properties
                .as_deref()
                .filter(|s| !matches!(s, Schema::Bool(false)))
                .map(|s| format!("Record<string, {}>", ts(s, indent)));
            if ob.properties.is_empty() {
                return extra.unwrap_or_else(|| "Record<string, never>".into());
            }
            let inner = format!("{indent}  ");
            let mut body = String::from("{\n");
            for (name, schema) in &ob.properties {
                doc(&mut body, &inner, description(schema));
                let optional = if ob.required.contains(name) { "" } else { "?" };
                let _ = writeln!(body, "{inner}{}{optional}: {};", property(name), ts(schema, &inner));
            }
            body.push_str(indent);
            body.push('}');
            match extra {
                Some(e) => format!("{body} & {e}"),
                None => body,
            }
        }
    }
}
