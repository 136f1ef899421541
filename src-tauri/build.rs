//! Tauri's build step: the app's command list becomes its permission manifest (each command
//! gets `allow-…`/`deny-…`), and the capabilities in `capabilities/` are resolved into the
//! access-control list the window is held to.

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(houserule_commands::COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)).expect("the Tauri build step");
}

mod houserule_commands {
    include!("src/command_names.rs");
}
