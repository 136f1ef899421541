//! The sandbox boundary: rule scripts run in a separate worker process, never in the process
//! that holds a campaign.
//!
//! Rhai's limits bound values and calls; they cannot bound what one native call allocates or
//! how long it takes. So every script — compiling it as much as running it — happens in a
//! [`Worker`]: this same program started again with [`WORKER_ARG`] (the CLI, `serve` and the
//! desktop app all call [`run_if_requested`] first thing), confined by the operating system
//! before it reads anything ([`os`]). The parent talks to it over pipes ([`protocol`]) and
//! guarantees:
//! - every reply is awaited at most the deadline plus a grace period (loading the rules: the
//!   load deadline plus the grace); a worker that overruns is killed;
//! - a reply is at most [`protocol::MAX_REPLY`] bytes and at most 128 levels of JSON, read
//!   with its length checked first, so a worker cannot make the parent allocate without bound;
//! - a worker that dies (out of memory, out of CPU time, a crash, a forbidden system call) or
//!   is killed is reported by a [`SandboxError`] naming the limit, and replaced on next use;
//!   the caller's table and file are untouched, since nothing the worker said was committed.

mod lab;
pub mod os;
pub mod protocol;
pub mod worker;

pub use lab::{MAX_TURNS, UNFINISHED};
pub use protocol::{Probe, Simulation, TableId};
pub use worker::{run_if_requested, WORKER_ARG};

use houserule_core::Limits;
use protocol::{read_frame, write_frame, FrameError, Reply, Request, MAX_REPLY};
use std::io::{BufWriter, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// Why the sandbox could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("could not start the sandbox worker ({program}): {message}")]
    Start { program: String, message: String },
    /// The worker was stopped or died; the message names the limit when one was hit.
    #[error("{0}")]
    Stopped(String),
}

static PROGRAM: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Runs workers from `program` instead of this program (tests whose own binary is a test
/// harness point it at a small binary that calls [`run_if_requested`]).
pub fn use_program(program: PathBuf) {
    *PROGRAM.write().unwrap_or_else(|p| p.into_inner()) = Some(program);
}

fn program() -> Result<PathBuf, SandboxError> {
    if let Some(p) = PROGRAM.read().unwrap_or_else(|p| p.into_inner()).clone() {
        return Ok(p);
    }
    std::env::current_exe().map_err(|e| SandboxError::Start { program: "this program".into(), message: e.to_string() })
}

/// Bytes of the worker's last words kept to say why it stopped.
const STDERR_TAIL: usize = 4096;

/// A running worker process.
pub struct Worker {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    replies: Receiver<Result<Reply, FrameError>>,
    stderr: Arc<Mutex<String>>,
    limits: Limits,
}

impl Worker {
    /// Starts a worker under `limits`.
    pub fn start(limits: &Limits) -> Result<Worker, SandboxError> {
        let program = program()?;
        let start_error =
            |e: std::io::Error| SandboxError::Start { program: program.display().to_string(), message: e.to_string() };
        let mut child = Command::new(&program)
            .arg(WORKER_ARG)
            .arg(limits.memory_bytes.to_string())
            .arg(limits.cpu_seconds.to_string())
            .arg(limits.stack_bytes.to_string())
            .env_clear()
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(start_error)?;
        let (stdin, stdout, stderr_pipe) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => {
                return Err(SandboxError::Start {
                    program: program.display().to_string(),
                    message: "its pipes could not be opened".into(),
                })
            }
        };
        let (sender, replies) = channel();
        std::thread::Builder::new()
            .name("houserule-sandbox-replies".into())
            .spawn(move || {
                let mut reader = std::io::BufReader::new(stdout);
                loop {
                    let frame = read_frame::<Reply>(&mut reader, MAX_REPLY);
                    let last = frame.is_err();
                    if sender.send(frame).is_err() || last {
                        return;
                    }
                }
            })
            .map_err(start_error)?;
        let stderr = Arc::new(Mutex::new(String::new()));
        let tail = stderr.clone();
        std::thread::Builder::new()
            .name("houserule-sandbox-stderr".into())
            .spawn(move || {
                let mut pipe = stderr_pipe;
                let mut buf = [0u8; 1024];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                    t.push_str(&String::from_utf8_lossy(&buf[..n]));
                    if t.len() > STDERR_TAIL {
                        let cut = t.len() - STDERR_TAIL;
                        let cut = (cut..t.len()).find(|i| t.is_char_boundary(*i)).unwrap_or(t.len());
                        t.drain(..cut);
                    }
                }
            })
            .map_err(start_error)?;
        Ok(Worker { child, stdin: BufWriter::new(stdin), replies, stderr, limits: limits.clone() })
    }

    /// How long a reply within `limit` may take.
    fn patience(&self, limit: Duration) -> Duration {
        limit + self.limits.grace
    }

    /// Sends a request.
    pub fn send(&mut self, request: &Request) -> Result<(), SandboxError> {
        if write_frame(&mut self.stdin, request).is_err() {
            return Err(self.stopped(None));
        }
        Ok(())
    }

    /// The next reply, waiting at most the deadline plus the grace period; a worker that does
    /// not answer in time is killed.
    pub fn reply(&mut self) -> Result<Reply, SandboxError> {
        self.reply_within("the rules", self.limits.deadline)
    }

    /// The answer to [`Request::Load`], waiting at most the load deadline plus the grace period
    /// (it counts the worker's own start).
    pub fn loaded(&mut self) -> Result<Reply, SandboxError> {
        self.reply_within("loading the rules", self.limits.load_deadline)
    }

    fn reply_within(&mut self, what: &'static str, limit: Duration) -> Result<Reply, SandboxError> {
        match self.replies.recv_timeout(self.patience(limit)) {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(FrameError::TooLarge(n))) => {
                let _ = self.child.kill();
                Err(SandboxError::Stopped(format!("the rules sent back {n} bytes, more than the sandbox allows ({MAX_REPLY} bytes); the sandbox worker was stopped")))
            }
            Ok(Err(FrameError::Malformed(e))) => {
                let _ = self.child.kill();
                Err(SandboxError::Stopped(format!(
                    "the sandbox worker sent back something unreadable ({e}); it was stopped"
                )))
            }
            Ok(Err(FrameError::Closed | FrameError::Io(_))) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.stopped(None))
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(self.stopped(Some((what, limit))))
            }
        }
    }

    /// Sends a request and waits for its reply.
    pub fn ask(&mut self, request: &Request) -> Result<Reply, SandboxError> {
        self.send(request)?;
        self.reply()
    }

    /// Why the worker stopped (`timed_out`: what overran which limit): waits for it and reads
    /// its status and last words.
    fn stopped(&mut self, timed_out: Option<(&str, Duration)>) -> SandboxError {
        if timed_out.is_none() {
            // It may still be writing its last words.
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let status = self.child.wait().ok();
        let said = self.stderr.lock().unwrap_or_else(|p| p.into_inner()).clone();
        SandboxError::Stopped(explain(&self.limits, timed_out, status, &said))
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            reap(&mut self.child);
        }
    }
}

