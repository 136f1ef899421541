// One scene drawn for its viewer, and what they do on it. A token the viewer may move (the GM
// any, a player their own, or any they see where the GM allows it) is picked with a click, a tap
// or Enter; the ruler then follows the pointer (or the arrow keys) with the length the engine
// measures, and a click, Enter or letting go of a drag moves it — one logged, undoable move the
// rules' move hook may refuse. The GM also places tokens, changes the one picked (its menu),
// turns the fog on, reveals or covers cells and draws areas to reveal. Cells count as revealed by
// the engine's own rule, so the GM's shading and a player's darkness match what the engine
// decides; a player's view already leaves out what they may not see. SVG elements take
// `tabindex` in lower case: Preact sets an SVG element's attributes by the name given, and an
// SVG `tabIndex` attribute makes nothing focusable.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { Cell, ErrorReport, Measured, SceneOp, SceneView, TokenView, View } from "../../contract";
import { freshEntropy, type Store } from "../../store";
import { toReport } from "../../transport";
import { usePicture, type Shown } from "../pictures";
import { cellAt, centre, key, outline, PX, revealedCells, same, snappedPoint } from "./geometry";
import { FogAreaBar, FogAreaDraft, fogAreaHint, RevealedAreas, useFogArea, type FogArea } from "./fog_area";
import { TokenFace } from "./token";
import { TokenMenu } from "./token_menu";
import { useZoom, ZoomControl } from "./zoom";
import "../../styles/map.css";

type Mode = "move" | "place" | "fog";

/** The cells drawn: the map picture, everything any token or revealed area touches, and some room. */
function extent(scene: SceneView, picture: Shown | null): { cols: number; rows: number } {
  let cols = 16;
  let rows = 10;
  if (picture) {
    cols = Math.max(cols, Math.ceil(picture.width / scene.grid.size));
    rows = Math.max(rows, Math.ceil(picture.height / scene.grid.size));
  }
  const reach: [number, number][] = [
    ...scene.tokens.map((t): [number, number] => [t.cell[0] + t.size, t.cell[1] + t.size]),
    ...(scene.fog.cells ?? []).map((c): [number, number] => [c[0] + 1, c[1] + 1]),
    ...(scene.fog.polygons ?? []).flat(),
  ];
  for (const [x, y] of reach) {
    cols = Math.max(cols, Math.ceil(x) + 3);
    rows = Math.max(rows, Math.ceil(y) + 2);
  }
  return { cols: Math.min(cols, 120), rows: Math.min(rows, 120) };
}

/** A readable id from a name, not yet taken. */
export function freshId(name: string, taken: Set<string>): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "item";
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  return id;
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

