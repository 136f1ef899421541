//! The window's commands: each one call into the engine's [`App`], with the person at the
//! computer as the GM (who may preview or act as a player with `as`).

use houserule_engine::action::ErrorReport;
use houserule_engine::app::{App, HouseRulesState, RulesetChoice};
use houserule_engine::manifest::Manifest;
use houserule_engine::reload::ReloadReport;
use houserule_engine::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_engine::{Outcome, Role};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use tauri::State;

type Reply<T> = Result<T, ErrorReport>;

fn bad(message: impl Into<String>) -> ErrorReport {
    ErrorReport { code: "bad_request".into(), message: message.into(), param: None, script: None, diagnostics: vec![] }
}

/// `{as?}`: whose view (the GM's by default).
#[derive(Deserialize, Default)]
pub struct AsParams {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
}

impl AsParams {
    fn role(&self) -> Reply<Role> {
        self.role.as_deref().map(Role::parse).transpose().map_err(bad).map(|r| r.unwrap_or(Role::Gm))
    }
}

#[derive(Deserialize)]
pub struct CreateParams {
    pub path: PathBuf,
    pub ruleset: String,
    #[serde(default)]
    pub settings: Map<String, Value>,
    #[serde(default)]
    pub name: String,
}

#[derive(Deserialize)]
pub struct OpenParams {
    pub path: PathBuf,
}

#[derive(Deserialize)]
pub struct LogParams {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    #[serde(default)]
    pub from: Option<u64>,
    #[serde(default)]
    pub limit: Option<usize>,
}

#[derive(Deserialize)]
pub struct ActParams {
    #[serde(default, rename = "as")]
    pub role: Option<String>,
    pub action: String,
    #[serde(default)]
    pub params: Map<String, Value>,
    #[serde(default)]
    pub dice: Option<Vec<i64>>,
}

#[derive(Deserialize)]
pub struct HouseRuleParams {
    pub name: String,
    #[serde(default)]
    pub text: String,
}

#[tauri::command(async)]
pub fn hello(app: State<'_, App>) -> Value {
    json!({ "role": Role::Gm, "campaign": app.current().map(|(info, _)| info), "file": app.current().map(|(_, p)| p), "host": "desktop" })
}

#[tauri::command(async)]
pub fn rulesets(app: State<'_, App>) -> Vec<RulesetChoice> {
    app.rulesets()
}

#[tauri::command(async)]
pub fn create(app: State<'_, App>, params: CreateParams) -> Reply<CampaignInfo> {
    app.create(&params.path, &params.ruleset, &params.settings, &params.name)
}

#[tauri::command(async)]
pub fn open(app: State<'_, App>, params: OpenParams) -> Reply<CampaignInfo> {
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
pub fn view(app: State<'_, App>, params: Option<AsParams>) -> Reply<View> {
    app.view(&params.unwrap_or_default().role()?)
}

#[tauri::command(async)]
pub fn actions(app: State<'_, App>, params: Option<AsParams>) -> Reply<Vec<ActionForm>> {
    app.actions(&params.unwrap_or_default().role()?)
}

#[tauri::command(async)]
pub fn log(app: State<'_, App>, params: Option<LogParams>) -> Reply<Vec<LogEntry>> {
    let p = params.unwrap_or(LogParams { role: None, from: None, limit: None });
    let role = AsParams { role: p.role }.role()?;
    app.log(&role, p.from.unwrap_or(1), p.limit.unwrap_or(200))
}

#[tauri::command(async)]
pub fn act(app: State<'_, App>, params: ActParams) -> Reply<Outcome> {
    let role = AsParams { role: params.role }.role()?;
    app.act(&role, &params.action, &params.params, params.dice)
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
pub fn save_house_rule(app: State<'_, App>, params: HouseRuleParams) -> Reply<Option<ReloadReport>> {
    app.save_house_rule(&params.name, &params.text)
}

#[tauri::command(async)]
pub fn remove_house_rule(app: State<'_, App>, params: HouseRuleParams) -> Reply<Option<ReloadReport>> {
    app.remove_house_rule(&params.name)
}
