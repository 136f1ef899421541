//! Where `houserule` looks for rulesets.
//!
//! In order, the first ruleset found with an id wins:
//! 1. the folders in `HOUSERULE_PLUGINS` (separated like `PATH`);
//! 2. the user's installed plugins, `$XDG_DATA_HOME/houserule/plugins` (or
//!    `~/.local/share/houserule/plugins`);
//! 3. the repository's `plugins/` folder, when running a development build from the repository;
//! 4. the rulesets built into this binary.

use houserule_engine::catalog::{find_repo_plugins, Catalog};
use houserule_engine::{Limits, PluginSource};
use std::path::PathBuf;

mod bundled {
    include!(concat!(env!("OUT_DIR"), "/bundled.rs"));
}

/// The installed-plugins folder.
pub fn installed_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("houserule").join("plugins"))
}

/// The folders searched, in order.
pub fn search_folders() -> Vec<PathBuf> {
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

/// The rulesets built into this binary.
pub fn built_in() -> Vec<PluginSource> {
    bundled::BUNDLED
        .iter()
        .map(|(_, files)| PluginSource { files: files.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect() })
        .collect()
}

pub fn catalog() -> Catalog {
    Catalog::scan(&search_folders(), built_in(), &Limits::default())
}
