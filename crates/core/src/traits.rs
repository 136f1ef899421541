//! Traits: named features of a character or a scene.
//!
//! A trait has a name, an optional rating, a category (gift, skill, attribute, location,
//! situation, equipment, knack …), a state (active, sealed, spent), a use count and tags. Using
//! a sealed or spent trait is refused with the reason, so a ruleset never has to remember to check.

use crate::visibility::Visibility;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Whether a trait can be used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TraitState {
    #[default]
    Active,
    /// Locked away, for example by a Boss affliction, until unsealed.
    Sealed,
    /// Used up until recovered.
    Spent,
}

impl TraitState {
    pub fn parse(text: &str) -> Option<TraitState> {
        match text.trim().to_ascii_lowercase().as_str() {
            "active" => Some(TraitState::Active),
            "sealed" => Some(TraitState::Sealed),
            "spent" => Some(TraitState::Spent),
            _ => None,
        }
    }
}

/// A trait.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Trait {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default)]
    pub state: TraitState,
    #[serde(default)]
    pub uses: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Trait {
    pub fn named(name: impl Into<String>) -> Trait {
        Trait {
            name: name.into(),
            rating: None,
            category: None,
            state: TraitState::Active,
            uses: 0,
            tags: Vec::new(),
            visibility: Visibility::Public,
            note: None,
        }
    }

    /// Whether `name` names this trait: exact, or equal ignoring case and surrounding spaces.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name || self.name.trim().eq_ignore_ascii_case(name.trim())
    }

    /// Why this trait cannot be used now, if it cannot.
    pub fn unusable(&self) -> Option<String> {
        match self.state {
            TraitState::Active => None,
            TraitState::Sealed => Some(format!("the trait \"{}\" is sealed", self.name)),
            TraitState::Spent => Some(format!("the trait \"{}\" is spent", self.name)),
        }
    }
}

/// Finds a trait by name in a list (exact match first, then ignoring case).
pub fn find<'a>(traits: &'a [Trait], name: &str) -> Option<&'a Trait> {
    traits.iter().find(|t| t.name == name).or_else(|| traits.iter().find(|t| t.is_named(name)))
}

/// Index of a trait by name, as [`find`].
pub fn position(traits: &[Trait], name: &str) -> Option<usize> {
    traits.iter().position(|t| t.name == name).or_else(|| traits.iter().position(|t| t.is_named(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_ignores_case_but_prefers_exact() {
        let list = vec![Trait::named("Magic!"), Trait::named("magic!")];
        assert_eq!(find(&list, "magic!").unwrap().name, "magic!");
        assert_eq!(find(&list, "MAGIC!").unwrap().name, "Magic!");
        assert!(find(&list, "Barrier").is_none());
    }

    #[test]
    fn sealed_and_spent_traits_say_why() {
        let mut t = Trait::named("Fireball");
        assert!(t.unusable().is_none());
        t.state = TraitState::Sealed;
        assert_eq!(t.unusable().unwrap(), "the trait \"Fireball\" is sealed");
    }
}
