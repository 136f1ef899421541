//! The window's File menu: New campaign, Open, Open Recent, Close campaign and Quit.
//!
//! The shell only adapts: a choice is handed to the page as a [`MENU_EVENT`] event and the page
//! answers it with the same calls its own buttons make (create, open, close), so a choice made
//! in the menu and one made on the page cannot differ. Open Recent lists the app's recent files
//! (the `recent` call) and Close is enabled only while a campaign is open; both follow the app's
//! events, so the menu is made again whenever a campaign is opened or closed.

use houserule_app::calls::{Call, Caller, Front};
use houserule_app::front::App;
use houserule_core::Role;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Mutex;
use tauri::menu::{Menu, MenuEvent, MenuItemBuilder, SubmenuBuilder};
use tauri::{AppHandle, Emitter, Manager, Runtime};

/// The event the page hears a menu choice by.
pub const MENU_EVENT: &str = "houserule-menu";

/// A choice made in the menu, as the page hears it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum MenuChoice {
    New,
    Open,
    OpenRecent { path: PathBuf },
    Close,
}

/// The recent files the menu lists, in its order (an item's id is its place here).
#[derive(Default)]
pub struct Listed(Mutex<Vec<PathBuf>>);

const RECENT: &str = "recent:";

/// What the menu item `id` stands for (quitting is not a choice the page hears).
pub fn choice(id: &str, listed: &Listed) -> Option<MenuChoice> {
    match id {
        "new" => Some(MenuChoice::New),
        "open" => Some(MenuChoice::Open),
        "close" => Some(MenuChoice::Close),
        _ => {
            let n: usize = id.strip_prefix(RECENT)?.parse().ok()?;
            let listed = listed.0.lock().unwrap_or_else(|p| p.into_inner());
            listed.get(n).map(|path| MenuChoice::OpenRecent { path: path.clone() })
        }
    }
}

/// The person at the computer, as the window's own calls are made.
fn gm() -> Caller {
    Caller::new(Role::Gm, &std::sync::Arc::new(Front::desktop()))
}

fn recent(app: &App) -> Vec<PathBuf> {
    Call::read("recent", serde_json::Value::Null)
        .and_then(|c| app.call(&gm(), c))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// The menu as it should be now: recent files from `app`, Close only with a campaign open.
pub fn make<R: Runtime>(handle: &AppHandle<R>, app: &App, listed: &Listed) -> tauri::Result<Menu<R>> {
    let files = recent(app);
    let mut open_recent = SubmenuBuilder::new(handle, "Open &Recent");
    for (n, path) in files.iter().enumerate() {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |f| f.to_string_lossy().into_owned());
        open_recent = open_recent.item(&MenuItemBuilder::with_id(format!("{RECENT}{n}"), name).build(handle)?);
    }
    let open_recent = open_recent.enabled(!files.is_empty()).build()?;
    *listed.0.lock().unwrap_or_else(|p| p.into_inner()) = files;
    let close = MenuItemBuilder::with_id("close", "&Close campaign")
        .accelerator("CmdOrCtrl+W")
        .enabled(app.current().is_some())
        .build(handle)?;
    let file = SubmenuBuilder::new(handle, "&File")
        .item(&MenuItemBuilder::with_id("new", "&New campaign…").accelerator("CmdOrCtrl+N").build(handle)?)
        .item(&MenuItemBuilder::with_id("open", "&Open…").accelerator("CmdOrCtrl+O").build(handle)?)
        .item(&open_recent)
        .separator()
        .item(&close)
        .separator()
        .item(&MenuItemBuilder::with_id("quit", "&Quit").accelerator("CmdOrCtrl+Q").build(handle)?)
        .build()?;
    Menu::with_items(handle, &[&file])
}

/// Makes the menu again and puts it on the app (after a campaign was opened or closed).
pub fn refresh<R: Runtime>(handle: &AppHandle<R>) {
    let (Some(app), Some(listed)) = (handle.try_state::<App>(), handle.try_state::<Listed>()) else { return };
    if let Ok(menu) = make(handle, &app, &listed) {
        let _ = handle.set_menu(menu);
    }
}

/// Answers a menu choice: Quit ends the app, every other choice goes to the page.
pub fn on_event<R: Runtime>(handle: &AppHandle<R>, event: MenuEvent) {
    if event.id().as_ref() == "quit" {
        handle.exit(0);
        return;
    }
    let Some(listed) = handle.try_state::<Listed>() else { return };
    if let Some(choice) = choice(event.id().as_ref(), &listed) {
        let _ = handle.emit(MENU_EVENT, &choice);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_stands_for_its_choice_and_a_recent_file_for_its_place_in_the_list() {
        let listed = Listed(Mutex::new(vec![PathBuf::from("/games/a.houserule"), PathBuf::from("/games/b.houserule")]));
        assert_eq!(choice("new", &listed), Some(MenuChoice::New));
        assert_eq!(choice("close", &listed), Some(MenuChoice::Close));
        assert_eq!(choice("recent:1", &listed), Some(MenuChoice::OpenRecent { path: "/games/b.houserule".into() }));
        assert_eq!(choice("recent:2", &listed), None, "no third file");
        assert_eq!(choice("recent:x", &listed), None);
        assert_eq!(choice("quit", &listed), None, "quitting is the shell's");
        let json = serde_json::to_value(MenuChoice::OpenRecent { path: "/g/a.houserule".into() }).unwrap();
        assert_eq!(json, serde_json::json!({"item": "open_recent", "path": "/g/a.houserule"}));
    }
}
