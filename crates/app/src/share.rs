//! Sharing a campaign: one clean file, or a player's copy that still verifies.
//!
//! [`share`] writes a single self-contained SQLite file (no WAL side files) holding the rules
//! and house rules the campaign is played with. The file is made new by this build from what
//! Houserule reads of the campaign (its facts, sources, events, snapshots and seed): nothing
//! else the campaign file holds — a table, a trigger, a row Houserule does not read — is ever
//! copied, and nothing is written through a link at the target. A full copy is the campaign itself, seed
//! included, for another GM. A copy for a player keeps every event and hash, but each item that
//! player may not see is redacted to its digest: the chain verifies exactly as before, nothing
//! secret is in the file (no dice seed, no snapshots of the table, no GM-only values), and the
//! player's view at the time is stored so the copy can be read, with the pictures that view
//! shows them (the map masked as they saw it; see [`pictures`]). When the GM later shares the
//! full file, [`compare`] shows that every event of the copy is in it with the same hash — so
//! the redacted items were what the full file holds.

use crate::campaign::{Campaign, CampaignError};
use crate::reload;
use crate::store::{Row, Store, StoreError};
use crate::verify::{self, Check, VerifyReport};
use houserule_core::event::Item;
use houserule_core::view::{self, CampaignInfo, LogEntry, View};
use houserule_core::Role;
use rusqlite::params;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use withheld::Withheld;

mod pictures;
mod withheld;

/// What `share` wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ShareReport {
    pub path: PathBuf,
    /// The player the copy is for; none for a full copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_role: Option<Role>,
    pub events: u64,
    pub head: String,
    /// Items left out of a player's copy (their digests remain).
    pub redacted_items: u64,
}

/// Why a copy could not be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShareError {
    #[error("{0}")]
    Campaign(#[from] CampaignError),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{0} already exists; choose another name")]
    Exists(String),
    #[error("a copy can be made for a player (player:NAME), or in full")]
    NotAPlayer,
}

fn sqlite(e: rusqlite::Error) -> ShareError {
    ShareError::Store(StoreError::Sqlite(e.to_string()))
}

/// The facts of the campaign a copy carries (`meta`); the rest of `meta` is this table's own
/// bookkeeping (this machine's stamp, a Matrix room's marks) or nothing Houserule reads.
const CARRIED_META: &[&str] =
    &["campaign_id", "name", "ruleset_id", "ruleset_name", "ruleset_version", "seed_commitment", "settings"];

/// The files SQLite keeps beside a database while it is written.
const SIDE_FILES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Refuses to write where anything already is — a file, a folder, a link, even a dangling one
/// — at `out` or at a file SQLite would keep beside it, so a copy is never written through a
/// link.
fn free(out: &Path) -> Result<(), ShareError> {
    let beside = SIDE_FILES.iter().map(|s| PathBuf::from(format!("{}{s}", out.display())));
    match std::iter::once(out.to_path_buf()).chain(beside).find(|p| std::fs::symlink_metadata(p).is_ok()) {
        Some(p) => Err(ShareError::Exists(p.display().to_string())),
        None => Ok(()),
    }
}

/// Removes what a failed copy left behind.
fn remove(out: &Path) {
    let _ = std::fs::remove_file(out);
    for suffix in SIDE_FILES {
        let _ = std::fs::remove_file(format!("{}{suffix}", out.display()));
    }
}

/// Leaves the file as one clean database: rollback journal, no WAL side files.
fn settle(path: &Path) -> Result<(), ShareError> {
    let conn = rusqlite::Connection::open(path).map_err(sqlite)?;
    conn.pragma_update(None, "journal_mode", "DELETE").map_err(sqlite)?;
    conn.execute_batch("VACUUM").map_err(sqlite)?;
    Ok(())
}

/// Writes a copy of the campaign at `from` to `out`, in full or for one player. The copy is a
/// new file made by this build from what Houserule reads of the campaign — never a copy of the
/// database, so nothing else a file may hold travels with it — and it must verify on its own
/// before anyone receives it.
pub fn share(from: &Path, out: &Path, for_role: Option<&Role>) -> Result<ShareReport, ShareError> {
    free(out)?;
    if matches!(for_role, Some(Role::Gm | Role::Public)) {
        return Err(ShareError::NotAPlayer);
    }
    // Whatever this machine checked before, a copy for others is made from a file checked in full.
    let campaign = Campaign::open_checked(from)?;
    let result = match for_role {
        None => full_copy(&campaign, out),
        Some(role) => player_copy(&campaign, out, role),
    };
    if result.is_err() {
        remove(out);
    }
    result
}

