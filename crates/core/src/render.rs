//! Plain-text rendering of log entries, views and action forms, for terminals, posts and chat.
//!
//! Renders only what a [`LogEntry`] holds, so rendering a player's entry can never show more
//! than that player's view allows.

use crate::event::{Body, EventKind};
use crate::manifest::{FieldSpec, Manifest};
use crate::params::Choices;
use crate::table::Change;
use crate::view::{ActionForm, LogEntry, PoolView, View};
use serde_json::Value;

/// A short form of a JSON value: strings unquoted, lists comma-separated.
pub fn value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        Value::Array(a) => a.iter().map(value).collect::<Vec<_>>().join(", "),
        Value::Object(m) => m.iter().map(|(k, v)| format!("{k}: {}", value(v))).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

/// One line describing a change.
pub fn change(c: &Change) -> String {
    match c {
        Change::Create { entity } => {
            let owner = entity.owner.as_ref().map(|o| format!(", played by {o}")).unwrap_or_default();
            format!("new {}: {}{owner}", entity.kind, entity.name)
        }
        Change::Remove { id } => format!("{id} leaves the table"),
        Change::Rename { id, name } => format!("{id} is now called {name}"),
        Change::SetVisibility { id, visibility } => format!("{id} is now {visibility}"),
        Change::SetOwner { id, owner } => match owner {
            Some(o) => format!("{id} now belongs to {o}"),
            None => format!("{id} belongs to nobody"),
        },
        Change::Field { entity, field, value: Some(v), .. } => format!("{entity}.{field} = {}", value(v)),
        Change::Field { entity, field, value: None, .. } => format!("{entity}.{field} cleared"),
        Change::Trait { entity, value: t } => {
            let mut extra = Vec::new();
            if let Some(r) = t.rating {
                extra.push(format!("rating {r}"));
            }
            if t.state != crate::traits::TraitState::Active {
                extra.push(format!("{:?}", t.state).to_lowercase());
            }
            if t.uses > 0 {
                extra.push(format!("used {}×", t.uses));
            }
            let extra = if extra.is_empty() { String::new() } else { format!(" ({})", extra.join(", ")) };
            format!("{entity}: trait \"{}\"{extra}", t.name)
        }
        Change::RemoveTrait { entity, name } => format!("{entity}: trait \"{name}\" removed"),
        Change::Pool { pool, before, after } => {
            if after.len() == 1 {
                let (b, a) = (before.values().sum::<i64>(), after.values().sum::<i64>());
                let d = a - b;
                format!("{pool}: {b} → {a} ({}{d})", if d >= 0 { "+" } else { "" })
            } else {
                let parts: Vec<String> = after
                    .iter()
                    .filter(|(k, v)| before.get(*k) != Some(*v))
                    .map(|(k, v)| format!("{k} {} → {v}", before.get(k).copied().unwrap_or(0)))
                    .collect();
                format!("{pool}: {}", parts.join(", "))
            }
        }
        Change::RemovePool { pool } => format!("pool {pool} removed"),
        Change::DefinePool { pool, def } => {
            let cap = def.cap.map(|c| format!(", at most {c}")).unwrap_or_default();
            format!("pool {pool}: {} token(s){cap}", def.total())
        }
        Change::Var { name, value: Some(v), .. } => format!("{name} = {}", value(v)),
        Change::Var { name, value: None, .. } => format!("{name} cleared"),
        Change::Round { round } => format!("round {round} ends"),
        Change::Setting { key, value: v } => format!("setting {key} = {}", value(v)),
        Change::Rules { sources } => format!("rules in force: {} file(s) by digest", sources.len()),
        Change::TypedDice { player, allowed: true } => format!("{player} may type in their own dice"),
        Change::TypedDice { player, allowed: false } => format!("{player} rolls with the table's dice"),
        Change::SomeoneInTurns { shown: true } => {
            "players see a hidden participant in the turn order as someone".into()
        }
        Change::SomeoneInTurns { shown: false } => "players' turn order leaves out whom they may not see".into(),
        Change::Encounter { active: true, round } => format!("encounter: round {round}"),
        Change::Encounter { active: false, .. } => "the encounter ends".to_string(),
        Change::Seat { entity, seat: None } => format!("{entity} leaves the turn order"),
        Change::Seat { entity, seat: Some(s) } => {
            let mut state = Vec::new();
            if !s.key.is_empty() {
                let key: Vec<String> = s.key.iter().map(i64::to_string).collect();
                state.push(format!("initiative {}", key.join("/")));
            }
            if s.acted {
                state.push("has acted".to_string());
            }
            if s.held {
                state.push("holds".to_string());
            }
            let state = if state.is_empty() { String::new() } else { format!(" ({})", state.join(", ")) };
            format!("{entity} in the turn order{state}")
        }
        Change::Turn { entity: Some(e) } => format!("{e}'s turn"),
        Change::Turn { entity: None } => "no one's turn".to_string(),
        Change::Deck { deck, part } => part.render(deck),
        Change::Scene { scene, head: Some(h) } => format!("scene {scene}: {}", h.name),
        Change::Scene { scene, head: None } => format!("scene {scene} removed"),
        Change::ShowScene { scene: Some(s) } => format!("scene {s} shown to the players"),
        Change::ShowScene { scene: None } => "no scene shown to the players".to_string(),
        Change::Token { id, token: Some(t), .. } => {
            let hidden = if t.hidden { " (hidden)" } else { "" };
            format!("token {id} at {},{}{hidden}", t.cell.0, t.cell.1)
        }
        Change::Token { id, token: None, .. } => format!("token {id} removed"),
        Change::Moved { token, path, .. } => format!("token {token} moves {} step(s)", path.len().saturating_sub(1)),
        Change::Moves { scene, .. } => format!("moves on scene {scene} set back"),
        Change::Fog { scene, fog } if fog.on => format!("fog on scene {scene}"),
        Change::Fog { scene, .. } => format!("no fog on scene {scene}"),
        Change::Picture { picture: Some(p), .. } => format!("picture {} ({}×{})", p.name, p.width, p.height),
        Change::Picture { digest, picture: None } => format!("picture {} taken off", &digest[..digest.len().min(12)]),
        Change::Portrait { entity, picture: Some(d) } => {
            format!("{entity}'s portrait is picture {}", &d[..d.len().min(12)])
        }
        Change::Portrait { entity, picture: None } => format!("{entity} has no portrait"),
        Change::Handout { id, handout: Some(h) } => format!("handout {id}: {}", h.title),
        Change::Handout { id, handout: None } => format!("handout {id} removed"),
    }
}

