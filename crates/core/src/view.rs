//! Views: what one person at the table may see.
//!
//! [`table_view`] (with [`turns_view`]), [`log_entry`] and [`action_forms`] are the only ways state leaves the
//! engine — the CLI, the UI, the server and every export receive these, never the raw table.
//! Each decides visibility with [`Role::sees`]: a value the viewer may not see is left out; a
//! hidden pool shows only whether it is empty; a log item the viewer may not see shows its
//! public label if it has one and is otherwise left out.

use crate::event::{Body, EventKind, Header, Item};
use crate::manifest::{Manifest, Permit};
use crate::params::{self, Choices, ParamSpec};
use crate::pool::Pool;
use crate::quote::{self, Quotes};
use crate::table::Table;
use crate::traits::Trait;
use crate::visibility::{Role, Visibility};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Identity of a ruleset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RulesetInfo {
    pub id: String,
    pub name: String,
    pub version: String,
}

/// Public facts about a campaign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CampaignInfo {
    pub id: String,
    pub name: String,
    pub ruleset: RulesetInfo,
    /// Number of events in the log.
    pub events: u64,
    /// Hex hash of the last event.
    pub head: String,
    /// Hex SHA-256 of the dice seed in force (the seed itself stays secret until revealed).
    pub seed_commitment: String,
}

/// A pool as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PoolView {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub visibility: Visibility,
    /// The total, when the viewer may see it.
    pub count: Option<i64>,
    /// Counts per kind, for pools of several kinds the viewer may see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<IndexMap<String, i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<i64>,
    pub floor: i64,
    /// For a hidden pool: whether it is empty (all anyone may learn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty: Option<bool>,
}

/// An entity as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EntityView {
    pub id: String,
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    pub fields: IndexMap<String, Value>,
    pub traits: Vec<Trait>,
    pub pools: IndexMap<String, PoolView>,
    /// The digest of its portrait (the `picture` call gives it to whoever sees the entity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub portrait: Option<String>,
}

/// The table as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct View {
    pub viewer: Role,
    pub campaign: CampaignInfo,
    pub round: u64,
    pub settings: IndexMap<String, Value>,
    pub pools: IndexMap<String, PoolView>,
    pub entities: IndexMap<String, EntityView>,
    pub vars: IndexMap<String, Value>,
    /// The players the GM lets type in their own dice over the network (public).
    #[serde(default)]
    pub typed_dice: Vec<String>,
    /// The turn tracker, with only the participants the viewer may see.
    #[serde(default)]
    pub turns: TurnsView,
    /// The decks of cards, as the viewer may see them (see [`crate::deck_view`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<crate::deck_view::DeckView>,
    /// The scenes the viewer may see (a player: the one shown, with only the tokens they may see).
    #[serde(default)]
    pub scenes: Vec<crate::view_scene::SceneView>,
    /// The handouts the viewer may read (the GM: every one), in the order they were written.
    #[serde(default)]
    pub handouts: Vec<crate::handout::HandoutView>,
}

/// One participant in the turn order, as a viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeatView {
    /// The entity's id; empty for someone the viewer may not see, shown in their place because
    /// the GM chose so (then `someone` is set and the key is left out).
    pub id: String,
    /// A participant the viewer may not see, shown only as "someone".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub someone: bool,
    /// It is this participant's turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub now: bool,
    /// What the order sorts on, highest first.
    pub key: Vec<i64>,
    /// Has taken a turn this round.
    pub acted: bool,
    /// Holds their turn.
    pub held: bool,
}

/// The turn tracker as one viewer sees it: a participant the viewer may not see is left out,
/// and so is their turn while it lasts (`current` is then empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TurnsView {
    /// An encounter is running.
    pub active: bool,
    /// The round of the encounter (1 for the first), 0 outside one.
    pub round: u64,
    /// The participants the viewer may see, in turn order.
    pub order: Vec<SeatView>,
    /// Whose turn it is, when the viewer may see them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<String>,
    /// It is the turn of someone the viewer may not see (told only where the GM shows hidden
    /// participants as "someone").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub someone_now: bool,
    /// Whether a participant the viewer may not see is shown as "someone" (the GM's choice).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub someone_shown: bool,
}

