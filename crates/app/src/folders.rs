//! Reading rules from folders, and writing house rules into one.
//!
//! Guarantees:
//! - a plugin or house-rule folder is read only from the files directly in it: a symbolic
//!   link, a hard link (a file with another name, which may be outside the folder), a file
//!   that is not a regular file, a name that is not a plain file name of its
//!   layer, or a file over the size limit is refused with the file named — nothing outside the
//!   folder is ever read;
//! - a scenario's house rules are read only from inside its plugin folder;
//! - a file is written only under a name checked by [`check_name`], directly into the target
//!   folder, never through a symbolic link and never over a hard-linked file (it is written
//!   aside and moved into place): a name a campaign carries can never write elsewhere.

use houserule_core::house::HouseRules;
use houserule_core::plugin::{check_name, HouseRule, Layer, PluginSource, HOUSE_SETTINGS, MANIFEST, MAX_FILES};
use houserule_core::scenario::{Scenario, ScenarioError};
use houserule_core::Limits;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// A folder or file that could not be used, named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FolderError {
    pub path: String,
    pub message: String,
    /// The folder's content was refused (a link, a bad name), not merely unreadable.
    pub refused: bool,
}

fn io(path: &Path, e: std::io::Error) -> FolderError {
    FolderError { path: path.display().to_string(), message: e.to_string(), refused: false }
}

fn refuse(path: &Path, message: impl Into<String>) -> FolderError {
    FolderError { path: path.display().to_string(), message: message.into(), refused: true }
}

const HARD_LINK: &str = "is a hard link (the same file has another name, perhaps outside this folder); rules are \
                         read and written only as files of their own folder";

/// Whether the file has more than one name.
fn hard_linked(meta: &Metadata) -> bool {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(meta) > 1
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// The file's own metadata (a link is not followed), refused unless it is a regular file
/// within the size limit.
fn regular_file(path: &Path, max_bytes: usize) -> Result<Metadata, FolderError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| io(path, e))?;
    if meta.file_type().is_symlink() {
        return Err(refuse(
            path,
            "is a symbolic link; rules are read only from files in their own folder, never through a link",
        ));
    }
    if !meta.is_file() {
        return Err(refuse(path, "is not a regular file"));
    }
    if hard_linked(&meta) {
        return Err(refuse(path, HARD_LINK));
    }
    if meta.len() > max_bytes as u64 {
        return Err(refuse(
            path,
            format!("{} bytes is larger than the limit of {max_bytes} bytes per file", meta.len()),
        ));
    }
    Ok(meta)
}

