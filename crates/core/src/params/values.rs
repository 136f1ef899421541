//! Checking one raw value against its [`ParamSpec`]: one function per parameter type, chosen by
//! [`value`]. Each returns the value normalised (names resolved to ids, numbers to their range)
//! or an error naming the parameter's path.

use super::{err, ParamError, ParamSpec, ParamType, DEFAULT_MAX_ITEMS, DEFAULT_MAX_TEXT};
use crate::dice;
use crate::table::Table;
use crate::text::{self, Lines};
use crate::traits;
use crate::visibility::Role;
use indexmap::IndexMap;
use serde_json::{Map, Value};

/// What a value is checked against: the table, who gives it, and the values already checked
/// beside it (the entity a trait belongs to).
pub(super) struct Ctx<'a> {
    pub table: &'a Table,
    pub role: &'a Role,
    pub siblings: &'a Map<String, Value>,
}

/// The check of one parameter type.
type Check = fn(&ParamSpec, &Value, &Ctx, &str) -> Result<Value, ParamError>;

/// The check for each parameter type.
fn check_of(ty: ParamType) -> Check {
    match ty {
        ParamType::Int => int,
        ParamType::Bool => boolean,
        ParamType::Text => text,
        ParamType::Player => player,
        ParamType::Choice => choice,
        ParamType::Dice => dice_expr,
        ParamType::Entity => entity,
        ParamType::Trait => trait_name,
        ParamType::Pool => pool,
        ParamType::List => list,
        ParamType::Map => map,
        ParamType::Record => record,
    }
}

/// Checks one value against its spec: text given is held to the one rule for text first.
pub(super) fn value(spec: &ParamSpec, raw: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    if let Value::String(s) = raw {
        text::check(s, spec.lines()).map_err(|e| err(path, e.to_string()))?;
    }
    check_of(spec.ty)(spec, raw, cx, path)
}

/// Checks the values of a group of parameters (an action's, or a record's fields under
/// `prefix`), in their declared order. A parameter whose condition does not hold is as if left
/// out (its default, or `null`), and a value given for it is refused.
pub(super) fn object(
    specs: &IndexMap<String, ParamSpec>,
    raw: &Map<String, Value>,
    table: &Table,
    role: &Role,
    prefix: &str,
) -> Result<Map<String, Value>, ParamError> {
    known_keys(specs, raw, prefix)?;
    let mut out = Map::new();
    let mut ruled_out: Vec<&str> = Vec::new();
    for name in order(specs) {
        let spec = &specs[name];
        let path = format!("{prefix}{name}");
        let chosen = match why_not(spec, specs, &out, &ruled_out) {
            Some(why) => {
                ruled_out.push(name);
                if is_given(raw.get(name)) {
                    return Err(with_rule(err(&path, why), spec));
                }
                spec.default.clone()
            }
            None => given(spec, raw.get(name), &path)?,
        };
        let v = match chosen {
            None => Value::Null,
            Some(given) => {
                let cx = Ctx { table, role, siblings: &out };
                value(spec, &given, &cx, &path).map_err(|e| with_rule(e, spec))?
            }
        };
        out.insert(name.to_string(), v);
    }
    // Keep the declared order.
    Ok(specs.keys().filter_map(|name| out.remove(name).map(|v| (name.clone(), v))).collect())
}

