//! Entities: the characters, NPCs, scenes, challenges and objectives on the table.
//!
//! An entity has a kind (declared by the ruleset), an id that is unique on the table, a display
//! name, an optional owner (the player it belongs to), a visibility, its own fields, traits
//! and pools, and an optional portrait. Each field carries its own visibility; what a viewer sees of an entity is decided
//! in [`crate::view`], never here.

use crate::pool::Pool;
use crate::traits::Trait;
use crate::visibility::Visibility;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A value with its visibility.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Field {
    pub value: Value,
    #[serde(default)]
    pub visibility: Visibility,
}

/// One entity on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entity {
    pub id: String,
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub fields: IndexMap<String, Field>,
    #[serde(default)]
    pub traits: Vec<Trait>,
    #[serde(default)]
    pub pools: IndexMap<String, Pool>,
    /// The digest of its portrait, a picture on the table (set by the GM; seen by whoever sees
    /// the entity, on its card and on its tokens that have no picture of their own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub portrait: Option<String>,
}

/// Makes an id from a name: lowercase ASCII letters, digits and `_`; other characters become
/// `_`, runs collapse, and an empty result becomes `entity`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_');
    let mut id: String = trimmed.chars().take(48).collect();
    if id.is_empty() {
        id = "entity".into();
    }
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        id = format!("e_{id}");
    }
    id
}

/// Whether `id` is a well-formed entity id (what [`slug`] produces, or a ruleset's own id
/// following the same alphabet).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        && !id.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_ids() {
        assert_eq!(slug("Gandolf the Wizard"), "gandolf_the_wizard");
        assert_eq!(slug("  Crunch!! "), "crunch");
        assert_eq!(slug("Überwald"), "berwald");
        assert_eq!(slug("!!!"), "entity");
        assert_eq!(slug("2nd squad"), "e_2nd_squad");
        assert!(valid_id(&slug("Find the Core Processor: 55/2/3")));
    }
}
