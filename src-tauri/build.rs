//! Tauri's build step. The window's commands are the app layer's calls, read from the one list
//! (`crates/app/src/calls/list.rs`): each becomes a command of the app's permission manifest
//! (`allow-…`/`deny-…`), and the window's capability (`capabilities/main-window.json`) is
//! written from the same list, so neither can drift from it. Tauri then resolves the
//! capability into the access-control list the window is held to.

use std::path::Path;

/// The call names, from the list (its types and handlers are only read, not used).
macro_rules! calls {
    ($( $(#[doc = $doc:literal])* $variant:ident $name:literal ($params:ty) -> $result:ty, $who:ident
        => $service:ident :: $handler:ident; )*) => {
        const COMMANDS: &[&str] = &[$($name),*];
    };
}
include!("../crates/app/src/calls/list.rs");

/// Permissions besides the app's own commands: listening to its events, and the open/save
/// dialogs.
const OTHER_PERMISSIONS: &[&str] =
    &["core:event:allow-listen", "core:event:allow-unlisten", "dialog:allow-open", "dialog:allow-save"];

/// The window's capability, written from the list.
fn capability() -> String {
    let mut permissions: Vec<String> = OTHER_PERMISSIONS.iter().map(|p| p.to_string()).collect();
    permissions.extend(COMMANDS.iter().map(|c| format!("allow-{}", c.replace('_', "-"))));
    let list = permissions.iter().map(|p| format!("    \"{p}\"")).collect::<Vec<_>>().join(",\n");
    format!(
        "{{\n  \"$schema\": \"../gen/schemas/desktop-schema.json\",\n  \"identifier\": \"main-window\",\n  \"description\": \"What the table UI in the main window may call: the app layer's calls (written from crates/app/src/calls/list.rs by build.rs), listening to its events, and the open/save file dialogs. Nothing else.\",\n  \"windows\": [\"main\"],\n  \"permissions\": [\n{list}\n  ]\n}}\n"
    )
}

fn main() {
    println!("cargo:rerun-if-changed=../crates/app/src/calls/list.rs");
    let path = Path::new("capabilities/main-window.json");
    let text = capability();
    if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(path, text).expect("the capability file is written");
    }
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)).expect("the Tauri build step");
}