/// The order the parameters are checked in: entities first, so a trait is checked against the
/// entity it belongs to, and each parameter after the one its condition names and the entity
/// its traits belong to. (A loop of conditions, which a manifest may not have, is taken as
/// declared.)
fn order(specs: &IndexMap<String, ParamSpec>) -> Vec<&str> {
    let declared: Vec<&str> = specs
        .iter()
        .filter(|(_, s)| s.ty == ParamType::Entity)
        .chain(specs.iter().filter(|(_, s)| s.ty != ParamType::Entity))
        .map(|(n, _)| n.as_str())
        .collect();
    let needs = |s: &ParamSpec| -> Vec<String> {
        let owner = s.entity.clone().or_else(|| s.item().and_then(|i| i.entity));
        s.only_when.iter().map(|c| c.param.clone()).chain(owner).filter(|n| specs.contains_key(n)).collect()
    };
    let mut done: Vec<&str> = Vec::with_capacity(declared.len());
    while done.len() < declared.len() {
        let before = done.len();
        for name in &declared {
            if !done.contains(name) && needs(&specs[*name]).iter().all(|n| done.contains(&n.as_str())) {
                done.push(*name);
            }
        }
        if done.len() == before {
            let rest: Vec<&str> = declared.iter().copied().filter(|n| !done.contains(n)).collect();
            done.extend(rest);
        }
    }
    done
}

/// Why a parameter does not apply, when its condition does not hold: the parameter it names
/// does not apply itself, or holds another value. Values already checked are in `out`.
fn why_not(
    spec: &ParamSpec,
    specs: &IndexMap<String, ParamSpec>,
    out: &Map<String, Value>,
    ruled_out: &[&str],
) -> Option<String> {
    let cond = spec.only_when.as_ref()?;
    let by = specs.get(&cond.param)?;
    let label = label_of(&cond.param, by);
    if ruled_out.contains(&cond.param.as_str()) {
        return Some(format!("only goes with {label}: {}, which does not apply here", cond.said()));
    }
    let now = out.get(&cond.param).cloned().unwrap_or(Value::Null);
    if cond.holds_for(&now) {
        return None;
    }
    let is = match &now {
        Value::Null => "left out".to_string(),
        v => format!("is {}", super::OnlyWhen { param: String::new(), is: vec![v.clone()] }.said()),
    };
    Some(format!("only goes with {label}: {} ({label} {is}); leave it out", cond.said()))
}

/// A parameter as a form labels it: its label, or its name in words.
fn label_of(name: &str, spec: &ParamSpec) -> String {
    spec.label.clone().unwrap_or_else(|| {
        let words = name.replace('_', " ");
        let mut chars = words.chars();
        chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
    })
}

/// Whether a value was given at all (not left out, blank text or an empty list).
fn is_given(raw: Option<&Value>) -> bool {
    match raw {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(_) => true,
    }
}

/// Every key given is a declared parameter.
fn known_keys(specs: &IndexMap<String, ParamSpec>, raw: &Map<String, Value>, prefix: &str) -> Result<(), ParamError> {
    match raw.keys().find(|k| !specs.contains_key(*k)) {
        None => Ok(()),
        Some(key) => {
            let known: Vec<&str> = specs.keys().map(String::as_str).collect();
            let takes = if known.is_empty() { "no parameters".to_string() } else { known.join(", ") };
            Err(err(&format!("{prefix}{key}"), format!("unknown parameter (this takes: {takes})")))
        }
    }
}

/// The value to check for a parameter: the one given, its default when it was left out (or
/// left blank, for a type other than text), or none for an optional one.
fn given(spec: &ParamSpec, raw: Option<&Value>, path: &str) -> Result<Option<Value>, ParamError> {
    let blank =
        |s: &str| s.trim().is_empty() && spec.ty != ParamType::Text && (spec.optional || spec.default.is_some());
    match raw {
        Some(Value::String(s)) if !blank(s) => Ok(Some(Value::String(s.clone()))),
        Some(v) if !v.is_null() && !v.is_string() => Ok(Some(v.clone())),
        _ => match (&spec.default, spec.optional) {
            (Some(d), _) => Ok(Some(d.clone())),
            (None, true) => Ok(None),
            (None, false) => Err(err(path, "is required")),
        },
    }
}

/// A refusal names the rule of the spec (or of its items) when the check did not.
fn with_rule(mut e: ParamError, spec: &ParamSpec) -> ParamError {
    if e.rule.is_none() {
        e.rule = spec.rule.clone().or_else(|| spec.item().and_then(|i| i.rule));
    }
    e
}

