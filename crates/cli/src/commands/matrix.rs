//! `houserule matrix`: a campaign played in a Matrix room (the `houserule-matrix` crate, built
//! with the `matrix` feature). `link` ties the campaign to a room as the GM's account, `seat`
//! gives a player's seat to a Matrix account, `run` referees until stopped (or, with `--once`,
//! answers what is waiting and ends).

use crate::output::{self, Failure};
use houserule_app::front::App;
use houserule_core::{ErrorCode, ErrorReport};
use houserule_matrix::{account, referee::Referee, MatrixError};
use std::path::Path;

fn failure(e: MatrixError) -> Failure {
    match e {
        MatrixError::App(report) => Failure(report),
        other => Failure(ErrorReport::new(other.code(), other.to_string())),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(ErrorCode::Internal, format!("starting the network runtime: {e}")))
}

fn open(file: &Path) -> Result<App, Failure> {
    let app = App::new(None);
    app.open(file).map_err(Failure)?;
    Ok(app)
}

/// The password: from the environment, else asked for on the terminal (never echoed).
fn password() -> Result<Option<String>, Failure> {
    if std::env::var_os(account::TOKEN_ENV).is_some() {
        return Ok(None);
    }
    if let Ok(p) = std::env::var(account::PASSWORD_ENV) {
        return Ok(Some(p));
    }
    rpassword::prompt_password("Matrix password: ").map(Some).map_err(|e| {
        Failure::new(
            ErrorCode::BadRequest,
            format!(
                "no terminal to ask for the password ({e}): set {} or {}",
                account::PASSWORD_ENV,
                account::TOKEN_ENV
            ),
        )
    })
}

pub fn link(json: bool, file: &Path, homeserver: &str, user: &str, room: Option<&str>) -> Result<bool, Failure> {
    let app = open(file)?;
    let password = password()?;
    let linked = runtime()?
        .block_on(houserule_matrix::link_room(&app, homeserver, user, password.as_deref(), room))
        .map_err(failure)?;
    if json {
        output::json(&linked);
    } else {
        let how = if linked.again { "still linked to" } else { "linked to" };
        crate::say!(
            "{} is {how} room {} on {} (referee: {})",
            file.display(),
            linked.room,
            linked.homeserver,
            linked.user
        );
        crate::say!("seat each player: houserule matrix invite {} @NAME:SERVER --as PLAYER", file.display());
    }
    Ok(true)
}

pub fn invite(json: bool, file: &Path, user: &str, player: &str) -> Result<bool, Failure> {
    let app = open(file)?;
    // `--as ann` as the examples write it, or `--as player:ann` as the other commands do.
    let player = player.strip_prefix("player:").unwrap_or(player);
    let seated = runtime()?.block_on(houserule_matrix::seat(&app, user, player)).map_err(failure)?;
    if json {
        output::json(&seated);
    } else {
        crate::say!(
            "{} plays as {} (invited to {}; private messages in {})",
            seated.user,
            seated.player,
            seated.room,
            seated.direct
        );
    }
    Ok(true)
}

pub fn run(file: &Path, once: bool) -> Result<bool, Failure> {
    let app = open(file)?;
    runtime()?
        .block_on(async {
            let referee = Referee::start(app).await?;
            if !once {
                crate::note!("refereeing {} in room {} (stop with Ctrl-C)", file.display(), referee.link().room);
            }
            referee
                .run(once, |problem| match problem {
                    Some(p) => crate::note!("{p}"),
                    None => crate::note!("the homeserver answers again"),
                })
                .await
        })
        .map_err(failure)?;
    Ok(true)
}
