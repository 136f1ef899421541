//! A campaign file's schema, held to the one Houserule creates.
//!
//! Before anything else reads a campaign file — so before anything could fire a trigger or
//! run a view — its `sqlite_master` must list exactly the tables, indexes and columns this
//! build creates for the file's schema version. What is expected is read back from a database
//! made in memory with the very statements that create a file ([`super::tables_of`],
//! `INDEXES`), so the check cannot drift from them. A trigger, a view, a virtual table, an
//! extra table or index, a missing table, or a table whose columns or definition differ is
//! refused, named: Houserule never runs it and never copies it. The only thing a file may lack
//! is an index this build adds to older files as they open.

use super::{tables_of, StoreError, INDEXES, OLDEST_SCHEMA, SCHEMA_VERSION};
use rusqlite::Connection;
use std::sync::OnceLock;

/// Indexes an older file may not have yet (they are added when it opens).
const ADDED_LATER: &[&str] = &["events_undo"];

/// The longest stretch of a stored statement an error quotes.
const QUOTED: usize = 120;

/// One entry of `sqlite_master`, with a table's columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Object {
    kind: String,
    name: String,
    table: String,
    sql: Option<String>,
    /// For a table: each column's name, and the column as `name type` with its constraints
    /// (`PRAGMA table_xinfo`).
    columns: Vec<(String, String)>,
}

impl Object {
    /// What it is, as an error names it.
    fn describe(&self) -> String {
        let virtual_table =
            self.sql.as_deref().is_some_and(|s| s.trim_start().to_ascii_uppercase().starts_with("CREATE VIRTUAL"));
        match self.kind.as_str() {
            "trigger" => format!("a trigger `{}` on `{}`", self.name, self.table),
            "index" => format!("an index `{}` on `{}`", self.name, self.table),
            "view" => format!("a view `{}`", self.name),
            "table" if virtual_table => format!("a virtual table `{}`", self.name),
            "table" => format!("a table `{}`", self.name),
            other => format!("{other} `{}`", self.name),
        }
    }
}

/// Everything `sqlite_master` lists, in name order (reading it runs nothing the file holds).
fn read(conn: &Connection) -> rusqlite::Result<Vec<Object>> {
    let mut s = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name, type")?;
    let rows = s.query_map([], |r| {
        Ok(Object { kind: r.get(0)?, name: r.get(1)?, table: r.get(2)?, sql: r.get(3)?, columns: vec![] })
    })?;
    let mut objects = rows.collect::<Result<Vec<_>, _>>()?;
    for o in objects.iter_mut().filter(|o| o.kind == "table") {
        o.columns = columns(conn, &o.name)?;
    }
    Ok(objects)
}

/// A table's columns, each with its type and constraints.
fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let mut s = conn.prepare("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?1)")?;
    let rows = s.query_map([table], |r| {
        let (name, ty): (String, String) = (r.get(0)?, r.get(1)?);
        let (not_null, default): (bool, Option<String>) = (r.get(2)?, r.get(3)?);
        let (pk, hidden): (i64, i64) = (r.get(4)?, r.get(5)?);
        let mut c = format!("{name} {ty}").trim_end().to_string();
        c += if not_null { " NOT NULL" } else { "" };
        c += &default.map(|d| format!(" DEFAULT {d}")).unwrap_or_default();
        c += &if pk > 0 { format!(" (key {pk})") } else { String::new() };
        c += if hidden > 0 { " (hidden)" } else { "" };
        Ok((name, c))
    })?;
    rows.collect()
}

/// The schema this build creates at `version`, made in memory and read back.
fn made(version: i64) -> Vec<Object> {
    let conn = Connection::open_in_memory().expect("SQLite opens a database in memory");
    let tables = tables_of(version).expect("a version this build reads");
    conn.execute_batch(&tables).and_then(|_| conn.execute_batch(INDEXES)).expect("Houserule's own schema is valid");
    read(&conn).expect("a database just made in memory reads back")
}

/// The schema of each version this build reads, made once per process.
fn expected(version: i64) -> &'static [Object] {
    static MADE: OnceLock<Vec<(i64, Vec<Object>)>> = OnceLock::new();
    let made = MADE.get_or_init(|| (OLDEST_SCHEMA..=SCHEMA_VERSION).map(|v| (v, made(v))).collect());
    made.iter().find(|(v, _)| *v == version).map(|(_, o)| o.as_slice()).unwrap_or_default()
}

/// What in `found` is not what `wanted` lists, if anything.
fn difference(found: &[Object], wanted: &[Object]) -> Option<String> {
    for f in found {
        match wanted.iter().find(|w| w.name == f.name) {
            None => return Some(format!("it holds {}, which Houserule does not create", f.describe())),
            Some(w) if w != f => {
                return Some(format!("{} is not the one Houserule creates: {}", f.describe(), how(f, w)))
            }
            Some(_) => {}
        }
    }
    let missing =
        wanted.iter().find(|w| !ADDED_LATER.contains(&w.name.as_str()) && !found.iter().any(|f| f.name == w.name));
    missing.map(|w| format!("{} is missing", w.describe()))
}

