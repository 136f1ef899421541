// The map above the table: the scene as the viewer may see it (a player gets the scene shown to
// the players, only the tokens they may see, and the fog's revealed cells; the engine leaves the
// rest out), drawn on a square or pointy-top hex grid. A token the viewer may move (the GM any,
// a player their own, or any they see where the GM allows it) is picked with a click or Enter;
// the ruler then follows the pointer (or the arrow keys) with the length the engine measures,
// and a click or Enter moves it — one logged, undoable move the rules' move hook may refuse.
// The GM also makes scenes, shows one to the players, places and hides tokens, and turns the
// fog on and reveals or covers cells. Where a token stands and what it may do are the engine's;
// this screen only draws and asks.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Cell, ErrorReport, Grid, Measured, SceneOp, SceneView, TokenView, View } from "../contract";
import { freshEntropy, type Store } from "../store";
import { useAction } from "../calls";
import { ErrorBox } from "../ui/errors";
import { toReport } from "../transport";
import { ACCEPTED, importPicture, usePicture, type Shown } from "./pictures";

type Mode = "move" | "place" | "fog";
const PX = 44; // a cell's width on screen
const SQRT3 = Math.sqrt(3);

/** The centre of a cell on screen. */
function centre(grid: Grid, [x, y]: Cell): [number, number] {
  if (grid.kind === "hex") {
    const r = PX / SQRT3; // corner radius of a pointy-top hex PX wide
    return [PX * (x + y / 2) + PX / 2, 1.5 * r * y + r];
  }
  return [x * PX + PX / 2, y * PX + PX / 2];
}

/** The outline of a cell on screen, as SVG polygon points. */
function outline(grid: Grid, c: Cell): string {
  const [cx, cy] = centre(grid, c);
  if (grid.kind === "hex") {
    const r = PX / SQRT3;
    return [30, 90, 150, 210, 270, 330]
      .map((a) => [cx + r * Math.cos((a * Math.PI) / 180), cy + r * Math.sin((a * Math.PI) / 180)].join(","))
      .join(" ");
  }
  const h = PX / 2;
  return `${cx - h},${cy - h} ${cx + h},${cy - h} ${cx + h},${cy + h} ${cx - h},${cy + h}`;
}

const same = (a: Cell | null, b: Cell | null) => !!a && !!b && a[0] === b[0] && a[1] === b[1];
const key = (c: Cell) => `${c[0]},${c[1]}`;

/** The cells drawn: the map picture, everything any token or revealed cell touches, and some room. */
function extent(scene: SceneView, picture: Shown | null): { cols: number; rows: number } {
  let cols = 16;
  let rows = 10;
  if (picture) {
    cols = Math.max(cols, Math.ceil(picture.width / scene.grid.size));
    rows = Math.max(rows, Math.ceil(picture.height / scene.grid.size));
  }
  const cells = [...scene.tokens.map((t) => t.cell), ...(scene.fog.cells ?? [])];
  for (const [x, y] of cells) {
    cols = Math.max(cols, x + 4);
    rows = Math.max(rows, y + 3);
  }
  return { cols: Math.min(cols, 120), rows: Math.min(rows, 120) };
}

/** A readable id from a name, not yet taken. */
function freshId(name: string, taken: Set<string>): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "item";
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  return id;
}

