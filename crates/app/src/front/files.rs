//! Campaign files: the rulesets a campaign can be created on, creating, opening and closing a
//! file (the campaign in play changes), and the files opened recently.
//!
//! Guarantees: before another campaign takes the place of the one in play, whatever serves or
//! referees it is stopped ([`super::ports`]); a new campaign's session announces on the app's
//! one hub; a server creates only its own file, and only while nothing is in play.

use super::slot::InPlay;
use super::App;
use crate::calls::{Caller, Create, Nothing, Open, RulesetChoice};
use crate::campaign::{Campaign, NewCampaign};
use crate::catalog;
use crate::events::AppEvent;
use crate::session::Session;
use houserule_core::manifest::Manifest;
use houserule_core::view::CampaignInfo;
use houserule_core::{ErrorCode, ErrorReport};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where recently opened files are remembered.
#[derive(Default)]
pub(super) struct Files {
    recent: Mutex<Option<PathBuf>>,
}

impl Files {
    pub(super) fn remember_in(&self, file: Option<PathBuf>) {
        *self.recent.lock().unwrap_or_else(|p| p.into_inner()) = file;
    }

    fn file(&self) -> Option<PathBuf> {
        self.recent.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Recently opened campaign files that still exist, newest first.
    fn list(&self) -> Vec<PathBuf> {
        let Some(file) = self.file() else { return vec![] };
        let list: Vec<PathBuf> =
            std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
        list.into_iter().filter(|p| p.is_file()).collect()
    }

    fn remember(&self, path: &Path) {
        let Some(file) = self.file() else { return };
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut list = self.list();
        list.retain(|p| p != &path);
        list.insert(0, path);
        list.truncate(10);
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(&file, serde_json::to_string_pretty(&list).expect("paths serialise"));
    }
}

pub(super) fn rulesets(_: &App, _: &Caller, _: Nothing) -> Result<Vec<RulesetChoice>, ErrorReport> {
    let catalog = catalog::default_catalog();
    let choice = |r: &catalog::Ruleset| RulesetChoice {
        id: r.id.clone(),
        name: r.name.clone(),
        version: r.version.clone(),
        description: r.description.clone(),
        settings: r
            .source
            .manifest_text()
            .and_then(|t| Manifest::parse("plugin.toml", t).ok())
            .map(|m| m.settings)
            .unwrap_or_default(),
    };
    Ok(catalog.rulesets.iter().map(choice).collect())
}

/// Where `create` makes the campaign: the path the call names (a front end on the GM's
/// computer), else the front end's own file while nothing is in play.
fn new_file(app: &App, caller: &Caller, asked: Option<PathBuf>) -> Result<PathBuf, ErrorReport> {
    match (asked, &caller.front.campaign_file) {
        (Some(path), _) if caller.front.local => Ok(path),
        (_, Some(file)) if app.current().is_none() => Ok(file.clone()),
        (_, Some(_)) => Err(ErrorReport::new(ErrorCode::Forbidden, "this server already plays a campaign")),
        _ => Err(ErrorReport::new(ErrorCode::BadRequest, "create needs the path of the new campaign file")),
    }
}

pub(super) fn create(app: &App, caller: &Caller, p: Create) -> Result<CampaignInfo, ErrorReport> {
    let path = new_file(app, caller, p.path)?;
    let catalog = catalog::default_catalog();
    let ruleset = catalog
        .get(&p.ruleset)
        .ok_or_else(|| ErrorReport::new(ErrorCode::UnknownRuleset, format!("there is no ruleset '{}'", p.ruleset)))?;
    let new = NewCampaign {
        name: p.name,
        ruleset: &ruleset.source,
        settings: p.settings.into_iter().collect(),
        seed: None,
        limits: Default::default(),
        house_rules: vec![],
    };
    app.before_switch()?;
    let campaign = Campaign::create(Some(&path), new).map_err(|e| e.report())?;
    Ok(install(app, campaign, &path))
}

pub(super) fn open(app: &App, _: &Caller, p: Open) -> Result<CampaignInfo, ErrorReport> {
    app.before_switch()?;
    let campaign = Campaign::open(&p.path).map_err(|e| e.report())?;
    Ok(install(app, campaign, &p.path))
}

/// Closes the campaign in play, as the desktop's File → Close does: whatever serves or referees
/// it stops first, then nothing is in play (the file keeps everything committed).
pub(super) fn close(app: &App, _: &Caller, _: Nothing) -> Result<bool, ErrorReport> {
    app.before_switch()?;
    let Some(closed) = app.shared.slot.take() else { return Ok(false) };
    app.shared.history.clear();
    app.shared.lab.clear();
    drop(closed);
    app.shared.hub.publish(AppEvent::Closed);
    Ok(true)
}

pub(super) fn recent(app: &App, _: &Caller, _: Nothing) -> Result<Vec<PathBuf>, ErrorReport> {
    Ok(app.shared.files.list())
}

/// Puts `campaign` in play, announcing on the app's hub, and starts following it online.
fn install(app: &App, campaign: Campaign, path: &Path) -> CampaignInfo {
    let info = campaign.info();
    let session = Session::on(campaign, app.shared.hub.clone());
    app.shared.history.clear();
    app.shared.lab.clear();
    app.shared.slot.put(InPlay { session, path: path.to_path_buf() });
    app.shared.files.remember(path);
    app.shared.hub.publish(AppEvent::Opened { campaign: info.clone() });
    app.after_switch();
    info
}

impl App {
    /// Opens a campaign file (all of its checks run first) and plays it, as the desktop's Open
    /// does: whatever served or refereed the campaign before is stopped first.
    pub fn open(&self, path: &Path) -> Result<CampaignInfo, ErrorReport> {
        open(
            self,
            &Caller::new(houserule_core::Role::Gm, &crate::calls::Front::desktop().into()),
            Open { path: path.to_path_buf() },
        )
    }
}
