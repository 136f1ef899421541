//! House rules: scripts layered over a ruleset, and setting overrides.
//!
//! A function defined in a house-rule script replaces the ruleset's function of the same name
//! and arity, and may call the one it replaces as `original(…)` (see `plugin::wrap`). An
//! optional `settings.toml` with a `[settings]` table overrides the ruleset's settings. House
//! rules live in the campaign file, so a shared campaign carries them.

use crate::manifest::{line_col, ManifestError};
use crate::plugin::{HouseRule, Problem, HOUSE_SETTINGS};
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

/// A campaign's house rules: scripts and setting overrides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HouseRules {
    pub scripts: Vec<HouseRule>,
    /// `settings.toml` as written (kept so an export gives the file back).
    pub settings_text: Option<String>,
}

impl HouseRules {
    /// The files as stored in a campaign (name → text).
    pub fn files(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> =
            self.scripts.iter().map(|h| (h.name.clone(), h.source.clone())).collect();
        if let Some(s) = &self.settings_text {
            files.push((HOUSE_SETTINGS.into(), s.clone()));
        }
        files
    }

    /// From stored files (other names are not house rules and are left out).
    pub fn from_files(files: Vec<(String, String)>) -> HouseRules {
        let mut out = HouseRules::default();
        for (name, text) in files {
            if name == HOUSE_SETTINGS {
                out.settings_text = Some(text);
            } else if name.ends_with(".rhai") {
                out.scripts.push(HouseRule { name, source: text });
            }
        }
        out
    }

    /// The `[settings]` table of `settings.toml`, with errors naming the file and line.
    pub fn setting_overrides(&self) -> Result<IndexMap<String, Value>, Problem> {
        let Some(text) = &self.settings_text else { return Ok(IndexMap::new()) };
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            #[serde(default)]
            settings: IndexMap<String, Value>,
        }
        toml::from_str::<File>(text).map(|f| f.settings).map_err(|e| {
            let (line, column) =
                e.span().map(|s| line_col(text, s.start)).map(|(l, c)| (Some(l), Some(c))).unwrap_or((None, None));
            Problem::Manifest(ManifestError {
                file: HOUSE_SETTINGS.into(),
                line,
                column,
                field: String::new(),
                message: e.message().trim().to_string(),
            })
        })
    }
}