/// A multi-line rendering of an entry: a heading, then rolls, narration, changes and result.
pub fn entry(e: &LogEntry) -> String {
    entry_lines(e).join("\n")
}

/// [`entry`] line by line. Only the heading starts at the left edge: every other line is
/// indented, and text of several lines (narration, a post) goes on over indented lines, so no
/// line break anyone typed starts a line of its own.
pub fn entry_lines(e: &LogEntry) -> Vec<String> {
    let who = e.actor.as_ref().map(|a| a.to_string()).unwrap_or_else(|| "—".into());
    let heading = match e.kind {
        EventKind::Created => {
            let ruleset = e
                .detail
                .as_ref()
                .and_then(|d| d.get("ruleset"))
                .and_then(|r| r.get("name"))
                .map(value)
                .unwrap_or_default();
            format!("#{} campaign created on {ruleset}", e.seq)
        }
        EventKind::Action => format!("#{} {} by {who}", e.seq, e.action.clone().unwrap_or_default()),
        EventKind::Reload => format!("#{} rules reloaded", e.seq),
        EventKind::Reveal => format!("#{} dice seed revealed", e.seq),
        EventKind::Migrated => format!("#{} file brought up to date (rules recorded by digest)", e.seq),
        EventKind::Permission => format!("#{} table permission changed by {who}", e.seq),
        EventKind::Undo => format!("#{} undo by {who}", e.seq),
        EventKind::Correction => format!("#{} correction by {who}", e.seq),
        EventKind::Post => format!("#{} post by {who}", e.seq),
    };
    let heading = match e.voided_by {
        Some(by) => format!("{heading}   [voided: undone by #{by}]"),
        None => heading,
    };
    let mut lines = vec![heading];
    let params: Vec<String> = e
        .items
        .iter()
        .filter_map(|i| match i.body() {
            Some(Body::Param { name, value: v }) if !v.is_null() => Some(format!("{name}={}", value(v))),
            _ => None,
        })
        .collect();
    if !params.is_empty() {
        lines.push(format!("  with {}", params.join("; ")));
    }
    for i in &e.items {
        let hidden = match i {
            crate::view::LogItem::Hidden { hidden, .. } => Some(hidden),
            _ => None,
        };
        match (i.body(), hidden) {
            (Some(Body::Roll { roll }), _) => {
                let label = roll.label.as_ref().map(|l| format!("{l}: ")).unwrap_or_default();
                lines.push(format!("  roll {label}{}", roll.summary()));
            }
            (Some(Body::Say { text }), _) => {
                for (k, line) in text.split('\n').enumerate() {
                    lines.push(format!("  {} {line}", if k == 0 { "»" } else { " " }));
                }
            }
            (Some(Body::Post { post }), _) => {
                let speaker = post.character_name.as_deref().map(|n| format!("{n}: ")).unwrap_or_default();
                let to = match &post.to {
                    crate::talk::Audience::Everyone => String::new(),
                    crate::talk::Audience::Gm => " [to the GM]".into(),
                    crate::talk::Audience::Player(p) => format!(" [whisper: {p}]"),
                };
                let edit = post.edits.map(|n| format!(" [edits #{n}]")).unwrap_or_default();
                for (k, line) in post.text.lines().enumerate() {
                    let head = if k == 0 { speaker.clone() } else { String::new() };
                    let tail = if k == 0 { format!("{to}{edit}") } else { String::new() };
                    lines.push(format!("  \" {head}{line}{tail}"));
                }
            }
            (Some(Body::Change { change: c }), _)
                if !matches!(c, Change::Rules { .. })
                    && (!matches!(c, Change::Setting { .. }) || e.kind != EventKind::Created) =>
            {
                lines.push(format!("  · {}", change(c)))
            }
            (Some(Body::Result { value: v }), _) => lines.push(format!("  = {}", value(v))),
            (None, Some(label)) => lines.push(format!("  · ({label})")),
            _ => {}
        }
    }
    lines
}