/// Waits for a killed worker to end. A process takes a while to wind down (a third of a
/// millisecond here): one thread of this program waits for every stopped worker, so neither a
/// reload nor a command's end waits for it, and none is left a zombie.
#[cfg(unix)]
fn reap(child: &mut Child) {
    use std::sync::mpsc::Sender;
    static REAPER: Mutex<Option<Sender<u32>>> = Mutex::new(None);
    let mut reaper = REAPER.lock().unwrap_or_else(|p| p.into_inner());
    if reaper.is_none() {
        let (tx, rx) = channel::<u32>();
        let started = std::thread::Builder::new().name("houserule-sandbox-reaper".into()).spawn(move || {
            for pid in rx {
                // SAFETY: waits for a child of this process that was killed and not yet waited for.
                unsafe { libc::waitpid(pid as libc::pid_t, std::ptr::null_mut(), 0) };
            }
        });
        *reaper = started.ok().map(|_| tx);
    }
    if reaper.as_ref().is_none_or(|r| r.send(child.id()).is_err()) {
        let _ = child.wait();
    }
}

#[cfg(not(unix))]
fn reap(child: &mut Child) {
    let _ = child.wait();
}

/// Names the limit a worker hit, from how it ended.
fn explain(
    limits: &Limits,
    timed_out: Option<(&str, Duration)>,
    status: Option<std::process::ExitStatus>,
    said: &str,
) -> String {
    if let Some((what, limit)) = timed_out {
        return format!(
            "{what} ran past the time limit ({} ms) inside a single step the script's own checks cannot interrupt; the sandbox worker was stopped after {} ms",
            limit.as_millis(),
            (limit + limits.grace).as_millis()
        );
    }
    let mib = limits.memory_bytes / (1024 * 1024);
    if said.contains("memory allocation of") || said.contains("capacity overflow") {
        return format!(
            "the rules asked for more memory than the sandbox allows ({mib} MiB); the sandbox worker was stopped"
        );
    }
    if said.contains("overflowed its stack") {
        return "the rules nested deeper than the sandbox's stack allows; the sandbox worker was stopped".into();
    }
    #[cfg(unix)]
    if let Some(signal) = status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)) {
        return match signal {
            libc::SIGXCPU => {
                format!("the sandbox worker used up its CPU time ({} s) and was stopped", limits.cpu_seconds)
            }
            libc::SIGSYS => {
                "the rules tried something the sandbox forbids (a system call); the sandbox worker was stopped".into()
            }
            libc::SIGKILL => format!("the sandbox worker was killed (out of memory at {mib} MiB, or from outside)"),
            libc::SIGABRT => format!("the sandbox worker failed and stopped ({})", last_line(said)),
            other => format!("the sandbox worker stopped on signal {other} ({})", last_line(said)),
        };
    }
    match status.and_then(|s| s.code()) {
        Some(code) => format!("the sandbox worker stopped unexpectedly (exit {code}: {})", last_line(said)),
        None => "the sandbox worker stopped unexpectedly".into(),
    }
}

fn last_line(said: &str) -> String {
    let line = said.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message").trim();
    line.chars().take(300).collect()
}
