//! `houserule serve`: the table UI over HTTP and a WebSocket, for players on the network.
//!
//! Everyone loads the same UI the desktop app shows. A player joins with the join link the GM
//! made for them (see [`houserule_app::invites`]) and is that player for the life of the
//! connection; the GM joins with the 128-bit secret printed when the server starts. The role of
//! every call comes from who joined, never from the request: a player may look and act only as
//! themselves, while the GM may preview any player's view or act for them. Every connection is
//! told as actions are committed (here or by another program writing the same file) and rules
//! reload, and fetches its own view again.
//!
//! Only the server's own pages may talk to it: a request must name the server by an IP address,
//! `localhost` or a name given with `--name` (so a web page elsewhere cannot reach it by
//! rebinding its own name to this address), and a WebSocket's `Origin`, when a browser sends
//! one, must be the server's own address. The default port is a free one the OS picks.

mod assets;
mod attempts;
mod origin;
mod protocol;

use crate::output::Failure;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use houserule_app::front::{App, AppEvent};
use houserule_core::ErrorCode;
use protocol::{Connection, Reply};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The shortest GM secret accepted (a random one is 32 hex digits, 128 bits).
const MIN_SECRET: usize = 16;
/// How often the server looks for events another program wrote to the file.
const CATCH_UP_EVERY: Duration = Duration::from_millis(250);

/// What every connection shares.
pub struct Server {
    pub app: App,
    pub file: PathBuf,
    pub secret: String,
    /// A folder to serve the UI from instead of the built-in copy.
    pub ui: Option<PathBuf>,
    /// Host names (besides IP addresses and `localhost`) the server answers to.
    pub names: Vec<String>,
    attempts: attempts::Attempts,
}

/// How `houserule serve` was asked to run.
pub struct Options {
    pub host: String,
    pub port: u16,
    pub secret: Option<String>,
    pub ui: Option<PathBuf>,
    pub names: Vec<String>,
}

pub fn serve(file: PathBuf, options: Options) -> Result<bool, Failure> {
    let Options { host, port, secret, ui, names } = options;
    let app = App::new(None);
    if file.exists() {
        app.open(&file).map_err(Failure)?;
    }
    let secret = match secret {
        Some(s) if s.trim().len() < MIN_SECRET => {
            return Err(Failure::new(
                ErrorCode::BadParam,
                format!(
                "--gm-secret must be at least {MIN_SECRET} characters (a random one is 32): a short one can be guessed"
            ),
            ))
        }
        Some(s) => s.trim().to_string(),
        None => {
            let mut s = [0u8; 16];
            getrandom::getrandom(&mut s).expect("the operating system's random source");
            hex::encode(s)
        }
    };
    let shared = Arc::new(Server {
        app,
        file: file.clone(),
        secret: secret.clone(),
        ui: ui.clone(),
        names,
        attempts: Default::default(),
    });
    let watcher = shared.clone();
    std::thread::Builder::new()
        .name("houserule-serve-catch-up".into())
        .spawn(move || loop {
            std::thread::sleep(CATCH_UP_EVERY);
            if let Err(e) = watcher.app.catch_up() {
                crate::note!("could not read what another program wrote to {}: {e}", watcher.file.display());
            }
        })
        .map_err(|e| Failure::new(ErrorCode::Io, e.to_string()))?;
    let host = host.as_str();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(ErrorCode::Io, e.to_string()))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((host, port))
            .await
            .map_err(|e| Failure::new(ErrorCode::Io, format!("cannot listen on {host}:{port}: {e}")))?;
        let addr = listener.local_addr().map_err(|e| Failure::new(ErrorCode::Io, e.to_string()))?;
        crate::say!("Houserule is serving {} at http://{addr}/", file.display());
        crate::say!("GM: open http://{addr}/#gm={secret}   (keep it to yourself)");
        crate::say!("Players join with a link you make for each: Players → Invite in the table, or `houserule invite FILE NAME --url http://{addr}/`");
        if let Some(dir) = &ui {
            crate::say!("serving the UI from {}", dir.display());
        } else if !assets::built() {
            crate::say!(
                "note: the web UI was not built into this binary (run the Quick-start command); browsers get a notice"
            );
        }
        let router = Router::new().route("/ws", get(ws)).fallback(get(static_file)).with_state(shared);
        // Small messages go out at once: without this, a reply waits on the browser's delayed
        // acknowledgement of the one before (tens of milliseconds).
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>())
            .await
            .map_err(|e| Failure::new(ErrorCode::Io, e.to_string()))?;
        Ok(true)
    })
}

