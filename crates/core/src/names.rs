//! The names nearest a typed one, for "did you mean …?".
//!
//! A name typed by hand (a skill, a trait, an attribute) that matches nothing is compared with
//! the names it could have meant, ignoring case and spaces at the ends. Guarantees:
//! - a name is near when it is at most a third of the typed length away in edits (at least
//!   one; a swap of two letters is one edit), or when it starts with what was typed (three
//!   letters or more);
//! - at most [`MAX_NEAR`] names, nearest first, then in alphabetical order, each once;
//! - only the names it is given: a caller passes only what the reader may see.

use std::collections::BTreeSet;

/// At most this many names are suggested.
pub const MAX_NEAR: usize = 3;

/// The names among `names` nearest to `typed`, nearest first (none when nothing is near, or
/// when `typed` is one of them).
pub fn nearest<'a>(typed: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let want = typed.trim().to_lowercase();
    if want.is_empty() {
        return Vec::new();
    }
    let allowed = (want.chars().count() / 3).max(1);
    let mut near: BTreeSet<(usize, String, &'a str)> = BTreeSet::new();
    for name in names {
        let have = name.trim().to_lowercase();
        if have == want {
            return Vec::new();
        }
        let edits = strsim::damerau_levenshtein(&want, &have);
        let prefix = want.chars().count() >= 3 && have.starts_with(&want);
        if edits <= allowed || prefix {
            near.insert((if prefix { edits.min(allowed) } else { edits }, have, name));
        }
    }
    let mut out: Vec<&'a str> = Vec::new();
    for (_, _, name) in near {
        if out.len() < MAX_NEAR && !out.iter().any(|n| n.trim().eq_ignore_ascii_case(name.trim())) {
            out.push(name);
        }
    }
    out
}

/// "; did you mean Notice?" (or "Notice or Notion", "A, B or C"), or nothing when `near` is empty.
pub fn did_you_mean(near: &[impl AsRef<str>]) -> String {
    let names: Vec<&str> = near.iter().map(AsRef::as_ref).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => format!("; did you mean {one}?"),
        [rest @ .., last] => format!("; did you mean {} or {last}?", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SKILLS: [&str; 6] = ["Notice", "Fighting", "Shooting", "Stealth", "Athletics", "Persuasion"];

    #[test]
    fn a_typo_names_the_skill_it_was_meant_to_be() {
        assert_eq!(nearest("notise", SKILLS), vec!["Notice"]);
        assert_eq!(nearest("Figthing", SKILLS), vec!["Fighting"], "two letters swapped are one edit");
        assert_eq!(nearest("shoot", SKILLS), vec!["Shooting"], "the start of a name");
        assert_eq!(did_you_mean(&nearest("notise", SKILLS)), "; did you mean Notice?");
    }

    #[test]
    fn nothing_near_suggests_nothing() {
        assert!(nearest("Riding", SKILLS).is_empty());
        assert!(nearest("", SKILLS).is_empty());
        assert!(nearest("ab", ["xy"]).is_empty());
        assert_eq!(did_you_mean(&Vec::<&str>::new()), "");
    }

    #[test]
    fn several_near_names_are_listed_nearest_first() {
        let near = nearest("Gun", ["Guns", "Gut", "Run", "Guts", "Gum"]);
        assert_eq!(near.len(), MAX_NEAR);
        assert_eq!(did_you_mean(&["A", "B", "C"]), "; did you mean A, B or C?");
    }

    proptest! {
        /// Any one edit of a name of four letters or more finds that name again.
        #[test]
        fn one_edit_of_a_name_finds_it(i in 0usize..SKILLS.len(), at in 0usize..4, c in "[a-z]") {
            let name = SKILLS[i];
            let mut typed: Vec<char> = name.to_lowercase().chars().collect();
            typed[at] = c.chars().next().unwrap();
            let typed: String = typed.into_iter().collect();
            prop_assume!(!typed.eq_ignore_ascii_case(name));
            prop_assert!(nearest(&typed, SKILLS).contains(&name), "{typed} should find {name}");
        }

        /// A name itself, in any case, is no typo.
        #[test]
        fn a_name_as_it_is_suggests_nothing(i in 0usize..SKILLS.len(), upper in any::<bool>()) {
            let typed = if upper { SKILLS[i].to_uppercase() } else { SKILLS[i].to_lowercase() };
            prop_assert!(nearest(&typed, SKILLS).is_empty());
        }
    }
}
