//! The rulesets a user can start a campaign on.
//!
//! A catalog is built from plugin folders (each sub-folder with a `plugin.toml`) searched in
//! order, then from rulesets built into the program; the first ruleset found with an id wins,
//! so an installed or edited copy takes precedence over the built-in one. A second folder with
//! an id already found is reported, naming the folder in use. Reading a folder
//! only reads text: nothing runs until a campaign loads the plugin in the sandbox.

use crate::folders;
use houserule_core::manifest::Manifest;
use houserule_core::plugin::{PluginSource, MANIFEST};
use houserule_core::Limits;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Where a ruleset was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind", content = "path")]
pub enum Location {
    /// A plugin folder on disk.
    Folder(PathBuf),
    /// Built into this program.
    BuiltIn,
}

/// A ruleset in the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Ruleset {
    pub id: String,
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub location: Location,
    #[serde(skip)]
    #[schemars(skip)]
    pub source: PluginSource,
    /// The ruleset's demo campaign, a scenario (`tests/demo.toml`), if it has one.
    #[serde(skip)]
    #[schemars(skip)]
    pub demo: Option<String>,
}

/// A ruleset as found: its sources and its demo scenario.
pub type Found = (PluginSource, Option<String>);

/// The rulesets available.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub rulesets: Vec<Ruleset>,
    /// Folders that could not be read as plugins, with why (shown, never fatal).
    pub skipped: Vec<(PathBuf, String)>,
}

impl Catalog {
    /// Scans `folders` (each holding plugin folders) in order, then adds `built_in`.
    pub fn scan(folders: &[PathBuf], built_in: Vec<Found>, limits: &Limits) -> Catalog {
        let mut c = Catalog::default();
        let mut seen: Vec<PathBuf> = Vec::new();
        for folder in folders {
            // The same folder named twice (a search path that repeats it) holds no other plugins.
            let real = folder.canonicalize().unwrap_or_else(|_| folder.clone());
            if seen.contains(&real) {
                continue;
            }
            seen.push(real);
            let Ok(entries) = std::fs::read_dir(folder) else { continue };
            let mut dirs: Vec<PathBuf> =
                entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join(MANIFEST).is_file()).collect();
            dirs.sort();
            for dir in dirs {
                match folders::read_plugin(&dir, limits) {
                    Ok(source) => {
                        let demo = folders::read_demo(&dir, limits);
                        c.add((source, demo), Location::Folder(dir))
                    }
                    Err(e) => c.skipped.push((dir, e.to_string())),
                }
            }
        }
        for found in built_in {
            c.add(found, Location::BuiltIn);
        }
        c
    }

    fn add(&mut self, (source, demo): Found, location: Location) {
        let Some(text) = source.manifest_text() else { return };
        match Manifest::parse(MANIFEST, text) {
            Ok(m) if !self.rulesets.iter().any(|r| r.id == m.id) => self.rulesets.push(Ruleset {
                id: m.id,
                name: m.name,
                version: m.version,
                description: m.description,
                location,
                source,
                demo,
            }),
            Ok(m) => {
                let first = self.rulesets.iter().find(|r| r.id == m.id).map(|r| r.location.clone());
                if let (Location::Folder(p), Some(Location::Folder(used))) = (location, first) {
                    let why = format!(
                        "its id '{}' is also the id of {}, which is found first and used",
                        m.id,
                        used.display()
                    );
                    self.skipped.push((p, why));
                }
            }
            Err(e) => {
                if let Location::Folder(p) = location {
                    self.skipped.push((p, e.to_string()));
                }
            }
        }
    }

    pub fn get(&self, id: &str) -> Option<&Ruleset> {
        self.rulesets.iter().find(|r| r.id == id)
    }
}

/// Finds the repository's `plugins/` folder by walking up from `start` (a development build
/// runs from `target/…`).
pub fn find_repo_plugins(start: &Path) -> Option<PathBuf> {
    start.ancestors().map(|a| a.join("plugins")).find(|p| p.join("generic").join(MANIFEST).is_file())
}

mod bundled {
    include!(concat!(env!("OUT_DIR"), "/bundled.rs"));
}

/// The rulesets built into this program.
pub fn built_in() -> Vec<Found> {
    bundled::BUNDLED
        .iter()
        .map(|(_, files, demo)| {
            (
                PluginSource { files: files.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect() },
                demo.map(str::to_string),
            )
        })
        .collect()
}

/// The folder for installed plugins: `$XDG_DATA_HOME/houserule/plugins` (or
/// `~/.local/share/houserule/plugins`).
pub fn installed_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("houserule").join("plugins"))
}

/// The folders searched, in order: `HOUSERULE_PLUGINS` (separated like `PATH`), the installed
/// plugins, then the repository's `plugins/` when running a development build from it.
pub fn default_folders() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(paths) = std::env::var_os("HOUSERULE_PLUGINS") {
        out.extend(std::env::split_paths(&paths).filter(|p| !p.as_os_str().is_empty()));
    }
    out.extend(installed_dir());
    if let Some(repo) = std::env::current_exe().ok().and_then(|exe| find_repo_plugins(&exe)) {
        out.push(repo);
    }
    out
}

/// The catalog from the default folders and the built-in rulesets.
pub fn default_catalog() -> Catalog {
    Catalog::scan(&default_folders(), built_in(), &Limits::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin(folder: &Path, dir: &str, id: &str) -> PathBuf {
        let p = folder.join(dir);
        std::fs::create_dir_all(&p).unwrap();
        let manifest = format!("id = \"{id}\"\nname = \"{dir}\"\nversion = \"1\"\napi = 1\nentry = \"rules.rhai\"\n");
        std::fs::write(p.join(MANIFEST), manifest).unwrap();
        std::fs::write(p.join("rules.rhai"), "").unwrap();
        p
    }

    #[test]
    fn two_folders_with_one_id_are_reported_naming_both() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let first = plugin(a.path(), "mine", "fumbles");
        let second = plugin(b.path(), "theirs", "fumbles");
        plugin(b.path(), "other", "other");
        let c = Catalog::scan(&[a.path().to_path_buf(), b.path().to_path_buf()], vec![], &Limits::default());
        assert_eq!(
            c.get("fumbles").map(|r| &r.location),
            Some(&Location::Folder(first.clone())),
            "the first one found wins"
        );
        let (skipped, why) = c.skipped.iter().find(|(p, _)| p == &second).expect("the second is reported");
        assert!(why.contains(&first.display().to_string()), "names the one in use: {why}");
        assert!(why.contains("fumbles"), "{why}");
        assert_eq!(skipped, &second);
        assert!(c.get("other").is_some());
        let again = Catalog::scan(&[a.path().to_path_buf(), a.path().to_path_buf()], vec![], &Limits::default());
        assert!(again.skipped.is_empty(), "the same folder twice is not two plugins: {:?}", again.skipped);
    }
}
