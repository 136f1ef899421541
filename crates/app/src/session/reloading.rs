//! The session's one reload task: every rule change — a saved file in a watched folder, a
//! house rule saved or removed from the editor — is loaded, checked and swapped in here, one at
//! a time, so loads and swaps never race; a failed load is announced with its problems while
//! the last good rules keep running.

use super::{announce_reload, ReloadRequest, RuleFolders, SessionState};
use crate::folders;
use crate::reload::{ReloadError, ReloadReport};
use houserule_core::house::HouseRules;
use houserule_core::plugin::{check_name, HouseRule, Layer, PluginSource, Problem, HOUSE_SETTINGS};
use houserule_core::{Limits, Role};
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

pub(super) fn reload_task(shared: Arc<SessionState>, rx: Receiver<ReloadRequest>) {
    let mut queue: std::collections::VecDeque<ReloadRequest> = std::collections::VecDeque::new();
    loop {
        let request = match queue.pop_front() {
            Some(r) => r,
            None => match rx.recv() {
                Ok(r) => r,
                Err(_) => return,
            },
        };
        match request {
            ReloadRequest::Files(mut paths) => {
                // File notices that queued up meanwhile belong to the same reload; other
                // requests wait their turn.
                while let Ok(r) = rx.try_recv() {
                    match r {
                        ReloadRequest::Files(more) => paths.extend(more),
                        other => queue.push_back(other),
                    }
                }
                let result = reload_folders(&shared, &paths);
                announce_reload(&shared, &result);
            }
            ReloadRequest::SaveHouseRule { name, text, reply } => {
                let result = change_house(&shared, |house| {
                    check_name(Layer::House, &name).map_err(|e| ReloadError::Io(e.0))?;
                    if name == HOUSE_SETTINGS {
                        house.settings_text = Some(text.clone());
                    } else {
                        match house.scripts.iter_mut().find(|h| h.name == name) {
                            Some(h) => h.source = text.clone(),
                            None => house.scripts.push(HouseRule { name: name.clone(), source: text.clone() }),
                        }
                    }
                    Ok(())
                });
                if result.is_ok() {
                    write_to_folder(&shared, &name, Some(&text));
                }
                announce_reload(&shared, &result);
                let _ = reply.send(result);
            }
            ReloadRequest::RemoveHouseRule { name, reply } => {
                let result = change_house(&shared, |house| {
                    let before = house.scripts.len() + usize::from(house.settings_text.is_some());
                    house.scripts.retain(|h| h.name != name);
                    if name == HOUSE_SETTINGS {
                        house.settings_text = None;
                    }
                    if before == house.scripts.len() + usize::from(house.settings_text.is_some()) {
                        return Err(ReloadError::Io(format!("there is no house rule '{name}'")));
                    }
                    Ok(())
                });
                if result.is_ok() {
                    write_to_folder(&shared, &name, None);
                }
                announce_reload(&shared, &result);
                let _ = reply.send(result);
            }
        }
    }
}

/// Reloads the watched folders the changed paths belong to. An editor may still be writing
/// when the notice comes: if the new rules fail to load, the folders are read again a moment
/// later and, if they changed meanwhile, tried again — only a failure that stays is reported.
pub(super) fn reload_folders(shared: &SessionState, paths: &[PathBuf]) -> Result<Option<ReloadReport>, ReloadError> {
    let folders = shared.folders.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let touches = |dir: &Option<PathBuf>| dir.as_ref().is_some_and(|d| paths.iter().any(|p| p.starts_with(d)));
    let limits = shared.change().rules().limits.clone();
    let read = || read_folders(&folders, &touches, &limits);
    let mut attempt = read();
    for _ in 0..3 {
        let result = match &attempt {
            Ok((ruleset, house)) => shared.change().reload(Some(&Role::Gm), ruleset.clone(), house.clone()),
            Err(e) => Err(e.clone()),
        };
        if result.is_ok() {
            return result;
        }
        std::thread::sleep(crate::watch::DEBOUNCE * 2);
        let again = read();
        if again == attempt {
            return result;
        }
        attempt = again;
    }
    match attempt {
        Ok((ruleset, house)) => shared.change().reload(Some(&Role::Gm), ruleset, house),
        Err(e) => Err(e),
    }
}

/// Reads the watched folders a change touched (`None` for a layer left as it is).
pub(super) fn read_folders(
    folders: &RuleFolders,
    touches: &dyn Fn(&Option<PathBuf>) -> bool,
    limits: &Limits,
) -> Result<(Option<PluginSource>, Option<HouseRules>), ReloadError> {
    let ruleset = match &folders.ruleset {
        Some(d) if touches(&folders.ruleset) => Some(read_ruleset_dir(d, limits)?),
        _ => None,
    };
    let house = match &folders.house {
        Some(d) if touches(&folders.house) => {
            Some(folders::read_house_rules(d, limits.max_script_bytes).map_err(|e| ReloadError::Io(e.to_string()))?)
        }
        _ => None,
    };
    Ok((ruleset, house))
}

/// Reads a ruleset folder for a reload, and checks its scenario files still parse.
pub fn read_ruleset_dir(dir: &std::path::Path, limits: &Limits) -> Result<PluginSource, ReloadError> {
    let source = folders::read_plugin(dir, limits).map_err(|e| ReloadError::Io(e.to_string()))?;
    if let Err(e) = folders::read_scenarios(dir, limits) {
        return Err(ReloadError::Invalid(vec![Problem::Manifest(houserule_core::manifest::ManifestError {
            file: e.file.clone(),
            line: None,
            column: None,
            field: String::new(),
            message: format!("scenario file does not parse: {}", e.message),
        })]));
    }
    Ok(source)
}

fn change_house(
    shared: &SessionState,
    edit: impl FnOnce(&mut HouseRules) -> Result<(), ReloadError>,
) -> Result<Option<ReloadReport>, ReloadError> {
    let mut campaign = shared.change();
    let mut house = campaign.house_rules().map_err(|e| ReloadError::Storage(e.to_string()))?;
    edit(&mut house)?;
    campaign.reload(Some(&Role::Gm), None, Some(house))
}

/// Keeps a watched house folder in step with an edit made through the session.
fn write_to_folder(shared: &SessionState, name: &str, text: Option<&str>) {
    let Some(dir) = shared.folders.lock().unwrap_or_else(|p| p.into_inner()).house.clone() else { return };
    let _ = match text {
        Some(t) => folders::write_house_rules(&dir, &[(name.to_string(), t.to_string())]).map(|_| ()),
        None => folders::remove_house_rule(&dir, name),
    };
}