/// The entries of a folder, sorted by name, with the names wanted.
fn entries(dir: &Path, wanted: impl Fn(&str) -> bool) -> Result<Vec<(String, PathBuf)>, FolderError> {
    let read = std::fs::read_dir(dir).map_err(|e| io(dir, e))?;
    let mut out = Vec::new();
    for entry in read {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name().to_string_lossy().to_string();
        if wanted(&name) {
            out.push((name, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

fn read_text(path: &Path, max_bytes: usize) -> Result<String, FolderError> {
    regular_file(path, max_bytes)?;
    std::fs::read_to_string(path).map_err(|e| io(path, e))
}

/// Reads `plugin.toml` and the `*.rhai` files directly in `dir` (not sub-folders).
pub fn read_plugin(dir: &Path, limits: &Limits) -> Result<PluginSource, FolderError> {
    let manifest = dir.join(MANIFEST);
    if std::fs::symlink_metadata(&manifest).is_err() {
        return Err(FolderError {
            path: dir.display().to_string(),
            message: format!("not a plugin folder: there is no {MANIFEST}"),
            refused: false,
        });
    }
    let mut source = PluginSource::default();
    for (name, path) in entries(dir, |n| n == MANIFEST || n.ends_with(".rhai"))? {
        check_name(Layer::Ruleset, &name).map_err(|m| refuse(&path, m.0))?;
        let text = read_text(&path, limits.max_script_bytes)?;
        source.files.insert(name, text);
        if source.files.len() > MAX_FILES + 1 {
            return Err(refuse(dir, format!("more than {MAX_FILES} script files")));
        }
    }
    Ok(source)
}

/// Reads `*.rhai` and `settings.toml` from a house-rule folder (not sub-folders). Hidden files
/// (an editor's) are left alone.
pub fn read_house_rules(dir: &Path, max_bytes: usize) -> Result<HouseRules, FolderError> {
    let mut out = HouseRules::default();
    for (name, path) in entries(dir, |n| !n.starts_with('.') && (n.ends_with(".rhai") || n == HOUSE_SETTINGS))? {
        check_name(Layer::House, &name).map_err(|m| refuse(&path, m.0))?;
        let text = read_text(&path, max_bytes)?;
        if name == HOUSE_SETTINGS {
            out.settings_text = Some(text);
        } else {
            out.scripts.push(HouseRule { name, source: text });
        }
        if out.scripts.len() > MAX_FILES {
            return Err(refuse(dir, format!("more than {MAX_FILES} house-rule files")));
        }
    }
    Ok(out)
}

/// Writes house-rule files into `dir` (made if missing). A name that is not a plain house-rule
/// file name, or a target that is a link (symbolic or hard), is refused before anything is
/// written. Each file is written aside and moved into place, so whatever was at its name is
/// replaced, never written into.
pub fn write_house_rules(dir: &Path, files: &[(String, String)]) -> Result<Vec<PathBuf>, FolderError> {
    let mut targets = Vec::new();
    for (name, _) in files {
        check_name(Layer::House, name).map_err(|m| refuse(dir, m.0))?;
        let path = dir.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if !m.is_file() => {
                return Err(refuse(
                    &path,
                    "exists and is not a regular file (a link or a folder); it is not written through",
                ))
            }
            Ok(m) if hard_linked(&m) => return Err(refuse(&path, HARD_LINK)),
            _ => targets.push(path),
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    for ((_, text), path) in files.iter().zip(&targets) {
        write_aside(path, text)?;
    }
    Ok(targets)
}

/// Writes `text` to a new file beside `path`, then moves it to `path`.
fn write_aside(path: &Path, text: &str) -> Result<(), FolderError> {
    use std::io::Write;
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let aside = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&aside)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&aside, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&aside);
        return Err(io(path, e));
    }
    Ok(())
}

/// Removes one house-rule file from `dir`, if it is there.
pub fn remove_house_rule(dir: &Path, name: &str) -> Result<(), FolderError> {
    check_name(Layer::House, name).map_err(|m| refuse(dir, m.0))?;
    let path = dir.join(name);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => std::fs::remove_file(&path).map_err(|e| io(&path, e)),
        _ => Ok(()),
    }
}

/// The demo scenario of a plugin folder (`tests/demo.toml`), if it has a readable one.
pub fn read_demo(plugin_dir: &Path, limits: &Limits) -> Option<String> {
    read_text(&plugin_dir.join("tests").join("demo.toml"), limits.max_script_bytes).ok()
}

/// Reads every `tests/*.toml` of a plugin folder, in name order, with the house rules each
/// names (paths relative to the scenario file, inside the plugin folder).
pub fn read_scenarios(plugin_dir: &Path, limits: &Limits) -> Result<Vec<(String, Scenario)>, ScenarioError> {
    let dir = plugin_dir.join("tests");
    let Ok(found) = entries(&dir, |n| n.ends_with(".toml")) else { return Ok(vec![]) };
    let mut out = Vec::new();
    for (name, path) in found {
        let shown = format!("tests/{name}");
        out.push((shown.clone(), read_scenario(&path, &shown, plugin_dir, limits)?));
    }
    Ok(out)
}

/// Reads one scenario file (shown as `shown` in errors) with the house rules it names,
/// relative to the file and inside `root` (its plugin folder).
pub fn read_scenario(path: &Path, shown: &str, root: &Path, limits: &Limits) -> Result<Scenario, ScenarioError> {
    let fail = |message: String| ScenarioError { file: shown.to_string(), message };
    let root = root.canonicalize().map_err(|e| fail(format!("{}: {e}", root.display())))?;
    let text = read_text(path, limits.max_script_bytes).map_err(|e| fail(e.message))?;
    let mut scenario = Scenario::parse(shown, &text)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    for rel in scenario.house_rules.clone() {
        let file = dir.join(&rel);
        if !file.canonicalize().is_ok_and(|p| p.starts_with(&root)) {
            return Err(fail(format!(
                "house rule {rel}: scenarios read house rules only from inside their plugin folder"
            )));
        }
        let source =
            read_text(&file, limits.max_script_bytes).map_err(|e| fail(format!("house rule {rel}: {}", e.message)))?;
        let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_else(|| rel.clone());
        scenario.loaded_house_rules.push(HouseRule { name, source });
    }
    Ok(scenario)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn plugin_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST), "id = \"x\"").unwrap();
        std::fs::write(dir.path().join("rules.rhai"), "fn a() {}").unwrap();
        dir
    }

    #[test]
    fn a_symlinked_script_is_refused_by_name() {
        let dir = plugin_dir();
        let secret = tempfile::NamedTempFile::new().unwrap();
        std::os::unix::fs::symlink(secret.path(), dir.path().join("notes.rhai")).unwrap();
        let e = read_plugin(dir.path(), &Limits::default()).unwrap_err();
        assert!(e.path.ends_with("notes.rhai") && e.message.contains("symbolic link"), "{e}");
        assert!(e.refused);
    }

    #[test]
    fn a_fifo_or_folder_named_like_a_script_is_refused() {
        let dir = plugin_dir();
        std::fs::create_dir(dir.path().join("odd.rhai")).unwrap();
        let e = read_plugin(dir.path(), &Limits::default()).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{e}");
    }

    #[test]
    fn house_rules_are_written_only_under_plain_names_and_never_through_links() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x.rhai", "/abs/x.rhai", "sub/x.rhai", "con.rhai"] {
            let e = write_house_rules(dir.path(), &[(bad.to_string(), "fn a() {}".into())]).unwrap_err();
            assert!(e.refused, "{bad}: {e}");
        }
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("a.rhai")).unwrap();
        let e = write_house_rules(dir.path(), &[("a.rhai".to_string(), "fn a() {}".into())]).unwrap_err();
        assert!(e.message.contains("not written through"), "{e}");
        assert_eq!(std::fs::read_to_string(outside.path()).unwrap(), "", "the link's target is untouched");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing else was written");
    }

    #[test]
    fn a_hard_linked_script_is_refused_like_a_symbolic_link() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.rhai");
        std::fs::write(&secret, "fn secret() { 42 }").unwrap();
        let dir = plugin_dir();
        std::fs::hard_link(&secret, dir.path().join("notes.rhai")).unwrap();
        let e = read_plugin(dir.path(), &Limits::default()).unwrap_err();
        assert!(e.path.ends_with("notes.rhai") && e.message.contains("hard link"), "{e}");
        assert!(e.refused);
        let house = tempfile::tempdir().unwrap();
        std::fs::hard_link(&secret, house.path().join("kind.rhai")).unwrap();
        let e = read_house_rules(house.path(), 1 << 20).unwrap_err();
        assert!(e.message.contains("hard link"), "{e}");
    }

    #[test]
    fn an_export_never_overwrites_a_hard_linked_file() {
        let outside = tempfile::tempdir().unwrap();
        let kept = outside.path().join("notes.txt");
        std::fs::write(&kept, "keep me").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::hard_link(&kept, dir.path().join("a.rhai")).unwrap();
        let e = write_house_rules(dir.path(), &[("a.rhai".to_string(), "fn a() {}".into())]).unwrap_err();
        assert!(e.refused && e.message.contains("hard link"), "{e}");
        assert_eq!(std::fs::read_to_string(&kept).unwrap(), "keep me", "the linked file is untouched");
        let fresh = write_house_rules(dir.path(), &[("b.rhai".to_string(), "fn b() {}".into())]).unwrap();
        assert_eq!(std::fs::read_to_string(&fresh[0]).unwrap(), "fn b() {}");
        let names: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        assert_eq!(names.len(), 2, "nothing but the files asked for: {names:?}");
    }

    #[test]
    fn scenario_house_rules_stay_inside_the_plugin() {
        let dir = plugin_dir();
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("tests/a.toml"), "name = \"a\"\nhouse_rules = [\"../../escape.rhai\"]\n")
            .unwrap();
        let e = read_scenarios(dir.path(), &Limits::default()).unwrap_err();
        assert!(e.message.contains("inside their plugin folder"), "{e}");
    }
}
