//! The rules in force: the ruleset's manifest with its labels, and the house rules the GM edits
//! (each saved one checked in the sandbox, then swapped in, or refused with its place).
//!
//! Guarantees: the manifest is read from the rules as of the last change, never waiting for
//! an action; saving or removing a house rule goes through the session's one reload task, so
//! it never races another load, and a refused one leaves the rules in force as they were.

use super::App;
use crate::calls::{Caller, HouseRuleName, HouseRuleText, HouseRulesState, Nothing, SaveHouseRule};
use crate::reload::{ReloadError, ReloadReport};
use crate::session::diagnostics;
use houserule_core::manifest::Manifest;
use houserule_core::{ErrorCode, ErrorReport};

fn reload_report(e: ReloadError) -> ErrorReport {
    let code = if matches!(e, ReloadError::Sandbox(_)) { ErrorCode::Sandbox } else { ErrorCode::InvalidHouseRule };
    ErrorReport { code, message: e.to_string(), param: None, script: None, diagnostics: diagnostics(&e) }
}

pub(super) fn manifest(app: &App, _: &Caller, _: Nothing) -> Result<Manifest, ErrorReport> {
    let rules = app.now()?.rules.clone();
    Ok(rules.manifest.filled(&rules.info.quotes))
}

pub(super) fn house_rules(app: &App, _: &Caller, _: Nothing) -> Result<HouseRulesState, ErrorReport> {
    let rules = app.now()?.rules.clone();
    let house = app.session()?.campaign().house_rules().map_err(|e| e.report())?;
    let text = |(name, text): (String, String)| HouseRuleText {
        functions: rules.house_functions().iter().filter(|f| f.file == name).cloned().collect(),
        name,
        text,
    };
    let ruleset_files = rules
        .source
        .files
        .iter()
        .map(|(name, text)| HouseRuleText { name: name.clone(), text: text.clone(), functions: vec![] })
        .collect();
    Ok(HouseRulesState { files: house.files().into_iter().map(text).collect(), ruleset_files })
}

pub(super) fn save_house_rule(app: &App, _: &Caller, p: SaveHouseRule) -> Result<Option<ReloadReport>, ErrorReport> {
    app.session()?.save_house_rule(&p.name, &p.text).map_err(reload_report)
}

pub(super) fn remove_house_rule(app: &App, _: &Caller, p: HouseRuleName) -> Result<Option<ReloadReport>, ErrorReport> {
    app.session()?.remove_house_rule(&p.name).map_err(reload_report)
}
