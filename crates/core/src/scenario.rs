//! Rule scenarios: a plugin's tests as data (`tests/*.toml`) — the file format.
//!
//! A scenario creates an in-memory campaign on the plugin (with settings and a seed), then runs
//! steps in order. A step may take an action (as a role, with parameters and forced dice) and
//! check what a user would notice: the action's result, lines of narration, a refusal and its
//! message, values in the GM's or a player's view, and what a player must not see in their view
//! or log. The app layer runs them and reports every failed expectation with its step.
//!
//! ```toml
//! name = "Goblin barbecue, round one"
//! seed = 1
//! settings = { mad = 7 }
//!
//! [[step]]
//! act = "challenge_roll"
//! as = "player:ann"
//! params = { character = "Gandolf", attack = ["Fireball", "Hellfire"] }
//! dice = [4, 5, 2]
//! says = ["CR 6 → 5"]
//! result = { attack = 1 }
//! expect = { "entities.goblins.fields.cr" = 5 }
//! hidden_from = { "player:bob" = ["pool:black_bowl", "param:stones"] }
//! ```
//!
//! `house_rules = ["../house-rules/cheaper-affliction.rhai"]` layers house-rule scripts (paths
//! relative to the scenario file, inside the plugin's folder) over the ruleset for that scenario.

use crate::plugin::HouseRule;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Seed for generated dice (steps without `dice`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Setting overrides for the campaign.
    #[serde(default)]
    pub settings: IndexMap<String, Value>,
    /// House-rule scripts layered over the ruleset, as paths relative to the scenario file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub house_rules: Vec<String>,
    /// The house rules read from `house_rules`.
    #[serde(skip)]
    #[schemars(skip)]
    pub loaded_house_rules: Vec<HouseRule>,
    #[serde(default, rename = "step")]
    pub steps: Vec<Step>,
}

/// One step: an optional action and the checks after it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The action to take; a step without one only checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<String>,
    /// Instead of acting, ask the odds of this action with `params` (nothing is rolled or
    /// kept); `chances` are the chances expected line by line, `refused` a refusal's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub odds: Option<String>,
    /// The chance each odds line must show (to 3 decimal places); for a line without a
    /// target, its average.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chances: Vec<f64>,
    /// Instead of acting, a GM scene operation (`op = "create" | "show" | "place" | "token" |
    /// "remove_token" | "fog" | "update" | "remove"` and its fields, as the `scene` call takes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene: Option<Value>,
    /// Instead of acting, a token's move along a path of cells (the first where it stands), with
    /// the ruleset's move hook; `dice` are what the hook rolls.
    #[serde(default, rename = "move", skip_serializing_if = "Option::is_none")]
    pub move_token: Option<MoveStep>,
    /// `gm` (default) or `player:NAME`.
    #[serde(default, rename = "as", skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default)]
    pub params: Map<String, Value>,
    /// Forced dice faces, used in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dice: Option<Vec<i64>>,
    /// The action must fail with a message containing this text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Keys of the action's result that must have these values.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub result: Map<String, Value>,
    /// Text each of which must appear in the action's narration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub says: Vec<String>,
    /// Dotted paths into the GM's view and the values they must have.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub expect: IndexMap<String, Value>,
    /// Per role, dotted paths into that role's view and their values.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub expect_as: IndexMap<String, IndexMap<String, Value>>,
    /// Per role, what that role must not see in its view or in this step's log entry:
    /// `pool:REF` (a pool's count), `param:NAME` (an action parameter), `field:ENTITY.FIELD`,
    /// `var:NAME`, `trait:ENTITY.NAME`, `roll:LABEL`, `say:TEXT`. A logged removal is not a value.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub hidden_from: IndexMap<String, Vec<String>>,
}

/// A scenario step's move: a token and its path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveStep {
    pub token: String,
    pub path: Vec<crate::scene::grid::Cell>,
}

/// A scenario file that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ScenarioError {
    pub file: String,
    pub message: String,
}

impl Scenario {
    pub fn parse(file: &str, text: &str) -> Result<Scenario, ScenarioError> {
        toml::from_str(text).map_err(|e: toml::de::Error| {
            let place = e
                .span()
                .map(|s| crate::manifest::line_col(text, s.start))
                .map(|(l, c)| format!(":{l}:{c}"))
                .unwrap_or_default();
            ScenarioError { file: format!("{file}{place}"), message: e.message().trim().to_string() }
        })
    }
}
