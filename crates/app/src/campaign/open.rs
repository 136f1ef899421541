//! Opening a campaign file: every check an open makes before its rules are trusted — the file's
//! tables are Houserule's own (checked as the store opens, before anything else reads it), not a
//! player's copy, SQLite's integrity check, no fact, secret row, script or snapshot larger than
//! Houserule writes ([`Store::first_oversized`]), no event larger than an action can make, and the
//! hash chain (only what is new since this machine's stamp, when it has a valid one:
//! [`crate::checked`]), the snapshot against its event, the fold — every event folded held to
//! the caps an action is held to — and the stored sources against the log; and the rules,
//! compiled in a sandbox worker while those checks run (the worker starts first thing; its rules
//! are trusted only once every check has passed). The campaign's name is held to the one rule
//! for text.

use super::log::check_items;
use super::*;
use crate::sandbox::{SandboxError, Worker};

impl Campaign {
    /// Opens a campaign file: checks it, loads the rules it carries, and folds its events.
    pub fn open(path: &Path) -> Result<Campaign, CampaignError> {
        Self::open_with(path, &Limits::default())
    }

    /// Opens with every check, whatever this machine checked of the file before: SQLite's full
    /// integrity check and the hash chain from the first event (sharing uses this).
    pub fn open_checked(path: &Path) -> Result<Campaign, CampaignError> {
        let worker = Worker::start(&Limits::default());
        let store = Store::open_unchecked(path)?;
        let mut campaign = Self::from_store(store, &Limits::default(), Checks::Full, worker)?;
        campaign.upgrade()?;
        Ok(campaign)
    }

    pub fn open_with(path: &Path, limits: &Limits) -> Result<Campaign, CampaignError> {
        // The worker starts up while the file is read and checked.
        let worker = Worker::start(limits);
        let store = Store::open_unchecked(path)?;
        let mut campaign = Self::from_store(store, limits, Checks::SinceStamp, worker)?;
        campaign.upgrade()?;
        Ok(campaign)
    }

    fn from_store(
        store: Store,
        limits: &Limits,
        checks: Checks,
        worker: Result<Worker, SandboxError>,
    ) -> Result<Campaign, CampaignError> {
        let head = Self::check_file(&store, checks)?;
        let stored = pinned::stored(&store)?;
        // The rules compile in the worker while the table is folded and the sources are held
        // to the log; if either check fails, the worker is stopped and nothing comes of them.
        let loading = Rules::begin(worker, &stored.ruleset, &stored.house.scripts, limits);
        let table = Self::check_state(&store, head, &stored)?;
        Self::assemble(store, loading.finish()?, head, table)
    }

    /// As `from_store`, on rules already loaded (the ones a new file was just written with).
    pub(super) fn from_store_with(store: Store, rules: Option<Arc<Rules>>) -> Result<Campaign, CampaignError> {
        let head = Self::check_file(&store, Checks::Full)?;
        let stored = pinned::stored(&store)?;
        let table = Self::check_state(&store, head, &stored)?;
        let rules = match rules {
            Some(r) => r,
            None => Rules::load(&stored.ruleset, &stored.house.scripts, &Limits::default())?,
        };
        Self::assemble(store, rules, head, table)
    }

    /// The checks an open makes of the file itself: not a player's copy, SQLite's integrity
    /// check and the hash chain (only what is new since this machine's stamp, when it has a
    /// valid one: see [`crate::checked`]). Returns the head of the chain.
    fn check_file(store: &Store, checks: Checks) -> Result<(u64, Hash), CampaignError> {
        if let Some(for_role) = store.meta("copy_for")? {
            return Err(CampaignError::PlayerCopy { for_role });
        }
        let id = store.meta("campaign_id")?.unwrap_or_default();
        let subject = checked::Subject { campaign: &id, file: store.path().and_then(checked::identity) };
        let anchored = match checks {
            Checks::SinceStamp => store
                .meta(checked::META_KEY)?
                .and_then(|text| checked::read(subject, &text))
                .map(|stamp| check_chain_since(store, stamp))
                .transpose()?
                .flatten(),
            Checks::Full => None,
        };
        let head = match anchored {
            Some(head) => {
                store.ready()?;
                head
            }
            None => {
                store.check_integrity()?;
                store.check_sizes()?;
                store.ready()?;
                let head = check_chain(store)?;
                // Checked in full here: later opens check only what comes after. A file this
                // process may not write is simply checked in full again next time.
                if let Some(stamp) = checked::stamp(subject, head.0, &head.1) {
                    let _ = store.set_meta(checked::META_KEY, &stamp);
                }
                head
            }
        };
        // Measured once the file is known sound (a damaged file is named by the integrity check).
        if let Some(over) = store.first_oversized()? {
            return Err(over.into());
        }
        store.add_indexes()?;
        Ok(head)
    }

    /// The checks an open makes of what the file holds, before any rules are trusted: the
    /// snapshot against its event, the fold, and the stored sources against the log.
    fn check_state(store: &Store, head: (u64, Hash), stored: &Stored) -> Result<Table, CampaignError> {
        let table = Self::state_at(store, head.0)?;
        if store.version() >= 2 || !table.rules.is_empty() {
            pinned::compare(&table.rules, &pinned::digests(&stored.ruleset, &stored.house_files))?;
        } else {
            pinned::compare_v1(&pinned::v1_commitment(store)?, stored)?;
        }
        Ok(table)
    }