/// The whole campaign, seed included, for another GM: not this table's join links, read marks,
/// Matrix marks or this machine's stamp.
fn full_copy(campaign: &Campaign, out: &Path) -> Result<ShareReport, ShareError> {
    let info = campaign.info();
    let mut copy = Store::create(out)?;
    let src = campaign.store();
    let marks = src.meta(reload::SECRET_KEY)?.map(|names| (reload::SECRET_KEY, names));
    carry_meta(src, &copy, marks.as_slice())?;
    carry_sources(src, &copy, None)?;
    if let Some(seed) = src.secret("seed")? {
        copy.set_secret("seed", &seed)?;
    }
    let snapshots = src.snapshot_seqs()?;
    copy.begin_write()?;
    src.each_event(1, |row| {
        let snapshot = match snapshots.contains(&row.seq) {
            true => src.snapshot_before(row.seq)?.map(|(_, text)| text),
            false => None,
        };
        copy.append(&row, snapshot.as_deref(), &[])
    })?;
    let mut pictures = Ok(());
    src.each_picture(|_, bytes| {
        if pictures.is_ok() {
            pictures = copy.put_picture(bytes).map(|_| ());
        }
    })?;
    pictures?;
    copy.end_write(true)?;
    drop(copy);
    settle(out)?;
    verified(out, false)?;
    Ok(ShareReport { path: out.to_path_buf(), for_role: None, events: info.events, head: info.head, redacted_items: 0 })
}

/// The facts a copy carries, and `extra` ones of its own.
fn carry_meta(src: &Store, copy: &Store, extra: &[(&str, String)]) -> Result<(), ShareError> {
    for key in CARRIED_META {
        if let Some(value) = src.meta(key)? {
            copy.set_meta(key, &value)?;
        }
    }
    for (key, value) in extra {
        copy.set_meta(key, value)?;
    }
    Ok(())
}

/// Every version of the sources the campaign was played with, and the ones in force — but
/// what `withheld` keeps from a player.
fn carry_sources(src: &Store, copy: &Store, withheld: Option<&Withheld>) -> Result<(), ShareError> {
    let (from, to) = (src.connection(), copy.connection());
    to.execute_batch("BEGIN").map_err(sqlite)?;
    let mut blobs = from.prepare("SELECT hash, content FROM blobs").map_err(sqlite)?;
    for b in blobs.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(sqlite)? {
        let (h, c) = b.map_err(sqlite)?;
        if withheld.is_some_and(|w| w.hides_text(&c)) {
            continue;
        }
        to.execute("INSERT OR IGNORE INTO blobs (hash, content) VALUES (?1, ?2)", params![h, c]).map_err(sqlite)?;
    }
    let mut sources = from.prepare("SELECT layer, path, hash FROM sources").map_err(sqlite)?;
    let rows = sources
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))
        .map_err(sqlite)?;
    for s in rows {
        let (l, p, h) = s.map_err(sqlite)?;
        if withheld.is_some_and(|w| w.hides_source(&l, &p)) {
            continue;
        }
        to.execute("INSERT INTO sources (layer, path, hash) VALUES (?1, ?2, ?3)", params![l, p, h]).map_err(sqlite)?;
    }
    to.execute_batch("COMMIT").map_err(sqlite)?;
    Ok(())
}

/// The copy at `out` verifies on its own.
fn verified(out: &Path, players: bool) -> Result<(), ShareError> {
    let report = match players {
        true => SharedCopy::open(out)?.verify(),
        false => {
            let store = Store::open(out)?;
            verify::verify(&store, &verify::own_seeds(&store))
        }
    };
    match report.checks.iter().find(|c| !c.ok) {
        None => Ok(()),
        Some(c) => Err(StoreError::Corrupt(format!("the copy does not verify: {} check: {}", c.name, c.detail)).into()),
    }
}

fn player_copy(campaign: &Campaign, out: &Path, role: &Role) -> Result<ShareReport, ShareError> {
    let info = campaign.info();
    let view = campaign.view(role);
    let mut copy = Store::create(out)?;
    let extra = [
        ("copy_for", role.to_string()),
        ("copy_of", info.id.clone()),
        ("copy_head", format!("{}:{}", info.events, info.head)),
        ("copy_view", serde_json::to_string(&view).expect("views serialise")),
    ];
    carry_meta(campaign.store(), &copy, &extra)?;
    let mut withheld = Withheld::of(campaign.store())?;
    let mut redacted = 0u64;
    copy.begin_write()?;
    campaign.store().each_event(1, |row| {
        let (items, n) = redacted_items(&row, role, &mut withheld)?;
        redacted += n;
        copy.append(&Row { items, ..row }, None, &[])
    })?;
    let masked = pictures::carry(campaign.table(), campaign.store(), &view, role, &mut copy)?;
    copy.end_write(true)?;
    if !masked.is_empty() {
        copy.set_meta(pictures::MASKED_KEY, &serde_json::to_string(&masked).expect("keys serialise"))?;
    }
    carry_sources(campaign.store(), &copy, Some(&withheld))?;
    if let Some(seqs) = withheld.stored() {
        copy.set_meta(verify::WITHHELD_KEY, &seqs)?;
    }
    drop(copy);
    settle(out)?;
    verified(out, true)?;
    Ok(ShareReport {
        path: out.to_path_buf(),
        for_role: Some(role.clone()),
        events: info.events,
        head: info.head,
        redacted_items: redacted,
    })
}