/// A view as lines of text (none holds a line break of its own): pools, variables, then each entity with its fields, pools and traits.
/// With the ruleset's `manifest`, as the table shows it: labels for what it declares, and neither
/// its bookkeeping nor empty values.
/// The turn order as the viewer sees it, on one line, while an encounter runs: whose turn it is
/// first marked, who has acted or holds said; a participant the viewer may not see is not there.
pub fn turn_line(v: &View) -> Option<String> {
    let t = &v.turns;
    if !t.active {
        return None;
    }
    let name = |id: &str| v.entities.get(id).map(|e| e.name.clone()).unwrap_or_else(|| id.to_string());
    let seats: Vec<String> = t
        .order
        .iter()
        .map(|s| {
            let mark = if s.now || t.current.as_deref() == Some(s.id.as_str()) { "▶ " } else { "" };
            let state = match (s.acted, s.held) {
                (true, _) => " (acted)",
                (false, true) => " (holds)",
                _ => "",
            };
            let who = if s.someone { "someone".to_string() } else { name(&s.id) };
            format!("{mark}{who}{state}")
        })
        .collect();
    let whose = match &t.current {
        Some(id) => format!("{}'s turn", name(id)),
        None if t.someone_now => "someone else's turn".to_string(),
        None => "no one's turn you can see".to_string(),
    };
    Some(format!("turn order, round {}: {whose} — {}", t.round, seats.join(", ")))
}

