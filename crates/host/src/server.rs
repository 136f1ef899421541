//! One running server: the table UI over HTTP and the calls over a WebSocket, on a thread of
//! its own with its own async runtime, until it is stopped.
//!
//! Everyone loads the same UI the desktop app shows. A player joins with the join link the GM
//! made for them (see [`houserule_app::invites`]) and is that player for the life of the
//! connection; the GM joins with the secret (`houserule serve` prints it; the desktop app never
//! shows its own, so nobody joins as the GM there). The role of every call comes from who
//! joined, never from the request. Every connection is told as actions are committed and rules
//! reload, and fetches its own view again.
//!
//! Only the server's own pages may talk to it (see [`crate::own_pages`]). Stopping closes every
//! connection with a close frame that says why, then the listener; a connection the GM removes
//! is closed the same way.
//!
//! A server may listen on a second address while it runs ([`Running::listen_also`]): a table
//! served to this computer only is opened to the network without a restart, every connection
//! already open going on. Closing that listener returns only once its socket is closed, so the
//! port answers nobody after [`Extra::close`].

use crate::protocol::{self, Connection, Reply};
use crate::shared::Shared;
use crate::visitors::Closing;
use crate::{assets, own_pages};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use houserule_app::events::AppEvent;
use houserule_core::{ErrorCode, ErrorReport};
use std::net::SocketAddr;
use std::sync::Arc;

/// A server listening until [`Running::stop`].
pub struct Running {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
    runtime: tokio::runtime::Handle,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

/// Binds `addr` and serves `shared` from a thread of its own.
pub fn start(addr: SocketAddr, shared: Shared) -> std::io::Result<Running> {
    let listener = bind(addr)?;
    let addr = listener.local_addr()?;
    let shared = Arc::new(shared);
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let handle = runtime.handle().clone();
    let serving = shared.clone();
    let thread = std::thread::Builder::new()
        .name("houserule-host".into())
        .spawn(move || runtime.block_on(serve(listener, serving, stopped, None)))?;
    Ok(Running { addr, shared, runtime: handle, shutdown: Some(shutdown), thread: Some(thread) })
}

fn bind(addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Serves `shared` on `listener` until `stopped`; `dropped` hears when the listener is closed.
async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    stopped: tokio::sync::oneshot::Receiver<()>,
    dropped: Option<std::sync::mpsc::Sender<()>>,
) -> std::io::Result<()> {
    let listener = Watched { inner: tokio::net::TcpListener::from_std(listener)?, dropped };
    let router = Router::new().route("/ws", get(ws)).fallback(get(static_file)).with_state(shared);
    // Small messages go out at once: without this, a reply waits on the browser's
    // delayed acknowledgement of the one before (tens of milliseconds).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(async move {
            let _ = stopped.await;
        })
        .await
}

/// A listener that says when it is closed (axum closes it as soon as a graceful shutdown starts,
/// before it waits for the connections open then).
struct Watched {
    inner: tokio::net::TcpListener,
    dropped: Option<std::sync::mpsc::Sender<()>>,
}

impl Drop for Watched {
    fn drop(&mut self) {
        if let Some(d) = self.dropped.take() {
            let _ = d.send(());
        }
    }
}

impl axum::serve::Listener for Watched {
    type Io = tokio::net::TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        axum::serve::Listener::accept(&mut self.inner).await
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A second address a running server listens on, until [`Extra::close`].
pub struct Extra {
    pub addr: SocketAddr,
    shutdown: tokio::sync::oneshot::Sender<()>,
    dropped: std::sync::mpsc::Receiver<()>,
}

impl Extra {
    /// Stops listening there; returns once the socket is closed (connections that came in
    /// through it are the caller's to close).
    pub fn close(self) {
        let _ = self.shutdown.send(());
        let _ = self.dropped.recv_timeout(std::time::Duration::from_secs(5));
    }
}

impl Running {
    /// Closes every connection, then stops listening; returns when the port is free.
    pub fn stop(mut self) -> Result<(), ErrorReport> {
        self.shared.visitors.close_all(Closing::Stopped);
        if let Some(s) = self.shutdown.take() {
            let _ = s.send(());
        }
        match self.thread.take() {
            Some(t) => Waiter(t).wait(),
            None => Ok(()),
        }
    }

