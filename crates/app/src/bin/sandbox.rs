//! `houserule-sandbox`: only a sandbox worker. The programs users run (`houserule`, the desktop
//! app) start themselves as their workers; this small program stands in for them where the
//! running program is a test harness (this crate's integration tests and benchmarks).

#[allow(clippy::print_stderr, reason = "a program saying how it is meant to be run")]
fn main() {
    houserule_app::sandbox::run_if_requested();
    eprintln!("houserule-sandbox runs only as a sandbox worker ({})", houserule_app::sandbox::WORKER_ARG);
    std::process::exit(2);
}