fn int(spec: &ParamSpec, value: &Value, _: &Ctx, path: &str) -> Result<Value, ParamError> {
    let n = match value {
        Value::Number(n) => n.as_i64().ok_or_else(|| err(path, format!("{n} is not a whole number")))?,
        Value::String(s) => s.trim().parse::<i64>().map_err(|_| err(path, format!("'{s}' is not a whole number")))?,
        other => return Err(err(path, format!("expected a whole number, got {other}"))),
    };
    if let Some(min) = spec.min.filter(|min| n < *min) {
        return Err(err(path, format!("{n} is below the minimum of {min}")));
    }
    if let Some(max) = spec.max.filter(|max| n > *max) {
        return Err(err(path, format!("{n} is above the maximum of {max}")));
    }
    Ok(Value::from(n))
}

fn boolean(_: &ParamSpec, value: &Value, _: &Ctx, path: &str) -> Result<Value, ParamError> {
    match value {
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" | "on" => Ok(Value::Bool(true)),
            "false" | "no" | "n" | "0" | "off" => Ok(Value::Bool(false)),
            _ => Err(err(path, format!("'{s}' is not yes or no"))),
        },
        Value::Number(n) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => Ok(Value::Bool(n.as_i64() == Some(1))),
        other => Err(err(path, format!("expected true or false, got {other}"))),
    }
}

fn text(spec: &ParamSpec, value: &Value, _: &Ctx, path: &str) -> Result<Value, ParamError> {
    let s = as_text(value).ok_or_else(|| err(path, format!("expected text, got {value}")))?;
    let max = spec.max_len.unwrap_or(DEFAULT_MAX_TEXT);
    if s.chars().count() > max {
        return Err(err(path, format!("is longer than {max} characters")));
    }
    if s.trim().is_empty() && !spec.optional {
        return Err(err(path, "must not be empty"));
    }
    Ok(Value::String(s))
}

fn player(spec: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let s = as_text(value).ok_or_else(|| err(path, format!("expected a player's name, got {value}")))?;
    let name = s.trim();
    if name.is_empty() {
        return if spec.optional { Ok(Value::Null) } else { Err(err(path, "must not be empty")) };
    }
    let name = match Role::parse(&format!("player:{name}")) {
        Ok(Role::Player(p)) => p,
        _ => return Err(err(path, format!("'{name}' is not a player's name"))),
    };
    if let Some(known) = super::players(cx.table).into_iter().find(|p| p != &name && p.eq_ignore_ascii_case(&name)) {
        return Err(err(path, format!("'{name}' is not a player here: did you mean '{known}'? (names are exact)")));
    }
    Ok(Value::String(name))
}

fn choice(spec: &ParamSpec, value: &Value, _: &Ctx, path: &str) -> Result<Value, ParamError> {
    let options = spec.options.join(", ");
    let s = as_text(value).ok_or_else(|| err(path, format!("expected one of {options}, got {value}")))?;
    spec.options
        .iter()
        .find(|o| o.eq_ignore_ascii_case(s.trim()))
        .map(|o| Value::String(o.clone()))
        .ok_or_else(|| err(path, format!("'{s}' is not one of {options}")))
}

fn dice_expr(_: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let s = as_text(value).ok_or_else(|| err(path, format!("expected a dice expression, got {value}")))?;
    dice::parse_in(&s, dice::Dialect::of_settings(&cx.table.settings)).map_err(|e| err(path, format!("'{s}': {e}")))?;
    Ok(Value::String(s.trim().to_string()))
}