    /// Listens on `addr` too, serving the same table to the same connections' list.
    pub fn listen_also(&self, addr: SocketAddr) -> std::io::Result<Extra> {
        let listener = bind(addr)?;
        let addr = listener.local_addr()?;
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let (closed, dropped) = std::sync::mpsc::channel();
        let shared = self.shared.clone();
        self.runtime.spawn(serve(listener, shared, stopped, Some(closed)));
        Ok(Extra { addr, shutdown, dropped })
    }

    /// What to wait on for the server's end (once: it is taken).
    pub fn waiter(&mut self) -> Option<Waiter> {
        self.thread.take().map(Waiter)
    }
}

/// The end of a running server.
pub struct Waiter(std::thread::JoinHandle<std::io::Result<()>>);

impl Waiter {
    /// Waits until the server ends (it ends only when stopped, or on an error).
    pub fn wait(self) -> Result<(), ErrorReport> {
        match self.0.join() {
            Ok(Err(e)) => Err(ErrorReport::new(ErrorCode::Io, e.to_string())),
            Err(_) => Err(ErrorReport::new(ErrorCode::Internal, "the server's thread failed")),
            Ok(Ok(())) => Ok(()),
        }
    }
}

async fn static_file(State(shared): State<Arc<Shared>>, headers: HeaderMap, uri: Uri) -> Response {
    if let Err(refused) = own_pages::check(&headers, &shared.names) {
        return (StatusCode::FORBIDDEN, refused.to_string()).into_response();
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

/// The largest message a browser may send: a picture import at the largest size a picture may be.
const MAX_MESSAGE: usize = 36 << 20;

/// The same strict policy as the desktop window, plus the server's own WebSocket.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

async fn ws(
    upgrade: WebSocketUpgrade,
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    if let Err(refused) = own_pages::check(&headers, &shared.names) {
        return (StatusCode::FORBIDDEN, refused.to_string()).into_response();
    }
    // A message may carry a picture the GM imports: 25 MB as base64 is 33.4 MB, plus its name.
    upgrade.max_message_size(MAX_MESSAGE).on_upgrade(move |socket| connection(socket, shared, peer))
}

async fn connection(mut socket: WebSocket, shared: Arc<Shared>, peer: SocketAddr) {
    let (id, closing) = shared.visitors.arrived(peer.ip());
    shared.app.hosting_changed();
    // Events reach this channel in the thread that announces them, so an action's own event is
    // here by the time its reply is: both go out in one write.
    let (events_tx, mut events_rx) = tokio::sync::mpsc::unbounded_channel();
    shared.app.subscribe_with(move |event| events_tx.send(event.clone()).is_ok());
    let mut conn = Connection::new(peer.ip());
    let mut closing = closing;
    loop {
        tokio::select! {
            why = closing.wait() => {
                let frame = CloseFrame { code: why.code(), reason: why.reason().into() };
                let _ = socket.send(Message::Close(Some(frame))).await;
                break;
            }
            incoming = socket.recv() => {
                let text = match incoming {
                    Some(Ok(Message::Text(t))) => t.as_str().to_string(),
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                    Some(Ok(_)) => continue,
                };
                let reply = match serde_json::from_str::<protocol::Message>(&text) {
                    Ok(request) => {
                        let handler = shared.clone();
                        let state = conn.clone();
                        let (reply, state) = tokio::task::spawn_blocking(move || protocol::handle(&handler, state, request))
                            .await
                            .unwrap_or_else(|_| (Reply::failure(0, ErrorCode::Internal, "the request failed"), Connection::new(peer.ip())));
                        if state.role != conn.role {
                            shared.visitors.joined(id, state.role.as_ref());
                            shared.app.hosting_changed();
                        }
                        conn = state;
                        reply
                    }
                    Err(e) => Reply::failure(0, ErrorCode::BadRequest, format!("not a request: {e}")),
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
    shared.visitors.left(id);
    shared.app.hosting_changed();
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
