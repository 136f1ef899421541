// How near the map is: the − / + buttons, Ctrl+wheel (and a touchpad's pinch, which the browser
// sends as one) about the pointer, and on a touch screen two fingers — moving apart or together
// to zoom, moving together to pan — and one finger on the map (not on a token being dragged) to
// pan. Zooming keeps the point under the pointer (or between the fingers, or at the middle of
// the view for the buttons) where it was on screen. The zoom only scales the SVG element (its
// viewBox stays a cell PX user units wide), so every hit test made through the SVG's screen
// matrix — the ruler's cell, a fog corner — stays right at every zoom. A tap that turned into a
// pan or a pinch does not also click what it started on.

import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { RefObject } from "preact";

const MIN = 0.5;
const MAX = 2.5;
/** How far a finger moves (CSS pixels) before it pans rather than taps. */
const SLOP = 8;

type XY = [number, number];

export interface Zoom {
  zoom: number;
  /** Zooms by `factor` about a point on screen (the middle of the view when none is given). */
  zoomBy: (factor: number, at?: XY) => void;
  /** The handlers the map's scrolling box takes. */
  handlers: {
    onPointerDown: (e: PointerEvent) => void;
    onPointerMove: (e: PointerEvent) => void;
    onPointerUp: (e: PointerEvent) => void;
    onPointerCancel: (e: PointerEvent) => void;
    onWheel: (e: WheelEvent) => void;
    onClickCapture: (e: MouseEvent) => void;
  };
}

interface Gestures {
  /** A token is being dragged by this pointer's finger: one finger does not pan then. */
  dragging: () => boolean;
  /** A second finger came down: whatever the first one was doing (a token's drag) ends. */
  onPinch: () => void;
}

export function useZoom(scroll: RefObject<HTMLDivElement>, svg: RefObject<SVGSVGElement>, gestures: Gestures): Zoom {
  const [zoom, setZoom] = useState(1);
  const now = useRef(1);
  // The SVG point (user units) to bring under a point on screen once the new zoom is drawn.
  const anchor = useRef<{ user: XY; at: XY } | null>(null);
  const fingers = useRef(new Map<number, XY>());
  const pinch = useRef<{ distance: number; zoom: number; user: XY } | null>(null);
  const pan = useRef<{ from: XY; last: XY; moving: boolean } | null>(null);
  const gestured = useRef(false);

  // The zoom the SVG is drawn at now (a new zoom is drawn on the next render).
  const drawn = useRef(1);
  /** The SVG point under a point on screen, at the zoom drawn now. */
  const userAt = ([x, y]: XY): XY => {
    const r = svg.current?.getBoundingClientRect();
    return r ? [(x - r.left) / drawn.current, (y - r.top) / drawn.current] : [0, 0];
  };
  /** Scrolls the anchor's SVG point under its screen point, at the zoom drawn. */
  const keepAnchor = () => {
    const a = anchor.current;
    const box = scroll.current;
    const r = svg.current?.getBoundingClientRect();
    anchor.current = null;
    if (!a || !box || !r) return;
    box.scrollLeft += r.left + a.user[0] * drawn.current - a.at[0];
    box.scrollTop += r.top + a.user[1] * drawn.current - a.at[1];
  };
  useLayoutEffect(() => {
    drawn.current = zoom;
    keepAnchor();
  }, [zoom]);

  /** Draws the map at `z` with the SVG point `user` under the screen point `at`. */
  const place = (z: number, user: XY, at: XY) => {
    const next = Math.min(MAX, Math.max(MIN, z));
    anchor.current = { user, at };
    // Unchanged and drawn: scroll now; else once the new zoom is drawn.
    if (next === now.current && next === drawn.current) return keepAnchor();
    now.current = next;
    setZoom(next);
  };
  const middle = (): XY => {
    const r = scroll.current?.getBoundingClientRect();
    return r ? [r.left + r.width / 2, r.top + r.height / 2] : [0, 0];
  };
  const zoomBy = (factor: number, at: XY = middle()) => place(now.current * factor, userAt(at), at);

  const twoFingers = (): [XY, XY] | null => {
    const [a, b] = [...fingers.current.values()];
    return a && b ? [a, b] : null;
  };
  const apart = ([a, b]: [XY, XY]) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  const between = ([a, b]: [XY, XY]): XY => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];

  const onPointerDown = (e: PointerEvent) => {
    if (e.pointerType !== "touch") {
      gestured.current = false;
      return;
    }
    if (fingers.current.size === 0) gestured.current = false;
    fingers.current.set(e.pointerId, [e.clientX, e.clientY]);
    const two = twoFingers();
    if (two && fingers.current.size === 2) {
      gestures.onPinch();
      pan.current = null;
      pinch.current = { distance: Math.max(1, apart(two)), zoom: now.current, user: userAt(between(two)) };
    } else if (fingers.current.size === 1 && !gestures.dragging()) {
      pan.current = { from: [e.clientX, e.clientY], last: [e.clientX, e.clientY], moving: false };
    }
  };
  const onPointerMove = (e: PointerEvent) => {
    if (e.pointerType !== "touch" || !fingers.current.has(e.pointerId)) return;
    fingers.current.set(e.pointerId, [e.clientX, e.clientY]);
    const two = twoFingers();
    if (pinch.current && two) {
      gestured.current = true;
      const p = pinch.current;
      return place((p.zoom * apart(two)) / p.distance, p.user, between(two));
    }
    const p = pan.current;
    const box = scroll.current;
    if (!p || !box || gestures.dragging()) return;
    if (!p.moving && Math.hypot(e.clientX - p.from[0], e.clientY - p.from[1]) < SLOP) return;
    p.moving = gestured.current = true;
    box.scrollLeft -= e.clientX - p.last[0];
    box.scrollTop -= e.clientY - p.last[1];
    p.last = [e.clientX, e.clientY];
  };
  const onPointerUp = (e: PointerEvent) => {
    if (e.pointerType !== "touch") return;
    fingers.current.delete(e.pointerId);
    if (fingers.current.size < 2) pinch.current = null;
    // A finger left after a pinch does not start a pan (the map would jump to follow it).
    pan.current = null;
  };
  const onWheel = (e: WheelEvent) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    zoomBy(Math.exp(-e.deltaY * 0.0015), [e.clientX, e.clientY]);
  };
  const onClickCapture = (e: MouseEvent) => {
    if (!gestured.current) return;
    gestured.current = false;
    e.stopPropagation();
    e.preventDefault();
  };
  return { zoom, zoomBy, handlers: { onPointerDown, onPointerMove, onPointerUp, onPointerCancel: onPointerUp, onWheel, onClickCapture } };
}

/** The − / + buttons and how near the map is. */
export function ZoomControl({ zoom }: { zoom: Zoom }) {
  return (
    <div class="scene-zoom" role="group" aria-label="Zoom">
      <button type="button" class="small" aria-label="Zoom out" disabled={zoom.zoom <= MIN} onClick={() => zoom.zoomBy(1 / 1.25)}>
        −
      </button>
      <span class="muted small">{Math.round(zoom.zoom * 100)}%</span>
      <button type="button" class="small" aria-label="Zoom in" disabled={zoom.zoom >= MAX} onClick={() => zoom.zoomBy(1.25)}>
        +
      </button>
      <span class="muted small scene-zoom-help">Ctrl+wheel or two fingers to zoom</span>
    </div>
  );
}
