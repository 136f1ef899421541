//! The checks of one declared parameter that do not depend on the rest of the manifest: every
//! field it sets applies to its type, its bounds do not contradict each other, and its
//! `default` is a value it would accept. Each refusal names the field.

use super::checks::Refusal;
use crate::params::{self, ItemSpec, ParamSpec, ParamType};

fn refuse(field: String, message: impl Into<String>) -> Result<(), Refusal> {
    Err((field, message.into()))
}

/// The type the constraints of `p` apply to: its own, or for a list or map whose items are
/// named by a bare type, the items' (which borrow the outer constraints).
fn constrained(p: &ParamSpec) -> ParamType {
    match (&p.ty, &p.of) {
        (ParamType::List | ParamType::Map, Some(ItemSpec::Type(t))) => *t,
        _ => p.ty,
    }
}

/// Every check of one parameter at field path `f`.
pub(super) fn check(f: &str, p: &ParamSpec) -> Result<(), Refusal> {
    fields_apply(f, p)?;
    bounds(f, p)?;
    options(f, p)?;
    match &p.default {
        Some(d) => params::check_default(p, d).map_err(|e| (format!("{f}.default"), e.message)),
        None => Ok(()),
    }
}

/// Each field set is one the parameter's type reads.
fn fields_apply(f: &str, p: &ParamSpec) -> Result<(), Refusal> {
    let ty = constrained(p);
    let container = matches!(p.ty, ParamType::List | ParamType::Map);
    let set: [(&str, bool, bool); 11] = [
        ("min", p.min.is_some(), ty == ParamType::Int),
        ("max", p.max.is_some(), ty == ParamType::Int),
        ("options", !p.options.is_empty(), ty == ParamType::Choice),
        ("kind", p.kind.is_some(), ty == ParamType::Entity),
        ("kinds", !p.kinds.is_empty(), ty == ParamType::Entity),
        ("entity", p.entity.is_some(), ty == ParamType::Trait),
        ("category", p.category.is_some(), ty == ParamType::Trait),
        ("max_len", p.max_len.is_some(), ty == ParamType::Text),
        ("of", p.of.is_some(), container),
        ("min_items", p.min_items.is_some(), container),
        ("max_items", p.max_items.is_some(), container),
    ];
    if let Some((field, ..)) = set.iter().find(|(_, given, applies)| *given && !applies) {
        let what = format!("{ty:?}").to_lowercase();
        return refuse(format!("{f}.{field}"), format!("a {what} parameter has no use for {field}"));
    }
    if !p.fields.is_empty() && p.ty != ParamType::Record {
        return refuse(format!("{f}.fields"), "only a record parameter has fields");
    }
    Ok(())
}

/// Lower bounds are not above upper ones; a text may hold something.
fn bounds(f: &str, p: &ParamSpec) -> Result<(), Refusal> {
    if let (Some(min), Some(max)) = (p.min, p.max) {
        if min > max {
            return refuse(format!("{f}.min"), format!("min {min} is above max {max}: no value fits"));
        }
    }
    if let (Some(min), Some(max)) = (p.min_items, p.max_items) {
        if min > max {
            return refuse(format!("{f}.min_items"), format!("min_items {min} is above max_items {max}"));
        }
    }
    if p.max_len == Some(0) {
        return refuse(format!("{f}.max_len"), "max_len 0 lets no text through");
    }
    if p.kind.is_some() && !p.kinds.is_empty() {
        return refuse(format!("{f}.kinds"), "give kind (one) or kinds (any of several), not both");
    }
    Ok(())
}

/// A choice's options differ, even in capitals (a choice is read without them).
fn options(f: &str, p: &ParamSpec) -> Result<(), Refusal> {
    for (i, o) in p.options.iter().enumerate() {
        if p.options[..i].iter().any(|e| e.eq_ignore_ascii_case(o)) {
            return refuse(
                format!("{f}.options"),
                format!("'{o}' is listed twice (options are read without capitals)"),
            );
        }
    }
    Ok(())
}
