// The calls every front end offers, declared once:
// `Variant "name" (Params) -> Result, Who => service::handler;`.
// This file is read by `calls/mod.rs` (the call enum, its metadata and schemas), by
// `front/mod.rs` (the dispatcher: each call goes to its handler in a service of `front/`) and by
// the desktop shell's build script (the Tauri commands and the window's capability), so adding
// a call is one line here and its handler in one service.
calls! {
    /// Who the caller is, and the campaign in play. A browser joins here with its join link's
    /// token (a player) or the GM's secret; the server binds the connection to that role for life.
    Hello "hello" (Join) -> Joined, Anyone => play::hello;
    /// The rulesets a campaign can be created on, with the settings a GM may pick.
    Rulesets "rulesets" (Nothing) -> Vec<RulesetChoice>, Gm => files::rulesets;
    /// Creates a campaign on a ruleset and plays it.
    Create "create" (Create) -> CampaignInfo, Gm => files::create;
    /// Opens a campaign file and plays it.
    Open "open" (Open) -> CampaignInfo, Local => files::open;
    /// Closes the campaign in play (whatever serves or referees it stops first); whether one was
    /// open. The desktop's File → Close.
    Close "close" (Nothing) -> bool, Local => files::close;
    /// Recently opened campaign files, newest first.
    Recent "recent" (Nothing) -> Vec<std::path::PathBuf>, Local => files::recent;
    /// The campaign in play, if any.
    Campaign "campaign" (Nothing) -> Option<CampaignInfo>, Anyone => play::campaign;
    /// The table as the caller (or, for the GM, the player named by `as`) may see it.
    View "view" (As) -> View, Anyone => play::view;
    /// The actions the viewer may take now, as forms.
    Actions "actions" (As) -> Vec<ActionForm>, Anyone => play::actions;
    /// A page of the log as the viewer may see it: the newest `limit` events from `from` on,
    /// before `before` (keyset paging: the cost is the page, not the log).
    Log "log" (LogPage) -> Vec<LogEntry>, Anyone => history::log;
    /// What the viewer sees now, in one call: the view, the action forms, and the log since
    /// `from` (without `from`, its newest page) — all as of the same event.
    Table "table" (TableSince) -> TableNow, Anyone => history::table;
    /// The chance of success of an action with the parameters typed so far (nothing is rolled
    /// or kept): for the forms whose rules can say it (`odds` on the form).
    Odds "odds" (OddsOf) -> FormOdds, Anyone => play::odds;
    /// Takes an action; the parameters go as typed, the engine parses them.
    Act "act" (crate::request::ActRequest) -> Acted, Anyone => play::act;
    /// Writes a post: in or out of character, to everyone, to the GM, or a whisper between the
    /// GM and one player (nobody else receives it, by any path).
    Say "say" (crate::request::PostRequest) -> LogEntry, Anyone => play::say;
    /// Replaces the text of one's own post while no action was taken since (the original stays
    /// in the log).
    EditPost "edit_post" (EditPost) -> LogEntry, Anyone => play::edit_post;
    /// Notes that the caller has read the log up to event `seq`; answers the mark kept.
    MarkRead "mark_read" (ReadTo) -> u64, Anyone => history::mark_read;
    /// One log entry, as the caller sees it, as a forum post with its verify line.
    ForumPost "forum_post" (ForumOf) -> String, Anyone => history::forum_post;
    /// Takes back the latest action, or every action after event `to`; they stay in the log, voided.
    Undo "undo" (UndoTo) -> LogEntry, Gm => gm::undo;
    /// Sets a field, a pool count or a trait by hand, with the GM's reason.
    Correct "correct" (Correct) -> LogEntry, Gm => gm::correct;
    /// Lets a player type in their own dice over the network, or stops it (a public event).
    AllowTypedDice "allow_typed_dice" (TypedDice) -> LogEntry, Gm => gm::allow_typed_dice;
    /// Shows players anyone in the turn order hidden from them as "someone" in their place (no
    /// name, no id, no initiative), or leaves such participants out of their order (a public
    /// event).
    SomeoneInTurns "someone_in_turns" (SomeoneInTurns) -> LogEntry, Gm => gm::someone_in_turns;
    /// Prepares the scenes: makes, changes, shows or removes a scene; places, changes, hides or
    /// removes a token; turns fog on or off, reveals or covers cells or a polygon. Told to the GM
    /// only; undone like an action.
    Scene "scene" (crate::campaign::SceneOp) -> LogEntry, Gm => scene::scene;
    /// Writes, reveals (to everyone or to chosen players), takes back or removes a handout: a
    /// title, light Markdown and an optional picture. Until revealed to a player, nothing of it
    /// reaches them; undone like an action.
    Handout "handout" (crate::campaign::HandoutOp) -> LogEntry, Gm => scene::handout;
    /// Moves a token along a path of cells (the first where it stands): the GM any token, a
    /// player their own (or any they see where the scene allows); the rules' move hook may
    /// refuse it, and then nothing is kept.
    Move "move" (MoveToken) -> LogEntry, Anyone => scene::move_token;
    /// Measures a path on a grid as the rules do (the ruler): its length in cells and in the
    /// grid's unit, and whether it runs straight. Reads nothing of the table.
    Measure "measure" (MeasurePath) -> Measured, Anyone => scene::measure;
    /// Imports a picture (PNG, JPEG or WebP, at most 25 MB and 16384×16384 pixels) into the
    /// campaign file: decoded whole first, then kept with the event that adds it, or refused
    /// naming the file and the limit with nothing kept.
    ImportPicture "import_picture" (ImportPicture) -> Imported, Gm => pictures::import;
    /// A picture as the caller may see it, by key: the GM any picture by its digest; a player a
    /// handout's picture by its digest once the handout is revealed to them;
    /// the background of the scene shown to them by its map key (fogged areas black, made on
    /// this machine) or the image of a token they see.
    Picture "picture" (PictureKey) -> PictureData, Anyone => pictures::picture;
    /// The scene the viewer is shown, drawn as a PNG as they see it (the map with the fog
    /// blacked out for a player, the grid, the tokens they see) with a line per token; none when
    /// no scene is shown to them. What a Matrix room is sent and a forum post attaches.
    ScenePicture "scene_picture" (As) -> Option<SceneDrawing>, Anyone => pictures::scene_picture;
    /// Makes a player's join link (shown once; replaces the player's older link).
    Invite "invite" (PlayerName) -> NewInvite, Gm => gm::invite;
    /// The players with a join link, and when each was made and last used.
    Invites "invites" (Nothing) -> Vec<Invite>, Gm => gm::invites;
    /// Ends a player's join link; whether there was one.
    RevokeInvite "revoke_invite" (PlayerName) -> bool, Gm => gm::revoke_invite;
    /// Whether the table is served to browsers: its address and who is connected (none: it is
    /// not served).
    Hosting "hosting" (Nothing) -> Option<Serving>, Gm => ports::hosting;
    /// Starts serving the campaign in play to browsers, from the desktop app (players join with
    /// their join links; the window plays on). Opening another campaign stops it.
    HostStart "host_start" (HostStart) -> Serving, Local => ports::host_start;
    /// Opens the table served to this computer only to the network as well, or closes it to
    /// other computers again (their connections end), while it runs: nobody is dropped by
    /// opening it. The GM in a browser may do it as the desktop GM does.
    HostReach "host_reach" (SetReach) -> Serving, Gm => ports::host_reach;
    /// Stops serving: every browser is disconnected. Whether it was serving.
    HostStop "host_stop" (Nothing) -> bool, Local => ports::host_stop;
    /// The campaign's room online (Matrix), who is seated there, and whether the referee answers
    /// it (none: not linked, or this program cannot play online).
    Online "online" (Nothing) -> Option<Online>, Gm => ports::online;
    /// Links the campaign in play to a room as the GM's account (the password logs in once and
    /// is kept nowhere) and starts refereeing it: players act by `!hr` messages.
    OnlineLink "online_link" (OnlineLink) -> Online, Local => ports::online_link;
    /// Seats a player's account: invited to the room and to a direct room for what only that
    /// player may see (a player has one account: an older one loses the seat).
    OnlineInvite "online_invite" (OnlineInvite) -> Online, Local => ports::online_invite;
    /// Starts refereeing the linked campaign (it starts by itself when the campaign is opened).
    OnlineStart "online_start" (Nothing) -> Online, Local => ports::online_start;
    /// Stops refereeing: requests wait in the room until it starts again. Whether it ran.
    OnlineStop "online_stop" (Nothing) -> bool, Local => ports::online_stop;
    /// Writes a copy of the campaign in play to share, from the desktop app: in full (for another
    /// GM: seed included, no join links) or for one player (what they may not see redacted to
    /// its digest; it still verifies). The path must not exist yet.
    ShareCopy "share_copy" (ShareCopy) -> crate::share::ShareReport, Local => gm::share_copy;
    /// A copy of the campaign in play, as a file to download (the GM in a browser): in full or
    /// for one player, made as `share_copy` makes it.
    ShareDownload "share_download" (CopyFor) -> Download, Gm => gm::share_download;
    /// Verifies the campaign in play: every check `houserule verify` makes, with the file's seed.
    Verify "verify" (Nothing) -> crate::verify::VerifyReport, Gm => gm::verify;
    /// Removes a player from the table: their join link ends, then their connections close (a
    /// new link lets them back).
    RemovePlayer "remove_player" (PlayerName) -> Removed, Gm => gm::remove_player;
    /// The ruleset's manifest: the labels of kinds, fields and pools.
    Manifest "manifest" (Nothing) -> Manifest, Anyone => rules::manifest;
    /// The house rules and the ruleset's scripts, for the editor.
    HouseRules "house_rules" (Nothing) -> HouseRulesState, Gm => rules::house_rules;
    /// Saves a house rule: checked in the sandbox, then swapped in, or refused with its place.
    SaveHouseRule "save_house_rule" (SaveHouseRule) -> Option<ReloadReport>, Gm => rules::save_house_rule;
    /// Removes a house rule.
    RemoveHouseRule "remove_house_rule" (HouseRuleName) -> Option<ReloadReport>, Gm => rules::remove_house_rule;
    /// Keeps a house rule the GM's alone, or shares it again: a secret one is never sent to a
    /// player (not its name, its source nor what it does). Answers the secret names now.
    HouseRuleSecret "house_rule_secret" (HouseRuleSecret) -> Vec<String>, Gm => rules::house_rule_secret;
    /// The rules as the caller may read them: the ruleset's README, each house rule in force
    /// with its source and what it does, and what the last change of the rules changed.
    RuleBook "rule_book" (Nothing) -> RuleBook, Anyone => rules::rule_book;
    /// Starts the balance lab from the table as it stands: the scene played `times` times by the
    /// ruleset's policy, under the ruleset alone and with the campaign's house rules, in the
    /// background (a lab already running is stopped first). The table plays on meanwhile.
    LabStart "lab_start" (LabStart) -> LabProgress, Gm => lab::start;
    /// Where the balance lab stands: runs so far, win rates, histograms (none: no lab yet).
    Lab "lab" (Nothing) -> Option<LabProgress>, Gm => lab::progress;
    /// Stops the balance lab after the round it is playing; answers where it stands.
    LabStop "lab_stop" (Nothing) -> Option<LabProgress>, Gm => lab::stop;
}