export function SceneMap({ store, view, me }: { store: Store; view: View; me: string | null }) {
  const gm = me === null;
  const scenes = view.scenes ?? [];
  const [picked, setPicked] = useState<string | null>(null);
  const scene = scenes.find((s) => s.id === picked) ?? scenes.find((s) => s.shown) ?? scenes[0];
  const run = useAction<string>(store);
  const [newName, setNewName] = useState("");

  const op = async (o: SceneOp) => {
    const done = await run.call("scene", o, o.op);
    if (done !== undefined) await store.refresh("update");
    return done;
  };
  const [importing, setImporting] = useState(false);
  const usePictureFile = async (file: File | undefined) => {
    if (!file || !scene) return;
    setImporting(true);
    run.fail(null);
    try {
      const got = await importPicture(store, file);
      const background = { digest: got.digest, width: got.picture.width, height: got.picture.height };
      await op({ op: "update", id: scene.id, background });
    } catch (e) {
      run.fail(toReport(e));
    } finally {
      setImporting(false);
    }
  };
  const create = async () => {
    const name = newName.trim();
    if (!name) return run.fail({ code: "bad_param", message: "A scene needs a name.", param: "name" });
    const id = freshId(name, new Set(scenes.map((s) => s.id)));
    if ((await op({ op: "create", id, name })) !== undefined) {
      setPicked(id);
      setNewName("");
    }
  };

  if (!scene && !gm) return null;
  return (
    <section class="scene-map card" aria-label="Map">
      <h2 class="section-title">
        Map{scene && <span class="muted small"> · {scene.name}</span>}
        {scene && gm && (scene.shown ? <span class="badge">shown to players</span> : <span class="badge muted">players do not see it</span>)}
      </h2>
      {gm && (
        <div class="scene-bar">
          {scenes.length > 0 && (
            <label class="field inline">
              <span class="field-label">Scene</span>
              <select aria-label="Scene" value={scene?.id} onChange={(e) => setPicked(e.currentTarget.value)}>
                {scenes.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                    {s.shown ? " (shown)" : ""}
                  </option>
                ))}
              </select>
            </label>
          )}
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              void create();
            }}
          >
            <label class="field inline">
              <span class="field-label">New scene</span>
              <input value={newName} placeholder="Name" maxLength={80} onInput={(e) => setNewName(e.currentTarget.value)} />
            </label>
            <button type="submit" class="small" disabled={run.busy}>
              Make scene
            </button>
          </form>
          {scene && (
            <label class="button small file-button">
              {importing ? "Importing…" : scene.background ? "Change map picture" : "Map picture…"}
              <input
                type="file"
                class="visually-hidden"
                accept={ACCEPTED}
                aria-label="Import a map picture (PNG, JPEG or WebP)"
                disabled={importing}
                onChange={(e) => {
                  void usePictureFile(e.currentTarget.files?.[0]);
                  e.currentTarget.value = "";
                }}
              />
            </label>
          )}
          {scene && (
            <button type="button" class="small" disabled={run.busy} onClick={() => void op({ op: "show", id: scene.shown ? null : scene.id })}>
              {scene.shown ? "Hide from players" : "Show to players"}
            </button>
          )}
        </div>
      )}
      {run.error && <ErrorBox error={run.error} />}
      {scene ? (
        <SceneBoard key={scene.id} store={store} view={view} scene={scene} me={me} op={op} busy={run.busy} onError={run.fail} onPicture={gm ? usePictureFile : undefined} />
      ) : (
        <p class="muted">No scene yet: make one, then place tokens on it.</p>
      )}
    </section>
  );
}

interface BoardProps {
  store: Store;
  view: View;
  scene: SceneView;
  me: string | null;
  op: (o: SceneOp) => Promise<unknown>;
  busy: boolean;
  onError: (e: ErrorReport | null) => void;
  /** The GM dropped a picture file on the map. */
  onPicture?: (file: File | undefined) => Promise<void>;
}

