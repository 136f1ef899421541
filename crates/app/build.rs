//! Embeds the bundled plugins (`plugins/*/plugin.toml` and `*.rhai`, and the demo scenario
//! `tests/demo.toml` where a ruleset has one) into the app, so an installed `houserule` or
//! desktop app carries its rulesets and their demos. A plugin folder found on disk at run time
//! still takes precedence (see `catalog.rs`).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::from(
        "/// A bundled plugin: its folder's name, its files (name, text), its demo scenario.\n\
         pub type Bundled = (&'static str, &'static [(&'static str, &'static str)], Option<&'static str>);\n\
         /// The bundled plugins.\npub const BUNDLED: &[Bundled] = &[\n",
    );
    let mut dirs: Vec<_> =
        std::fs::read_dir(&root).map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    dirs.sort();
    for dir in dirs.iter().filter(|d| d.join("plugin.toml").is_file()) {
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        let name = dir.file_name().unwrap().to_string_lossy();
        write!(out, "    ({name:?}, &[").unwrap();
        for f in files
            .iter()
            .filter(|f| f.file_name().is_some_and(|n| n == "plugin.toml") || f.extension().is_some_and(|e| e == "rhai"))
        {
            println!("cargo:rerun-if-changed={}", f.display());
            let abs = f.canonicalize().unwrap();
            write!(
                out,
                "({:?}, include_str!({:?})), ",
                f.file_name().unwrap().to_string_lossy(),
                abs.display().to_string()
            )
            .unwrap();
        }
        let demo = dir.join("tests").join("demo.toml");
        if demo.is_file() {
            println!("cargo:rerun-if-changed={}", demo.display());
            writeln!(out, "], Some(include_str!({:?}))),", demo.canonicalize().unwrap().display().to_string()).unwrap();
        } else {
            out.push_str("], None),\n");
        }
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("bundled.rs");
    std::fs::write(dest, out).unwrap();
}
