//! The GM's Matrix account, which the referee speaks with: logging in, and its session.
//!
//! Guarantees: a password is used once, to log in, and never written anywhere; the session the
//! homeserver gives back (an access token) is kept in the GM's configuration folder, readable
//! by the GM alone, never in the campaign file (which may be shared). An access token can also
//! come from the environment (`HOUSERULE_MATRIX_TOKEN`); then nothing is written at all.

use crate::room::{user_id, Chat};
use crate::MatrixError;
use houserule_app::checked;
use matrix_sdk::authentication::matrix::MatrixSession;
use matrix_sdk::config::RequestConfig;
use matrix_sdk::ruma::OwnedDeviceId;
use matrix_sdk::{Client, SessionMeta, SessionTokens};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

/// The environment variable a password can be given in (else the CLI asks for it).
pub const PASSWORD_ENV: &str = "HOUSERULE_MATRIX_PASSWORD";
/// The environment variable an access token can be given in.
pub const TOKEN_ENV: &str = "HOUSERULE_MATRIX_TOKEN";

/// Where the session of `user` on `homeserver` is kept.
fn session_file(homeserver: &str, user: &str) -> Option<PathBuf> {
    let name = hex::encode(&Sha256::digest(format!("{homeserver}\0{user}").as_bytes())[..12]);
    Some(checked::config_dir()?.join("matrix").join(format!("{name}.json")))
}

/// How often, and for how long at most, one request is tried again before its failure is
/// reported (matrix-sdk's own default is forever: `link` and `invite` would hang on a
/// homeserver that cannot be reached, where they must say so). The referee tries again by
/// itself ([`crate::referee::RETRY`]).
const RETRIES: usize = 3;
const RETRY_TIME: std::time::Duration = std::time::Duration::from_secs(20);

async fn client(homeserver: &str) -> Result<Client, MatrixError> {
    Client::builder()
        .homeserver_url(homeserver)
        .request_config(RequestConfig::new().retry_limit(RETRIES).max_retry_time(RETRY_TIME))
        .build()
        .await
        .map_err(|e| MatrixError::Usage(format!("'{homeserver}' is not a homeserver this can reach: {e}")))
}

/// A client for `user` with `token`, checked with the homeserver.
async fn with_token(
    homeserver: &str,
    user: &str,
    token: &str,
    device: Option<OwnedDeviceId>,
) -> Result<Chat, MatrixError> {
    let client = client(homeserver).await?;
    let meta = SessionMeta { user_id: user_id(user)?, device_id: device.unwrap_or_else(|| "HOUSERULE".into()) };
    let tokens = SessionTokens { access_token: token.to_string(), refresh_token: None };
    client.restore_session(MatrixSession { meta, tokens }).await.map_err(|e| MatrixError::Login(e.to_string()))?;
    let me = client.whoami().await.map_err(|e| match e.as_client_api_error() {
        Some(_) => MatrixError::Login(format!(
            "the homeserver refused the session ({e}): log in again (`houserule matrix link`, or Link on the Online panel)"
        )),
        // Not an answer from the homeserver: it could not be reached, so trying later may do.
        None => MatrixError::Http { doing: "reaching the homeserver", message: e.to_string() },
    })?;
    if me.user_id.as_str() != user {
        return Err(MatrixError::Login(format!("the access token is {}'s, not {user}'s", me.user_id)));
    }
    Ok(Chat { client })
}

/// Logs in as `user`: with the token from the environment if there is one, else with
/// `password` (the session is then kept for the referee).
pub async fn log_in(homeserver: &str, user: &str, password: Option<&str>) -> Result<Chat, MatrixError> {
    if let Ok(token) = std::env::var(TOKEN_ENV) {
        return with_token(homeserver, user, &token, None).await;
    }
    let password =
        password.ok_or_else(|| MatrixError::Login(format!("no password: set {PASSWORD_ENV} or {TOKEN_ENV}")))?;
    let client = client(homeserver).await?;
    client
        .matrix_auth()
        .login_username(user, password)
        .initial_device_display_name("Houserule referee")
        .send()
        .await
        .map_err(|e| MatrixError::Login(format!("logging in as {user} failed: {e}")))?;
    let session =
        client.matrix_auth().session().ok_or_else(|| MatrixError::Login("the homeserver gave no session".into()))?;
    keep(homeserver, user, &session)?;
    Ok(Chat { client })
}

/// Writes the session, readable by its owner only (replacing an older one).
fn keep(homeserver: &str, user: &str, session: &MatrixSession) -> Result<(), MatrixError> {
    let Some(path) = session_file(homeserver, user) else {
        return Err(MatrixError::Login(format!(
            "no configuration folder to keep the session in: set {TOKEN_ENV} instead"
        )));
    };
    let saved =
        |e: std::io::Error| MatrixError::Login(format!("keeping the session in {} failed: {e}", path.display()));
    std::fs::create_dir_all(path.parent().expect("a session file is in a folder")).map_err(saved)?;
    let text = serde_json::to_string(session).map_err(|e| MatrixError::Internal(e.to_string()))?;
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    checked::write_private(&tmp, &text).map_err(saved)?;
    std::fs::rename(&tmp, &path).map_err(saved)
}

/// Resumes `user`'s session: the token from the environment, else the one kept at log-in.
pub async fn resume(homeserver: &str, user: &str) -> Result<Chat, MatrixError> {
    if let Ok(token) = std::env::var(TOKEN_ENV) {
        return with_token(homeserver, user, &token, None).await;
    }
    let path = session_file(homeserver, user);
    let text = path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()).ok_or_else(|| {
        MatrixError::Login(format!(
            "no session for {user} on this machine: run `houserule matrix link` (or set {TOKEN_ENV})"
        ))
    })?;
    let session: MatrixSession =
        serde_json::from_str(&text).map_err(|e| MatrixError::Login(format!("the kept session is damaged: {e}")))?;
    with_token(homeserver, user, &session.tokens.access_token, Some(session.meta.device_id)).await
}