async fn static_file(State(shared): State<Arc<Server>>, headers: HeaderMap, uri: Uri) -> Response {
    if let Err(refused) = origin::check(&headers, &shared.names) {
        return (StatusCode::FORBIDDEN, refused).into_response();
    }
    if let Some(dir) = &shared.ui {
        return match assets::from_folder(dir, uri.path()) {
            Some((bytes, kind)) => {
                ([(header::CONTENT_TYPE, kind), (header::CONTENT_SECURITY_POLICY, CSP)], bytes).into_response()
            }
            None => (StatusCode::NOT_FOUND, "not found").into_response(),
        };
    }
    match assets::get(uri.path()) {
        Some((bytes, kind)) => ([(header::CONTENT_TYPE, kind), (header::CONTENT_SECURITY_POLICY, CSP)], bytes).into_response(),
        None if !assets::built() => Html("<h1>Houserule</h1><p>The web UI has not been built. Run <code>./scripts/run</code> or <code>npm run build</code> in <code>ui/</code>, then rebuild houserule.</p>").into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// The same strict policy as the desktop window, plus the server's own WebSocket.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

async fn ws(
    upgrade: WebSocketUpgrade,
    State(shared): State<Arc<Server>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = origin::check(&headers, &shared.names) {
        return (StatusCode::FORBIDDEN, refused).into_response();
    }
    upgrade.max_message_size(1 << 20).on_upgrade(move |socket| connection(socket, shared, peer))
}

async fn connection(mut socket: WebSocket, shared: Arc<Server>, peer: SocketAddr) {
    // Events reach this channel in the thread that announces them, so an action's own event is
    // here by the time its reply is: both go out in one write.
    let (events_tx, mut events_rx) = tokio::sync::mpsc::unbounded_channel();
    shared.app.subscribe_with(move |event| events_tx.send(event.clone()).is_ok());
    let mut conn = Connection::new(peer.ip());
    loop {
        tokio::select! {
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t.as_str().to_string(),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                let reply = match serde_json::from_str::<protocol::Message>(&text) {
                    Ok(request) => {
                        let shared = shared.clone();
                        let state = conn.clone();
                        let (reply, state) = tokio::task::spawn_blocking(move || protocol::handle(&shared, state, request))
                            .await
                            .unwrap_or_else(|_| (Reply::failure(0, houserule_core::ErrorCode::Internal, "the request failed"), Connection::new(peer.ip())));
                        conn = state;
                        reply
                    }
                    Err(e) => Reply::failure(0, houserule_core::ErrorCode::BadRequest, format!("not a request: {e}")),
                };
                if send_with_events(&mut socket, &conn, reply, &mut events_rx).await.is_err() {
                    break;
                }
            }
            Some(event) = events_rx.recv() => {
                let Some(first) = protocol::event_for(&conn, event) else { continue };
                if send_with_events(&mut socket, &conn, first, &mut events_rx).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// Sends `first` and every event already waiting, in one write.
async fn send_with_events(
    socket: &mut WebSocket,
    conn: &Connection,
    first: Reply,
    events: &mut tokio::sync::mpsc::UnboundedReceiver<AppEvent>,
) -> Result<(), axum::Error> {
    use futures_util::SinkExt;
    socket.feed(text(&first)).await?;
    while let Ok(event) = events.try_recv() {
        if let Some(reply) = protocol::event_for(conn, event) {
            socket.feed(text(&reply)).await?;
        }
    }
    socket.flush().await
}

fn text(reply: &Reply) -> Message {
    Message::Text(reply.to_text().into())
}
