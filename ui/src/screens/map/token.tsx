// What a token looks like inside its `g`: a circle scaled to its size in cells, and either its
// picture cut to that circle or its initials. The picture is the one the engine gives the viewer
// for the token (its own, else its entity's portrait) through the `picture` call, which hands a
// player only a picture of a token they see; one refused or still loading leaves the initials.
// The picture is decoration (aria-hidden): the token's name is given by its `g`'s label and title.

import { useId } from "preact/hooks";
import type { Grid, TokenView } from "../../contract";
import type { Store } from "../../store";
import { usePicture } from "../pictures";
import { tokenCircle } from "./geometry";

export function TokenFace({ store, grid, token }: { store: Store; grid: Grid; token: TokenView }) {
  const { cx, cy, r } = tokenCircle(grid, token);
  const picture = usePicture(store, token.image);
  // An id only this token's clip has (two maps, or two tokens, never share one).
  const clip = `token-clip-${useId().replace(/[^A-Za-z0-9_-]/g, "")}`;
  if (!picture) {
    return (
      <>
        <circle cx={cx} cy={cy} r={r} />
        <text x={cx} y={cy + 4} text-anchor="middle">
          {initials(token.name)}
        </text>
        <title>{token.name}</title>
      </>
    );
  }
  return (
    <>
      <clipPath id={clip}>
        <circle cx={cx} cy={cy} r={r} />
      </clipPath>
      <image
        class="token-picture"
        href={picture.url}
        x={cx - r}
        y={cy - r}
        width={2 * r}
        height={2 * r}
        preserveAspectRatio="xMidYMid slice"
        clip-path={`url(#${clip})`}
        aria-hidden="true"
      />
      <circle class="token-ring" cx={cx} cy={cy} r={r} />
      <title>{token.name}</title>
    </>
  );
}

/** Up to two capitals from a name: "Old Tom" → "OT". */
function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");
}
