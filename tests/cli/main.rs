//! CLI contract tests: each command run as a user would, its `--json` output checked against
//! the schema in `schemas/`, its exit status and its messages.

mod architecture;
mod campaign;
mod file_gone;
mod house;
mod modules;
mod odds;
mod plugins;
mod reach;
mod rolls;
mod scene;
mod schemas;
mod serve;
mod sharing;
mod statistics;
mod support;
mod talk;
mod terminal;
mod undo;
