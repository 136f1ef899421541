//! The window's commands: each one call into the engine's [`App`], with the person at the
//! computer as the GM (who may preview or act as a player with `as`).

use houserule_engine::action::ErrorReport;
use houserule_engine::app::{request, App, HouseRulesState, RulesetChoice};
use houserule_engine::manifest::Manifest;
use houserule_engine::reload::ReloadReport;
use houserule_engine::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_engine::{Outcome, Role};
use serde_json::{json, Value};
use std::path::PathBuf;
use tauri::State;

type Reply<T> = Result<T, ErrorReport>;

/// The role named by `as`, or the GM (the person at the computer).
fn role_or_gm(asked: Option<Role>) -> Role {
    asked.unwrap_or(Role::Gm)
}

#[tauri::command(async)]
pub fn hello(app: State<'_, App>) -> Value {
    let current = app.current();
    json!({ "role": Role::Gm, "campaign": current.as_ref().map(|(info, _)| info), "file": current.as_ref().map(|(_, p)| p), "host": "desktop" })
}

#[tauri::command(async)]
pub fn rulesets(app: State<'_, App>) -> Vec<RulesetChoice> {
    app.rulesets()
}

#[tauri::command(async)]
pub fn create(app: State<'_, App>, params: request::Create) -> Reply<CampaignInfo> {
    let path = params.path.ok_or_else(|| ErrorReport::new("bad_request", "create needs the path of the new campaign file"))?;
    app.create(&path, &params.ruleset, &params.settings, &params.name)
}

#[tauri::command(async)]
pub fn open(app: State<'_, App>, params: request::Open) -> Reply<CampaignInfo> {
    app.open(&params.path)
}

#[tauri::command(async)]
pub fn recent(app: State<'_, App>) -> Vec<PathBuf> {
    app.recent_files()
}

#[tauri::command(async)]
pub fn campaign(app: State<'_, App>) -> Option<CampaignInfo> {
    app.current().map(|(info, _)| info)
}

#[tauri::command(async)]
pub fn view(app: State<'_, App>, params: Option<request::As>) -> Reply<View> {
    app.view(&role_or_gm(params.unwrap_or_default().role()?))
}

#[tauri::command(async)]
pub fn actions(app: State<'_, App>, params: Option<request::As>) -> Reply<Vec<ActionForm>> {
    app.actions(&role_or_gm(params.unwrap_or_default().role()?))
}

#[tauri::command(async)]
pub fn log(app: State<'_, App>, params: Option<request::Log>) -> Reply<Vec<LogEntry>> {
    let p = params.unwrap_or_default();
    app.log(&role_or_gm(p.role()?), p.from, p.limit)
}

#[tauri::command(async)]
pub fn act(app: State<'_, App>, params: request::Act) -> Reply<Outcome> {
    app.act(&role_or_gm(params.role()?), &params.action, &params.params, params.dice)
}

#[tauri::command(async)]
pub fn manifest(app: State<'_, App>) -> Reply<Manifest> {
    app.manifest()
}

#[tauri::command(async)]
pub fn house_rules(app: State<'_, App>) -> Reply<HouseRulesState> {
    app.house_rules()
}

#[tauri::command(async)]
pub fn save_house_rule(app: State<'_, App>, params: request::SaveHouseRule) -> Reply<Option<ReloadReport>> {
    app.save_house_rule(&params.name, &params.text)
}

#[tauri::command(async)]
pub fn remove_house_rule(app: State<'_, App>, params: request::HouseRuleName) -> Reply<Option<ReloadReport>> {
    app.remove_house_rule(&params.name)
}
