//! The sandbox worker: the same program re-run with [`WORKER_ARG`], holding one set of rules.
//!
//! It confines itself first ([`super::os`]): memory, CPU time, no files, no descriptors, no
//! processes, then the system-call filter — all before it reads a single request. Then it
//! answers requests from its parent on stdin/stdout, one at a time, on a thread with a large
//! stack: it compiles the rules once ([`Request::Load`]), keeps a copy of the table (the one
//! the parent last sent, and the one its last transaction produced, which becomes current when
//! the parent's next request names it), and runs each transaction with the deadline armed.
//! Nothing it returns is trusted: the parent checks and replays it.

use super::os;
use super::protocol::{
    read_frame, write_frame, Base, Failure, FrameError, Probe, Reply, Request, Simulation, TableId, MAX_REQUEST,
};
use houserule_core::action::{self, ActError, Call};
use houserule_core::engine::Stop;
use houserule_core::manifest::Manifest;
use houserule_core::plugin::Plugin;
use houserule_core::script_error::{ScriptError, ScriptErrorKind};
use houserule_core::table::Table;
use houserule_core::tx::{DiceSupply, Tx};
use houserule_core::{Limits, Role};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::io::{BufReader, BufWriter, Write};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// The first argument that makes the program a sandbox worker.
pub const WORKER_ARG: &str = "--houserule-sandbox-worker";

/// Results of simulated runs are sent at least this often, so the parent sees progress.
const BATCH_TIME: Duration = Duration::from_millis(100);

/// Becomes a sandbox worker if the program was started as one (then never returns). Call it
/// first thing in `main`, before anything else runs.
pub fn run_if_requested() {
    let mut args = std::env::args();
    if args.nth(1).as_deref() != Some(WORKER_ARG) {
        return;
    }
    let number = |a: Option<String>| a.and_then(|s| s.parse::<u64>().ok());
    let (memory, cpu, stack) = (number(args.next()), number(args.next()), number(args.next()));
    let defaults = Limits::default();
    std::process::exit(serve(
        memory.unwrap_or(defaults.memory_bytes),
        cpu.unwrap_or(defaults.cpu_seconds),
        stack.map(|s| s as usize).unwrap_or(defaults.stack_bytes),
    ));
}

/// Confines the process, then serves requests until stdin closes.
fn serve(memory: u64, cpu: u64, stack: usize) -> i32 {
    os::follow_parent(Duration::from_millis(200));
    fewer_heap_calls();
    let mut wall = os::confine(memory, cpu);
    // The thread must be running (its start-up done) before the filter forbids what start-up
    // needs, and must not read a request until the filter is in place.
    let started = Arc::new(Barrier::new(2));
    let running = started.clone();
    let (wall_tx, wall_rx) = std::sync::mpsc::channel();
    let thread = std::thread::Builder::new().name("houserule-sandbox".into()).stack_size(stack).spawn(move || {
        running.wait();
        match wall_rx.recv() {
            Ok(wall) => answer(wall),
            Err(_) => 5,
        }
    });
    let Ok(thread) = thread else { return 3 };
    started.wait();
    os::close_doors(&mut wall);
    os::filter(&mut wall);
    let _ = wall_tx.send(wall);
    thread.join().unwrap_or(4)
}

/// Compiling rules makes many small allocations on the script thread. glibc would give that
/// thread its own arena and grow it a page at a time, one `mprotect` each (about 0.3 ms of a
/// 4 ms load, measured); one arena grown in 8 MiB steps costs a few calls instead.
fn fewer_heap_calls() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread runs.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_TOP_PAD, 8 << 20);
    }
}

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

fn arm(limits: &Limits) {
    arm_for(limits.deadline);
}

fn arm_for(limit: Duration) {
    DEADLINE.set(Some(Instant::now() + limit));
}

fn past_deadline() -> bool {
    DEADLINE.get().is_some_and(|d| Instant::now() >= d)
}

fn stop() -> Stop {
    Arc::new(past_deadline)
}

