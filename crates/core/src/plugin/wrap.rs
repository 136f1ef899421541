//! `original(…)`: inside a house-rule function, the ruleset function it replaces.
//!
//! A house-rule function that replaces a ruleset function of the same name and arity may call
//! the one it replaced as `original(…)`, with the same number of arguments. The ruleset's
//! function stays in the rules under a reserved name (`original__NAME`), and each such call is
//! renamed to it while the house rule compiles (by place, in the tokenizer: see
//! [`crate::engine::compile_renamed`]). Since the original is the ruleset's current function,
//! a house rule that wraps follows every later change to the ruleset.
//!
//! Guarantees, each refused at load with the file, line and column:
//! - `original` reaches only the function its own function replaces: never another function,
//!   never another house rule (a function is defined once in the house rules, so a wrap of a
//!   wrap cannot be written);
//! - `original` is refused at the top level of a script, in a function that replaces nothing,
//!   with another number of arguments, as a method (`x.original()`), as `original!(…)`, as a
//!   pointer (`Fn("original")`) and in a ruleset script;
//! - no script may define a function named `original`, nor use a name starting with
//!   `original__` (the reserved names), so the copies are reached through `original` only —
//!   short of building the name at run time for `Fn`, which reaches nothing the house rule
//!   could not copy, and runs in the same sandbox as everything else.

use super::calls::{CallSite, Form};
use super::check::problem;
use super::report::nearest;
use super::Problem;
use crate::engine::Rename;
use crate::script_error::ScriptErrorKind;
use rhai::{Module, Position, AST};
use std::collections::{BTreeSet, HashMap};

/// The name a house-rule function calls the function it replaces by.
pub(super) const ORIGINAL: &str = "original";
/// Names starting with this are kept for the replaced functions.
pub(super) const RESERVED: &str = "original__";

/// The reserved name of the ruleset function `name` while a house rule wraps it.
pub(super) fn hidden_name(name: &str) -> String {
    format!("{RESERVED}{name}")
}

/// Refuses the reserved names in any script: a function named `original` or `original__…`,
/// and a call that names `original__…`.
pub(super) fn check_reserved(
    file: &str,
    defined: &[(String, usize, Position)],
    sites: &[CallSite],
    problems: &mut Vec<Problem>,
) {
    for (name, _, pos) in defined {
        if name == ORIGINAL || name.starts_with(RESERVED) {
            let message = format!(
                "fn {name}: the name is kept for calling the ruleset function a house rule replaces; \
                 rename the function"
            );
            problems.push(problem(ScriptErrorKind::Syntax, file, *pos, message));
        }
    }
    for s in sites.iter().filter(|s| s.name.starts_with(RESERVED)) {
        let message = format!(
            "{}: names starting with {RESERVED} are kept for the functions house rules replace; \
             call original(…) inside the house-rule function instead",
            s.name
        );
        problems.push(problem(ScriptErrorKind::Syntax, file, s.position(), message));
    }
}

/// A ruleset script calling `original`: only a house rule's function has an original.
pub(super) fn check_ruleset(file: &str, sites: &[CallSite], problems: &mut Vec<Problem>) {
    for s in sites.iter().filter(|s| s.name == ORIGINAL && s.form != Form::Namespaced) {
        let message =
            "original(…) is for house rules: inside a house-rule function it calls the ruleset function that \
                       function replaces; a ruleset function has none"
                .to_string();
        problems.push(problem(ScriptErrorKind::Syntax, file, s.position(), message));
    }
}

/// How to compile one house-rule script: the calls to rename, and the functions it wraps.
#[derive(Default)]
pub(super) struct Wraps {
    pub renames: Vec<Rename>,
    /// The house functions (name, arity) that call `original`.
    pub wrapping: BTreeSet<(String, usize)>,
}

/// Checks every `original` call of a house-rule script against the ruleset's functions
/// (`ruleset`: (name, arity) → where it is) and says what to rename.
pub(super) fn house_wraps(
    file: &str,
    sites: &[CallSite],
    ruleset: &HashMap<(String, usize), (String, Position)>,
    problems: &mut Vec<Problem>,
) -> Wraps {
    let mut wraps = Wraps::default();
    for s in sites.iter().filter(|s| s.name == ORIGINAL && s.form != Form::Namespaced) {
        let refuse = |message: String| problem(ScriptErrorKind::Syntax, file, s.position(), message);
        let Some((name, arity)) = &s.within else {
            problems.push(refuse(
                "original(…) calls the ruleset function a house-rule function replaces, so it belongs \
                 inside that function, not at the top level of the script"
                    .into(),
            ));
            continue;
        };
        let message = match s.form {
            Form::Method => Some(format!("call original as a function, original(…), not as a method (in fn {name})")),
            Form::Capturing => Some(format!(
                "original!(…) would hand fn {name}'s variables to the ruleset function; \
                 call original(…) with arguments"
            )),
            Form::Pointer => {
                Some(format!("original cannot be taken as Fn(\"original\"); call original(…) in fn {name}"))
            }
            Form::Plain | Form::Namespaced => None,
        };
        if let Some(m) = message {
            problems.push(refuse(m));
            continue;
        }
        let key = (name.clone(), *arity);
        if !ruleset.contains_key(&key) {
            problems.push(refuse(replaces_nothing(name, *arity, ruleset)));
            continue;
        }
        if s.args != *arity {
            problems.push(refuse(format!(
                "original(…) passes {} here, but fn {name} and the ruleset function it replaces take {}",
                count(s.args, "argument"),
                count(*arity, "parameter")
            )));
            continue;
        }
        wraps.renames.push(Rename { line: s.line, column: s.column, from: ORIGINAL.into(), to: hidden_name(name) });
        wraps.wrapping.insert(key);
    }
    wraps
}

/// Why `original` has nothing to call in `fn name/arity`, with the nearest ruleset function.
fn replaces_nothing(name: &str, arity: usize, ruleset: &HashMap<(String, usize), (String, Position)>) -> String {
    let mut message = format!("fn {name}/{arity} replaces no ruleset function, so it has no original to call");
    if let Some((other, other_arity)) = nearest(name, ruleset.keys()) {
        if other == name {
            message += &format!(
                "; the ruleset's {other} takes {}, so a house rule that replaces it takes as many",
                count(other_arity, "parameter")
            );
        } else {
            message += &format!("; did you mean {other} (with {})?", count(other_arity, "parameter"));
        }
    }
    message
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The wrapped ruleset functions under their reserved names, as an AST to merge into the rules.
pub(super) fn originals(ruleset: &[&AST], wrapped: &BTreeSet<(String, usize)>) -> AST {
    let mut module = Module::new();
    for ast in ruleset {
        for f in ast.iter_fn_def() {
            if wrapped.contains(&(f.name.to_string(), f.params.len())) {
                let mut copy = (**f).clone();
                copy.name = hidden_name(&f.name).into();
                module.set_script_fn(copy);
            }
        }
    }
    AST::new_from_module(module)
}
