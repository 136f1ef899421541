//! `houserule serve`: the table over the network until the program is stopped (the server is
//! the `houserule-host` crate, the same one the desktop app hosts with).
//!
//! It also reads, every [`CATCH_UP_EVERY`], what another program (`houserule act`, the desktop
//! app) wrote to the same file, so every browser is told of it.

use crate::output::Failure;
use houserule_app::events::{AppEvent, SessionEvent};
use houserule_app::front::App;
use houserule_core::ErrorCode;
use houserule_host::{assets, Hosting, Options};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How often the server looks for events another program wrote to the file.
const CATCH_UP_EVERY: Duration = Duration::from_millis(250);

/// How `houserule serve` was asked to run.
pub struct ServeArgs {
    pub host: String,
    pub port: u16,
    pub secret: Option<String>,
    pub ui: Option<PathBuf>,
    pub names: Vec<String>,
}

pub fn serve(file: PathBuf, args: ServeArgs) -> Result<bool, Failure> {
    let ServeArgs { host, port, secret, ui, names } = args;
    let app = App::new(None);
    if file.exists() {
        app.open(&file).map_err(Failure)?;
    }
    let addr: SocketAddr =
        (host.as_str(), port).to_socket_addrs().ok().and_then(|mut a| a.next()).ok_or_else(|| {
            Failure::new(ErrorCode::BadParam, format!("--host {host}: not an address this machine can listen on"))
        })?;
    let server = Arc::new(Hosting::unstoppable());
    let (serving, secret) =
        server.serve(&app, &file, Options { addr, secret, ui: ui.clone(), names }).map_err(Failure)?;
    app.install_server(server.clone());
    // The GM hears at once when the file goes away under the table (the browsers are told too).
    app.subscribe_with(|event| {
        if let AppEvent::Session { event: SessionEvent::FileGone { message } } = event {
            crate::note!("{message}");
        }
        true
    });
    let watcher = app.clone();
    let watched = file.clone();
    std::thread::Builder::new()
        .name("houserule-serve-catch-up".into())
        .spawn(move || loop {
            std::thread::sleep(CATCH_UP_EVERY);
            if let Err(e) = watcher.catch_up() {
                crate::note!("could not read what another program wrote to {}: {e}", watched.display());
            }
            // A link ended from the command line ends its connections here too.
            watcher.sweep_links();
        })
        .map_err(|e| Failure::new(ErrorCode::Io, e.to_string()))?;
    let url = serving.url.trim_end_matches('/');
    crate::say!("Houserule is serving {} at {url}/", file.display());
    crate::say!("GM: open {url}/#gm={secret}   (keep it to yourself)");
    crate::say!("Players join with a link you make for each: Players → Invite in the table, or `houserule invite FILE NAME --url {url}/`");
    if let Some(dir) = &ui {
        crate::say!("serving the UI from {}", dir.display());
    } else if !assets::built() {
        crate::say!(
            "note: the web UI was not built into this binary (run the Quick-start command); browsers get a notice"
        );
    }
    server.wait().map_err(Failure)?;
    Ok(true)
}