/// The turn tracker as `role` may see it: one they may not see is left out, or shown as
/// "someone" with neither id nor key where the GM chose so.
pub fn turns_view(table: &Table, role: &Role) -> TurnsView {
    let sees = |id: &str| table.entities.get(id).is_some_and(|e| role.sees(e.visibility, e.owner.as_deref()));
    let turns = &table.turns;
    let someone = table.someone_in_turns;
    let current = turns.current.as_deref();
    let seat = |(id, s): (&str, &crate::turns::Seat)| {
        let (acted, held, now) = (s.acted, s.held, current == Some(id));
        match sees(id) {
            true => Some(SeatView { id: id.to_string(), someone: false, now, key: s.key.clone(), acted, held }),
            false => someone.then(|| SeatView { id: String::new(), someone: true, now, key: vec![], acted, held }),
        }
    };
    TurnsView {
        active: turns.active,
        round: turns.round,
        order: turns.order().into_iter().filter_map(seat).collect(),
        current: current.filter(|id| sees(id)).map(str::to_string),
        someone_now: someone && current.is_some_and(|id| !sees(id)),
        someone_shown: someone,
    }
}

fn pool_view(p: &Pool, vis: Visibility, owner: Option<&str>, role: &Role) -> PoolView {
    let sees = role.sees(vis, owner);
    PoolView {
        label: p.label.clone(),
        visibility: vis,
        count: sees.then(|| p.total()),
        counts: (sees && p.counts.len() > 1).then(|| p.counts.clone()),
        cap: p.cap,
        floor: p.floor,
        empty: (vis == Visibility::Hidden).then(|| p.total() == 0),
    }
}

/// The table as `role` may see it.
pub fn table_view(table: &Table, role: &Role, campaign: CampaignInfo) -> View {
    let entities = table
        .entities
        .values()
        .filter(|e| role.sees(e.visibility, e.owner.as_deref()))
        .map(|e| {
            let owner = e.owner.as_deref();
            let view = EntityView {
                id: e.id.clone(),
                kind: e.kind.clone(),
                portrait: e.portrait.clone(),
                name: e.name.clone(),
                owner: e.owner.clone(),
                fields: e
                    .fields
                    .iter()
                    .filter(|(_, f)| role.sees(f.visibility, owner))
                    .map(|(k, f)| (k.clone(), f.value.clone()))
                    .collect(),
                traits: e.traits.iter().filter(|t| role.sees(t.visibility, owner)).cloned().collect(),
                // A pool the viewer may not count shows nothing of itself, not even its name (a
                // hidden one says only whether it is empty, to everyone).
                pools: e
                    .pools
                    .iter()
                    .filter(|(_, p)| p.visibility == Visibility::Hidden || role.sees(p.visibility, owner))
                    .map(|(k, p)| (k.clone(), pool_view(p, p.visibility, owner, role)))
                    .collect(),
            };
            (e.id.clone(), view)
        })
        .collect();
    View {
        viewer: role.clone(),
        campaign,
        round: table.round,
        settings: table.settings.clone(),
        pools: table.pools.iter().map(|(k, p)| (k.clone(), pool_view(p, p.visibility, None, role))).collect(),
        entities,
        vars: table
            .vars
            .iter()
            .filter(|(_, f)| role.sees(f.visibility, None))
            .map(|(k, f)| (k.clone(), f.value.clone()))
            .collect(),
        typed_dice: table.typed_dice.iter().cloned().collect(),
        turns: turns_view(table, role),
        decks: crate::deck_view::decks_view(table, role),
        scenes: crate::view_scene::scenes_view(table, role),
        handouts: table.handouts.iter().filter_map(|(id, h)| h.view_for(id, role)).collect(),
    }
}

/// One log item as a viewer sees it: the body, or only a public label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant, reason = "made once per item to be serialised; a box would buy nothing")]
pub enum LogItem {
    Shown {
        visibility: Visibility,
        #[serde(flatten)]
        body: Body,
    },
    Hidden {
        visibility: Visibility,
        #[serde(rename = "type")]
        kind: HiddenItem,
        /// What may be known of an item the viewer may not see.
        hidden: String,
    },
}

/// The `type` of an item the viewer may not see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HiddenItem {
    Hidden,
}

impl LogItem {
    pub fn body(&self) -> Option<&Body> {
        match self {
            LogItem::Shown { body, .. } => Some(body),
            LogItem::Hidden { .. } => None,
        }
    }
}

