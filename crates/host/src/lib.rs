//! Serving a Houserule table to browsers on the network.
//!
//! [`Hosting`] is the server a front end installs into its [`App`] (the port is
//! [`houserule_app::front::TableServer`]): `houserule serve` starts one at once and runs until it is killed;
//! the desktop app's Players panel starts and stops one over the campaign in play, while its
//! own window plays on. Either way it is the same server ([`server`]): the UI over HTTP, the
//! calls over a WebSocket ([`protocol`]), identity from join links and the GM's secret
//! ([`attempts`] limits guessing), requests only from the server's own pages ([`own_pages`]), and
//! the list of who is connected ([`visitors`]).
//!
//! The desktop app's server has a random GM secret it never shows: there, the GM is the person
//! at the window, and a browser can only join as a player with a join link.
//!
//! A table served to this computer only can be opened to the network while it runs
//! ([`TableServer::set_reach`]): the server listens on this computer's network address too, on
//! the same port where it is free, every open connection going on; closing it again closes that
//! listener before it answers and then every connection from another computer.

pub mod assets;
pub mod attempts;
pub mod own_pages;
pub mod protocol;
pub mod server;
pub mod shared;
pub mod visitors;

use houserule_app::calls::Front;
use houserule_app::front::{App, TableServer};
use houserule_app::serving::{HostStart, Reach, Serving, DEFAULT_PORT};
use houserule_core::{ErrorCode, ErrorReport, Role};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use visitors::Closing;

/// The shortest GM secret accepted (a random one is 32 hex digits, 128 bits).
pub const MIN_SECRET: usize = 16;

/// How to serve.
#[derive(Debug, Clone)]
pub struct Options {
    pub addr: SocketAddr,
    /// The GM's secret; none: a random one.
    pub secret: Option<String>,
    /// A folder to serve the UI from instead of the built-in copy.
    pub ui: Option<PathBuf>,
    /// Host names (besides IP addresses and `localhost`) the server answers to.
    pub names: Vec<String>,
}

/// What is running now.
struct Current {
    running: server::Running,
    /// What is served as started.
    serving: Serving,
    /// The network listener of a table started for this computer only, while it is open.
    network: Option<server::Extra>,
}

impl Current {
    /// What is served now: as started, or opened to the network.
    fn serving(&self) -> Serving {
        let connected = self.running.shared.visitors.list();
        match &self.network {
            None => Serving { connected, ..self.serving.clone() },
            Some(extra) => {
                let url = format!("http://{}/", extra.addr);
                let note = (extra.addr.port() != self.running.addr.port()).then(|| {
                    format!(
                        "port {} is taken on the network address, so players elsewhere join on port {}",
                        self.running.addr.port(),
                        extra.addr.port()
                    )
                });
                let note = note.or_else(|| self.serving.note.clone());
                let also = vec![self.serving.url.clone()];
                Serving { url, also, reach: Reach::Network, connected, note, ..self.serving.clone() }
            }
        }
    }

    /// Opens the table to the network: this computer's network address, on the port served
    /// on where it is free there, else on any free port.
    fn open_network(&mut self) -> Result<(), ErrorReport> {
        let ip = network_address().ok_or_else(|| {
            ErrorReport::new(
                ErrorCode::Refused,
                "this computer has no network address right now: only browsers on this computer can join",
            )
        })?;
        let port = self.running.addr.port();
        let extra = self
            .running
            .listen_also(SocketAddr::new(ip, port))
            .or_else(|_| self.running.listen_also(SocketAddr::new(ip, 0)))
            .map_err(|e| ErrorReport::new(ErrorCode::Io, format!("cannot listen on {ip}: {e}")))?;
        self.network = Some(extra);
        Ok(())
    }

    /// Closes the table to other computers: the network listener first, then their connections.
    fn close_network(&mut self) {
        if let Some(extra) = self.network.take() {
            extra.close();
            self.running.shared.visitors.close_remote(Closing::NetworkClosed);
        }
    }
}

/// Serving the table: a server that can be started and stopped.
pub struct Hosting {
    /// Whether the GM may stop it with a call (the desktop app), or only where it runs.
    stoppable: bool,
    current: Mutex<Option<Current>>,
    /// The port served on last, tried first next time so links made then still work.
    last_port: Mutex<Option<u16>>,
}

impl Hosting {
    /// A server the desktop app's GM starts and stops.
    pub fn new() -> Hosting {
        Hosting { stoppable: true, current: Mutex::new(None), last_port: Mutex::new(None) }
    }

