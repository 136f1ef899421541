//! House rules and live editing: `house-rules list|export|import|remove`, `watch`, `definitions`.

use super::Outcome;
use crate::output::{self, Failure, HouseRuleFile, HouseRulesListing, Reloaded};
use crate::rulesets;
use houserule_app::catalog::Location;
use houserule_app::folders;
use houserule_app::reload::ReloadError;
use houserule_app::session::{diagnostics, RuleFolders, Session, SessionEvent};
use houserule_app::Campaign;
use houserule_core::plugin::{HouseEffect, HouseFunction, HOUSE_SETTINGS};
use houserule_core::{ErrorCode, Role};
use std::path::{Path, PathBuf};

fn reload_failure(e: ReloadError) -> Failure {
    let code = if matches!(e, ReloadError::Sandbox(_)) { ErrorCode::Sandbox } else { ErrorCode::InvalidHouseRule };
    let mut f = Failure::new(code, e.to_string());
    f.0.message = diagnostics(&e).iter().map(|d| d.text.clone()).collect::<Vec<_>>().join("\n");
    f
}

/// A folder's content refused (a link, a name that is a path) or not readable.
pub fn folder_failure(e: folders::FolderError) -> Failure {
    Failure::new(if e.refused { ErrorCode::InvalidHouseRule } else { ErrorCode::Io }, e.to_string())
}

pub fn list(json: bool, file: &Path) -> Outcome {
    let c = super::campaign::open(file)?;
    let house = c.house_rules()?;
    let rules = c.rules();
    let files: Vec<HouseRuleFile> = house
        .files()
        .into_iter()
        .map(|(name, text)| HouseRuleFile {
            functions: rules.house_functions().iter().filter(|f| f.file == name).cloned().collect(),
            bytes: text.len(),
            name,
        })
        .collect();
    let settings = house.setting_overrides().map_err(|p| Failure::new(ErrorCode::InvalidHouseRule, p.to_string()))?;
    let listing = HouseRulesListing { ruleset: c.info().ruleset, files, settings };
    if json {
        output::json(&listing);
        return Ok(true);
    }
    if listing.files.is_empty() {
        crate::say!("{} plays {} as written: no house rules.", file.display(), listing.ruleset.name);
    }
    for f in &listing.files {
        crate::say!("{} ({} bytes)", f.name, f.bytes);
        for line in describe(&f.functions) {
            crate::say!("  {line}");
        }
    }
    for (k, v) in &listing.settings {
        crate::say!("  setting {k} = {}", houserule_core::render::value(v));
    }
    Ok(true)
}

pub fn export(json: bool, file: &Path, dir: &Path) -> Outcome {
    let c = super::campaign::open(file)?;
    let files = c.house_rules()?.files();
    folders::write_house_rules(dir, &files).map_err(folder_failure)?;
    if json {
        output::json(&files.iter().map(|(n, _)| dir.join(n)).collect::<Vec<_>>());
    } else if files.is_empty() {
        crate::say!(
            "{} has no house rules yet; {} is ready for new ones (*.rhai, {HOUSE_SETTINGS}).",
            file.display(),
            dir.display()
        );
    } else {
        for (name, _) in &files {
            crate::say!("wrote {}", dir.join(name).display());
        }
    }
    Ok(true)
}

/// What each house-rule function does, a line each, with its warning (if any) after it.
fn describe(functions: &[HouseFunction]) -> Vec<String> {
    let mut lines = Vec::new();
    for f in functions {
        lines.push(what_it_does(f));
        if let Some(w) = f.warning_text() {
            lines.push(format!("  {w}"));
        }
    }
    lines
}

/// One line: what a house-rule function does to the rules.
fn what_it_does(f: &HouseFunction) -> String {
    let sig = format!("{}({} parameter{})", f.name, f.arity, if f.arity == 1 { "" } else { "s" });
    let hook = f.hook.as_deref();
    let moment = hook.is_some_and(|h| h == f.name || h.ends_with('*'));
    match (f.effect, hook) {
        (HouseEffect::Wraps, Some(h)) if !moment => {
            format!("wraps the ruleset's {sig} (the {h} hook), calling it as original(…)")
        }
        (HouseEffect::Wraps, _) => format!("wraps the ruleset's {sig}, calling it as original(…)"),
        (HouseEffect::Replaces, Some(_)) if moment => format!("hooks into {sig}"),
        (HouseEffect::Replaces, Some(h)) => format!("replaces the ruleset's {sig}, the {h} hook"),
        (HouseEffect::Replaces, None) => format!("replaces the ruleset's {sig}"),
        (HouseEffect::Adds, Some(h)) => format!("adds {sig}, which the ruleset calls by name ({h})"),
        (HouseEffect::Adds, None) => format!("adds {sig}"),
        (HouseEffect::Unused, _) => format!("adds {sig}, which nothing calls"),
    }
}

