//! Handouts in the room: `!hr handouts` gives the sender the handouts they may read.
//!
//! Guarantee: what is said is the handouts of a view — the room's is the public one (only
//! handouts revealed to everyone), a player's own (those revealed to them by name too) goes to
//! their direct room only — so a handout reaches nobody it was not revealed to.

use houserule_core::view::View;

/// The handouts of a view, each its title and its Markdown text, for a message.
pub fn text(view: &View) -> String {
    if view.handouts.is_empty() {
        return "No handout has been shown to you.".to_string();
    }
    let each = view.handouts.iter().map(|h| {
        let picture = if h.picture.is_some() { " (with a picture: open the table to see it)" } else { "" };
        if h.text.trim().is_empty() {
            format!("Handout “{}”{picture}", h.title)
        } else {
            format!("Handout “{}”{picture}\n{}", h.title, h.text.trim_end())
        }
    });
    each.collect::<Vec<_>>().join("\n\n")
}
