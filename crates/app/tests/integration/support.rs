//! Small plugins written inline, and campaigns over them.

use houserule_app::{Campaign, NewCampaign};
use houserule_core::PluginSource;
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const MANIFEST: &str = r#"
id = "probe"
name = "Probe"
version = "0.1.0"
api = 1
entry = "rules.rhai"

[kinds.character]
pools.hero = { cap = 1, initial = 1 }

[pools.momentum]
cap = 6

[actions.make]
who = ["gm"]
params.name = { type = "text" }
params.owner = { type = "text", optional = true }

[actions.gain]
who = ["gm", "owner"]
owner_param = "character"
params.character = { type = "entity", kind = "character" }
params.n = { type = "int", min = 0 }
"#;

pub const RULES: &str = r#"
fn make(t, p) {
    t.create("character", p.name, #{ owner: p.owner });
}
fn gain(t, p) {
    t.add("momentum", p.n);
    t.say(`${t.name(p.character)} gains ${p.n} Momentum`);
    t.pool("momentum")
}
"#;

/// Runs sandbox workers from this crate's `houserule-sandbox` (the test binary itself is a test
/// harness, not a program that can become a worker).
/// It also caps this test process's own memory, so a regression that ran a memory bomb here
/// instead of in a worker fails the test rather than exhausting the machine.
pub fn init() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        houserule_app::sandbox::use_program(std::path::PathBuf::from(env!("CARGO_BIN_EXE_houserule-sandbox")));
        #[cfg(unix)]
        {
            let cap: libc::rlim_t = 3 * 1024 * 1024 * 1024;
            let limit = libc::rlimit { rlim_cur: cap, rlim_max: cap };
            // SAFETY: setrlimit reads the struct we pass.
            unsafe { libc::setrlimit(libc::RLIMIT_DATA, &limit) };
        }
    });
}

/// A plugin from the probe manifest plus extra actions and script text.
pub fn plugin(extra_manifest: &str, extra_rules: &str) -> PluginSource {
    let mut files = BTreeMap::new();
    files.insert("plugin.toml".to_string(), format!("{MANIFEST}\n{extra_manifest}"));
    files.insert("rules.rhai".to_string(), format!("{RULES}\n{extra_rules}"));
    PluginSource { files }
}

pub fn campaign(source: &PluginSource) -> Campaign {
    create(source, None)
}

/// As [`campaign`], kept in a campaign file at `path`.
pub fn campaign_file(source: &PluginSource, path: &std::path::Path) -> Campaign {
    create(source, Some(path))
}

fn create(source: &PluginSource, path: Option<&std::path::Path>) -> Campaign {
    init();
    Campaign::create(
        path,
        NewCampaign {
            name: "test".into(),
            ruleset: source,
            settings: IndexMap::new(),
            seed: Some(1),
            limits: Default::default(),
            house_rules: vec![],
        },
    )
    .expect("the test campaign is created")
}

pub fn params(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// The GM at the desktop app.
pub fn desktop(role: houserule_core::Role) -> houserule_app::calls::Caller {
    houserule_app::calls::Caller::new(role, &std::sync::Arc::new(houserule_app::calls::Front::desktop()))
}

/// Someone in a browser at a server playing `table.houserule`.
pub fn browser(role: houserule_core::Role) -> houserule_app::calls::Caller {
    let front = houserule_app::calls::Front::server("table.houserule".into());
    houserule_app::calls::Caller::new(role, &std::sync::Arc::new(front))
}

/// Makes the call `method` with `params` as `caller`; its answer as JSON.
pub fn ask(
    app: &houserule_app::front::App,
    caller: &houserule_app::calls::Caller,
    method: &str,
    params: Value,
) -> Result<Value, houserule_core::ErrorReport> {
    app.ask(caller, houserule_app::calls::Call::read(method, params)?)
}

/// Creates a campaign file on `ruleset` from the desktop app, and plays it.
pub fn create_in(app: &houserule_app::front::App, file: &std::path::Path, ruleset: &str, name: &str) {
    let gm = desktop(houserule_core::Role::Gm);
    ask(app, &gm, "create", serde_json::json!({"path": file, "ruleset": ruleset, "name": name})).expect("created");
}

/// Every check `verify` runs on the campaign's file, with the seed it holds.
pub fn verified(c: &Campaign) -> houserule_app::verify::VerifyReport {
    houserule_app::verify::verify(c.store(), &houserule_app::verify::own_seeds(c.store()))
}

/// The bundled rulesets with their folders and sources, from the repository's plugins folder.
pub fn bundled() -> Vec<(String, std::path::PathBuf, PluginSource)> {
    let plugins =
        houserule_app::catalog::find_repo_plugins(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).expect("plugins/");
    let found = houserule_app::catalog::Catalog::scan(&[plugins], vec![], &houserule_core::Limits::default());
    assert!(found.rulesets.len() >= 6, "the bundled rulesets are found: {:?}", found.skipped);
    found
        .rulesets
        .into_iter()
        .filter_map(|r| match r.location {
            houserule_app::catalog::Location::Folder(dir) => Some((r.id, dir, r.source)),
            _ => None,
        })
        .collect()
}