/// A call that outlived its deadline is refused, even if the script got to its end: some
/// library functions (a sort's comparer) swallow the stop, so reaching the end is not enough.
fn in_time(staged: Result<action::Staged, ActError>) -> Result<action::Staged, ActError> {
    if staged.is_ok() && past_deadline() {
        let message = "the script ran past its time limit and was stopped";
        return Err(ActError::Limit(ScriptError::new(ScriptErrorKind::Limit, "rules", rhai::Position::NONE, message)));
    }
    staged
}

/// What the worker holds between requests.
#[derive(Default)]
struct State {
    plugin: Option<Plugin>,
    limits: Limits,
    current: Option<(TableId, Table)>,
    pending: Option<(TableId, Table)>,
}

fn answer(wall: os::Wall) -> i32 {
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    let mut state = State::default();
    loop {
        let request: Request = match read_frame(&mut input, MAX_REQUEST) {
            Ok(r) => r,
            Err(FrameError::Closed) => return 0,
            Err(_) => return 2,
        };
        let sent = match request {
            Request::Load { ruleset, house, limits } => {
                arm_for(limits.load_deadline);
                let reply = match Plugin::load(&ruleset, &house, &limits, stop()) {
                    Ok(p) => {
                        let info = p.info.clone();
                        state = State { plugin: Some(p), limits: *limits, ..State::default() };
                        Reply::Loaded(info)
                    }
                    Err(e) => Reply::Invalid(e),
                };
                write_frame(&mut output, &reply)
            }
            Request::Stage { base, role, action, calls, dice } => {
                write_frame(&mut output, &state.stage(base, role, action, &calls, dice))
            }
            Request::Simulate { simulation, first, runs } => state.simulate(&mut output, &simulation, first, runs),
            Request::Lab { table, seed, first, runs } => state.lab(&mut output, &table, seed, first, runs),
            Request::Probe => write_frame(&mut output, &Reply::Probed(probe(wall.clone()))),
        };
        if sent.is_err() {
            return 0;
        }
    }
}

fn failure(e: ActError) -> Reply {
    Reply::Failed(match e {
        ActError::Refused(s) | ActError::Script(s) | ActError::Limit(s) => Failure::Script(s),
        ActError::Dice(d) => Failure::Dice(d),
        other => Failure::Other(other.to_string()),
    })
}

impl State {
    fn manifest(&self) -> Option<Arc<Manifest>> {
        self.plugin.as_ref().map(|p| p.manifest.clone())
    }

    /// The base table, if the worker has it.
    fn base(&mut self, base: Base) -> Option<(TableId, &Table)> {
        match base {
            Base::Given(id, table) => self.current = Some((id, *table)),
            Base::Known(id) => {
                if self.current.as_ref().map(|c| c.0) != Some(id) {
                    match self.pending.take() {
                        Some(p) if p.0 == id => self.current = Some(p),
                        _ => return None,
                    }
                }
            }
        }
        self.pending = None;
        self.current.as_ref().map(|(id, t)| (*id, t))
    }

    fn stage(
        &mut self,
        base: Base,
        role: Role,
        action: Option<(String, Map<String, Value>)>,
        calls: &[Call],
        dice: DiceSupply,
    ) -> Reply {
        let Some(manifest) = self.manifest() else {
            return Reply::Failed(Failure::Other("no rules are loaded".into()));
        };
        let limits = self.limits.clone();
        let Some((id, table)) = self.base(base) else { return Reply::NeedTable };
        let tx = match &action {
            Some((name, params)) => match action::begin(&manifest, table, &role, name, params, dice, &limits) {
                Ok(tx) => tx,
                Err(e) => return failure(e),
            },
            None => Tx::new(table.clone(), manifest.clone(), role, None, dice).with_caps(limits.caps.clone()),
        };
        arm(&limits);
        let plugin = self.plugin.as_ref().expect("the manifest came from the plugin");
        match in_time(action::run(plugin, tx, calls)) {
            Ok(staged) => {
                self.pending = Some((id.next(), staged.tx.table));
                Reply::Staged { items: staged.tx.items, result: staged.result, log: staged.log }
            }
            Err(e) => failure(e),
        }
    }