/// An event's items as `role` may see them (the others, and a rules item naming a house rule
/// the GM keeps secret, redacted to their digests), and how many were redacted.
fn redacted_items(row: &Row, role: &Role, withheld: &mut Withheld) -> Result<(String, u64), StoreError> {
    let mut redacted = 0;
    let kept: Vec<Item> = row
        .parse_items()?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            match role.sees(item.visibility, item.owner.as_deref()) && !withheld.withholds(row.seq, item) {
                true => Ok(item.clone()),
                false => {
                    redacted += 1;
                    item.redacted(i)
                }
            }
        })
        .collect::<Result<_, _>>()
        .map_err(|e| StoreError::Corrupt(format!("event {}: {e}", row.seq)))?;
    Ok((serde_json::to_string(&kept).expect("items serialise"), redacted))
}

/// A player's copy, opened for reading: the stored view, the redacted log, verification.
pub struct SharedCopy {
    store: Store,
    pub for_role: Role,
    view: View,
}

impl SharedCopy {
    /// Whether the file at `path` is a player's copy.
    pub fn is_copy(store: &Store) -> bool {
        store.meta("copy_for").ok().flatten().is_some()
    }

    pub fn open(path: &Path) -> Result<SharedCopy, ShareError> {
        let store = Store::open(path)?;
        let for_role = store.meta("copy_for")?.and_then(|r| Role::parse(&r).ok()).ok_or_else(|| {
            StoreError::NotACampaign { path: path.display().to_string(), reason: "it is not a player's copy".into() }
        })?;
        let view: View = store
            .meta("copy_view")?
            .and_then(|v| serde_json::from_str(&v).ok())
            .ok_or_else(|| StoreError::Corrupt("the copy has no view".into()))?;
        Ok(SharedCopy { store, for_role, view })
    }

    pub fn view(&self) -> &View {
        &self.view
    }

    pub fn info(&self) -> &CampaignInfo {
        &self.view.campaign
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The log as stored (already redacted for this player).
    pub fn log(&self, from: u64) -> Result<Vec<LogEntry>, ShareError> {
        let mut out = Vec::new();
        self.store.each_event(from.max(1), |row| {
            let header = row.parse_header()?;
            let items = row.parse_items()?;
            let entry = view::log_entry(&header, &items, &hex::encode(&row.hash), &self.for_role);
            if !entry.is_left_out() {
                out.push(entry);
            }
            Ok(())
        })?;
        Ok(out)
    }

    pub fn verify(&self) -> VerifyReport {
        verify::verify(&self.store, &Default::default())
    }

    /// The bytes of the picture the copy's view names under `key` (the map as its player saw
    /// it, a token's image, a portrait, a handout's picture); none for a key the view does not
    /// name or the copy does not hold.
    pub fn picture(&self, key: &str) -> Result<Option<Vec<u8>>, ShareError> {
        if !pictures::keys(&self.view).contains(key) {
            return Ok(None);
        }
        let masked: std::collections::BTreeMap<String, String> = match self.store.meta(pictures::MASKED_KEY)? {
            Some(m) => {
                serde_json::from_str(&m).map_err(|e| StoreError::Corrupt(format!("{}: {e}", pictures::MASKED_KEY)))?
            }
            None => Default::default(),
        };
        Ok(self.store.picture(masked.get(key).map_or(key, |d| d.as_str()))?)
    }
}

/// Checks a player's copy against the full campaign file: the full file must verify, and every
/// event of the copy must be in it with the same hash (which makes each redacted item exactly
/// the item the full file holds).
pub fn compare(copy: &Store, full: &Store) -> Check {
    let report = verify::verify(full, &verify::own_seeds(full));
    if !report.ok {
        return Check {
            name: "against".into(),
            ok: false,
            detail: "the full file does not verify".into(),
            event: report.checks.iter().find(|c| !c.ok).and_then(|c| c.event),
        };
    }
    let mut mismatch = None;
    let mut n = 0u64;
    let walked = copy.each_header(|seq, hash, _, _| {
        n += 1;
        match full.event(seq) {
            Ok(Some(row)) if row.hash == hash => {}
            _ => {
                mismatch.get_or_insert(seq);
            }
        }
        Ok(())
    });
    match (walked, mismatch) {
        (Err(e), _) => Check { name: "against".into(), ok: false, detail: e.to_string(), event: None },
        (Ok(()), Some(seq)) => Check { name: "against".into(), ok: false, detail: format!("event {seq} of the copy is not in the full file as it is"), event: Some(seq) },
        (Ok(()), None) => Check {
            name: "against".into(),
            ok: true,
            detail: format!("all {n} events of the copy are in the full file with the same hashes, so every redacted item is what the full file holds"),
            event: None,
        },
    }
}