fn entity(spec: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let s = as_text(value).ok_or_else(|| err(path, format!("expected an entity, got {value}")))?;
    let e = cx.table.resolve(&s).filter(|e| cx.role.sees(e.visibility, e.owner.as_deref())).ok_or_else(|| {
        let seen = cx.table.entities.values().filter(|e| cx.role.sees(e.visibility, e.owner.as_deref()));
        let near = crate::names::did_you_mean(&crate::names::nearest(&s, seen.map(|e| e.name.as_str())));
        err(path, format!("there is no \"{s}\" on the table{near}"))
    })?;
    if let Some(kind) = spec.kind.as_ref().filter(|k| **k != e.kind) {
        return Err(err(path, format!("\"{}\" is a {}, not a {kind}", e.name, e.kind)));
    }
    if !spec.kinds.is_empty() && !spec.kinds.contains(&e.kind) {
        return Err(err(path, format!("\"{}\" is a {}, not one of: {}", e.name, e.kind, spec.kinds.join(", "))));
    }
    Ok(Value::String(e.id.clone()))
}

fn trait_name(spec: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let s = as_text(value).ok_or_else(|| err(path, format!("expected a trait name, got {value}")))?;
    let owner = spec.entity.as_ref().and_then(|param| cx.siblings.get(param));
    let Some(Value::String(id)) = owner else {
        return Ok(Value::String(s.trim().to_string()));
    };
    let e = cx.table.entity(id).map_err(|e| err(path, e.to_string()))?;
    let t = traits::find(&e.traits, &s)
        .filter(|t| spec.category.as_ref().is_none_or(|c| t.category.as_deref() == Some(c.as_str())))
        .filter(|t| cx.role.sees(e.visibility.stricter(t.visibility), e.owner.as_deref()))
        .ok_or_else(|| {
            let which = spec.category.as_deref().map(|c| format!(" among its {c} traits")).unwrap_or_default();
            // Suggested: only the traits this parameter could name that the one acting may see.
            let could = e.traits.iter().filter(|t| {
                spec.category.as_ref().is_none_or(|c| t.category.as_deref() == Some(c.as_str()))
                    && cx.role.sees(e.visibility.stricter(t.visibility), e.owner.as_deref())
            });
            let near = crate::names::did_you_mean(&crate::names::nearest(&s, could.map(|t| t.name.as_str())));
            err(path, format!("{} has no trait \"{s}\"{which}{near}", e.name))
        })?;
    Ok(Value::String(t.name.clone()))
}

fn pool(_: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let s = as_text(value).ok_or_else(|| err(path, format!("expected a pool, got {value}")))?;
    let r = crate::pool::PoolRef::parse(&s).map_err(|m| err(path, m.to_string()))?;
    // An entity's pool may be named by the entity's display name.
    let r = match &r.entity {
        Some(e) => match cx.table.resolve(e).filter(|e| cx.role.sees(e.visibility, e.owner.as_deref())) {
            Some(ent) => crate::pool::PoolRef { entity: Some(ent.id.clone()), name: r.name.clone() },
            None => return Err(err(path, format!("there is no \"{e}\" on the table"))),
        },
        None => r,
    };
    cx.table.pool(&r).map_err(|_| err(path, format!("there is no pool \"{s}\"")))?;
    Ok(Value::String(r.to_string()))
}

fn list(spec: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let item = spec.item().ok_or_else(|| err(path, "list parameter without 'of'"))?;
    let items: Vec<Value> = match value {
        Value::Array(a) => a.clone(),
        Value::String(s) if s.trim().is_empty() => vec![],
        Value::String(s) => s.split(',').map(|p| Value::String(p.trim().to_string())).collect(),
        other => vec![other.clone()],
    };
    count(spec, items.len(), "items", path)?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| self::value(&item, v, cx, &format!("{path}[{}]", i + 1)))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

fn map(spec: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let item = spec.item().ok_or_else(|| err(path, "map parameter without 'of'"))?;
    let entries =
        as_pairs(value).ok_or_else(|| err(path, "expected NAME:VALUE pairs separated by commas, or a JSON object"))?;
    count(spec, entries.len(), "entries", path)?;
    let mut out = Map::new();
    for (k, v) in entries {
        let k = k.trim().to_string();
        text::check(&k, Lines::One).map_err(|e| err(path, format!("a name: {e}")))?;
        if k.is_empty() || k.chars().count() > 100 {
            return Err(err(path, "a name must be 1 to 100 characters"));
        }
        let v = self::value(&item, &v, cx, &format!("{path}.{k}"))?;
        out.insert(k, v);
    }
    Ok(Value::Object(out))
}

