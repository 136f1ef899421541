//! The dispatcher, made from the one list of calls (`calls/list.rs`): each call goes to the
//! handler its line names, and its answer is written as JSON text. Adding a call is a line in
//! the list and its handler in one service; nothing here changes.

use super::{files, gm, history, lab, pictures, play, ports, rules, scene, Answer, App};
use crate::calls::*;
use crate::campaign::FormOdds;
use crate::invites::{Invite, NewInvite};
use crate::lab::LabProgress;
use crate::online::Online;
use crate::reload::ReloadReport;
use crate::serving::Serving;
use crate::Acted;
use houserule_core::manifest::Manifest;
use houserule_core::view::{ActionForm, CampaignInfo, LogEntry, View};
use houserule_core::ErrorReport;

macro_rules! calls {
    ($( $(#[doc = $doc:literal])* $variant:ident $name:literal ($params:ty) -> $result:ty, $who:ident
        => $service:ident :: $handler:ident; )*) => {
        impl App {
            /// Hands `call` to its handler (who may make it is checked already).
            pub(super) fn dispatch(&self, caller: &Caller, call: Call) -> Result<String, ErrorReport> {
                match call {
                    $( Call::$variant(p) => Answer::<$result>::from($service::$handler(self, caller, p)?).into_text(), )*
                }
            }
        }
    };
}

include!("../calls/list.rs");
