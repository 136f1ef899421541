//! Rule numbers quoted in a manifest's texts.
//!
//! A help text or label may quote a rule's number by naming a function of the rules that takes
//! no arguments: `help = "One die per trait; {success_face}+ is a success."`. The function is
//! called once when the rules are loaded (in the sandbox, so a house rule that replaces it is
//! what is quoted), and the forms show its value in place of `{success_face}`. `{{` and `}}`
//! are a brace. A quoted value is a number, a word or true/false, at most [`MAX_QUOTE`]
//! characters: anything else is refused when the rules load, with the function's name.

use serde_json::Value;
use std::collections::BTreeMap;

/// The longest quoted value, in characters.
pub const MAX_QUOTE: usize = 40;

/// The values of the quoted functions, by name.
pub type Quotes = BTreeMap<String, String>;

/// What is wrong with a text's quotes or a quoted value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuoteError {
    #[error("a '}}' closes nothing (write '}}}}' for a brace)")]
    ClosesNothing,
    #[error("a '{{' is not closed (write '{{{{' for a brace)")]
    NotClosed,
    #[error("'{{{0}}}' does not name a function of the rules")]
    NotAName(String),
    #[error("a quoted value is a number, a word or true/false, not {0}")]
    NotAValue(String),
    #[error("a quoted value is at most {MAX_QUOTE} characters on one line")]
    TooLong,
}

/// The names a text quotes, in order, or what is wrong with its braces.
pub fn names(text: &str) -> Result<Vec<String>, QuoteError> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['{', '}']) {
        let (c, after) = (rest.as_bytes()[i], &rest[i + 1..]);
        if after.starts_with(c as char) {
            rest = &after[1..];
            continue;
        }
        if c == b'}' {
            return Err(QuoteError::ClosesNothing);
        }
        let end = after.find('}').ok_or(QuoteError::NotClosed)?;
        let name = &after[..end];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(QuoteError::NotAName(name.to_string()));
        }
        out.push(name.to_string());
        rest = &after[end + 1..];
    }
    Ok(out)
}

/// A quoted value as the text shows it.
pub fn show(value: &Value) -> Result<String, QuoteError> {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        other => return Err(QuoteError::NotAValue(other.to_string())),
    };
    if text.chars().count() > MAX_QUOTE || text.chars().any(char::is_control) {
        return Err(QuoteError::TooLong);
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
