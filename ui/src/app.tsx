// Which screen is shown: join (browser), waiting (a player before the GM opens a campaign),
// start (the GM with no campaign), then the table.

import { useEffect, useState } from "preact/hooks";
import { toReport } from "./transport";
import { useStore, type Store } from "./store";
import { JoinScreen } from "./screens/join";
import { StartScreen } from "./screens/start";
import { TableScreen } from "./screens/table";
import { ErrorBox } from "./ui/errors";
import type { ErrorReport } from "./contract";

export function App({ store }: { store: Store }) {
  const s = useStore(store);
  const [bootError, setBootError] = useState<ErrorReport | null>(null);

  // The desktop's person is the GM: join at once.
  useEffect(() => {
    if (store.transport.host === "desktop") store.join({}).catch((e) => setBootError(toReport(e)));
  }, [store]);

  useEffect(() => {
    document.title = s.campaign ? `${s.campaign.name || "Campaign"} · Houserule` : "Houserule";
  }, [s.campaign]);

  const which = !s.role ? "join" : !s.campaign || s.starting ? "start" : "table";
  useEffect(() => window.scrollTo(0, 0), [which]);

  let screen;
  if (!s.role) {
    screen =
      store.transport.host === "desktop" ? (
        <main class="center-screen">
          {bootError ? <ErrorBox error={bootError} /> : <p class="muted" role="status"><span class="spinner" /> Starting…</p>}
        </main>
      ) : (
        <JoinScreen store={store} />
      );
  } else if (!s.campaign || (s.starting && s.role === "gm")) {
    screen = s.role === "gm" ? <StartScreen store={store} /> : <Waiting name={s.role} />;
  } else {
    screen = <TableScreen store={store} />;
  }

  return (
    <>
      {s.link === "lost" && (
        <div class="link-banner" role="alert">
          <span class="spinner" /> The connection to the table was lost — reconnecting…
        </div>
      )}
      {s.link === "stopped" && (
        <div class="link-banner" role="alert">
          <span class="spinner" /> The GM stopped hosting the table. This page reconnects by itself when the table is back.
        </div>
      )}
      {s.link === "closed" && (
        <div class="link-banner" role="alert">
          <span class="spinner" /> The GM closed the table to other computers. This page reconnects by itself if the GM
          opens it again.
        </div>
      )}
      {s.link === "removed" && (
        <div class="link-banner" role="alert">
          The GM removed you from the table. To come back, ask the GM for a new join link.
        </div>
      )}
      {screen}
    </>
  );
}

function Waiting({ name }: { name: string }) {
  return (
    <main class="center-screen">
      <section class="card narrow" aria-labelledby="waiting-title">
        <h1 id="waiting-title" class="brand">Houserule</h1>
        <p>
          You joined as <strong>{name.replace(/^player:/, "")}</strong>.
        </p>
        <p class="muted" role="status">
          <span class="spinner" /> Waiting for the GM to open a campaign. This page updates by itself.
        </p>
      </section>
    </main>
  );
}
