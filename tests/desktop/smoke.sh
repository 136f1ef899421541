#!/usr/bin/env bash
# Desktop smoke test: builds the Tauri app, starts it under Xvfb on the Fumbles demo campaign,
# waits until the window's title names the campaign (the UI loaded, called the engine over IPC
# and shows the table), takes a screenshot of the screen and checks that it is not blank.
#
# Usage: tests/desktop/smoke.sh            (the screenshot goes to target/screenshots/desktop.png)
#        HOUSERULE_SCREENSHOTS=docs/screenshots tests/desktop/smoke.sh   (refresh the committed one)
# Needs: the built UI (npm --prefix ui run build), xvfb, imagemagick, x11-utils (scripts/setup).
set -euo pipefail
cd "$(dirname "$0")/../.."

work=target/desktop-smoke
shots=${HOUSERULE_SCREENSHOTS:-target/screenshots}

if [ -z "${HOUSERULE_IN_XVFB:-}" ]; then
    [ -f ui/dist/index.html ] || { echo "smoke: ui/dist is missing; build the UI first (npm --prefix ui run build)" >&2; exit 1; }
    # Built as `cargo test --workspace` builds it (same features), so after the tests this
    # costs nothing; the app is the same (tauri's `test` feature only adds its mock module).
    cargo build -q --workspace --tests
    rm -rf "$work"
    mkdir -p "$work" "$shots"
    ./target/debug/houserule demo "$work" --ruleset fumbles >/dev/null
    # A fresh data folder, so the app's recent-files list is its own.
    export XDG_DATA_HOME="$PWD/$work/data" HOUSERULE_IN_XVFB=1
    exec xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$@"
fi

fail() {
    echo "smoke: FAILED: $*" >&2
    echo "--- the app printed:" >&2
    cat "$work/app.log" >&2 || true
    exit 1
}

title="Demo: the goblin barbecue · Houserule"
WEBKIT_DISABLE_DMABUF_RENDERER=1 ./target/debug/houserule-desktop "$work/fumbles-demo.houserule" >"$work/app.log" 2>&1 &
app=$!
trap 'kill $app 2>/dev/null || true' EXIT

shown=""
for _ in $(seq 1 120); do
    kill -0 "$app" 2>/dev/null || fail "the app exited before showing the campaign"
    windows=$(xwininfo -root -tree)
    if grep -qF "\"$title\"" <<<"$windows"; then
        shown=1
        break
    fi
    sleep 0.5
done
[ -n "$shown" ] || fail "no window titled '$title' within 60 s; windows:
$(xwininfo -root -tree | grep '"' || true)"

# Give the table a moment to paint its view and log after the title changed.
sleep 3
shot="$shots/desktop.png"
import -window root "$shot"
kill "$app"
wait "$app" 2>/dev/null || true

# Not blank: a rendered table has text, bars and dice (many colours, no single colour
# covering almost everything); an empty or white window has a handful.
colours=$(identify -format %k "$shot")
read -r width height < <(identify -format '%w %h\n' "$shot")
pixels=$((width * height))
top=$(convert "$shot" -format %c histogram:info:- | awk -F: '$1+0 > max { max = $1+0 } END { print max }')
share=$((100 * top / pixels))
echo "smoke: window '$title' shown; screenshot $shot: $colours colours, the commonest covers $share%"
[ "$colours" -ge 200 ] || fail "the screenshot has only $colours colours: the window looks blank"
[ "$share" -le 85 ] || fail "one colour covers $share% of the screenshot: the window looks blank"
echo "smoke: ok"