/// One event as a viewer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEntry {
    pub seq: u64,
    /// Hex hash of this event (what `houserule verify --event N --hash H` checks).
    pub hash: String,
    pub at: String,
    pub kind: EventKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<Role>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
    pub items: Vec<LogItem>,
    /// The undo event that took this one back: it stays in the log, voided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voided_by: Option<u64>,
}

impl LogEntry {
    /// A post its viewer may not read (a whisper to someone else): logs leave it out
    /// altogether, so nothing of it reaches them — only a gap in the event numbers shows that
    /// something they may not read was written.
    pub fn is_unread_post(&self) -> bool {
        self.kind == EventKind::Post && self.items.is_empty()
    }

    /// What a log leaves out for its viewer: a post they may not read, or a scene the GM
    /// prepared that they see nothing of (a hidden scene, fog on a scene not shown) — an entry
    /// that would be a heading over nothing.
    pub fn is_left_out(&self) -> bool {
        const SCENE_OPS: [&str; 7] =
            ["scene_create", "scene_update", "scene_remove", "scene_show", "token_place", "token_update", "fog"];
        let scene_op = self.kind == EventKind::Action && self.action.as_deref().is_some_and(|a| SCENE_OPS.contains(&a));
        self.is_unread_post() || (scene_op && self.items.is_empty())
    }
}

/// An event as `role` may see it.
pub fn log_entry(header: &Header, items: &[Item], hash: &str, role: &Role) -> LogEntry {
    let items = items
        .iter()
        .filter_map(|i| match &i.body {
            Some(body) if role.sees(i.visibility, i.owner.as_deref()) => {
                Some(LogItem::Shown { visibility: i.visibility, body: body.clone() })
            }
            _ => i.label.as_ref().map(|l| LogItem::Hidden {
                visibility: i.visibility,
                kind: HiddenItem::Hidden,
                hidden: l.clone(),
            }),
        })
        .collect();
    LogEntry {
        seq: header.seq,
        hash: hash.to_string(),
        at: header.at.clone(),
        kind: header.kind,
        actor: header.actor.clone(),
        action: header.action.clone(),
        detail: header.detail.clone(),
        items,
        voided_by: None,
    }
}

/// A parameter of an action form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParamForm {
    pub name: String,
    #[serde(flatten)]
    pub spec: ParamSpec,
    /// The values the rules allow here, when the set is closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Choices>,
}

/// An action a viewer may take, as a form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionForm {
    pub name: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    pub who: Vec<Permit>,
    pub params: Vec<ParamForm>,
    /// What a person rolls by hand for this action, if anything (the form offers to type it in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolls: Option<String>,
    /// The rules can say the chance of success before rolling (the `odds` call).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub odds: bool,
    /// The turn tracker's control this action is (a button beside the turn order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<crate::manifest::TurnControl>,
}

/// The actions `role` may take now, with their parameters and choices; the rule numbers their
/// texts quote are filled in from `quotes` (the rules in force, see [`crate::quote`]).
pub fn action_forms(manifest: &Manifest, table: &Table, role: &Role, quotes: &Quotes) -> Vec<ActionForm> {
    let fill = |t: &Option<String>| t.as_deref().map(|t| quote::fill(t, quotes));
    manifest
        .actions
        .iter()
        .filter(|(_, a)| match role {
            Role::Gm => a.who.contains(&Permit::Gm),
            Role::Player(p) => {
                a.who.contains(&Permit::Player)
                    || (a.who.contains(&Permit::Owner)
                        && table.entities.values().any(|e| e.owner.as_deref() == Some(p.as_str())))
            }
            Role::Public => false,
        })
        .map(|(name, a)| {
            let owned_only = !role.is_gm() && !a.who.contains(&Permit::Player);
            let params = a
                .params
                .iter()
                .map(|(pname, spec)| {
                    let owned = owned_only && a.owner_param.as_deref() == Some(pname.as_str());
                    let mut spec = spec.clone();
                    spec.label = fill(&spec.label);
                    spec.help = fill(&spec.help);
                    ParamForm { name: pname.clone(), choices: params::choices(&spec, table, role, owned), spec }
                })
                .collect();
            ActionForm {
                name: name.clone(),
                label: fill(&a.label).unwrap_or_else(|| name.replace('_', " ")),
                help: fill(&a.help),
                rolls: a.rolls.clone(),
                group: a.group.clone(),
                who: a.who.clone(),
                params,
                odds: a.odds.is_some(),
                turn: a.turn,
            }
        })
        .collect()
}
