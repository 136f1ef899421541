//! Small plugins written inline, and campaigns over them.

use houserule_engine::{Campaign, NewCampaign, PluginSource};
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

/// A plugin from the probe manifest plus extra actions and script text.
pub fn plugin(extra_manifest: &str, extra_rules: &str) -> PluginSource {
    let mut files = BTreeMap::new();
    files.insert("plugin.toml".to_string(), format!("{MANIFEST}\n{extra_manifest}"));
    files.insert("rules.rhai".to_string(), format!("{RULES}\n{extra_rules}"));
    PluginSource { files }
}

pub fn campaign(source: &PluginSource) -> Campaign {
    Campaign::create(
        None,
        NewCampaign { name: "test".into(), ruleset: source, settings: IndexMap::new(), seed: Some(1), limits: Default::default(), house_rules: vec![] },
    )
    .expect("the test campaign is created")
}

pub fn params(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}
