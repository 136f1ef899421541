//! The desktop app's entry point: `houserule-desktop [CAMPAIGN_FILE]`. The same program is
//! also its own sandbox worker (`houserule_app::sandbox`).
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    houserule_app::sandbox::run_if_requested();
    houserule_desktop::run();
}
