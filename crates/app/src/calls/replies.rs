//! What calls answer with, besides the engine's own types (views, log entries, forms).

use houserule_core::manifest::SettingSpec;
use houserule_core::plugin::HouseFunction;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_core::Role;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A ruleset a campaign can be created on, with the settings a GM may pick.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RulesetChoice {
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: String,
    pub settings: IndexMap<String, SettingSpec>,
}

/// A house-rule file with its text, for the editor.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HouseRuleText {
    pub name: String,
    pub text: String,
    pub functions: Vec<HouseFunction>,
}

/// The campaign's house rules, and the ruleset scripts they may replace functions of.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HouseRulesState {
    pub files: Vec<HouseRuleText>,
    /// The ruleset's own scripts (read-only in the editor; copy a function into a house rule to
    /// change it).
    pub ruleset_files: Vec<HouseRuleText>,
}

/// Who joined, and the campaign in play.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Joined {
    pub role: Role,
    pub campaign: Option<CampaignInfo>,
    /// The campaign file, where the front end may show it.
    pub file: Option<PathBuf>,
    /// The front end the caller came through (`desktop`, `server`, `matrix`).
    pub front: String,
    /// Whether it is on the GM's own computer (it reaches their files and network).
    pub local: bool,
    /// The last event this person has read up to (`mark_read`), if they have looked before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_read: Option<u64>,
}

/// What a viewer sees now: the view, the action forms and the log entries asked for, all as of
/// the same event.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TableNow {
    pub view: View,
    pub actions: Vec<ActionForm>,
    pub log: Vec<LogEntry>,
}

/// A player removed from the table.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Removed {
    /// Whether they had a join link (it is ended now).
    pub link_ended: bool,
    /// How many of their connections were closed.
    pub connections: usize,
}

/// A picture imported: its digest, what the table records of it, and the event that added it
/// (none when the campaign already had this very picture).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Imported {
    pub digest: String,
    pub picture: houserule_core::picture::Picture,
    pub entry: Option<houserule_core::view::LogEntry>,
}

/// A picture's bytes as the caller may see them.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PictureData {
    /// `image/png`, `image/jpeg` or `image/webp`.
    pub mime: String,
    pub width: u32,
    pub height: u32,
    /// The bytes, base64.
    pub data: String,
}

/// A measured path: its length in cells and in the grid's unit, and whether it runs straight.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Measured {
    pub cells: f64,
    pub length: f64,
    pub unit: String,
    pub straight: bool,
}
