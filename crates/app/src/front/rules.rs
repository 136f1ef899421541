//! The rules in force: the ruleset's manifest with its labels, the house rules the GM edits
//! (each saved one checked in the sandbox, then swapped in, or refused with its place), the
//! house rules the GM keeps secret, and the rule book everyone reads.
//!
//! Guarantees: the manifest and the rule book are read from the rules as of the last change,
//! never waiting for an action; saving or removing a house rule goes through the session's one
//! reload task, so it never races another load, and a refused one leaves the rules in force as
//! they were; a player's rule book holds nothing of a house rule the GM keeps secret (not its
//! name, its source nor what it does), and a rule marked secret before it is first saved is
//! never named to a player at all (see `reload`).

use super::App;
use crate::calls::{
    Caller, HouseRuleName, HouseRulePage, HouseRuleSecret, HouseRuleText, HouseRulesState, LastReload, Nothing,
    RuleBook, RuleFileChange, SaveHouseRule,
};
use crate::campaign::CampaignError;
use crate::catalog::{self, Location};
use crate::reload::{self, ReloadError, ReloadReport};
use crate::session::diagnostics;
use crate::store::{Store, StoreError};
use houserule_core::event::{EventKind, Header};
use houserule_core::manifest::Manifest;
use houserule_core::{ErrorCode, ErrorReport};
use std::collections::BTreeSet;

/// The largest README shown (a larger one is left out, as a ruleset file of that size would be).
const MAX_README: u64 = 512 * 1024;

fn reload_report(e: ReloadError) -> ErrorReport {
    let code = if matches!(e, ReloadError::Sandbox(_)) { ErrorCode::Sandbox } else { ErrorCode::InvalidHouseRule };
    ErrorReport { code, message: e.to_string(), param: None, script: None, diagnostics: diagnostics(&e) }
}

fn stored(e: StoreError) -> ErrorReport {
    CampaignError::from(e).report()
}

pub(super) fn manifest(app: &App, _: &Caller, _: Nothing) -> Result<Manifest, ErrorReport> {
    let rules = app.now()?.rules.clone();
    Ok(rules.manifest.filled(&rules.info.quotes))
}

pub(super) fn house_rules(app: &App, _: &Caller, _: Nothing) -> Result<HouseRulesState, ErrorReport> {
    let rules = app.now()?.rules.clone();
    let session = app.session()?;
    let campaign = session.campaign();
    let house = campaign.house_rules().map_err(|e| e.report())?;
    let secret = reload::secret_names(campaign.store()).map_err(stored)?;
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
    Ok(HouseRulesState {
        files: house.files().into_iter().map(text).collect(),
        ruleset_files,
        secret: secret.into_iter().collect(),
    })
}

pub(super) fn save_house_rule(app: &App, _: &Caller, p: SaveHouseRule) -> Result<Option<ReloadReport>, ErrorReport> {
    let session = app.session()?;
    if let Some(secret) = p.secret {
        // Marked before the reload, so that its line and detail already leave a secret rule out.
        reload::mark_secret(session.campaign().store(), &p.name, secret).map_err(stored)?;
        app.shared.history.clear();
    }
    session.save_house_rule(&p.name, &p.text).map_err(reload_report)
}

pub(super) fn remove_house_rule(app: &App, _: &Caller, p: HouseRuleName) -> Result<Option<ReloadReport>, ErrorReport> {
    app.session()?.remove_house_rule(&p.name).map_err(reload_report)
}

pub(super) fn house_rule_secret(app: &App, _: &Caller, p: HouseRuleSecret) -> Result<Vec<String>, ErrorReport> {
    let names = reload::mark_secret(app.session()?.campaign().store(), &p.name, p.secret).map_err(stored)?;
    // Entries read before were made without (or with) this rule hidden.
    app.shared.history.clear();
    Ok(names.into_iter().collect())
}

/// The rule book as the caller may read it.
pub(super) fn rule_book(app: &App, caller: &Caller, _: Nothing) -> Result<RuleBook, ErrorReport> {
    let now = app.now()?;
    let gm = caller.role.is_gm();
    let (secret, last_reload) = app.reading(&now, |store| {
        let secret = reload::secret_names(store).map_err(stored)?;
        let last = last_reload(store).map_err(stored)?;
        Ok((secret, last))
    })?;
    let rules = &now.rules;
    let house = rules
        .house
        .iter()
        .filter(|h| gm || !secret.contains(&h.name))
        .map(|h| HouseRulePage {
            name: h.name.clone(),
            text: h.source.clone(),
            functions: rules.house_functions().iter().filter(|f| f.file == h.name).cloned().collect(),
            secret: secret.contains(&h.name),
        })
        .collect();
    let hidden = if gm { BTreeSet::new() } else { secret };
    Ok(RuleBook {
        ruleset: now.info.ruleset.clone(),
        readme: readme(&rules.manifest.id),
        house,
        last_reload: last_reload.map(|(header, changed)| LastReload {
            seq: header.seq,
            at: header.at,
            changes: changed.iter().filter_map(|c| change_of(c, &hidden)).collect(),
        }),
    })
}

/// The last reload event of the log, with the files its detail says it changed.
fn last_reload(store: &Store) -> Result<Option<(Header, Vec<String>)>, StoreError> {
    let mut last = None;
    store.each_header(|_, _, header, _| {
        if header.contains("\"kind\":\"reload\"") {
            last = Some(header);
        }
        Ok(())
    })?;
    let Some(text) = last else { return Ok(None) };
    let header: Header =
        serde_json::from_str(&text).map_err(|e| StoreError::Corrupt(format!("a header does not parse: {e}")))?;
    if header.kind != EventKind::Reload {
        return Ok(None);
    }
    let changed = header
        .detail
        .as_ref()
        .and_then(|d| d.get("changed"))
        .and_then(|c| serde_json::from_value::<Vec<String>>(c.clone()).ok())
        .unwrap_or_default();
    Ok(Some((header, changed)))
}

/// A `changed` entry of a reload (`house/NAME (added)`) in parts, unless it is a `hidden` rule.
fn change_of(entry: &str, hidden: &BTreeSet<String>) -> Option<RuleFileChange> {
    let path = reload::changed_file(entry);
    let (layer, file) = path.split_once('/')?;
    if layer == "house" && hidden.contains(file) {
        return None;
    }
    let how = match &entry[path.len()..] {
        " (added)" => "added",
        " (removed)" => "removed",
        _ => "changed",
    };
    Some(RuleFileChange { layer: layer.into(), file: file.into(), how: how.into() })
}

/// The README of the ruleset `id` from its folder on this computer, if it has one of a
/// readable size (a ruleset built into the program carries none).
fn readme(id: &str) -> Option<String> {
    let catalog = catalog::default_catalog();
    let Location::Folder(dir) = &catalog.get(id)?.location else { return None };
    let path = dir.join("README.md");
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_README {
        return None;
    }
    std::fs::read_to_string(path).ok()
}
