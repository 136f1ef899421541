//! Embeds the bundled plugins (`plugins/*/plugin.toml` and `*.rhai`) into the engine, so an
//! installed `houserule` or desktop app carries its rulesets. A plugin folder found on disk at run
//! time still takes precedence (see `catalog.rs`).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::from("/// Bundled plugins: (id folder, [(file, text)]).\npub const BUNDLED: &[(&str, &[(&str, &str)])] = &[\n");
    let mut dirs: Vec<_> = std::fs::read_dir(&root).map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    dirs.sort();
    for dir in dirs.iter().filter(|d| d.join("plugin.toml").is_file()) {
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        let name = dir.file_name().unwrap().to_string_lossy();
        write!(out, "    ({name:?}, &[").unwrap();
        for f in files.iter().filter(|f| f.file_name().is_some_and(|n| n == "plugin.toml") || f.extension().is_some_and(|e| e == "rhai")) {
            println!("cargo:rerun-if-changed={}", f.display());
            let abs = f.canonicalize().unwrap();
            write!(out, "({:?}, include_str!({:?})), ", f.file_name().unwrap().to_string_lossy(), abs.display().to_string()).unwrap();
        }
        out.push_str("]),\n");
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("bundled.rs");
    std::fs::write(dest, out).unwrap();
}
