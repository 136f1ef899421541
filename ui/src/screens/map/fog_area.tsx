// The GM's drawing of an area to reveal: corners added by clicks or taps (each the pointer's
// place in grid units, snapped to half a cell) or by the keyboard cursor (it starts at the
// corner of cell (1, 1) and follows the pointer; the arrow keys move it half a cell, Shift a
// whole one; Space adds a corner there; Backspace takes the last one off), shown as it grows.
// "Reveal this area" or Enter sends the corners as one `fog` operation with the polygon in grid
// units (the engine's unit: `core::scene::fog`); Escape or "Cancel" drops them, sending nothing.
// A polygon has 3 to 256 corners (the engine's bounds), so fewer cannot be sent and no more can
// be added.

import { useState } from "preact/hooks";
import type { Grid } from "../../contract";
import { svgPoints, toSvg, type Point } from "./geometry";

/** The most corners the engine takes in one polygon. */
const MAX_CORNERS = 256;
/** Where the keyboard cursor starts an area: the top-left corner of cell (1, 1). */
const START: Point = [1, 1];

export interface FogArea {
  drawing: boolean;
  /** The corners so far, in grid units. */
  points: Point[];
  /** Where the next corner goes by keyboard (and where the pointer is), in grid units. */
  cursor: Point | null;
  start: () => void;
  add: (p: Point) => void;
  /** The pointer is over this point. */
  hover: (p: Point) => void;
  dropLast: () => void;
  cancel: () => void;
  /** Sends the area (3 corners or more) and, once the engine took it, stops drawing. */
  reveal: () => Promise<void>;
  /** Handles a key pressed on the map while drawing; true when it was the area's. */
  onKey: (e: KeyboardEvent) => boolean;
}

/** The drawing's state; `send` reveals a polygon and answers whether the engine took it. */
export function useFogArea(send: (polygon: Point[]) => Promise<boolean>): FogArea {
  const [drawing, setDrawing] = useState(false);
  const [points, setPoints] = useState<Point[]>([]);
  const [cursor, setCursor] = useState<Point | null>(null);
  const add = (p: Point) =>
    setPoints((ps) => {
      const last = ps[ps.length - 1];
      if (ps.length >= MAX_CORNERS || (last && last[0] === p[0] && last[1] === p[1])) return ps;
      return [...ps, p];
    });
  const stop = () => {
    setDrawing(false);
    setPoints([]);
  };
  const reveal = async () => {
    if (points.length < 3) return;
    if (await send(points)) stop();
  };
  const onKey = (e: KeyboardEvent): boolean => {
    const step = e.shiftKey ? 1 : 0.5;
    const moves: Record<string, Point> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const at = cursor ?? START;
    if (moves[e.key]) setCursor([Math.max(0, at[0] + moves[e.key][0]), Math.max(0, at[1] + moves[e.key][1])]);
    else if (e.key === " ") add(at);
    else if (e.key === "Backspace") setPoints((ps) => ps.slice(0, -1));
    else if (e.key === "Enter") void reveal();
    else if (e.key === "Escape") stop();
    else return false;
    e.preventDefault();
    return true;
  };
  return {
    drawing,
    points,
    cursor,
    start: () => {
      setDrawing(true);
      setPoints([]);
      setCursor(START);
    },
    add,
    hover: setCursor,
    dropLast: () => setPoints((ps) => ps.slice(0, -1)),
    cancel: stop,
    reveal,
    onKey,
  };
}

/** The buttons beside the map while the GM reveals and covers: start an area, or finish it. */
export function FogAreaBar({ area, busy }: { area: FogArea; busy: boolean }) {
  if (!area.drawing) {
    return (
      <button type="button" class="small" onClick={area.start}>
        Draw an area
      </button>
    );
  }
  const n = area.points.length;
  return (
    <span class="fog-area-bar" role="group" aria-label="Area to reveal">
      <button type="button" class="small primary" disabled={busy || n < 3} onClick={() => void area.reveal()}>
        Reveal this area
      </button>
      <button type="button" class="small" disabled={n === 0} onClick={area.dropLast}>
        Take the last corner off
      </button>
      <button type="button" class="small" onClick={area.cancel}>
        Cancel
      </button>
    </span>
  );
}

/** What the hint says while an area is drawn. */
export function fogAreaHint(area: FogArea): string {
  const n = area.points.length;
  const count = n === 0 ? "No corner yet" : n === 1 ? "1 corner" : `${n} corners`;
  const full = n >= MAX_CORNERS ? ` (the most an area takes)` : "";
  return (
    `Drawing an area to reveal. ${count}${full}. Click or tap the map to add a corner (snapped to half a cell), ` +
    `or move the cursor with the arrow keys (Shift: a whole cell) and press Space to add one there; ` +
    `Backspace takes the last one off. Enter or “Reveal this area” reveals it (3 corners or more); Esc or “Cancel” drops it.`
  );
}

/** The area being drawn, over the map: its outline so far, its corners and the cursor. */
export function FogAreaDraft({ grid, area }: { grid: Grid; area: FogArea }) {
  if (!area.drawing) return null;
  const { points, cursor } = area;
  const last = points[points.length - 1];
  const [cx, cy] = cursor ? toSvg(grid, cursor) : [0, 0];
  const [lx, ly] = last ? toSvg(grid, last) : [0, 0];
  return (
    <g class="fog-draft" aria-hidden="true">
      {points.length >= 3 ? <polygon class="fog-draft-shape" points={svgPoints(grid, points)} /> : <polyline class="fog-draft-shape" points={svgPoints(grid, points)} />}
      {last && cursor && <line class="fog-draft-next" x1={lx} y1={ly} x2={cx} y2={cy} />}
      {points.map((p, i) => {
        const [x, y] = toSvg(grid, p);
        return <circle key={i} class="fog-draft-corner" cx={x} cy={y} r={4} />;
      })}
      {cursor && (
        <g class="fog-cursor">
          <circle cx={cx} cy={cy} r={7} />
          <line x1={cx - 11} y1={cy} x2={cx + 11} y2={cy} />
          <line x1={cx} y1={cy - 11} x2={cx} y2={cy + 11} />
        </g>
      )}
    </g>
  );
}

/** The areas already revealed, outlined on the GM's map (a player's map is masked by the engine). */
export function RevealedAreas({ grid, polygons }: { grid: Grid; polygons: Point[][] }) {
  if (polygons.length === 0) return null;
  return (
    <g class="fog-revealed" aria-hidden="true">
      {polygons.map((p, i) => (
        <polygon key={i} points={svgPoints(grid, p)} />
      ))}
    </g>
  );
}