function SceneBoard({ store, view, scene, me, op, busy, onError, onPicture }: BoardProps) {
  const gm = me === null;
  const grid = scene.grid;
  // The GM's map is the picture itself; a player's is the one made for them, fog blacked out.
  const picture = usePicture(store, gm ? scene.background?.digest : scene.map_key);
  const scale = PX / grid.size;
  const [dropping, setDropping] = useState(false);
  const [mode, setMode] = useState<Mode>("move");
  const [selected, setSelected] = useState<string | null>(null);
  const [target, setTarget] = useState<Cell | null>(null);
  // Cells the path goes through on the way (shift-click adds one), so a move can turn corners.
  const [waypoints, setWaypoints] = useState<Cell[]>([]);
  const [zoom, setZoom] = useState(1);
  const dragging = useRef<{ id: string; moved: boolean } | null>(null);
  const svg = useRef<SVGSVGElement>(null);
  const [ruler, setRuler] = useState<Measured | null>(null);
  const [placing, setPlacing] = useState<string>("");
  const token = scene.tokens.find((t) => t.id === selected) ?? null;
  const { cols, rows } = extent(scene, picture);
  const revealed = useMemo(() => new Set((scene.fog.cells ?? []).map(key)), [scene.fog]);
  const fogged = (c: Cell) => !!scene.fog.on && !revealed.has(key(c));
  const mayMove = (t: TokenView) => gm || (!!me && (t.owner === me || scene.players_move_any));

  const pick = (id: string | null) => {
    setSelected(id);
    setTarget(null);
    setWaypoints([]);
  };
  const pathTo = (to: Cell): Cell[] => (token ? [token.cell, ...waypoints, to] : []);

  // The ruler: the engine measures the path from the picked token to the target.
  const asked = useRef(0);
  const path = target ? pathTo(target) : [];
  useEffect(() => {
    if (!token || !target || same(token.cell, target)) return setRuler(null);
    const mine = ++asked.current;
    store
      .call("measure", { grid, path })
      .then((m) => mine === asked.current && setRuler(m))
      .catch(() => mine === asked.current && setRuler(null));
  }, [JSON.stringify(path), grid]);

  const move = async (to: Cell) => {
    if (!token || same(token.cell, to)) return;
    try {
      await store.call("move", { token: token.id, path: pathTo(to), entropy: freshEntropy() });
      pick(null);
      await store.refresh("update");
    } catch (e) {
      onError(toReport(e));
    }
  };

  /** The cell under a pointer. */
  const cellAt = (e: PointerEvent): Cell | null => {
    const m = svg.current?.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    if (grid.kind !== "hex") return [Math.max(0, Math.floor(p.x / PX)), Math.max(0, Math.floor(p.y / PX))];
    const r = PX / SQRT3;
    const fr = (p.y - r) / (1.5 * r);
    const fq = (p.x - PX / 2) / PX - fr / 2;
    let [q, rr, s] = [Math.round(fq), Math.round(fr), Math.round(-fq - fr)];
    const [dq, dr, ds] = [Math.abs(q - fq), Math.abs(rr - fr), Math.abs(s + fq + fr)];
    if (dq > dr && dq > ds) q = -rr - s;
    else if (dr > ds) rr = -q - s;
    return [Math.max(0, q), Math.max(0, rr)];
  };
  // Dragging a token (mouse, pen or finger): the ruler follows, letting go moves it there.
  const onDown = (t: TokenView, e: PointerEvent) => {
    if (mode !== "move" || !mayMove(t)) return;
    if (t.id !== selected) pick(t.id);
    dragging.current = { id: t.id, moved: false };
    svg.current?.setPointerCapture?.(e.pointerId);
  };
  const onDrag = (e: PointerEvent) => {
    const c = dragging.current && cellAt(e);
    if (!c || !token) return;
    if (!same(c, token.cell)) dragging.current!.moved = true;
    setTarget(c);
  };
  const onUp = (e: PointerEvent) => {
    const d = dragging.current;
    dragging.current = null;
    const c = d?.moved ? cellAt(e) : null;
    if (c && token && !same(c, token.cell)) void move(c);
  };

  const onCell = (c: Cell, e?: MouseEvent) => {
    if (mode === "move" && token && e?.shiftKey) {
      setWaypoints((w) => [...w, c]);
      return;
    }
    if (mode === "fog" && gm) {
      const open = revealed.has(key(c));
      void op({ op: "fog", scene: scene.id, reveal: open ? [] : [c], cover: open ? [c] : [] });
    } else if (mode === "place" && gm && placing) {
      const taken = new Set(view.scenes?.flatMap((s) => s.tokens.map((t) => t.id)) ?? []);
      const entity = placing.startsWith("entity:") ? placing.slice(7) : null;
      const label = entity ? null : "Marker";
      void op({ op: "place", scene: scene.id, id: freshId(entity ?? "marker", taken), entity, label, cell: c });
    } else if (token) void move(c);
  };

  const onKey = (e: KeyboardEvent) => {
    if (!token) return;
    const at = target ?? token.cell;
    const step: Record<string, Cell> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (step[e.key]) {
      e.preventDefault();
      setTarget([Math.max(0, at[0] + step[e.key][0]), Math.max(0, at[1] + step[e.key][1])]);
    } else if (e.key === "Enter" && target) {
      e.preventDefault();
      void move(target);
    } else if (e.key === "Escape") {
      pick(null);
    }
  };

  const onScene = new Set(scene.tokens.map((t) => t.entity).filter(Boolean));
  const placeable = Object.values(view.entities).filter((e) => !onScene.has(e.id));
  const last = centre(grid, [cols - 1, rows - 1]);
  const width = last[0] + PX;
  const height = last[1] + PX;
  const points = path.map((c) => centre(grid, c).join(",")).join(" ");
  const cells: Cell[] = [];
  for (let y = 0; y < rows; y++) for (let x = 0; x < cols; x++) cells.push([x, y]);

  return (
    <div
      class={`scene-board ${dropping ? "dropping" : ""}`}
      onDragOver={(e) => {
        if (!onPicture) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        if (!onPicture) return;
        e.preventDefault();
        setDropping(false);
        void onPicture(e.dataTransfer?.files?.[0]);
      }}
    >
      {gm && (
        <div class="scene-tools" role="toolbar" aria-label="Map tools">
          {(["move", "place", "fog"] as Mode[]).map((m) => (
            <button key={m} type="button" class="small" aria-pressed={mode === m} onClick={() => setMode(m)}>
              {m === "move" ? "Move" : m === "place" ? "Place tokens" : "Reveal / cover"}
            </button>
          ))}
          {mode === "place" && (
            <label class="field inline">
              <span class="field-label">Place</span>
              <select aria-label="Place" value={placing} onChange={(e) => setPlacing(e.currentTarget.value)}>
                <option value="">choose, then click a cell</option>
                {placeable.map((e) => (
                  <option key={e.id} value={`entity:${e.id}`}>
                    {e.name}
                  </option>
                ))}
                <option value="marker">a marker</option>
              </select>
            </label>
          )}
          <button type="button" class="small" disabled={busy} onClick={() => void op({ op: "fog", scene: scene.id, on: !scene.fog.on })}>
            {scene.fog.on ? "Fog on: lift it" : "Fog off: cover the map"}
          </button>
          {token && (
            <>
              <button type="button" class="small" disabled={busy} onClick={() => void op({ op: "token", id: token.id, hidden: !token.hidden })}>
                {token.hidden ? `Show ${token.name}` : `Hide ${token.name}`}
              </button>
              <button type="button" class="small danger" disabled={busy} onClick={() => void op({ op: "remove_token", id: token.id }).then(() => setSelected(null))}>
                Remove {token.name}
              </button>
            </>
          )}
        </div>
      )}
      <p class="muted small scene-help" aria-live="polite">
        {token
          ? ruler
            ? `${token.name}: ${fmt(ruler.length)} ${ruler.unit} to the cell picked${ruler.straight ? "" : " (not straight)"}. Click it or press Enter to move (shift-click adds a turn on the way); Esc to cancel.`
            : `${token.name} picked: drag it, or point at a cell (or use the arrow keys) to measure, click it (or Enter) to move.`
          : `Grid: one cell is ${fmt(grid.unit.per_cell)} ${grid.unit.name}. Pick a token to move or measure.`}
      </p>
      <div class="scene-zoom" role="group" aria-label="Zoom">
        <button type="button" class="small" aria-label="Zoom out" disabled={zoom <= 0.5} onClick={() => setZoom((z) => Math.max(0.5, z / 1.25))}>
          −
        </button>
        <span class="muted small">{Math.round(zoom * 100)}%</span>
        <button type="button" class="small" aria-label="Zoom in" disabled={zoom >= 2.5} onClick={() => setZoom((z) => Math.min(2.5, z * 1.25))}>
          +
        </button>
      </div>
      <div class="scene-scroll">
        <svg
          ref={svg}
          class={`scene-svg ${grid.kind} ${picture ? "pictured" : ""}`}
          width={width * zoom}
          height={height * zoom}
          viewBox={`0 0 ${width} ${height}`}
          onKeyDown={onKey}
          onPointerMove={onDrag}
          onPointerUp={onUp}
          onPointerCancel={() => (dragging.current = null)}
          role="group"
          aria-label={`Scene ${scene.name}`}
        >
          {picture && (
            <image
              class="scene-picture"
              href={picture.url}
              x={0}
              y={0}
              width={picture.width * scale}
              height={picture.height * scale}
              preserveAspectRatio="none"
              aria-hidden="true"
            />
          )}
          {cells.map((c) => (
            <polygon
              key={key(c)}
              data-cell={key(c)}
              class={`cell ${fogged(c) ? (gm ? "fogged-gm" : "fogged") : ""} ${same(target, c) ? "target" : ""}`}
              points={outline(grid, c)}
              onClick={(e) => onCell(c, e)}
              onMouseEnter={() => token && setTarget(c)}
            />
          ))}
          {token && target && !same(token.cell, target) && <polyline class="ruler" points={points} />}
          {scene.tokens.map((t) => {
            const [cx, cy] = centre(grid, t.cell);
            const mine = mayMove(t);
            return (
              <g
                key={t.id}
                class={`token ${t.entity && t.entity === view.turns?.current ? "their-turn" : ""} ${t.unseen ? "hidden-token" : ""} ${t.id === selected ? "selected" : ""} ${mine ? "movable" : ""}`}
                tabIndex={mine ? 0 : -1}
                role="button"
                aria-pressed={t.id === selected}
                aria-label={`${t.name}${t.entity && t.entity === view.turns?.current ? " (their turn)" : ""}${t.unseen ? " (players do not see it)" : ""}, column ${t.cell[0] + 1}, row ${t.cell[1] + 1}`}
                onPointerDown={(e) => onDown(t, e)}
                onClick={(e) => {
                  e.stopPropagation();
                  if (gm && mode !== "move") onCell(t.cell);
                }}
                onKeyDown={(e) => {
                  if ((e.key === "Enter" || e.key === " ") && !target) {
                    e.preventDefault();
                    e.stopPropagation();
                    if (mine) pick(t.id === selected ? null : t.id);
                  }
                }}
              >
                <circle cx={cx} cy={cy} r={(PX / 2 - 4) * Math.max(1, t.size)} />
                <text x={cx} y={cy + 4} text-anchor="middle">
                  {initials(t.name)}
                </text>
                <title>{t.name}</title>
              </g>
            );
          })}
        </svg>
      </div>
    </div>
  );
}

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