/// How an object differs from the one Houserule creates under its name.
fn how(found: &Object, wanted: &Object) -> String {
    if found.kind != wanted.kind {
        return format!("Houserule's is {}", wanted.describe());
    }
    for (name, column) in &found.columns {
        match wanted.columns.iter().find(|(n, _)| n == name) {
            None => return format!("it has a column `{column}`"),
            Some((_, theirs)) if theirs != column => {
                return format!("its column `{column}` is `{theirs}` in Houserule's")
            }
            Some(_) => {}
        }
    }
    if let Some((_, gone)) = wanted.columns.iter().find(|(n, _)| !found.columns.iter().any(|(f, _)| f == n)) {
        return format!("it lacks the column `{gone}`");
    }
    let stored: String = found.sql.as_deref().unwrap_or("").chars().take(QUOTED).collect();
    format!("its definition is `{stored}`")
}

/// Holds the schema of the file on `conn` to a version this build reads; returns the versions
/// whose schema it is (the file's own version, read next, must be one of them).
pub(super) fn check(conn: &Connection, shown: &str) -> Result<Vec<i64>, StoreError> {
    let found = read(conn)?;
    let matching: Vec<i64> =
        (OLDEST_SCHEMA..=SCHEMA_VERSION).filter(|v| difference(&found, expected(*v)).is_none()).collect();
    if !matching.is_empty() {
        return Ok(matching);
    }
    // Named against the version the file looks like: with a `pictures` table the newest, else
    // the newest without one.
    let like = if found.iter().any(|o| o.name == "pictures") { SCHEMA_VERSION } else { 2 };
    let what = difference(&found, expected(like)).unwrap_or_else(|| "its tables match no version".into());
    Err(StoreError::Foreign { path: shown.to_string(), what })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(&tables_of(SCHEMA_VERSION).unwrap()).unwrap();
        conn.execute_batch(INDEXES).unwrap();
        conn
    }

    fn refused(statement: &str) -> String {
        let conn = fresh();
        conn.execute_batch(statement).unwrap();
        match check(&conn, "f") {
            Err(StoreError::Foreign { what, .. }) => what,
            other => panic!("{statement}: must be refused, got {other:?}"),
        }
    }

    #[test]
    fn the_schema_houserule_creates_passes_for_every_version_it_reads() {
        assert_eq!(check(&fresh(), "f").unwrap(), vec![SCHEMA_VERSION]);
        let older = fresh();
        older.execute_batch("DROP INDEX events_undo").unwrap();
        assert_eq!(check(&older, "f").unwrap(), vec![SCHEMA_VERSION], "a file from before the index opens");
        let before_pictures = fresh();
        before_pictures.execute_batch("DROP TABLE pictures").unwrap();
        assert_eq!(check(&before_pictures, "f").unwrap(), vec![1, 2], "a file from before pictures opens");
    }

    #[test]
    fn anything_houserule_does_not_create_is_named() {
        let trigger = "CREATE TRIGGER wipe AFTER INSERT ON events BEGIN DELETE FROM events; END;";
        assert_eq!(refused(trigger), "it holds a trigger `wipe` on `events`, which Houserule does not create");
        assert!(refused("CREATE VIEW v AS SELECT 1").contains("a view `v`"));
        assert!(refused("CREATE TABLE extra (x)").contains("a table `extra`"));
        assert!(refused("CREATE INDEX by_hash ON events (hash)").contains("an index `by_hash` on `events`"));
        assert!(refused("CREATE VIRTUAL TABLE words USING fts5(x)").contains("a virtual table `words`"));
    }

    #[test]
    fn a_table_changed_or_missing_is_named_with_the_difference() {
        assert!(refused("ALTER TABLE events ADD COLUMN note TEXT").contains("it has a column `note TEXT`"));
        assert_eq!(refused("DROP TABLE snapshots"), "a table `snapshots` is missing");
        assert!(
            refused("ALTER TABLE snapshots DROP COLUMN state").contains("it lacks the column `state TEXT NOT NULL`")
        );
        let conn = Connection::open_in_memory().unwrap();
        let loose = tables_of(SCHEMA_VERSION).unwrap().replace("value TEXT NOT NULL);", "value TEXT);");
        conn.execute_batch(&loose).unwrap();
        let Err(StoreError::Foreign { what, .. }) = check(&conn, "f") else { panic!("a looser table is refused") };
        assert!(what.contains("a table `meta`"), "{what}");
        assert!(what.contains("its column `value TEXT` is `value TEXT NOT NULL` in Houserule's"), "{what}");
    }
}
