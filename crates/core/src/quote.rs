//! Rule numbers quoted in a manifest's texts.
//!
//! A help text or label may quote a rule's number by naming a function of the rules that takes
//! no arguments: `help = "One die per trait; {success_face}+ is a success."`. The function is
//! called once when the rules are loaded (in the sandbox, so a house rule that replaces it is
//! what is quoted), and the forms show its value in place of `{success_face}`. `{{` and `}}`
//! are a brace. A quoted value is a number, a word or true/false, at most [`MAX_QUOTE`]
//! characters: anything else is refused when the rules load, with the function's name.

use crate::manifest::Manifest;
use serde_json::Value;
use std::collections::BTreeMap;

/// The longest quoted value, in characters.
pub const MAX_QUOTE: usize = 40;

/// The values of the quoted functions, by name.
pub type Quotes = BTreeMap<String, String>;

/// The names a text quotes, in order, or what is wrong with its braces.
pub fn names(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        let (c, after) = (rest.as_bytes()[i], &rest[i + 1..]);
        if after.starts_with(c as char) {
            rest = &after[1..];
            continue;
        }
        if c == b'}' {
            return Err("a '}' closes nothing (write '}}' for a brace)".into());
        }
        let end = after.find('}').ok_or("a '{' is not closed (write '{{' for a brace)")?;
        let name = &after[..end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("'{{{name}}}' does not name a function of the rules"));
        }
        out.push(name.to_string());
        rest = &after[end + 1..];
    }
    Ok(out)
}

/// Every text of `manifest` that may quote, with where it is (`actions.NAME.help`, …).
pub fn texts(manifest: &Manifest) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = Vec::new();
    for (name, a) in &manifest.actions {
        out.extend(a.label.as_deref().map(|t| (format!("actions.{name}.label"), t)));
        out.extend(a.help.as_deref().map(|t| (format!("actions.{name}.help"), t)));
        for (p, spec) in &a.params {
            out.extend(spec.label.as_deref().map(|t| (format!("actions.{name}.params.{p}.label"), t)));
            out.extend(spec.help.as_deref().map(|t| (format!("actions.{name}.params.{p}.help"), t)));
        }
    }
    for (kind, k) in &manifest.kinds {
        for (f, spec) in &k.fields {
            out.extend(spec.label.as_deref().map(|t| (format!("kinds.{kind}.fields.{f}.label"), t)));
            out.extend(spec.help.as_deref().map(|t| (format!("kinds.{kind}.fields.{f}.help"), t)));
        }
    }
    out
}

/// `manifest` with every text that quotes filled in from `quotes`, as the table shows it.
pub fn filled(manifest: &Manifest, quotes: &Quotes) -> Manifest {
    let mut m = manifest.clone();
    let fill = |t: &mut Option<String>| {
        if let Some(text) = t.as_mut() {
            *text = fill(text, quotes);
        }
    };
    for a in m.actions.values_mut() {
        fill(&mut a.label);
        fill(&mut a.help);
        for p in a.params.values_mut() {
            fill(&mut p.label);
            fill(&mut p.help);
        }
    }
    for k in m.kinds.values_mut() {
        for f in k.fields.values_mut() {
            fill(&mut f.label);
            fill(&mut f.help);
        }
    }
    m
}

/// A quoted value as the text shows it.
pub fn show(value: &Value) -> Result<String, String> {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        other => return Err(format!("a quoted value is a number, a word or true/false, not {other}")),
    };
    if text.chars().count() > MAX_QUOTE || text.chars().any(char::is_control) {
        return Err(format!("a quoted value is at most {MAX_QUOTE} characters on one line"));
    }
    Ok(text)
}

/// `text` with each quoted name replaced by its value (a name without one stays as written).
pub fn fill(text: &str, quotes: &Quotes) -> String {
    if !text.contains(['{', '}']) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let (c, after) = (rest.as_bytes()[i] as char, &rest[i + 1..]);
        if after.starts_with(c) {
            out.push(c);
            rest = &after[1..];
            continue;
        }
        match after.find('}').filter(|_| c == '{') {
            Some(end) => {
                let name = &after[..end];
                match quotes.get(name) {
                    Some(v) => out.push_str(v),
                    None => out.push_str(&rest[i..i + end + 2]),
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push(c);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_braces() {
        assert_eq!(names("{success_face}+ is a success, {{not}} this").unwrap(), ["success_face"]);
        assert!(names("a { b").is_err());
        assert!(names("a } b").is_err());
        assert!(names("{two words}").is_err());
        assert_eq!(names("none").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn fill_replaces_known_names_and_keeps_braces() {
        let q = Quotes::from([("face".to_string(), "3".to_string())]);
        assert_eq!(fill("{face}+ succeeds; {{x}} and {other}", &q), "3+ succeeds; {x} and {other}");
    }

    #[test]
    fn show_refuses_long_or_structured_values() {
        assert_eq!(show(&Value::from(4)).unwrap(), "4");
        assert!(show(&serde_json::json!([1])).is_err());
        assert!(show(&Value::String("x".repeat(MAX_QUOTE + 1))).is_err());
        assert!(show(&Value::String("a\nb".into())).is_err());
    }
}