pub fn view_lines(v: &View, manifest: Option<&Manifest>) -> Vec<String> {
    let shown = |spec: Option<&FieldSpec>, val: &Value| !val.is_null() && !spec.is_some_and(|s| s.bookkeeping);
    let label =
        |spec: Option<&FieldSpec>, name: &str| spec.and_then(|s| s.label.clone()).unwrap_or_else(|| name.to_string());
    let mut out = vec![format!(
        "{} — {} {} (seen by {}), round {}, {} events",
        v.campaign.name, v.campaign.ruleset.name, v.campaign.ruleset.version, v.viewer, v.round, v.campaign.events
    )];
    let pool = |name: &str, p: &PoolView| -> String {
        let label = p.label.clone().unwrap_or_else(|| name.replace('_', " "));
        match (p.count, p.empty) {
            (Some(n), _) => format!("{label}: {n}{}", p.cap.map(|c| format!("/{c}")).unwrap_or_default()),
            (None, Some(true)) => format!("{label}: empty"),
            (None, Some(false)) => format!("{label}: not empty"),
            (None, None) => format!("{label}: (not shown)"),
        }
    };
    if !v.pools.is_empty() {
        out.push(format!("pools: {}", v.pools.iter().map(|(n, p)| pool(n, p)).collect::<Vec<_>>().join(" · ")));
    }
    out.extend(turn_line(v));
    for (k, val) in &v.vars {
        let spec = manifest.and_then(|m| m.vars.get(k));
        if manifest.is_none() || shown(spec, val) {
            out.push(format!("{}: {}", label(spec, k), value(val)));
        }
    }
    for e in v.entities.values() {
        let owner = e.owner.as_ref().map(|o| format!(" ({o})")).unwrap_or_default();
        let kind = manifest.and_then(|m| m.kinds.get(&e.kind));
        let kind_label = kind.and_then(|k| k.label.clone()).unwrap_or_else(|| e.kind.clone());
        out.push(String::new());
        out.push(format!("{} [{kind_label}]{owner}", e.name));
        for (k, val) in &e.fields {
            let spec = kind.and_then(|kind| kind.fields.get(k));
            if manifest.is_none() || shown(spec, val) {
                out.push(format!("  {}: {}", label(spec, k), value(val)));
            }
        }
        if !e.pools.is_empty() {
            out.push(format!("  {}", e.pools.iter().map(|(n, p)| pool(n, p)).collect::<Vec<_>>().join(" · ")));
        }
        if !e.traits.is_empty() {
            let traits: Vec<String> = e
                .traits
                .iter()
                .map(|t| {
                    let mut s = t.name.clone();
                    if let Some(r) = t.rating {
                        s.push_str(&format!(" {r}"));
                    }
                    if t.state != crate::traits::TraitState::Active {
                        s.push_str(&format!(" [{:?}]", t.state).to_lowercase());
                    }
                    s
                })
                .collect();
            out.push(format!("  traits: {}", traits.join(", ")));
        }
    }
    out
}

/// Action forms as lines of text, by group: each action's name and label, then its parameters
/// as `{prefix}NAME=<type>` with whether it is optional and its choices.
pub fn action_lines(forms: &[ActionForm], prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut group = None;
    for f in forms {
        if f.group != group {
            if let Some(g) = &f.group {
                out.push(String::new());
                out.push(g.clone());
            }
            group = f.group.clone();
        }
        out.push(format!("  {}  — {}", f.name, f.label));
        for p in &f.params {
            let ty = format!("{:?}", p.spec.ty).to_lowercase();
            let opt = if p.spec.optional || p.spec.default.is_some() { " (optional)" } else { "" };
            let choices = match &p.choices {
                Some(Choices::Options { values }) if !values.is_empty() => format!(": {}", values.join(" | ")),
                Some(Choices::Entities { values }) if !values.is_empty() => {
                    format!(": {}", values.iter().map(|e| e.id.as_str()).collect::<Vec<_>>().join(" | "))
                }
                _ => String::new(),
            };
            out.push(format!("      {prefix}{}=<{ty}>{opt}{choices}", p.name));
        }
    }
    out
}
