// The table screen: a header (campaign, who is looking, the GM's view switch and tabs), then
// actions | table | log side by side (one at a time on a narrow screen), the house rules, the
// players (join links and dice by hand), or the balance lab.

import { useEffect, useMemo, useState } from "preact/hooks";
import type { Store } from "../store";
import { useStore } from "../store";
import { playerNames, roleName } from "../format";
import { Board } from "./board";
import { ActionsPanel } from "./actions";
import { LogPanel } from "./log";
import { PostBox } from "./post";
import { HouseRules } from "./rules";
import { PlayersPanel } from "./players";
import { BalanceLab } from "./balance";
import { OnlinePanel } from "./online";
import { Diagnostics, ErrorBox } from "../ui/errors";

type Pane = "table" | "actions" | "log";
type Tab = "table" | "rules" | "players" | "online" | "balance";

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
  const [rulesOpened, setRulesOpened] = useState(false);
  const openTab = (t: Tab) => {
    if (t === "rules") setRulesOpened(true);
    setTab(t);
  };
  const players = playerNames(s.gmView ?? s.view);
  if (gm && s.viewAs !== "gm" && !players.includes(roleName(s.viewAs))) players.push(roleName(s.viewAs));
  const labels = useMemo(() => {
    const out: Record<string, string> = {};
    for (const [k, a] of Object.entries(s.manifest?.actions ?? {})) if (a.label) out[k] = a.label;
    for (const a of s.actions) out[a.name] = a.label;
    return out;
  }, [s.manifest, s.actions]);
  const previewing = gm && s.viewAs !== "gm" ? roleName(s.viewAs) : null;
  // One panel at a time on a narrow screen (the same width as the stylesheet's).
  const narrow = useMedia("(max-width: 960px)");
  const logShown = tab === "table" && (!narrow || pane === "log");
  const campaign = s.campaign!;

  return (
    <div class={`table-screen ${previewing ? "previewing" : ""}`}>
      <header class="topbar">
        <div class="title">
          <span class="brand small-brand">Houserule</span>
          <h1>{campaign.name || "Campaign"}</h1>
          <span class="ruleset-tag">
            {campaign.ruleset.name} <span class="muted">v{campaign.ruleset.version}</span>
          </span>
        </div>
        {gm && (
          <div class="tabs" role="tablist" aria-label="Screens">
            <button type="button" role="tab" aria-selected={tab === "table"} onClick={() => openTab("table")}>
              Table
            </button>
            <button type="button" role="tab" aria-selected={tab === "rules"} onClick={() => openTab("rules")}>
              House rules
            </button>
            <button type="button" role="tab" aria-selected={tab === "players"} onClick={() => openTab("players")}>
              Players
            </button>
            {s.host === "desktop" && (
              <button type="button" role="tab" aria-selected={tab === "online"} onClick={() => openTab("online")}>
                Online
              </button>
            )}
            <button type="button" role="tab" aria-selected={tab === "balance"} onClick={() => openTab("balance")}>
              Balance
            </button>
          </div>
        )}
        <div class="who">
          {s.loading && <span class="spinner" role="status" aria-label="Updating" />}
          {gm ? (
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
      </header>

      {previewing && (
        <div class="preview-banner" role="status">
          You are looking at the table as <strong>{previewing}</strong> sees it; actions here are taken as {previewing}.{" "}
          <button type="button" class="linklike" onClick={() => void store.setViewAs("gm")}>
            Back to the GM's view
          </button>
        </div>
      )}
      {gm && tab === "table" && s.reloadProblems && s.reloadProblems.length > 0 && (
        <div class="notice failure banner" role="alert">
          <strong class="notice-title">Edited rules did not load; the table keeps playing with the previous rules.</strong>
          <Diagnostics items={s.reloadProblems} />
          <button type="button" class="small" onClick={() => store.dismissProblems()}>
            Dismiss
          </button>
        </div>
      )}
      {s.loadError && <ErrorBox error={s.loadError} title="Could not update the table" />}

      {gm && rulesOpened && (
        <div class="rules-wrap" hidden={tab !== "rules"}>
          <HouseRules store={store} />
        </div>
      )}
      {gm && tab === "players" && (
        <div class="players-wrap">
          <PlayersPanel store={store} />
        </div>
      )}
      {gm && tab === "online" && (
        <div class="online-wrap">
          <OnlinePanel store={store} />
        </div>
      )}
      {gm && tab === "balance" && (
        <div class="balance-wrap">
          <BalanceLab store={store} />
        </div>
      )}
      <div class="play-wrap" hidden={tab !== "table"}>
        <nav class="panes" aria-label="Panels">
          {(["table", "actions", "log"] as Pane[]).map((p) => (
            <button key={p} type="button" aria-pressed={pane === p} onClick={() => setPane(p)}>
              {p === "table" ? "Table" : p === "actions" ? "Actions" : "Log"}
            </button>
          ))}
        </nav>
        {s.view ? (
          <div class={`play pane-${pane}`}>
            <aside class="col col-actions" aria-label="Actions">
              <ActionsPanel key={s.viewAs} store={store} actions={s.actions} view={s.view} previewing={previewing} />
            </aside>
            <main class="col col-table" aria-label="Table">
              <Board view={s.view} manifest={s.manifest} />
            </main>
            <aside class="col col-log" aria-label="Log panel">
              <LogPanel
                store={store}
                log={s.log}
                view={s.view}
                manifest={s.manifest}
                labels={labels}
                hasOlder={s.hasOlder}
                onOlder={() => store.loadOlder()}
                onUndo={gm ? () => store.undo() : undefined}
                me={s.viewAs}
                shown={logShown}
                unreadAfter={s.unreadAfter}
              >
                <PostBox key={s.viewAs} store={store} view={s.view} actions={s.actions} active={tab === "table"} />
              </LogPanel>
            </aside>
          </div>
        ) : (
          <p class="muted loading-table" role="status">
            <span class="spinner" /> Setting the table…
          </p>
        )}
      </div>
    </div>
  );
}
