//! The text of a ruleset and of house rules, as read from a folder or carried in a campaign
//! file — never executed as it is read.
//!
//! A name a file is stored under must be a plain file name ([`check_name`]): the manifest, a
//! `*.rhai` script, or (for house rules) `settings.toml`; never a path, a parent folder, a
//! hidden or reserved name. So every name a campaign carries can be written back into a folder
//! without leaving it.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The manifest's file name.
pub const MANIFEST: &str = "plugin.toml";
/// The house-rule file that overrides settings.
pub const HOUSE_SETTINGS: &str = "settings.toml";
/// Most script files a plugin (or a set of house rules) may have.
pub const MAX_FILES: usize = 64;
/// Longest file name a plugin or house rule may use.
pub const MAX_NAME: usize = 80;

/// The text of a plugin: file name → content. Only `plugin.toml` and `*.rhai` files are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PluginSource {
    pub files: BTreeMap<String, String>,
}

/// A house-rule script layered over a ruleset.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HouseRule {
    /// File name, such as `boss_costs.rhai`.
    pub name: String,
    pub source: String,
}

impl PluginSource {
    pub fn manifest_text(&self) -> Option<&str> {
        self.files.get(MANIFEST).map(String::as_str)
    }

    /// A digest of all files (names and contents), hex.
    pub fn digest(&self) -> String {
        digest_files(self.files.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// The `*.rhai` files.
    pub fn scripts(&self) -> BTreeMap<String, String> {
        self.files.iter().filter(|(k, _)| k.ends_with(".rhai")).map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

/// SHA-256 over (name, content) pairs, hex.
pub fn digest_files<'a>(files: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut h = Sha256::new();
    for (name, text) in files {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((text.len() as u64).to_le_bytes());
        h.update(text.as_bytes());
    }
    hex::encode(h.finalize())
}

/// The digest of one file (its name and content), hex.
pub fn file_digest(name: &str, text: &str) -> String {
    digest_files(std::iter::once((name, text)))
}

/// Which layer a stored file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The ruleset: `plugin.toml` and `*.rhai`.
    Ruleset,
    /// House rules: `*.rhai` and `settings.toml`.
    House,
}

/// Names Windows keeps for devices, whatever the extension.
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9", "lpt1", "lpt2",
    "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Whether `name` may be stored in `layer` and written into a folder: letters, digits, `-`, `_`
/// and `.`; not hidden, not a parent, no separators, not a reserved device name; a script ends
/// in `.rhai`. The error says what is wrong with it.
pub fn check_name(layer: Layer, name: &str) -> Result<(), NameError> {
    check_name_text(layer, name).map_err(NameError)
}

/// A name a file may not be stored under, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NameError(pub String);

fn check_name_text(layer: Layer, name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(format!("'{name}' is not a file name: 1 to {MAX_NAME} characters"));
    }
    if name.contains(['/', '\\']) || name.contains("..") || name.starts_with('.') {
        return Err(format!("'{name}' is a path, not a file name: no folders, no '..', nothing hidden"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        return Err(format!("'{name}' may use only letters, digits, '-', '_' and '.'"));
    }
    let stem = name.split('.').next().unwrap_or_default().to_ascii_lowercase();
    if RESERVED.contains(&stem.as_str()) {
        return Err(format!("'{name}' is a reserved device name on Windows"));
    }
    let fits = match layer {
        Layer::Ruleset => name == MANIFEST || name.ends_with(".rhai"),
        Layer::House => name == HOUSE_SETTINGS || name.ends_with(".rhai"),
    };
    if !fits {
        let expected = match layer {
            Layer::Ruleset => format!("{MANIFEST} or a .rhai script"),
            Layer::House => format!("a .rhai script or {HOUSE_SETTINGS}"),
        };
        return Err(format!("'{name}' is not {expected}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_file_names_are_stored() {
        for good in ["rules.rhai", "boss-costs_2.rhai", "plugin.toml"] {
            assert_eq!(check_name(Layer::Ruleset, good), Ok(()), "{good}");
        }
        assert_eq!(check_name(Layer::House, "settings.toml"), Ok(()));
        assert!(check_name(Layer::House, "../x.rhai").unwrap_err().to_string().contains("is a path"));
        for bad in [
            "../x.rhai",
            "/abs/x.rhai",
            "a/b.rhai",
            "a\\b.rhai",
            ".hidden.rhai",
            "con.rhai",
            "NUL.rhai",
            "x.txt",
            "",
            "é.rhai",
            "..rhai",
        ] {
            assert!(check_name(Layer::House, bad).is_err(), "{bad} must be refused");
        }
        assert!(check_name(Layer::Ruleset, "settings.toml").is_err(), "settings.toml belongs to house rules");
        assert!(check_name(Layer::House, "plugin.toml").is_err(), "a house rule has no manifest");
    }
}
