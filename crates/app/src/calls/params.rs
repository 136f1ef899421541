//! What calls take: the parameter types of the calls in the list (those not defined where
//! they are handled, such as [`crate::request::ActRequest`]).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// No parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Nothing {}

/// Joining from a browser: a player with the token of their join link, or the GM with the
/// secret the server printed; nothing from the desktop, or to ask who this connection is.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Join {
    #[serde(default)]
    pub invite: Option<String>,
    #[serde(default)]
    pub secret: Option<String>,
}

impl Join {
    /// Whether this `hello` asks to become someone.
    pub fn asks(&self) -> bool {
        self.invite.as_deref().is_some_and(|t| !t.trim().is_empty())
            || self.secret.as_deref().is_some_and(|s| !s.trim().is_empty())
    }
}

/// A player's permission to type in their own dice.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TypedDice {
    pub player: String,
    pub allowed: bool,
}

/// Whether players see a participant of the turn order hidden from them as "someone".
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SomeoneInTurns {
    pub shown: bool,
}

/// A token's move: its id and its path of cells, the first where it stands.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveToken {
    pub token: String,
    pub path: Vec<houserule_core::scene::grid::Cell>,
    /// 32 fresh random bytes from the mover's device (hex), for what the move hook rolls (a
    /// running die): a player's browser must send them.
    #[serde(default)]
    pub entropy: Option<houserule_core::dice::Entropy>,
    /// The chat message a bridge took the move from, and the bridge's marks (never read from
    /// JSON): committed with the move, so a bridge takes it exactly once.
    #[serde(skip)]
    #[schemars(skip)]
    pub bridged: Option<crate::chat::Bridged>,
}

/// A picture to import: its file name and its bytes (base64).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ImportPicture {
    pub name: String,
    /// The file's bytes, base64 (standard alphabet, padded).
    pub data: String,
}

/// Which picture: a digest (the GM), a map key or a token image's digest (a player).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PictureKey {
    pub key: String,
}

/// A path to measure on a grid (the ruler).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MeasurePath {
    pub grid: houserule_core::scene::grid::Grid,
    pub path: Vec<houserule_core::scene::grid::Cell>,
}

/// How far back an undo goes: with no `to`, the latest action not yet undone.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct UndoTo {
    #[serde(default)]
    pub to: Option<u64>,
}

/// A correction and the GM's reason for it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Correct {
    pub correction: crate::undo::Correction,
    pub reason: String,
}

/// Whose copy to download: a player's (by name), or none for a full copy.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CopyFor {
    #[serde(default)]
    pub player: Option<String>,
}

/// A player, by name.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PlayerName {
    pub player: String,
}

/// Whose view or actions: `as` is a role (`player:NAME`); the GM may name anyone.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct As {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
}

/// A campaign to create (`path`: where the desktop app saves it; the server plays its own file).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Create {
    pub ruleset: String,
    #[serde(default)]
    pub settings: Map<String, Value>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub path: Option<PathBuf>,
}

/// Where to write a copy of the campaign, and for whom (`player`: a player's copy; none: in full).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ShareCopy {
    pub path: PathBuf,
    #[serde(default)]
    pub player: Option<String>,
}

/// A campaign file to open.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Open {
    pub path: PathBuf,
}

/// A page of the log: the newest `limit` events with `from <= seq < before` (defaults: from
/// 1, before none — up to the latest —, 200 events). Older pages: `before` the first one held.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct LogPage {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    #[serde(default = "first_event")]
    pub from: u64,
    #[serde(default)]
    pub before: Option<u64>,
    #[serde(default = "log_page")]
    pub limit: usize,
}

/// What to read of the table: the log from event `from` on (without it, its newest `limit`
/// events), for the viewer `as` names (the GM may name anyone).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TableSince {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    #[serde(default)]
    pub from: Option<u64>,
    #[serde(default = "log_page")]
    pub limit: usize,
}

fn first_event() -> u64 {
    1
}

fn log_page() -> usize {
    200
}

/// A new text for one's own post `seq`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditPost {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    pub seq: u64,
    pub text: String,
}

/// How far the caller has read the log.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadTo {
    pub seq: u64,
}

/// A log entry to turn into a forum post, and the markup (`markdown` or `bbcode`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ForumOf {
    pub seq: u64,
    #[serde(default = "markdown")]
    pub format: String,
}

fn markdown() -> String {
    "markdown".into()
}

/// An action's form as it stands, for its odds.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OddsOf {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    pub action: String,
    #[serde(default)]
    pub params: Map<String, Value>,
}

/// A house rule to save.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SaveHouseRule {
    pub name: String,
    pub text: String,
    /// Keeps the rule the GM's alone (or not) from this save on: players are told nothing of a
    /// secret house rule, not even its name. Left out: as it was.
    #[serde(default)]
    pub secret: Option<bool>,
}

/// A house rule the GM keeps secret, or shares again.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct HouseRuleSecret {
    pub name: String,
    pub secret: bool,
}

/// A balance lab to start.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LabStart {
    /// Runs on each side (1 to 100,000).
    #[serde(default = "lab_times")]
    pub times: u64,
    /// The same seed gives the same answer.
    #[serde(default = "lab_seed")]
    pub seed: u64,
}

fn lab_times() -> u64 {
    1000
}

fn lab_seed() -> u64 {
    1
}

/// A house rule to remove.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct HouseRuleName {
    pub name: String,
}
