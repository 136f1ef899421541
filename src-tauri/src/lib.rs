//! The Houserule desktop app: the web UI in a window.
//!
//! The shell only adapts: each command is one call into the engine's `App` (see `commands`),
//! and the engine's events — committed actions, reloads, rule errors — are pushed to the window
//! as `houserule-event`. The window loads the bundled UI (never the HTTP server) and may call
//! only the commands and plugin functions its capability (`capabilities/main-window.json`)
//! grants: these commands, event listening, and the open/save dialogs.

pub mod command_names;
pub mod commands;

use houserule_engine::app::App;
use tauri::{Emitter, Manager, Runtime, WebviewWindowBuilder};

/// The event the window listens to.
pub const EVENT: &str = "houserule-event";

/// The app's builder: the dialog plugin, the commands, the engine state and its events.
/// `open_at_start` is a campaign file to open when the app starts.
pub fn builder<R: Runtime>(builder: tauri::Builder<R>, open_at_start: Option<std::path::PathBuf>) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(tauri::generate_handler![
            commands::hello,
            commands::rulesets,
            commands::create,
            commands::open,
            commands::recent,
            commands::campaign,
            commands::view,
            commands::actions,
            commands::log,
            commands::act,
            commands::manifest,
            commands::house_rules,
            commands::save_house_rule,
            commands::remove_house_rule,
        ])
        .setup(move |app| {
            let recent = app.path().app_data_dir().ok().map(|d| d.join("recent.json"));
            let state = App::new(recent);
            let events = state.subscribe();
            let handle = app.handle().clone();
            std::thread::Builder::new().name("houserule-window-events".into()).spawn(move || {
                for event in events {
                    let _ = handle.emit(EVENT, &event);
                }
            })?;
            if let Some(path) = &open_at_start {
                if let Err(e) = state.open(path) {
                    eprintln!("houserule: could not open {}: {}", path.display(), e.message);
                }
            }
            app.manage(state);
            // The window is made here rather than from the config alone so that its title
            // follows the page's (the campaign's name once one is open).
            for config in app.config().app.windows.iter().filter(|w| !w.create) {
                WebviewWindowBuilder::from_config(app.handle(), config)?
                    .on_document_title_changed(|window, title| {
                        let _ = window.set_title(&title);
                    })
                    .build()?;
            }
            Ok(())
        })
}

/// Runs the desktop app (with the campaign file named on the command line, if any).
pub fn run() {
    let open_at_start = std::env::args_os().nth(1).map(std::path::PathBuf::from);
    builder(tauri::Builder::default(), open_at_start).run(tauri::generate_context!()).expect("the Houserule window runs");
}
