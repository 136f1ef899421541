//! The checks of the file as a whole: `integrity` (SQLite's own check) and `schema` (the
//! tables Houserule creates, at a schema version this build reads).

use super::{fail, pass, Check};
use crate::store::{Store, OLDEST_SCHEMA, SCHEMA_VERSION};

/// SQLite's full integrity check.
pub(super) fn integrity(store: &Store) -> Check {
    const NAME: &str = "integrity";
    match store.integrity_check() {
        Ok(problems) if problems.is_empty() => pass(NAME, "SQLite reports the file sound"),
        Ok(problems) => fail(NAME, None, problems.join("; ")),
        Err(e) => fail(NAME, None, e.to_string()),
    }
}

/// The file's tables, indexes and columns are Houserule's own, at a schema version this
/// build reads.
pub(super) fn schema(store: &Store) -> Check {
    const NAME: &str = "schema";
    if let Err(e) = store.check_schema() {
        return fail(NAME, None, e.to_string());
    }
    match store.meta("schema_version") {
        Ok(Some(v)) if v.parse::<i64>().is_ok_and(|v| (OLDEST_SCHEMA..=SCHEMA_VERSION).contains(&v)) => {
            pass(NAME, format!("schema version {v}"))
        }
        Ok(v) => {
            fail(NAME, None, format!("schema version {v:?}; this build reads {OLDEST_SCHEMA} to {SCHEMA_VERSION}"))
        }
        Err(e) => fail(NAME, None, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sound_file_passes_integrity() {
        let store = Store::in_memory().unwrap();
        assert!(integrity(&store).ok);
    }

    #[test]
    fn the_schema_version_must_be_one_this_build_reads() {
        let store = Store::in_memory().unwrap();
        assert_eq!(schema(&store).detail, format!("schema version {SCHEMA_VERSION}"));
        store.connection().execute_batch("CREATE TABLE extra (x)").unwrap();
        let check = schema(&store);
        assert!(!check.ok && check.detail.contains("a table `extra`"), "{check:?}");
        store.connection().execute_batch("DROP TABLE extra").unwrap();
        for wrong in [(SCHEMA_VERSION + 1).to_string(), "0".into(), "two".into()] {
            store.set_meta("schema_version", &wrong).unwrap();
            let check = schema(&store);
            assert!(!check.ok && check.detail.contains("this build reads"), "{wrong}: {check:?}");
        }
    }
}
