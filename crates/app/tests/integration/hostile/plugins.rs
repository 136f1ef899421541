//! Attacks a ruleset makes before any action: in how its folder is laid out, in what its scripts
//! import, and in what they do while they load.

use super::{memory_stayed_bounded, refused, says};
use crate::support::{init, plugin, MANIFEST, RULES};
use houserule_app::folders::{self, FolderError};
use houserule_app::{Rules, RulesError};
use houserule_core::{ErrorCode, ErrorReport, Limits, PluginSource};
use std::path::Path;

fn report(e: RulesError) -> ErrorReport {
    let mut r = ErrorReport::new(e.code(), e.to_string());
    if let RulesError::Invalid(p) = &e {
        r.diagnostics = p.diagnostics();
    }
    r
}

/// Loading `source` must be refused.
fn load_refused(attack: &str, source: &PluginSource, words: &[&str]) -> ErrorReport {
    let r = refused(attack, || Rules::load(source, &[], &Limits::default()).map(|_| ()).map_err(report));
    says(&r, words, attack);
    memory_stayed_bounded(attack);
    r
}

/// The probe plugin with its rules replaced by `rules` (and more files).
fn with_rules(rules: &str, more: &[(&str, &str)]) -> PluginSource {
    let mut source = plugin("", "");
    source.files.insert("rules.rhai".into(), format!("{RULES}\n{rules}"));
    for (name, text) in more {
        source.files.insert(name.to_string(), text.to_string());
    }
    source
}

/// The scripts a load-time attack is written in: (name, source, words, a place it must name).
const LOADING: &[(&str, &str, &[&str], Option<&str>)] = &[
    ("self_import", "import \"rules\" as me;\nfn x() { 1 }", &["round in a circle"], Some("rules.rhai:")),
    ("import_parent", "import \"../secrets\" as s;", &["own plugin"], Some("rules.rhai:")),
    ("import_absolute", "import \"/etc/passwd\" as s;", &["own plugin"], Some("rules.rhai:")),
    ("import_folder", "import \"etc/passwd\" as s;", &["own plugin"], None),
    ("import_missing", "import \"nowhere\" as s;", &["has no script nowhere.rhai"], None),
    ("import_computed", "fn sneaky() { let n = \"rules\"; import n as me; }", &["written out"], None),
    ("eval_anywhere", "fn x() { eval(\"1\") }", &["eval"], None),
    ("top_level_loop", "loop {}", &["too many operations", "time"], None),
    (
        "top_level_memory_bomb",
        "let s = \"x\"; while s.len() < 32768 { s += s; } let t = s.replace(\"x\", s);",
        &["memory", "grew past"],
        None,
    ),
    ("shadows_a_host_method", "fn roll(t, expr) { 1 }", &["belongs to the host method"], Some("rules.rhai:")),
    ("defined_twice", "fn gain(t, p) { 0 }", &["already"], Some("rules.rhai:")),
];

#[test]
fn every_load_time_attack_is_refused_with_its_place() {
    init();
    for (name, rules, words, place) in LOADING {
        let r = load_refused(name, &with_rules(rules, &[]), words);
        if let Some(place) = place {
            assert!(
                r.diagnostics.iter().any(|d| d.text.starts_with(place) && d.line.is_some()),
                "{name}: a problem names {place}line:col: {:?}",
                r.diagnostics
            );
        }
    }
}

#[test]
fn import_cycles_are_refused_with_the_chain() {
    init();
    let cycle = with_rules(
        "import \"a\" as a;",
        &[("a.rhai", "import \"b\" as b;\nfn x() { 1 }"), ("b.rhai", "import \"a\" as a;\nfn y() { 2 }")],
    );
    let r = load_refused("mutual_import", &cycle, &["round in a circle"]);
    assert!(
        r.message.contains("a.rhai:1:1 imports b.rhai") && r.message.contains("b.rhai:1:1 imports a.rhai"),
        "the chain is shown: {}",
        r.message
    );
    let module_self = with_rules("", &[("loop.rhai", "import \"loop\" as again;\nfn z() { 3 }")]);
    load_refused("module_imports_itself", &module_self, &["round in a circle"]);
}

#[test]
fn a_script_nothing_imports_is_still_compiled() {
    init();
    let orphan = with_rules("", &[("notes.rhai", "fn half( { broken")]);
    let r = load_refused("uncompiled_orphan", &orphan, &["notes.rhai:1:"]);
    assert_eq!(r.code, ErrorCode::InvalidPlugin);
}

