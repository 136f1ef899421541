//! The desktop app's entry point: `houserule-desktop [CAMPAIGN_FILE]`.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    houserule_desktop::run();
}
