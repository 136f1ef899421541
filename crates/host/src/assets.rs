//! The web UI's files, built into the binary from `ui/dist`.

mod built {
    include!(concat!(env!("OUT_DIR"), "/ui.rs"));
}

/// The file at `path` (`index.html` for the root) and its content type.
pub fn get(path: &str) -> Option<(&'static [u8], &'static str)> {
    let path = path.trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    built::UI.iter().find(|(p, _)| *p == path).map(|(p, bytes)| (*bytes, content_type(p)))
}

/// A file of a UI folder, for development: only paths inside the folder.
pub fn from_folder(dir: &std::path::Path, path: &str) -> Option<(Vec<u8>, &'static str)> {
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() { "index.html" } else { rel };
    if rel.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    }
    let file = dir.join(rel);
    std::fs::read(&file).ok().map(|bytes| (bytes, content_type(rel)))
}

pub fn built() -> bool {
    !built::UI.is_empty()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    }
}