/// A list or map holds between `min_items` and `max_items` of `what`.
fn count(spec: &ParamSpec, n: usize, what: &str, path: &str) -> Result<(), ParamError> {
    let max = spec.max_items.unwrap_or(DEFAULT_MAX_ITEMS);
    if n > max {
        return Err(err(path, format!("has {n} {what}; at most {max} are allowed")));
    }
    match spec.min_items.filter(|min| n < *min) {
        Some(min) => Err(err(path, format!("has {n} {what}; at least {min} are needed"))),
        None => Ok(()),
    }
}

fn record(spec: &ParamSpec, value: &Value, cx: &Ctx, path: &str) -> Result<Value, ParamError> {
    let entries =
        as_pairs(value).ok_or_else(|| err(path, "expected FIELD:VALUE pairs separated by commas, or a JSON object"))?;
    let raw: Map<String, Value> = entries.into_iter().collect();
    object(&spec.fields, &raw, cx.table, cx.role, &format!("{path}.")).map(Value::Object)
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `{"a":1}` or `a:1,b:2` as pairs (values from the string form stay strings).
fn as_pairs(v: &Value) -> Option<Vec<(String, Value)>> {
    match v {
        Value::Object(m) => Some(m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Value::String(s) if s.trim().is_empty() => Some(vec![]),
        Value::String(s) => s
            .split(',')
            .map(|pair| {
                let (k, v) = pair.split_once(':').or_else(|| pair.split_once('='))?;
                Some((k.trim().to_string(), Value::String(v.trim().to_string())))
            })
            .collect(),
        _ => None,
    }
}

/// Whether `value` is a value the parameter `spec` accepts, as far as a manifest can tell
/// without a table: names of entities, traits, pools and players must be text; everything
/// else is checked as a value given to the parameter would be.
pub(super) fn default_fits(spec: &ParamSpec, value: &Value, path: &str) -> Result<(), ParamError> {
    match spec.ty {
        ParamType::Entity | ParamType::Trait | ParamType::Pool | ParamType::Player => match value {
            Value::String(s) => text::check(s, Lines::One).map_err(|e| err(path, e.to_string())),
            other => Err(err(path, format!("expected a name, got {other}"))),
        },
        ParamType::List => {
            let item = spec.item().ok_or_else(|| err(path, "list parameter without 'of'"))?;
            let items = match value {
                Value::Array(a) => a.clone(),
                Value::String(s) if s.trim().is_empty() => vec![],
                Value::String(s) => s.split(',').map(|p| Value::String(p.trim().to_string())).collect(),
                other => vec![other.clone()],
            };
            count(spec, items.len(), "items", path)?;
            items.iter().enumerate().try_for_each(|(i, v)| default_fits(&item, v, &format!("{path}[{}]", i + 1)))
        }
        ParamType::Map => {
            let item = spec.item().ok_or_else(|| err(path, "map parameter without 'of'"))?;
            let entries = as_pairs(value).ok_or_else(|| err(path, "expected NAME:VALUE pairs or a map"))?;
            count(spec, entries.len(), "entries", path)?;
            entries.iter().try_for_each(|(k, v)| default_fits(&item, v, &format!("{path}.{k}")))
        }
        ParamType::Record => {
            let entries = as_pairs(value).ok_or_else(|| err(path, "expected FIELD:VALUE pairs or a map"))?;
            for (k, v) in &entries {
                let field = spec.fields.get(k).ok_or_else(|| err(path, format!("the record has no field '{k}'")))?;
                default_fits(field, v, &format!("{path}.{k}"))?;
            }
            Ok(())
        }
        _ => {
            let (table, siblings) = (Table::default(), Map::new());
            self::value(spec, value, &Ctx { table: &table, role: &Role::Gm, siblings: &siblings }, path).map(|_| ())
        }
    }
}