    fn simulate(&mut self, output: &mut impl Write, s: &Simulation, first: u64, runs: u64) -> std::io::Result<()> {
        let (Some(plugin), Some(manifest)) = (self.plugin.as_ref(), self.manifest()) else {
            return write_frame(output, &Reply::Failed(Failure::Other("no rules are loaded".into())));
        };
        let mut batch = Vec::new();
        let mut sent = Instant::now();
        for i in 0..runs {
            let start = action::simulation_table(&s.table, first + i);
            let dice = DiceSupply::Seeded { seed: s.seed, entropy: None };
            let run =
                action::begin(&manifest, &start, &s.role, &s.action, &s.params, dice, &self.limits).and_then(|tx| {
                    arm(&self.limits);
                    in_time(action::run(plugin, tx, &s.calls))
                });
            match run {
                Ok(staged) => batch.push(staged.result),
                Err(e) => return write_frame(output, &failure(e)),
            }
            if sent.elapsed() >= BATCH_TIME {
                write_frame(output, &Reply::Simulated { results: std::mem::take(&mut batch), done: false })?;
                sent = Instant::now();
            }
        }
        write_frame(output, &Reply::Simulated { results: batch, done: true })
    }
}

impl State {
    /// Plays whole lab runs and sends their outcomes in batches.
    fn lab(
        &mut self,
        output: &mut impl Write,
        table: &Table,
        seed: [u8; 32],
        first: u64,
        runs: u64,
    ) -> std::io::Result<()> {
        let Some(plugin) = self.plugin.as_ref() else {
            return write_frame(output, &Reply::Failed(Failure::Other("no rules are loaded".into())));
        };
        let limits = self.limits.clone();
        let mut batch = Vec::new();
        // A whole run may take longer than the parent waits for a reply (each of its steps has
        // the deadline): while one is long, an empty batch every BATCH_TIME says the worker is
        // still playing. A write that fails is noted and ends the lab after the run.
        let output = std::cell::RefCell::new(output);
        let sent = std::cell::Cell::new(Instant::now());
        let broken = std::cell::Cell::new(false);
        let beat = || {
            arm(&limits);
            if sent.get().elapsed() >= BATCH_TIME {
                let alive = Reply::Simulated { results: Vec::new(), done: false };
                broken.set(broken.get() || write_frame(&mut **output.borrow_mut(), &alive).is_err());
                sent.set(Instant::now());
            }
        };
        for i in 0..runs {
            let start = action::simulation_table(table, first + i);
            match super::lab::play(plugin, &limits, start, seed, &beat, &in_time) {
                Ok(outcome) => batch.push(outcome),
                Err(e) => return write_frame(&mut **output.borrow_mut(), &failure(e)),
            }
            if broken.get() {
                return Err(std::io::Error::other("the parent stopped listening"));
            }
            if sent.get().elapsed() >= BATCH_TIME {
                let results = std::mem::take(&mut batch);
                write_frame(&mut **output.borrow_mut(), &Reply::Simulated { results, done: false })?;
                sent.set(Instant::now());
            }
        }
        let done = write_frame(&mut **output.borrow_mut(), &Reply::Simulated { results: batch, done: true });
        done
    }
}

/// Tries what the wall must refuse, and reports what happened.
fn probe(wall: os::Wall) -> Probe {
    let outcome = |r: std::io::Result<()>| match r {
        Ok(()) => "allowed".to_string(),
        Err(e) => format!("refused: {e}"),
    };
    let dir = std::env::temp_dir().join(format!("houserule-probe-{}", std::process::id()));
    let attempts = vec![
        ("create a file".to_string(), outcome(std::fs::File::create(&dir).map(|_| ()))),
        ("open a file".to_string(), outcome(std::fs::File::open("/dev/null").map(|_| ()))),
        ("open a network connection".to_string(), outcome(std::net::TcpStream::connect(("127.0.0.1", 9)).map(|_| ()))),
        ("listen on a port".to_string(), outcome(std::net::TcpListener::bind(("127.0.0.1", 0)).map(|_| ()))),
        ("start a process".to_string(), outcome(std::process::Command::new("/bin/true").status().map(|_| ()))),
        ("start a thread".to_string(), outcome(std::thread::Builder::new().spawn(|| ()).map(|_| ()))),
    ];
    Probe { wall, attempts }
}
