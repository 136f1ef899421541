//! The checks of parameters that apply only to some choices of another (`only_when`), or are
//! secret only for some (`secret_when`): the condition names a choice or a yes/no beside the parameter, each value it names is one that
//! parameter can hold, and no conditions go round in a loop. Each refusal names the field and
//! the value that is wrong.

use super::checks::Refusal;
use crate::params::{OnlyWhen, ParamSpec, ParamType};
use indexmap::IndexMap;
use serde_json::Value;

/// Every condition of a group of parameters (an action's, or a record's fields) at `prefix`.
pub(super) fn check(prefix: &str, group: &IndexMap<String, ParamSpec>) -> Result<(), Refusal> {
    for (name, p) in group {
        if let Some(cond) = &p.only_when {
            one(&format!("{prefix}.{name}.only_when"), name, cond, group)?;
        }
        if let Some(cond) = &p.secret_when {
            one(&format!("{prefix}.{name}.secret_when"), name, cond, group)?;
        }
    }
    for name in group.keys() {
        no_loop(prefix, name, group)?;
    }
    Ok(())
}

/// One condition at field `f` of the parameter `name`.
fn one(f: &str, name: &str, cond: &OnlyWhen, group: &IndexMap<String, ParamSpec>) -> Result<(), Refusal> {
    let Some(by) = group.get(&cond.param) else {
        let known: Vec<&str> = group.keys().map(String::as_str).filter(|k| *k != name).collect();
        let message = format!("'{}' is not a parameter beside '{name}' (there are: {})", cond.param, known.join(", "));
        return Err((format!("{f}.param"), message));
    };
    if cond.param == name {
        return Err((format!("{f}.param"), format!("'{name}' cannot depend on itself")));
    }
    if !matches!(by.ty, ParamType::Choice | ParamType::Bool) {
        let message = format!("'{}' is not a choice or a yes/no: only those decide which fields apply", cond.param);
        return Err((format!("{f}.param"), message));
    }
    if cond.is.is_empty() {
        return Err((format!("{f}.is"), format!("name the values of '{}' that '{name}' is for", cond.param)));
    }
    for (i, v) in cond.is.iter().enumerate() {
        fits(&format!("{f}.is"), &cond.param, by, v)?;
        if cond.is[..i].contains(v) {
            return Err((format!("{f}.is"), format!("{v} is listed twice")));
        }
    }
    Ok(())
}

/// `v` is a value `by` (the parameter `param`) can hold.
fn fits(f: &str, param: &str, by: &ParamSpec, v: &Value) -> Result<(), Refusal> {
    match (by.ty, v) {
        (ParamType::Bool, Value::Bool(_)) => Ok(()),
        (ParamType::Bool, _) => Err((f.to_string(), format!("{v} is not true or false ('{param}' is a yes/no)"))),
        (_, Value::String(s)) if by.options.contains(s) => Ok(()),
        _ => Err((f.to_string(), format!("{v} is not one of the options of '{param}' ({})", by.options.join(", ")))),
    }
}

