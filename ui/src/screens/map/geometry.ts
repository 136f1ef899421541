// Where things are on the map's SVG, in one place: a cell's centre and outline, a token's centre
// and radius, the cell under a point, and points in grid units (the engine's unit for a fog
// polygon: 1 is one cell across; on a hex grid one hex width across and one row down).
//
// The SVG is drawn at PX user units to a cell's width, whatever the zoom (the zoom only scales
// the element), so a point found through the SVG's screen matrix is right at every zoom. A cell
// counts as revealed exactly as the engine counts it (core `scene::fog`): the fog is off, the cell
// is listed, or its centre lies inside a revealed polygon by the even-odd rule.

import type { Cell, Fog, Grid, TokenView } from "../../contract";

/** A cell's width in SVG user units. */
export const PX = 44;
const SQRT3 = Math.sqrt(3);
/** A hex row's height in SVG user units (pointy-top rows lie √3/2 of a width apart). */
const ROW = (PX * SQRT3) / 2;

/** A point in grid units, as the engine takes a fog polygon's corners. */
export type Point = [number, number];

/** The centre of a cell in SVG user units. */
export function centre(grid: Grid, [x, y]: Cell): [number, number] {
  if (grid.kind === "hex") {
    const r = PX / SQRT3; // corner radius of a pointy-top hex PX wide
    return [PX * (x + y / 2) + PX / 2, 1.5 * r * y + r];
  }
  return [x * PX + PX / 2, y * PX + PX / 2];
}

/** The outline of a cell, as SVG polygon points. */
export function outline(grid: Grid, c: Cell): string {
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

/**
 * Where a token is drawn: on a square grid a token of size n covers the n×n cells from its cell
 * (the engine's `Token::cells`), so its circle is centred on that block and n cells across; on a
 * hex grid it stands on its one cell and is drawn n cells across around it.
 */
export function tokenCircle(grid: Grid, t: Pick<TokenView, "cell" | "size">): { cx: number; cy: number; r: number } {
  const n = Math.max(1, t.size);
  const [x, y] = centre(grid, t.cell);
  const shift = grid.kind === "hex" ? 0 : ((n - 1) * PX) / 2;
  return { cx: x + shift, cy: y + shift, r: (n * PX) / 2 - 4 };
}

/** The cell under a point given in SVG user units. */
export function cellAt(grid: Grid, p: { x: number; y: number }): Cell {
  if (grid.kind !== "hex") return [Math.max(0, Math.floor(p.x / PX)), Math.max(0, Math.floor(p.y / PX))];
  const r = PX / SQRT3;
  const fr = (p.y - r) / (1.5 * r);
  const fq = (p.x - PX / 2) / PX - fr / 2;
  let [q, rr, s] = [Math.round(fq), Math.round(fr), Math.round(-fq - fr)];
  const [dq, dr, ds] = [Math.abs(q - fq), Math.abs(rr - fr), Math.abs(s + fq + fr)];
  if (dq > dr && dq > ds) q = -rr - s;
  else if (dr > ds) rr = -q - s;
  return [Math.max(0, q), Math.max(0, rr)];
}

/** A point in SVG user units in grid units, snapped to the nearest half cell (never below 0). */
export function snappedPoint(grid: Grid, p: { x: number; y: number }): Point {
  const half = (v: number) => Math.max(0, Math.round(v * 2) / 2);
  return [half(p.x / PX), half(p.y / (grid.kind === "hex" ? ROW : PX))];
}

/** A point in grid units in SVG user units. */
export function toSvg(grid: Grid, [x, y]: Point): [number, number] {
  return [x * PX, y * (grid.kind === "hex" ? ROW : PX)];
}

/** Points in grid units as SVG polygon points. */
export function svgPoints(grid: Grid, points: Point[]): string {
  return points.map((p) => toSvg(grid, p).join(",")).join(" ");
}

/** A point lies inside a polygon (even-odd rule; fewer than 3 corners have no inside) — the engine's test. */
export function inside(polygon: [number, number][], [x, y]: [number, number]): boolean {
  if (polygon.length < 3) return false;
  let odd = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
  }
  return odd;
}

export const same = (a: Cell | null, b: Cell | null) => !!a && !!b && a[0] === b[0] && a[1] === b[1];
export const key = (c: Cell) => `${c[0]},${c[1]}`;

/**
 * Which cells of a scene are revealed, by the engine's rule: with the fog off every cell; else a
 * cell listed, or one whose centre lies inside a revealed polygon.
 */
export function revealedCells(grid: Grid, fog: Fog): (c: Cell) => boolean {
  if (!fog.on) return () => true;
  const listed = new Set((fog.cells ?? []).map(key));
  const polygons = (fog.polygons ?? []).map((p) => p.map((q) => toSvg(grid, q)));
  return (c) => listed.has(key(c)) || polygons.some((p) => inside(p, centre(grid, c)));
}