/// Says what each function of the house rules now in force does (they come file by file).
fn print_functions(functions: &[HouseFunction]) {
    for f in functions {
        crate::say!("  {}: {}", f.file, what_it_does(f));
        if let Some(w) = f.warning_text() {
            crate::say!("    {w}");
        }
    }
}

fn print_reload(json: bool, report: Option<houserule_app::reload::ReloadReport>, functions: &[HouseFunction]) {
    if json {
        output::json(&Reloaded { report });
        return;
    }
    match report {
        None => crate::say!("nothing changed"),
        Some(r) => {
            crate::say!("event #{}: the rules changed: {}", r.seq, r.changed.join(", "));
            for (k, v) in &r.settings {
                crate::say!("  setting {k} = {}", houserule_core::render::value(v));
            }
            print_functions(functions);
        }
    }
}

pub fn import(json: bool, file: &Path, dir: &Path) -> Outcome {
    let mut c = super::campaign::open(file)?;
    let house = folders::read_house_rules(dir, c.rules().limits.max_script_bytes).map_err(folder_failure)?;
    let report = c.reload(Some(&Role::Gm), None, Some(house)).map_err(reload_failure)?;
    print_reload(json, report, c.rules().house_functions());
    Ok(true)
}

pub fn remove(json: bool, file: &Path, name: &str) -> Outcome {
    let mut c = super::campaign::open(file)?;
    let mut house = c.house_rules()?;
    let before = house.files().len();
    house.scripts.retain(|h| h.name != name);
    if name == HOUSE_SETTINGS {
        house.settings_text = None;
    }
    if house.files().len() == before {
        return Err(Failure::new(ErrorCode::BadRequest, format!("{} has no house rule '{name}'", file.display())));
    }
    let report = c.reload(Some(&Role::Gm), None, Some(house)).map_err(reload_failure)?;
    print_reload(json, report, c.rules().house_functions());
    Ok(true)
}

/// The default folder for a campaign's house rules: `NAME.house-rules` beside the file.
pub fn default_house_dir(file: &Path) -> PathBuf {
    let stem = file.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "campaign".into());
    file.with_file_name(format!("{stem}.house-rules"))
}

pub fn watch(
    json: bool,
    file: &Path,
    dir: Option<PathBuf>,
    ruleset_dir: Option<PathBuf>,
    no_ruleset: bool,
    max_events: Option<usize>,
) -> Outcome {
    let campaign = Campaign::open(file)?;
    let dir = dir.unwrap_or_else(|| default_house_dir(file));
    if !dir.exists() {
        folders::write_house_rules(&dir, &campaign.house_rules()?.files()).map_err(folder_failure)?;
    }
    let id = campaign.info().ruleset.id;
    let ruleset = if no_ruleset {
        None
    } else {
        ruleset_dir.or_else(|| {
            rulesets::catalog().get(&id).and_then(|r| match &r.location {
                Location::Folder(p) => Some(p.clone()),
                Location::BuiltIn => None,
            })
        })
    };
    let session = Session::new(campaign);
    let events = session.subscribe();
    session
        .watch(RuleFolders { ruleset, house: Some(dir) }, houserule_app::watch::DEBOUNCE)
        .map_err(|m| Failure::new(ErrorCode::Io, m.0))?;
    let mut seen = 0;
    for event in events {
        if json {
            output::json_line(&event);
        } else {
            match &event {
                SessionEvent::Watching { ruleset, house } => {
                    if let Some(h) = house {
                        crate::say!("watching house rules in {}", h.display());
                    }
                    if let Some(r) = ruleset {
                        crate::say!("watching the ruleset in {}", r.display());
                    }
                    crate::say!("save a file to reload; Ctrl-C to stop");
                }
                SessionEvent::Reloaded { report } => {
                    crate::say!("reloaded (event #{}): {}", report.seq, report.changed.join(", "));
                    let functions = session.campaign().rules().house_functions().to_vec();
                    print_functions(&functions);
                }
                SessionEvent::ReloadFailed { problems } => {
                    crate::say!("not reloaded; the previous rules still apply:");
                    for p in problems {
                        output::lines(p.text.lines().map(|l| format!("  {l}")));
                    }
                }
                SessionEvent::FileGone { message } => crate::say!("{message}"),
                SessionEvent::Committed { .. } | SessionEvent::Written { .. } => {}
            }
        }
        if !matches!(event, SessionEvent::Watching { .. }) {
            seen += 1;
        }
        if max_events.is_some_and(|m| seen >= m) {
            break;
        }
    }
    Ok(true)
}

pub fn definitions(json: bool, dir: &Path) -> Outcome {
    let files = houserule_core::script_api::write_definitions(dir)
        .map_err(|e| Failure::new(ErrorCode::Io, format!("{}: {e}", dir.display())))?;
    if json {
        output::json(&files);
    } else {
        for f in &files {
            crate::say!("wrote {}", dir.join(f).display());
        }
        crate::say!(
            "Point your editor's Rhai support at {} for completion and signatures of the whole host API.",
            dir.display()
        );
    }
    Ok(true)
}