export function SceneBoard({ store, view, scene, me, op, busy, onError, onPicture }: BoardProps) {
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
  const dragging = useRef<{ id: string; moved: boolean } | null>(null);
  const svg = useRef<SVGSVGElement>(null);
  const scroll = useRef<HTMLDivElement>(null);
  const zoom = useZoom(scroll, svg, {
    dragging: () => dragging.current !== null,
    onPinch: () => {
      dragging.current = null;
      setTarget(null);
    },
  });
  const area = useFogArea(async (polygon) => (await op({ op: "fog", scene: scene.id, polygon })) !== undefined);
  const [ruler, setRuler] = useState<Measured | null>(null);
  const [placing, setPlacing] = useState<string>("");
  const token = scene.tokens.find((t) => t.id === selected) ?? null;
  const { cols, rows } = extent(scene, picture);
  const isRevealed = useMemo(() => revealedCells(grid, scene.fog), [grid, scene.fog]);
  const listed = useMemo(() => new Set((scene.fog.cells ?? []).map(key)), [scene.fog]);
  const mayMove = (t: TokenView) => gm || (!!me && (t.owner === me || scene.players_move_any));

  const pick = (id: string | null) => {
    setSelected(id);
    setTarget(null);
    setWaypoints([]);
  };
  const choose = (m: Mode) => {
    setMode(m);
    pick(null);
    if (m !== "fog") area.cancel();
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
  // Drawing an area takes the keyboard on the map, so its cursor keys work at once: in the same
  // commit that shows the drawing's hint (an effect after paint would let keys pressed at once
  // go to the page).
  useLayoutEffect(() => {
    if (area.drawing) svg.current?.focus({ preventScroll: true });
  }, [area.drawing]);

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

  /** The SVG point (user units) under a pointer: right at any zoom and scroll. */
  const svgPoint = (e: MouseEvent): DOMPoint | null => {
    const m = svg.current?.getScreenCTM();
    return m ? new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse()) : null;
  };
  const cellUnder = (e: MouseEvent): Cell | null => {
    const p = svgPoint(e);
    return p ? cellAt(grid, p) : null;
  };
  // Dragging a token (mouse, pen or finger): the ruler follows, letting go moves it there.
  const onDown = (t: TokenView, e: PointerEvent) => {
    if (mode !== "move" || !mayMove(t)) return;
    if (t.id !== selected) pick(t.id);
    dragging.current = { id: t.id, moved: false };
    svg.current?.setPointerCapture?.(e.pointerId);
  };
  const onPointerMove = (e: PointerEvent) => {
    const p = area.drawing ? svgPoint(e) : null;
    if (p) area.hover(snappedPoint(grid, p));
    const c = dragging.current && cellUnder(e);
    if (!c || !token) return;
    if (!same(c, token.cell)) dragging.current!.moved = true;
    setTarget(c);
  };
  const onUp = (e: PointerEvent) => {
    const d = dragging.current;
    dragging.current = null;
    const c = d?.moved ? cellUnder(e) : null;
    if (c && token && !same(c, token.cell)) void move(c);
  };
  // While an area is drawn, a click anywhere on the map (a token too) adds a corner there.
  const onClickCapture = (e: MouseEvent) => {
    if (!area.drawing) return;
    e.stopPropagation();
    const p = svgPoint(e);
    if (p) area.add(snappedPoint(grid, p));
  };

  const onCell = (c: Cell, e?: MouseEvent) => {
    if (mode === "move" && token && e?.shiftKey) {
      setWaypoints((w) => [...w, c]);
      return;
    }
    if (mode === "fog" && gm) {
      const open = listed.has(key(c));
      void op({ op: "fog", scene: scene.id, reveal: open ? [] : [c], cover: open ? [c] : [] });
    } else if (mode === "place" && gm && placing) {
      const taken = new Set(view.scenes?.flatMap((s) => s.tokens.map((t) => t.id)) ?? []);
      const entity = placing.startsWith("entity:") ? placing.slice(7) : null;
      const label = entity ? null : "Marker";
      void op({ op: "place", scene: scene.id, id: freshId(entity ?? "marker", taken), entity, label, cell: c });
    } else if (token) void move(c);
  };

  const onKey = (e: KeyboardEvent) => {
    if (area.drawing && area.onKey(e)) return;
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
  const turn = view.turns?.current;

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
            <button key={m} type="button" class="small" aria-pressed={mode === m} onClick={() => choose(m)}>
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
          {mode === "fog" && <FogAreaBar area={area} busy={busy} />}
          <button type="button" class="small" disabled={busy} onClick={() => void op({ op: "fog", scene: scene.id, on: !scene.fog.on })}>
            {scene.fog.on ? "Fog on: lift it" : "Fog off: cover the map"}
          </button>
        </div>
      )}
      {gm && token && <TokenMenu key={token.id} store={store} view={view} token={token} onRemoved={() => pick(null)} />}
      <p class="muted small scene-help" aria-live="polite">
        {hintFor({ area, token, ruler, fogTools: gm && mode === "fog", grid })}
      </p>
      <ZoomControl zoom={zoom} />
      <div class="scene-scroll" ref={scroll} {...zoom.handlers}>
        <svg
          ref={svg}
          class={`scene-svg ${grid.kind} ${picture ? "pictured" : ""} ${area.drawing ? "drawing" : ""}`}
          width={width * zoom.zoom}
          height={height * zoom.zoom}
          viewBox={`0 0 ${width} ${height}`}
          tabindex={gm && mode === "fog" ? 0 : undefined}
          onKeyDown={onKey}
          onPointerMove={onPointerMove}
          onPointerUp={onUp}
          onPointerCancel={() => (dragging.current = null)}
          onClickCapture={onClickCapture}
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
              class={`cell ${isRevealed(c) ? "" : gm ? "fogged-gm" : "fogged"} ${same(target, c) ? "target" : ""}`}
              points={outline(grid, c)}
              onClick={(e) => onCell(c, e)}
              onMouseEnter={() => token && setTarget(c)}
            />
          ))}
          {gm && scene.fog.on && <RevealedAreas grid={grid} polygons={scene.fog.polygons ?? []} />}
          {token && target && !same(token.cell, target) && <polyline class="ruler" points={points} />}
          {scene.tokens.map((t) => {
            const mine = mayMove(t);
            const theirTurn = !!t.entity && t.entity === turn;
            const size = t.size > 1 ? `, ${t.size} cells across` : "";
            return (
              <g
                key={t.id}
                class={`token ${theirTurn ? "their-turn" : ""} ${t.unseen ? "hidden-token" : ""} ${t.id === selected ? "selected" : ""} ${mine ? "movable" : ""}`}
                data-token={t.id}
                tabindex={mine ? 0 : -1}
                role="button"
                aria-pressed={t.id === selected}
                aria-label={`${t.name}${theirTurn ? " (their turn)" : ""}${t.unseen ? " (players do not see it)" : ""}${size}, column ${t.cell[0] + 1}, row ${t.cell[1] + 1}`}
                onPointerDown={(e) => onDown(t, e)}
                onClick={(e) => {
                  e.stopPropagation();
                  if (gm && mode !== "move") onCell(t.cell);
                }}
                onKeyDown={(e) => {
                  if (!area.drawing && (e.key === "Enter" || e.key === " ") && !target) {
                    e.preventDefault();
                    e.stopPropagation();
                    if (mine) pick(t.id === selected ? null : t.id);
                  }
                }}
              >
                <TokenFace store={store} grid={grid} token={t} />
              </g>
            );
          })}
          {gm && <FogAreaDraft grid={grid} area={area} />}
        </svg>
      </div>
    </div>
  );

}

interface HintFacts {
  area: FogArea;
  token: TokenView | null;
  ruler: Measured | null;
  fogTools: boolean;
  grid: SceneView["grid"];
}

/** What the line above the map says: what the viewer is doing and which keys do what. */
function hintFor({ area, token, ruler, fogTools, grid }: HintFacts): string {
  if (area.drawing) return fogAreaHint(area);
  if (token) {
    return ruler
      ? `${token.name}: ${fmt(ruler.length)} ${ruler.unit} to the cell picked${ruler.straight ? "" : " (not straight)"}. Click it or press Enter to move (shift-click adds a turn on the way); Esc to cancel.`
      : `${token.name} picked: drag it, or point at a cell (or use the arrow keys) to measure, click it (or Enter) to move.`;
  }
  if (fogTools) return "Click a cell to reveal or cover it, or “Draw an area” to reveal any shape.";
  return `Grid: one cell is ${fmt(grid.unit.per_cell)} ${grid.unit.name}. Pick a token to move or measure.`;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