    /// A server `houserule serve` runs until it is killed.
    pub fn unstoppable() -> Hosting {
        Hosting { stoppable: false, ..Hosting::new() }
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Option<Current>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts serving `app`'s campaign (created at `file` if none is open yet); the secret in
    /// force is in the answer's second part.
    pub fn serve(&self, app: &App, file: &Path, options: Options) -> Result<(Serving, String), ErrorReport> {
        let mut current = self.current();
        if let Some(c) = current.as_ref() {
            return Err(ErrorReport::new(
                ErrorCode::Refused,
                format!("the table is served already, at {}", c.serving.url),
            ));
        }
        let secret = match options.secret {
            Some(s) if s.trim().len() < MIN_SECRET => {
                return Err(ErrorReport::new(
                    ErrorCode::BadParam,
                    format!("the GM's secret must be at least {MIN_SECRET} characters (a random one is 32): a short one can be guessed"),
                ))
            }
            Some(s) => s.trim().to_string(),
            None => random_secret(),
        };
        let shared = shared::Shared {
            app: app.clone(),
            front: std::sync::Arc::new(Front::server(file.to_path_buf())),
            secret: secret.clone(),
            ui: options.ui,
            names: options.names,
            attempts: Default::default(),
            visitors: Default::default(),
        };
        let running = server::start(options.addr, shared)
            .map_err(|e| ErrorReport::new(ErrorCode::Io, format!("cannot listen on {}: {e}", options.addr)))?;
        let addr = running.addr;
        let (url, also, note) = addresses(addr);
        let reach = if addr.ip().is_loopback() { Reach::ThisComputer } else { Reach::Network };
        let serving = Serving {
            url,
            also,
            reach,
            since: houserule_app::campaign::now(),
            stoppable: self.stoppable,
            switchable: reach == Reach::ThisComputer,
            connected: vec![],
            note,
        };
        *self.last_port.lock().unwrap_or_else(|p| p.into_inner()) = Some(addr.port());
        *current = Some(Current { running, serving: serving.clone(), network: None });
        Ok((serving, secret))
    }

    /// Waits while the server runs (for `houserule serve`, which runs until it is killed).
    pub fn wait(&self) -> Result<(), ErrorReport> {
        let waiter = self.current().as_mut().and_then(|c| c.running.waiter());
        match waiter {
            Some(w) => w.wait(),
            None => Ok(()),
        }
    }
}

impl Default for Hosting {
    fn default() -> Hosting {
        Hosting::new()
    }
}

impl TableServer for Hosting {
    fn start(&self, app: &App, file: &Path, how: &HostStart) -> Result<Serving, ErrorReport> {
        let ip = match how.reach {
            Reach::Network => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            Reach::ThisComputer => IpAddr::V4(Ipv4Addr::LOCALHOST),
        };
        let options = |port| Options { addr: SocketAddr::new(ip, port), secret: None, ui: None, names: vec![] };
        if let Some(port) = how.port {
            return self.serve(app, file, options(port)).map(|(s, _)| s);
        }
        let port = self.last_port.lock().unwrap_or_else(|p| p.into_inner()).unwrap_or(DEFAULT_PORT);
        match self.serve(app, file, options(port)) {
            Ok((s, _)) => Ok(s),
            Err(e) if e.code == ErrorCode::Io => {
                // Taken by another program: any free port will do, but old links will not work.
                let (mut s, _) = self.serve(app, file, options(0))?;
                let note = format!("port {port} is in use by another program, so the table is on another port: join links made before will not work, make new ones");
                s.note = Some(note.clone());
                if let Some(c) = self.current().as_mut() {
                    c.serving.note = Some(note);
                }
                Ok(s)
            }
            Err(e) => Err(e),
        }
    }

    fn set_reach(&self, reach: Reach) -> Result<Serving, ErrorReport> {
        let mut current = self.current();
        let c = current.as_mut().ok_or_else(|| ErrorReport::new(ErrorCode::Refused, "the table is not served"))?;
        if !c.serving.switchable {
            return Err(ErrorReport::new(
                ErrorCode::Refused,
                format!(
                    "this table was started for the network, at {}: stop it and start it again for this computer only",
                    c.serving.url
                ),
            ));
        }
        match (reach, c.network.is_some()) {
            (Reach::Network, false) => c.open_network()?,
            (Reach::ThisComputer, true) => c.close_network(),
            _ => {}
        }
        Ok(c.serving())
    }

    fn status(&self) -> Option<Serving> {
        self.current().as_ref().map(Current::serving)
    }

    fn stop(&self) -> Result<bool, ErrorReport> {
        let Some(mut c) = self.current().take() else { return Ok(false) };
        // Everyone is told the GM stopped hosting, whichever way they came in.
        if let Some(extra) = c.network.take() {
            extra.close();
        }
        c.running.stop()?;
        Ok(true)
    }

    fn disconnect(&self, role: &str) -> usize {
        let Ok(role) = Role::parse(role) else { return 0 };
        self.current().as_ref().map_or(0, |c| c.running.shared.visitors.close_role(&role, Closing::Removed))
    }
}

fn random_secret() -> String {
    let mut s = [0u8; 16];
    getrandom::getrandom(&mut s).expect("the operating system's random source");
    hex::encode(s)
}

/// The address players open, other addresses it answers on, and a note when players on other
/// machines cannot reach it.
fn addresses(addr: SocketAddr) -> (String, Vec<String>, Option<String>) {
    let url = |ip: IpAddr| format!("http://{}/", SocketAddr::new(ip, addr.port()));
    if !addr.ip().is_unspecified() {
        return (url(addr.ip()), vec![], None);
    }
    let local = url(IpAddr::V4(Ipv4Addr::LOCALHOST));
    match network_address() {
        Some(ip) => (url(ip), vec![local], None),
        None => (
            local,
            vec![],
            Some("this computer has no network address right now: only browsers on this computer can join".into()),
        ),
    }
}

/// This computer's address on the network its default route leads to. Connecting a UDP socket
/// only picks the route: nothing is sent.
fn network_address() -> Option<IpAddr> {
    let socket = std::net::UdpSocket::bind((Ipv4Addr::UNSPECIFIED, 0)).ok()?;
    socket.connect((Ipv4Addr::new(192, 0, 2, 1), 9)).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
}
