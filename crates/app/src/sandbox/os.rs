//! The operating system's wall around the sandbox worker, set up before any script is read.
//!
//! On Linux ([`confine`]):
//! - every inherited file descriptor but the three pipes is closed;
//! - `RLIMIT_DATA` caps its memory, `RLIMIT_CPU` its CPU time, `RLIMIT_FSIZE = 0` and
//!   `RLIMIT_CORE = 0` keep it from writing any file (a crash leaves no core dump),
//!   `RLIMIT_NOFILE = 3` from opening any new descriptor, and `RLIMIT_NPROC = 0` from starting
//!   processes;
//! - a seccomp filter (installed on every thread) allows only the system calls a running script
//!   needs — reading and writing its pipes, memory, futexes, signals, clocks, random numbers,
//!   exiting — and fails every other one with `EPERM`: no file can be opened or created, no
//!   socket made, no process or thread started, no limit raised.
//!
//! On other Unix systems the resource limits apply and the filter does not exist; elsewhere
//! only the worker's separate process and the deadline the parent enforces remain (see
//! DESIGN.md). [`Wall`] says which parts are in force, for `houserule sandbox`.

use serde::{Deserialize, Serialize};

/// What the operating system enforces on this worker.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Wall {
    /// Memory cap in bytes, if one is set.
    pub memory_bytes: Option<u64>,
    /// CPU seconds, if capped.
    pub cpu_seconds: Option<u64>,
    /// New files and descriptors are refused by resource limits.
    pub no_new_files: bool,
    /// The system-call filter is installed.
    pub syscall_filter: bool,
    /// What could not be set up, if anything.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

/// Ends this process once the process that started it is gone, checking every `every`: a
/// worker outlives its parent by at most that long, even in the middle of a script. (Unlike
/// `PR_SET_PDEATHSIG`, this follows the parent process, not the thread that happened to start
/// the worker, which a thread pool may retire at any time.)
#[cfg(unix)]
pub fn follow_parent(every: std::time::Duration) {
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    let _ = std::thread::Builder::new().name("houserule-sandbox-parent".into()).spawn(move || loop {
        std::thread::sleep(every);
        // SAFETY: as above.
        if unsafe { libc::getppid() } != parent {
            std::process::exit(0);
        }
    });
}

#[cfg(not(unix))]
pub fn follow_parent(_every: std::time::Duration) {}

/// Limits the current process before threads start; the filter comes in [`filter`].
#[cfg(unix)]
pub fn confine(memory_bytes: u64, cpu_seconds: u64) -> Wall {
    let mut wall = Wall::default();
    #[cfg(target_os = "linux")]
    // SAFETY: a plain system call on this process with constant arguments.
    unsafe {
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
    }
    let set = |resource, value: u64, what: &str, wall: &mut Wall| -> bool {
        let limit = libc::rlimit { rlim_cur: value as libc::rlim_t, rlim_max: value as libc::rlim_t };
        // SAFETY: setrlimit reads the struct we pass.
        let ok = unsafe { libc::setrlimit(resource, &limit) } == 0;
        if !ok {
            wall.missing.push(format!("{what}: {}", std::io::Error::last_os_error()));
        }
        ok
    };
    if set(libc::RLIMIT_DATA, memory_bytes, "memory limit", &mut wall) {
        wall.memory_bytes = Some(memory_bytes);
    }
    if set(libc::RLIMIT_CPU, cpu_seconds, "CPU limit", &mut wall) {
        wall.cpu_seconds = Some(cpu_seconds);
    }
    set(libc::RLIMIT_CORE, 0, "no core dumps", &mut wall);
    let files = set(libc::RLIMIT_FSIZE, 0, "no file writes", &mut wall);
    wall.no_new_files = files;
    wall
}

/// After the script thread has started: no more descriptors, processes or threads.
#[cfg(unix)]
pub fn close_doors(wall: &mut Wall) {
    for (resource, what) in [(libc::RLIMIT_NOFILE, "no new descriptors"), (libc::RLIMIT_NPROC, "no new processes")] {
        let value = if resource == libc::RLIMIT_NOFILE { 3 } else { 0 };
        let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
        // SAFETY: setrlimit reads the struct we pass.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            wall.no_new_files &= resource != libc::RLIMIT_NOFILE;
            wall.missing.push(format!("{what}: {}", std::io::Error::last_os_error()));
        }
    }
}

#[cfg(not(unix))]
pub fn confine(_memory_bytes: u64, _cpu_seconds: u64) -> Wall {
    Wall { missing: vec!["resource limits: not available on this platform".into()], ..Wall::default() }
}

#[cfg(not(unix))]
pub fn close_doors(_wall: &mut Wall) {}

/// Installs the system-call filter on every thread of the process.
#[cfg(target_os = "linux")]
pub fn filter(wall: &mut Wall) {
    match install_filter() {
        Ok(()) => wall.syscall_filter = true,
        Err(e) => wall.missing.push(format!("system-call filter: {e}")),
    }
}

#[cfg(not(target_os = "linux"))]
pub fn filter(wall: &mut Wall) {
    wall.missing.push("system-call filter: only on Linux".into());
}

#[cfg(target_os = "linux")]
fn install_filter() -> Result<(), String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
        TargetArch,
    };
    use std::collections::BTreeMap;

    let arch: TargetArch = std::env::consts::ARCH.try_into().map_err(|e| format!("{e:?}"))?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for call in ALLOWED {
        rules.insert(*call, vec![]);
    }
    // Signals only to this process itself (abort raises SIGABRT with tgkill).
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() } as u64;
    let own = SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, pid).map_err(|e| e.to_string())?;
    rules.insert(libc::SYS_tgkill, vec![SeccompRule::new(vec![own.clone()]).map_err(|e| e.to_string())?]);
    rules.insert(libc::SYS_kill, vec![SeccompRule::new(vec![own]).map_err(|e| e.to_string())?]);
    let filter = SeccompFilter::new(rules, SeccompAction::Errno(libc::EPERM as u32), SeccompAction::Allow, arch)
        .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter.try_into().map_err(|e: seccompiler::BackendError| e.to_string())?;
    seccompiler::apply_filter_all_threads(&program).map_err(|e| e.to_string())
}

/// The system calls a worker needs once its threads run.
#[cfg(target_os = "linux")]
const ALLOWED: &[i64] = &[
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_readv,
    libc::SYS_writev,
    libc::SYS_close,
    libc::SYS_fstat,
    libc::SYS_lseek,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_mprotect,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_futex,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_sigaltstack,
    libc::SYS_clock_gettime,
    libc::SYS_clock_nanosleep,
    libc::SYS_nanosleep,
    libc::SYS_getrandom,
    libc::SYS_gettid,
    libc::SYS_getpid,
    libc::SYS_getppid,
    libc::SYS_restart_syscall,
    libc::SYS_rseq,
    libc::SYS_set_robust_list,
    libc::SYS_exit,
    libc::SYS_exit_group,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_poll,
    libc::SYS_ppoll,
];
