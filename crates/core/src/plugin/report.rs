//! What each house-rule function does to the rules, in terms a GM can check.
//!
//! Every function a house rule defines is exactly one of:
//! - **wraps**: it replaces the ruleset function of the same name and arity and calls it as
//!   `original(…)`;
//! - **replaces**: it replaces that function without calling it;
//! - **adds**: a new function something calls — a function of the rules (other than itself),
//!   the manifest (an action, a hook), a pointer `Fn("name")`, or the ruleset by name (a family
//!   of moments such as `knack_*`);
//! - **unused**: a new function nothing calls, so it changes nothing (a misspelt name, most
//!   likely). It carries a warning, and loading goes on.
//!
//! A function that replaces a hook, or whose name is in a family of moments, names the hook.
//! For a function that replaces nothing, the ruleset function with the nearest name (by edit
//! distance, when near enough to be a slip) is given.

use super::calls::{CallSite, Form};
use crate::manifest::Manifest;
use rhai::Position;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// What a house-rule function does to the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HouseEffect {
    /// Replaces the ruleset's function of the same name and arity, calling it as `original(…)`.
    Wraps,
    /// Replaces the ruleset's function of the same name and arity.
    Replaces,
    /// A new function that something calls.
    Adds,
    /// A new function that nothing calls: it changes nothing.
    Unused,
}

/// A function a house rule defines, and what it does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HouseFunction {
    pub file: String,
    pub name: String,
    pub arity: usize,
    /// Where its body starts in the file.
    pub line: usize,
    pub column: usize,
    /// It replaces the ruleset's function of the same name and arity (otherwise it is new).
    pub replaces: bool,
    pub effect: HouseEffect,
    /// The hook it is: an engine hook (`round_end`) or a moment of the manifest
    /// (`on_turn_start`, `knack_*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
    /// For a function that replaces nothing: the ruleset function with the nearest name, as
    /// `name/arity`, when it is near enough to be a slip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearest: Option<String>,
    /// Why it probably does not do what was meant (every unused function has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

impl HouseFunction {
    /// `file:line:col: warning: …`, if it has a warning.
    pub fn warning_text(&self) -> Option<String> {
        let w = self.warning.as_ref()?;
        Some(format!("{}:{}:{}: warning: {w}", self.file, self.line, self.column))
    }
}

/// A function a house-rule script defines, as compiled.
pub(super) struct HouseDef {
    pub file: String,
    pub name: String,
    pub arity: usize,
    pub pos: Position,
}

/// Says what each house function does. `ruleset`: the ruleset's functions with where they are;
/// `wrapping`: the house functions that call `original`; `sites`: every call in the merged
/// scripts (ruleset and house rules).
pub(super) fn describe(
    defs: &[HouseDef],
    ruleset: &HashMap<(String, usize), (String, Position)>,
    wrapping: &BTreeSet<(String, usize)>,
    manifest: &Manifest,
    sites: &[CallSite],
) -> Vec<HouseFunction> {
    let referenced: BTreeSet<(String, usize)> =
        manifest.referenced_functions().into_iter().map(|(_, f, arity)| (f, arity)).collect();
    defs.iter()
        .map(|d| {
            let key = (d.name.clone(), d.arity);
            let replaces = ruleset.contains_key(&key);
            // A new function is a hook only in a family the ruleset calls by name.
            let hook = manifest.hooks.hook_of(&d.name).filter(|h| replaces || h.ends_with('*'));
            let called = hook.is_some() || referenced.contains(&key) || is_called(&key, sites);
            let effect = match (replaces, wrapping.contains(&key), called) {
                (true, true, _) => HouseEffect::Wraps,
                (true, false, _) => HouseEffect::Replaces,
                (false, _, true) => HouseEffect::Adds,
                (false, _, false) => HouseEffect::Unused,
            };
            let near = if replaces { None } else { nearest(&d.name, ruleset.keys()) };
            let warning = (effect == HouseEffect::Unused).then(|| unused_warning(d, near.as_ref(), ruleset));
            let (line, column) = (d.pos.line().unwrap_or(0), d.pos.position().unwrap_or(0));
            HouseFunction {
                file: d.file.clone(),
                name: d.name.clone(),
                arity: d.arity,
                line,
                column,
                replaces,
                effect,
                hook,
                nearest: near.map(|(n, a)| format!("{n}/{a}")),
                warning,
            }
        })
        .collect()
}

/// Whether any call other than its own (recursion) reaches `key`.
fn is_called(key: &(String, usize), sites: &[CallSite]) -> bool {
    sites.iter().any(|s| {
        let reaches = match s.form {
            Form::Pointer => s.name == key.0,
            Form::Namespaced => false,
            Form::Plain | Form::Capturing | Form::Method => s.name == key.0 && s.args == key.1,
        };
        reaches && s.within.as_ref() != Some(key)
    })
}

fn unused_warning(
    d: &HouseDef,
    near: Option<&(String, usize)>,
    ruleset: &HashMap<(String, usize), (String, Position)>,
) -> String {
    let mut text = format!(
        "fn {}/{} replaces no ruleset function, is no hook, and nothing calls it, so it changes nothing",
        d.name, d.arity
    );
    if let Some((name, arity)) = near {
        let file = ruleset.get(&(name.clone(), *arity)).map(|(f, _)| f.as_str()).unwrap_or("its scripts");
        if *name == d.name {
            text += &format!(
                "; the ruleset's {name} (in its {file}) takes {arity} parameter(s), and a replacement takes as many"
            );
        } else {
            text += &format!("; did you mean {name}/{arity} (in the ruleset's {file})?");
        }
    }
    text
}

/// The function among `candidates` whose name is nearest to `name` (fewest single-character
/// edits), if it is near enough to be a slip: less than half the name's length, and at most 2
/// edits for short names. Ties go to the same arity listed first in name order.
pub(super) fn nearest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a (String, usize)>,
) -> Option<(String, usize)> {
    let limit = (name.chars().count() / 2).max(2);
    let mut best: Option<(usize, &(String, usize))> = None;
    for c in candidates {
        let d = edit_distance(name, &c.0);
        let better = match best {
            None => true,
            Some((bd, b)) => d < bd || (d == bd && c < b),
        };
        if d <= limit && better {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c.clone())
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_name_is_a_slip_away_or_none() {
        let ruleset: Vec<(String, usize)> =
            [("exploit_weakness_cost", 0), ("afflict_cost", 0), ("on_turn_start", 3), ("boss_of", 2)]
                .iter()
                .map(|(n, a)| (n.to_string(), *a))
                .collect();
        assert_eq!(nearest("exploit_weakness_costs", ruleset.iter()), Some(("exploit_weakness_cost".into(), 0)));
        assert_eq!(nearest("on_turn_begin", ruleset.iter()), Some(("on_turn_start".into(), 3)));
        assert_eq!(nearest("afflict_cost", ruleset.iter()), Some(("afflict_cost".into(), 0)), "same name, any arity");
        assert_eq!(nearest("grit_of_hero", ruleset.iter()), None, "nothing near: no suggestion");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
