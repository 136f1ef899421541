// The table screen: a header (campaign, who is looking, the GM's view switch and tabs), then
// actions | table | log side by side, the rules everyone reads, the handouts (a player: once shown one), or (the GM's) the house rules,
// the players (join links and dice by hand), the balance lab. On a narrow screen the table shows
// one panel at a time, picked in the same bar as the other screens (Table, Actions, Log): one
// navigation bar. Landmarks: the header is the banner, each screen is the main.

import { useEffect, useMemo, useState } from "preact/hooks";
import type { State, Store } from "../store";
import { useStore } from "../store";
import type { Diagnostic, View } from "../contract";
import { playerNames, roleName } from "../format";
import { Board } from "./board";
import { ActionsPanel } from "./actions";
import { LogPanel } from "./log";
import { PostBox } from "./post";
import { HouseRules } from "./rules";
import { RuleBookScreen } from "./rulebook";
import { HandoutsScreen } from "./handouts";
import { PlayersPanel } from "./players";
import { BalanceLab } from "./balance";
import { OnlinePanel } from "./online";
import { OPEN_ACTION, TurnTracker } from "./turns";
import { SceneMap } from "./map";
import { Diagnostics, ErrorBox } from "../ui/errors";

type Pane = "table" | "actions" | "log";
type Tab = "table" | "book" | "handouts" | "rules" | "players" | "online" | "balance";

/** Whether a media query matches now (and re-renders when that changes). */
function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => typeof matchMedia === "function" && matchMedia(query).matches);
  useEffect(() => {
    if (typeof matchMedia !== "function") return;
    const m = matchMedia(query);
    const update = () => setMatches(m.matches);
    update();
    m.addEventListener("change", update);
    return () => m.removeEventListener("change", update);
  }, [query]);
  return matches;
}

export function TableScreen({ store }: { store: Store }) {
  const s = useStore(store);
  const gm = s.role === "gm";
  const [tab, setTab] = useState<Tab>("table");
  const [pane, setPane] = useState<Pane>("table");
  // One panel at a time on a narrow screen (the same width as the stylesheet's).
  const narrow = useMedia("(max-width: 960px)");
  // A turn control that needs choices opens its form: on a narrow screen, show the Actions panel.
  useEffect(() => {
    const show = () => setPane("actions");
    window.addEventListener(OPEN_ACTION, show);
    return () => window.removeEventListener(OPEN_ACTION, show);
  }, []);
  const [rulesOpened, setRulesOpened] = useState(false);
  const openTab = (t: Tab) => {
    if (t === "rules") setRulesOpened(true);
    setTab(t);
  };
  const previewing = gm && s.viewAs !== "gm" ? roleName(s.viewAs) : null;

  return (
    <div class={`table-screen ${previewing ? "previewing" : ""}`}>
      <header class="topbar">
        <div class="title">
          <span class="brand small-brand">Houserule</span>
          <h1>{s.campaign!.name || "Campaign"}</h1>
          <span class="ruleset-tag">
            {s.campaign!.ruleset.name} <span class="muted">v{s.campaign!.ruleset.version}</span>
          </span>
        </div>
        <Tabs
          tab={tab}
          pane={narrow ? pane : null}
          gm={gm}
          desktop={s.host === "desktop"}
          handouts={s.view?.handouts?.length ?? 0}
          onTab={openTab}
          onPane={setPane}
        />
        <Who store={store} state={s} />
      </header>
      {previewing && (
        <div class="preview-banner" role="status">
          You are looking at the table as <strong>{previewing}</strong> sees it; actions here are taken as {previewing}.{" "}
          <button type="button" class="linklike" onClick={() => void store.setViewAs("gm")}>
            Back to the GM's view
          </button>
        </div>
      )}
      {gm && tab === "table" && s.reloadProblems && s.reloadProblems.length > 0 && <ReloadProblems store={store} problems={s.reloadProblems} />}
      {s.fileGone && (
        <div class="notice failure banner" role="alert">
          <strong class="notice-title">The campaign file is gone: nothing more is kept.</strong> {s.fileGone}
        </div>
      )}
      {s.loadError && <ErrorBox error={s.loadError} title="Could not update the table" />}
      {gm && <GmScreens store={store} tab={tab} rulesOpened={rulesOpened} />}
      {tab === "book" && (
        <div class="book-wrap">
          <RuleBookScreen store={store} />
        </div>
      )}
      {tab === "handouts" && (
        <div class="book-wrap">
          <HandoutsScreen store={store} />
        </div>
      )}
      <div class="play-wrap" hidden={tab !== "table"}>
        <Play store={store} state={s} tab={tab} pane={pane} narrow={narrow} previewing={previewing} />
      </div>
    </div>
  );
}