    /// The table as it was right after event `seq`: from the last snapshot at or before it
    /// (trusted only if its digest is the one its event recorded), folding each event after it,
    /// every event's items checked against their recorded commitments.
    pub(crate) fn state_at(store: &Store, seq: u64) -> Result<Table, CampaignError> {
        let (mut table, from) = match store.snapshot_before(seq)? {
            Some((seq, text)) => {
                // The snapshot is trusted only if its digest is the one its event recorded.
                let header = store
                    .event(seq)?
                    .ok_or_else(|| StoreError::Corrupt(format!("the snapshot at event {seq} has no event")))?
                    .parse_header()?;
                let digest = hex::encode(Sha256::digest(text.as_bytes()));
                if header.state.as_deref() != Some(digest.as_str()) {
                    return Err(CampaignError::Chain {
                        seq,
                        message: "the stored snapshot is not the state this event recorded (the file was edited)"
                            .into(),
                    });
                }
                (Store::parse_snapshot(seq, &text)?, seq + 1)
            }
            None => (Table::default(), 1),
        };
        store.each_event(from, |row| {
            if row.seq > seq {
                return Ok(());
            }
            let items = row.parse_items()?;
            check_items(&row, &items)?;
            event::fold(&mut table, &items).map_err(|m| StoreError::Corrupt(format!("event {}: {m}", row.seq)))
        })?;
        Ok(table)
    }

    fn assemble(store: Store, rules: Arc<Rules>, head: (u64, Hash), table: Table) -> Result<Campaign, CampaignError> {
        let name = store.meta("name")?.unwrap_or_default();
        houserule_core::text::check(&name, houserule_core::text::Lines::One)
            .map_err(|e| StoreError::Corrupt(format!("the campaign's name as stored: {e}")))?;
        let meta = Meta {
            id: store.meta("campaign_id")?.unwrap_or_default(),
            name,
            seed_commitment: store.meta("seed_commitment")?.unwrap_or_default(),
        };
        let seed = store.secret("seed")?.and_then(|s| event::parse_hash(&s));
        let mut campaign = Campaign {
            store,
            rules,
            table: Arc::new(table),
            meta,
            seed,
            head,
            token: u64::from_le_bytes(random()),
            voided: Default::default(),
            written: None,
        };
        campaign.voided = campaign.find_voided()?;
        Ok(campaign)
    }
}

/// How much an open checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Checks {
    /// Everything, from the first event.
    Full,
    /// What is new since this machine's stamp (everything without a valid one).
    SinceStamp,
}

/// The hash chain recomputed from the earlier of the stamped event and the latest snapshot up
/// to the head, tied to the stamp: `None` if it cannot be (the stamp is past the head, or its
/// event is not the one stamped), and the open checks everything instead.
fn check_chain_since(store: &Store, stamp: (u64, Hash)) -> Result<Option<(u64, Hash)>, CampaignError> {
    let Some((head, _)) = store.head()? else { return Ok(None) };
    if stamp.0 > head {
        return Ok(None);
    }
    let snapshot = store.snapshot_seq_before(head)?.unwrap_or(1);
    let start = stamp.0.min(snapshot).max(1);
    let mut prev = match start {
        1 => GENESIS,
        n => match store.event(n - 1)?.and_then(|row| row.hash.try_into().ok()) {
            Some(h) => h,
            None => return Ok(None),
        },
    };
    let (mut expected, mut tied) = (start, false);
    let walked = store.each_header_from(start, |seq, stored_hash, header, commitments| {
        let hash = event::event_hash(&prev, seq, &header, &commitments);
        if seq != expected || stored_hash != hash {
            return Err(StoreError::Corrupt(format!("event {seq} does not follow")));
        }
        if seq == stamp.0 {
            tied = hash == stamp.1;
        }
        prev = hash;
        expected += 1;
        Ok(())
    });
    Ok((walked.is_ok() && tied).then_some((expected - 1, prev)))
}

/// Checks the hash chain quickly (headers and stored commitments) and returns the head.
pub(super) fn check_chain(store: &Store) -> Result<(u64, Hash), CampaignError> {
    let mut prev = GENESIS;
    let mut expected = 1u64;
    store.each_header(|seq, stored_hash, header, commitments| {
        if seq != expected {
            return Err(StoreError::Corrupt(format!(
                "hash chain check failed: event {expected} is missing (found {seq} next)"
            )));
        }
        let hash = event::event_hash(&prev, seq, &header, &commitments);
        if stored_hash != hash {
            return Err(StoreError::Corrupt(format!(
                "hash chain check failed at event {seq}: it was edited, removed or moved"
            )));
        }
        prev = hash;
        expected += 1;
        Ok(())
    })?;
    if expected == 1 {
        return Err(StoreError::Corrupt("the campaign has no events".into()).into());
    }
    Ok((expected - 1, prev))
}