/// Following the conditions from `start` never comes back to a parameter already passed.
fn no_loop(prefix: &str, start: &str, group: &IndexMap<String, ParamSpec>) -> Result<(), Refusal> {
    let mut path = vec![start];
    let mut at = start;
    while let Some(next) = group.get(at).and_then(|p| p.only_when.as_ref()).map(|c| c.param.as_str()) {
        if path.contains(&next) {
            path.push(next);
            let message = format!("the conditions go round in a loop: {}", path.join(" → "));
            return Err((format!("{prefix}.{start}.only_when.param"), message));
        }
        path.push(next);
        at = next;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Manifest;

    const BASE: &str = r#"
id = "hero"
name = "Hero"
version = "1"
api = 1
entry = "rules.rhai"

[kinds.character]

[actions.spend]
who = ["gm", "owner"]
owner_param = "character"
params.character = { type = "entity", kind = "character" }
params.use = { type = "choice", options = ["luck", "trope", "rescue"] }
params.charge = { type = "bool", default = false }
params.bonus = { type = "choice", options = ["damage", "push"], default = "damage", only_when = { param = "charge", is = [true] } }
params.direction = { type = "text", optional = true, only_when = { param = "bonus", is = ["push"] } }
"#;

    fn with(extra: &str) -> String {
        format!("{BASE}{extra}\n")
    }

    /// The error a manifest with `extra` appended is refused with.
    fn refused(extra: &str) -> super::super::ManifestError {
        match Manifest::parse("plugin.toml", &with(extra)) {
            Ok(_) => panic!("a manifest with a broken condition is refused:\n{extra}"),
            Err(e) => e,
        }
    }

    #[test]
    fn conditions_on_choices_and_yes_no_load_and_chain() {
        let m = Manifest::parse(
            "plugin.toml",
            &with(r#"params.trope = { type = "text", only_when = { param = "use", is = ["trope", "rescue"] } }"#),
        )
        .unwrap();
        let cond = m.actions["spend"].params["trope"].only_when.as_ref().unwrap();
        assert_eq!(cond.param, "use");
        assert_eq!(cond.said(), "trope or rescue");
        assert!(
            m.actions["spend"].params["direction"].only_when.is_some(),
            "a condition may name a field that has one"
        );
    }

    #[test]
    fn a_condition_naming_what_is_not_there_is_refused_at_its_field_with_the_value() {
        for (extra, field, says) in [
            (
                r#"params.x = { type = "int", only_when = { param = "usage", is = ["luck"] } }"#,
                "param",
                "'usage' is not a parameter beside 'x'",
            ),
            (
                r#"params.x = { type = "int", only_when = { param = "use", is = ["lcuk"] } }"#,
                "is",
                "\"lcuk\" is not one of the options of 'use' (luck, trope, rescue)",
            ),
            (
                r#"params.x = { type = "int", only_when = { param = "use", is = ["Luck"] } }"#,
                "is",
                "\"Luck\" is not one of the options",
            ),
            (
                r#"params.x = { type = "int", only_when = { param = "charge", is = ["yes"] } }"#,
                "is",
                "\"yes\" is not true or false",
            ),
            (
                r#"params.x = { type = "int", only_when = { param = "use", is = [] } }"#,
                "is",
                "name the values of 'use'",
            ),
            (
                r#"params.x = { type = "int", only_when = { param = "use", is = ["luck", "luck"] } }"#,
                "is",
                "listed twice",
            ),
            (
                r#"params.x = { type = "int", only_when = { param = "character", is = ["a"] } }"#,
                "param",
                "not a choice or a yes/no",
            ),
            (
                r#"params.x = { type = "bool", only_when = { param = "x", is = [true] } }"#,
                "param",
                "cannot depend on itself",
            ),
        ] {
            let e = refused(extra);
            assert_eq!(e.field, format!("actions.spend.params.x.only_when.{field}"), "{extra}");
            assert!(e.message.contains(says), "{extra}: {e}");
            assert!(
                e.to_string().contains("actions.spend.params.x.only_when"),
                "the error names action and field: {e}"
            );
        }
    }

    #[test]
    fn a_value_secret_for_some_choices_is_secret_for_those_only_and_checked_as_a_condition() {
        let m = Manifest::parse(
            "plugin.toml",
            &with(r#"params.why = { type = "text", secret_when = { param = "use", is = ["trope"] } }"#),
        )
        .unwrap();
        let why = &m.actions["spend"].params["why"];
        let given = |use_: &str| serde_json::json!({"use": use_, "why": "zq"}).as_object().unwrap().clone();
        assert!(why.is_secret(&given("trope")), "secret for the choice it names");
        assert!(!why.is_secret(&given("luck")), "not for another");
        let e = refused(r#"params.why = { type = "text", secret_when = { param = "use", is = ["trop"] } }"#);
        assert_eq!(e.field, "actions.spend.params.why.secret_when.is");
    }

    #[test]
    fn loops_items_and_the_owner_are_refused() {
        let looped = BASE.replace(
            r#"params.charge = { type = "bool", default = false }"#,
            r#"params.charge = { type = "bool", default = false, only_when = { param = "bonus", is = ["push"] } }"#,
        );
        let e = Manifest::parse("plugin.toml", &looped).unwrap_err();
        assert_eq!(e.field, "actions.spend.params.charge.only_when.param");
        assert!(e.message.contains("charge → bonus → charge"), "{e}");
        let item =
            r#"params.x = { type = "list", of = { type = "int", only_when = { param = "use", is = ["luck"] } } }"#;
        assert_eq!(refused(item).field, "actions.spend.params.x.of.only_when");
        let owner = BASE.replace(
            r#"params.character = { type = "entity", kind = "character" }"#,
            r#"params.character = { type = "entity", kind = "character", only_when = { param = "use", is = ["luck"] } }"#,
        );
        assert_eq!(
            Manifest::parse("plugin.toml", &owner).unwrap_err().field,
            "actions.spend.params.character.only_when"
        );
        let nested = r#"params.r = { type = "record", fields = { a = { type = "bool" }, b = { type = "int", only_when = { param = "a", is = ["x"] } } } }"#;
        assert_eq!(refused(nested).field, "actions.spend.params.r.fields.b.only_when.is");
    }
}