/** The screens' tabs; with `pane` (a narrow screen), the table's panels are tabs of their own. */
function Tabs({
  tab,
  pane,
  gm,
  desktop,
  handouts,
  onTab,
  onPane,
}: {
  tab: Tab;
  pane: Pane | null;
  gm: boolean;
  desktop: boolean;
  handouts: number;
  onTab: (t: Tab) => void;
  onPane: (p: Pane) => void;
}) {
  const button = (t: Tab, label: string) => (
    <button type="button" role="tab" aria-selected={tab === t} onClick={() => onTab(t)}>
      {label}
    </button>
  );
  const panel = (p: Pane, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={tab === "table" && pane === p}
      onClick={() => {
        onPane(p);
        onTab("table");
      }}
    >
      {label}
    </button>
  );
  return (
    <div class="tabs" role="tablist" aria-label="Screens">
      {pane ? [panel("table", "Table"), panel("actions", "Actions"), panel("log", "Log")] : button("table", "Table")}
      {button("book", "Rules")}
      {(gm || handouts > 0) && button("handouts", handouts > 0 ? `Handouts (${handouts})` : "Handouts")}
      {gm && button("rules", "House rules")}
      {gm && button("players", "Players")}
      {gm && desktop && button("online", "Online")}
      {gm && button("balance", "Balance")}
    </div>
  );
}

/** Who is looking: the GM's view switch (a player's view to preview), or a player's name. */
function Who({ store, state: s }: { store: Store; state: State }) {
  const players = playerNames(s.gmView ?? s.view);
  if (s.role === "gm" && s.viewAs !== "gm" && !players.includes(roleName(s.viewAs))) players.push(roleName(s.viewAs));
  return (
    <div class="who">
      {s.loading && <span class="spinner" role="status" aria-label="Updating" />}
      {s.role === "gm" ? (
        <label class="field inline view-as">
          <span class="field-label">View as</span>
          <select value={s.viewAs} onChange={(e) => void store.setViewAs(e.currentTarget.value)}>
            <option value="gm">GM (everything)</option>
            {players.map((p) => (
              <option key={p} value={`player:${p}`}>
                {p}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <span class="you" aria-label="You are">
          {roleName(s.role)}
        </span>
      )}
    </div>
  );
}

function ReloadProblems({ store, problems }: { store: Store; problems: Diagnostic[] }) {
  return (
    <div class="notice failure banner" role="alert">
      <strong class="notice-title">Edited rules did not load; the table keeps playing with the previous rules.</strong>
      <Diagnostics items={problems} />
      <button type="button" class="small" onClick={() => store.dismissProblems()}>
        Dismiss
      </button>
    </div>
  );
}

/** The GM's other screens: the house rules stay mounted once opened (the editor keeps what is
 * typed), the others show while their tab is picked. */
function GmScreens({ store, tab, rulesOpened }: { store: Store; tab: Tab; rulesOpened: boolean }) {
  return (
    <>
      {rulesOpened && (
        <main class="rules-wrap" aria-label="House rules" hidden={tab !== "rules"}>
          <HouseRules store={store} />
        </main>
      )}
      {tab === "players" && (
        <main class="players-wrap" aria-label="Players">
          <PlayersPanel store={store} />
        </main>
      )}
      {tab === "online" && (
        <main class="online-wrap" aria-label="Online">
          <OnlinePanel store={store} />
        </main>
      )}
      {tab === "balance" && (
        <main class="balance-wrap" aria-label="Balance">
          <BalanceLab store={store} />
        </main>
      )}
    </>
  );
}

/** Actions | table | log side by side, or the one `pane` on a narrow screen. The main landmark
 * holds all three, the actions and the log as complementary parts. */
function Play({ store, state: s, tab, pane, narrow, previewing }: { store: Store; state: State; tab: Tab; pane: Pane; narrow: boolean; previewing: string | null }) {
  const me = s.viewAs.startsWith("player:") ? s.viewAs.slice("player:".length) : null;
  return s.view ? (
    <main class={`play pane-${pane}`} aria-label="Table">
      <aside class="col col-actions" aria-label="Actions">
        <ActionsPanel key={s.viewAs} store={store} actions={s.actions} view={s.view} previewing={previewing} />
      </aside>
      <div class="col col-table">
        <TurnTracker store={store} view={s.view} actions={s.actions} me={me} />
        <SceneMap store={store} view={s.view} me={me} />
        <Board store={store} view={s.view} manifest={s.manifest} gm={me === null} />
      </div>
      <aside class="col col-log" aria-label="Log panel">
        <Log store={store} state={s} view={s.view} shown={tab === "table" && (!narrow || pane === "log")} active={tab === "table"} />
      </aside>
    </main>
  ) : (
    <p class="muted loading-table" role="status">
      <span class="spinner" /> Setting the table…
    </p>
  );
}

function Log({ store, state: s, view, shown, active }: { store: Store; state: State; view: View; shown: boolean; active: boolean }) {
  const gm = s.role === "gm";
  const labels = useMemo(() => {
    const out: Record<string, string> = {};
    for (const [k, a] of Object.entries(s.manifest?.actions ?? {})) if (a.label) out[k] = a.label;
    for (const a of s.actions) out[a.name] = a.label;
    return out;
  }, [s.manifest, s.actions]);
  return (
    <LogPanel
      store={store}
      log={s.log}
      view={view}
      manifest={s.manifest}
      labels={labels}
      hasOlder={s.hasOlder}
      onOlder={() => store.loadOlder()}
      onUndo={gm ? (to?: number) => store.undo(to) : undefined}
      me={s.viewAs}
      shown={shown}
      unreadAfter={s.unreadAfter}
    >
      <PostBox key={s.viewAs} store={store} view={view} actions={s.actions} active={active} />
    </LogPanel>
  );
}