#[test]
fn a_function_defined_in_two_ruleset_files_is_refused_where_it_is() {
    init();
    let mut source = plugin("", "");
    source.files.insert(
        "plugin.toml".into(),
        MANIFEST.replacen("entry = \"rules.rhai\"", "entry = \"rules.rhai\"\nscripts = [\"more.rhai\"]", 1),
    );
    source.files.insert("more.rhai".into(), "\n\nfn make(t, p) { 0 }".into());
    let r = load_refused("duplicate_across_files", &source, &["already defined in the ruleset at rules.rhai:"]);
    assert!(r.diagnostics.iter().any(|d| d.file == "more.rhai" && d.line == Some(3)), "{:?}", r.diagnostics);
}

#[test]
fn enormous_or_deeply_nested_sources_are_refused_without_hurting_the_parent() {
    init();
    let brackets = format!("fn x() {{ {}1{} }}", "(".repeat(100_000), ")".repeat(100_000));
    load_refused("deep_brackets", &with_rules(&brackets, &[]), &["rules.rhai:"]);
    let big = format!("// {}", "x".repeat(600 * 1024));
    load_refused("script_too_large", &with_rules(&big, &[]), &["larger than the limit"]);
    let deep_toml =
        format!("{MANIFEST}\n[settings.deep]\ntype = \"int\"\ndefault = {}1{}\n", "[".repeat(5000), "]".repeat(5000));
    let mut source = plugin("", "");
    source.files.insert("plugin.toml".into(), deep_toml);
    load_refused("deep_manifest", &source, &["plugin.toml"]);
    let many: Vec<(String, String)> = (0..70).map(|i| (format!("s{i}.rhai"), "fn q() { 1 }".to_string())).collect();
    let mut source = with_rules("", &[]);
    source.files.extend(many);
    load_refused("too_many_files", &source, &["more than 64"]);
}

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plugin.toml"), MANIFEST).unwrap();
    std::fs::write(dir.path().join("rules.rhai"), RULES).unwrap();
    dir
}

fn folder_refused(attack: &str, dir: &Path, words: &[&str]) -> FolderError {
    let start = std::time::Instant::now();
    let e = folders::read_plugin(dir, &Limits::default()).expect_err(attack);
    assert!(start.elapsed() < super::LIMIT, "{attack}: too slow");
    let text = e.to_string().to_lowercase();
    assert!(words.iter().any(|w| text.contains(&w.to_lowercase())), "{attack}: {e}");
    e
}

#[cfg(unix)]
#[test]
fn plugin_folders_are_read_only_from_their_own_plain_files() {
    init();
    use std::os::unix::fs::symlink;
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret.path(), "fn stolen() { \"the GM's secret notes\" }").unwrap();

    let d = folder();
    symlink(secret.path(), d.path().join("notes.rhai")).unwrap();
    let e = folder_refused("symlinked_script", d.path(), &["symbolic link"]);
    assert!(e.path.ends_with("notes.rhai"), "the file is named: {e}");

    let d = folder();
    symlink("/etc/passwd", d.path().join("passwd.rhai")).unwrap();
    folder_refused("symlink_to_system_file", d.path(), &["symbolic link"]);

    let d = folder();
    std::fs::remove_file(d.path().join("rules.rhai")).unwrap();
    symlink(secret.path(), d.path().join("rules.rhai")).unwrap();
    folder_refused("symlinked_entry_script", d.path(), &["symbolic link"]);

    let d = folder();
    std::fs::remove_file(d.path().join("plugin.toml")).unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), MANIFEST).unwrap();
    symlink(outside.path(), d.path().join("plugin.toml")).unwrap();
    folder_refused("symlinked_manifest", d.path(), &["symbolic link"]);

    let d = folder();
    let fifo = d.path().join("pipe.rhai");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the path we pass.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    folder_refused("fifo_script", d.path(), &["not a regular file"]);

    let d = folder();
    std::fs::write(d.path().join("weird name.rhai"), "fn a() {}").unwrap();
    folder_refused("name_with_space", d.path(), &["letters, digits"]);

    let d = folder();
    let f = std::fs::File::create(d.path().join("huge.rhai")).unwrap();
    f.set_len(50 * 1024 * 1024).unwrap();
    folder_refused("fifty_megabyte_script", d.path(), &["larger than the limit"]);

    let d = folder();
    std::fs::write(
        d.path().join("plugin.toml"),
        MANIFEST.replace("entry = \"rules.rhai\"", "entry = \"../evil.rhai\""),
    )
    .unwrap();
    let source = folders::read_plugin(d.path(), &Limits::default()).unwrap();
    load_refused("entry_outside_folder", &source, &["entry"]);
    memory_stayed_bounded("plugin folders");
}
