//! What this machine has already checked of a campaign file, so an ordinary open only checks
//! what is new.
//!
//! A full check — SQLite's `integrity_check` and the hash chain from the first event — costs
//! time in proportion to the whole file. After one, the file carries a *stamp*: event N, its
//! hash H, and a MAC over (campaign id, N, H) keyed with this machine's own key (256 random bits
//! in the user's configuration folder, never in any campaign file), and over the file itself
//! (its device and inode, where the system has them). The stamp is renewed in the same
//! transaction as every snapshot, so it stays close to the head.
//!
//! Guarantees:
//! - A stamp only counts where it was made: another machine's, one edited into the file, or
//!   one that travelled with a copy (shared, downloaded, synced in, copied under another name)
//!   fails its MAC, and the open does the full check.
//! - With a valid stamp, the open recomputes the chain from the earlier of N and the snapshot it
//!   loads up to the head, and requires the recomputed hash at N to be H. Editing any event the
//!   table is built from, or the snapshot, changes that hash (SHA-256), so it is caught; events
//!   before both are the ones this machine already checked. `houserule verify` still checks
//!   everything, every time.
//! - No key (no configuration folder) means no stamps: every open is a full check.

use hmac::{Hmac, Mac};
use houserule_core::event::{parse_hash, Hash};
use sha2::Sha256;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The meta key the stamp is kept under.
pub const META_KEY: &str = "checked_here";

/// The folder this user's Houserule configuration (this machine's key, a Matrix session) lives
/// in: `HOUSERULE_CONFIG_DIR`, else the user's configuration folder.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("HOUSERULE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::config_dir().map(|d| d.join("houserule")))
}

/// This machine's key, made on first use (and kept readable by its owner only).
pub fn machine_key() -> Option<&'static [u8; 32]> {
    static KEY: OnceLock<Option<[u8; 32]>> = OnceLock::new();
    KEY.get_or_init(|| load_or_make(&config_dir()?.join("machine-key"))).as_ref()
}

fn load_or_make(path: &std::path::Path) -> Option<[u8; 32]> {
    if let Some(key) = std::fs::read_to_string(path).ok().and_then(|t| parse_hash(t.trim())) {
        return Some(key);
    }
    let mut key = [0u8; 32];
    getrandom::getrandom(&mut key).ok()?;
    std::fs::create_dir_all(path.parent()?).ok()?;
    // Written aside and moved into place without replacing: two processes making a key at once
    // agree on the one that landed first.
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    write_private(&tmp, &hex::encode(key)).ok()?;
    let landed = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match landed {
        Ok(()) => Some(key),
        Err(_) => std::fs::read_to_string(path).ok().and_then(|t| parse_hash(t.trim())),
    }
}

/// Writes a new file only its owner may read (refused if it exists), and syncs it.
pub fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

/// The file's identity on this system: device and inode (none elsewhere, or if unreadable).
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// What a stamp vouches for: this campaign, in this file, checked up to event `seq` with hash
/// `hash`.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub campaign: &'a str,
    pub file: Option<(u64, u64)>,
}

fn mac(key: &[u8; 32], subject: Subject, seq: u64, hash: &Hash) -> Hmac<Sha256> {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    m.update(b"houserule checked v1\0");
    m.update(&(subject.campaign.len() as u64).to_be_bytes());
    m.update(subject.campaign.as_bytes());
    let (dev, ino) = subject.file.unwrap_or((u64::MAX, u64::MAX));
    m.update(&dev.to_be_bytes());
    m.update(&ino.to_be_bytes());
    m.update(&seq.to_be_bytes());
    m.update(hash);
    m
}

/// The stamp for "event `seq` with hash `hash` was checked here", as stored.
pub fn stamp_with(key: &[u8; 32], subject: Subject, seq: u64, hash: &Hash) -> String {
    format!("{seq}:{}:{}", hex::encode(hash), hex::encode(mac(key, subject, seq, hash).finalize().into_bytes()))
}

/// The stamp with this machine's key (none without a key).
pub fn stamp(subject: Subject, seq: u64, hash: &Hash) -> Option<String> {
    machine_key().map(|k| stamp_with(k, subject, seq, hash))
}

/// What a stored stamp vouches for, if it was made with `key` for this campaign and file.
pub fn read_with(key: &[u8; 32], subject: Subject, text: &str) -> Option<(u64, Hash)> {
    let mut parts = text.split(':');
    let seq: u64 = parts.next()?.parse().ok()?;
    let hash = parse_hash(parts.next()?)?;
    let given = hex::decode(parts.next()?).ok()?;
    if parts.next().is_some() || seq == 0 {
        return None;
    }
    mac(key, subject, seq, &hash).verify_slice(&given).ok()?;
    Some((seq, hash))
}

/// As [`read_with`], with this machine's key.
pub fn read(subject: Subject, text: &str) -> Option<(u64, Hash)> {
    read_with(machine_key()?, subject, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_counts_only_with_its_key_campaign_file_and_values() {
        let (mine, theirs) = ([7u8; 32], [8u8; 32]);
        let here = Subject { campaign: "camp", file: Some((1, 2)) };
        let h = [3u8; 32];
        let s = stamp_with(&mine, here, 1000, &h);
        assert_eq!(read_with(&mine, here, &s), Some((1000, h)));
        assert_eq!(read_with(&theirs, here, &s), None, "another machine's stamp");
        assert_eq!(read_with(&mine, Subject { campaign: "other", ..here }, &s), None, "another campaign's stamp");
        assert_eq!(read_with(&mine, Subject { file: Some((1, 3)), ..here }, &s), None, "a copy's stamp");
        let moved = s.replacen("1000:", "2000:", 1);
        assert_eq!(read_with(&mine, here, &moved), None, "a stamp moved to another event");
        let rehashed = format!("1000:{}:{}", hex::encode([4u8; 32]), s.rsplit(':').next().unwrap());
        assert_eq!(read_with(&mine, here, &rehashed), None, "a stamp for another hash");
        assert_eq!(read_with(&mine, here, "garbage"), None);
    }

    #[test]
    fn the_key_is_made_once_and_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/machine-key");
        let a = load_or_make(&path).unwrap();
        let b = load_or_make(&path).unwrap();
        assert_eq!(a, b);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }
}
