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
    /// The house rules the GM keeps secret (by name; a name may be marked before it is saved).
    #[serde(default)]
    pub secret: Vec<String>,
}

/// The rules as one viewer may read them: the ruleset's README and each house rule in force
/// with what it does, and what the last change of the rules changed. A player's holds nothing
/// of a house rule the GM keeps secret.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RuleBook {
    pub ruleset: houserule_core::view::RulesetInfo,
    /// The ruleset's README as its author wrote it (Markdown; untrusted: shown without any HTML
    /// of its own), when this computer has the ruleset's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readme: Option<String>,
    pub house: Vec<HouseRulePage>,
    /// The last change of the rules, if they changed since the campaign began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_reload: Option<LastReload>,
}

/// A house rule in force: its source (read-only) and what each of its functions does.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct HouseRulePage {
    pub name: String,
    pub text: String,
    pub functions: Vec<HouseFunction>,
    /// The GM keeps it secret (only ever true in the GM's book).
    pub secret: bool,
}

/// A change of the rules: the event and the files it added, changed or removed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LastReload {
    pub seq: u64,
    pub at: String,
    pub changes: Vec<RuleFileChange>,
}

/// One file a change of the rules added, changed or removed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RuleFileChange {
    /// `ruleset` or `house`.
    pub layer: String,
    pub file: String,
    /// `added`, `changed` or `removed`.
    pub how: String,
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

/// A copy of the campaign to save in a browser: the file's suggested name, what it holds, and
/// its bytes (base64).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Download {
    pub name: String,
    pub report: crate::share::ShareReport,
    pub data: String,
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

/// A scene drawn as one viewer sees it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SceneDrawing {
    /// The scene's name.
    pub scene: String,
    pub width: u32,
    pub height: u32,
    /// Each token drawn: its initials, its name and its cell ("F Frody: column 3, row 4").
    pub legend: Vec<String>,
    /// The PNG's bytes, base64.
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
