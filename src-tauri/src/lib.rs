//! The Houserule desktop app: the web UI in a window.
//!
//! The shell only adapts. Every command the window may invoke is one of the app layer's calls
//! (declared once in `houserule_app::calls`; the build script makes them the app's commands and
//! the window's capability), handled by one invoke handler that says who is calling — the
//! person at the computer, the GM, through the desktop front end — and hands the call to
//! [`App::call`], whose answer is already JSON text. The engine's events
//! (committed actions, reloads, rule errors) are pushed to the window as `houserule-event`. The
//! window loads the bundled UI (never the HTTP server) and may call only what its capability
//! grants: these commands, event listening, and the open/save dialogs. The shell installs a
//! [`houserule_host::Hosting`], so the GM can serve the table to browsers from the Players panel,
//! and the Matrix referee ([`houserule_matrix::online::MatrixOnline`]), so the GM can play the
//! campaign in a Matrix room from the Online panel while it is open. The window has a File menu
//! ([`menu`]) whose choices the page answers with its own calls.

pub mod menu;

use houserule_app::calls::{Call, Caller, Front};
use houserule_app::events::AppEvent;
use houserule_app::front::App;
use houserule_core::Role;
use tauri::ipc::{Invoke, InvokeBody, InvokeResponseBody};
use tauri::{Emitter, Manager, Runtime, WebviewWindowBuilder};

/// The event the window listens to.
pub const EVENT: &str = "houserule-event";

/// The person at the computer: the GM, on their own computer.
fn gm() -> Caller {
    Caller::new(Role::Gm, &std::sync::Arc::new(Front::desktop()))
}

/// Answers one invoke: the command is a call, its `params` the call's parameters.
fn handle<R: Runtime>(invoke: Invoke<R>) -> bool {
    let app = invoke.message.webview_ref().state::<App>().inner().clone();
    let params = match invoke.message.payload() {
        InvokeBody::Json(v) => v.get("params").cloned().unwrap_or_default(),
        InvokeBody::Raw(_) => serde_json::Value::Null,
    };
    let call = match Call::read(invoke.message.command(), params) {
        Ok(c) => c,
        Err(e) => {
            invoke.resolver.reject(e);
            return true;
        }
    };
    let resolver = invoke.resolver;
    tauri::async_runtime::spawn_blocking(move || match app.call(&gm(), call) {
        Ok(text) => resolver.resolve(InvokeResponseBody::Json(text)),
        Err(error) => resolver.reject(error),
    });
    true
}

/// The app's builder: the dialog plugin, the calls, the engine state and its events.
/// `open_at_start` is a campaign file to open when the app starts.
pub fn builder<R: Runtime>(builder: tauri::Builder<R>, open_at_start: Option<std::path::PathBuf>) -> tauri::Builder<R> {
    let builder = builder.plugin(tauri_plugin_dialog::init()).invoke_handler(handle);
    builder.on_menu_event(menu::on_event).setup(move |app| {
        let recent = app.path().app_data_dir().ok().map(|d| d.join("recent.json"));
        let state = App::new(recent);
        // The Players panel serves the table to browsers through this (stopped with the app).
        state.install_server(std::sync::Arc::new(houserule_host::Hosting::new()));
        // The Online panel referees the campaign in its Matrix room (stopped with the app).
        state.install_online(std::sync::Arc::new(houserule_matrix::online::MatrixOnline::new()));
        app.manage(state.clone());
        app.manage(menu::Listed::default());
        app.set_menu(menu::make(app.handle(), &state, &app.state::<menu::Listed>())?)?;
        let events = state.subscribe();
        let handle = app.handle().clone();
        std::thread::Builder::new().name("houserule-window-events".into()).spawn(move || {
            for event in events {
                let _ = handle.emit(EVENT, &event);
                // The File menu follows which campaign is open (Close, Open Recent).
                if matches!(event, AppEvent::Opened { .. } | AppEvent::Closed) {
                    menu::refresh(&handle);
                }
            }
        })?;
        if let Some(path) = &open_at_start {
            // As the window's own Open does: a linked campaign's referee starts with it.
            let open = Call::read("open", serde_json::json!({ "path": path }));
            if let Err(e) = open.and_then(|c| state.call(&gm(), c)) {
                eprintln!("houserule: could not open {}: {}", path.display(), e.message);
            }
        }
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
    builder(tauri::Builder::default(), open_at_start)
        .run(tauri::generate_context!())
        .expect("the Houserule window runs");
}
