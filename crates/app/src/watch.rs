//! Watching rule folders for saved edits (`notify` with its debouncer).
//!
//! Editors save in bursts (write a temporary file, rename it, touch it again); the debouncer
//! turns a burst into one notice. Only files that can change the rules are reported:
//! `*.rhai`, `plugin.toml`, `settings.toml` and scenario files — not editor swap or backup files
//! — and only writes, creations, removals and renames: reading a file (as the reload itself
//! does) is not a change.

use notify_debouncer_full::notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long the debouncer waits for a burst of saves to settle.
pub const DEBOUNCE: Duration = Duration::from_millis(40);

/// Folders that cannot be watched, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WatchError(pub String);

/// A live watch; dropping it stops watching.
pub struct FolderWatch {
    _debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    pub folders: Vec<PathBuf>,
}

/// Whether a changed path can change the rules.
pub fn relevant(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().to_string()) else { return false };
    if name.starts_with('.') || name.starts_with('#') || name.ends_with('~') {
        return false;
    }
    name.ends_with(".rhai") || name.ends_with(".toml")
}

impl FolderWatch {
    /// Watches `folders` (recursively) and calls `on_change` with the relevant changed files of
    /// each settled burst.
    pub fn start(
        folders: &[PathBuf],
        debounce: Duration,
        on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
    ) -> Result<FolderWatch, WatchError> {
        let mut debouncer = new_debouncer(debounce, None, move |res: DebounceEventResult| {
            if let Ok(events) = res {
                let mut paths: Vec<PathBuf> = events
                    .into_iter()
                    .filter(|e| {
                        matches!(
                            e.kind,
                            EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
                        )
                    })
                    .flat_map(|e| e.event.paths)
                    .filter(|p| relevant(p))
                    .collect();
                paths.sort();
                paths.dedup();
                if !paths.is_empty() {
                    on_change(paths);
                }
            }
        })
        .map_err(|e| WatchError(format!("cannot watch files: {e}")))?;
        for f in folders {
            debouncer
                .watch(f, RecursiveMode::Recursive)
                .map_err(|e| WatchError(format!("cannot watch {}: {e}", f.display())))?;
        }
        Ok(FolderWatch { _debouncer: debouncer, folders: folders.to_vec() })
    }
}
