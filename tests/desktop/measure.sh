#!/usr/bin/env bash
# Measures the desktop app as a GM starts it: the time from starting the program on the Fumbles
# demo to a usable table (the window's title names the campaign, which the page sets once it has
# the campaign, its view and its forms from the engine), and the memory of the whole process tree
# (the app, WebKit's web and network processes, the sandbox worker) once the table shows.
#
# Usage: tests/desktop/measure.sh [APP] [RUNS]
#   APP   the app binary (default: the installed /usr/bin/houserule-desktop, else
#         target/release/houserule-desktop)
#   RUNS  how many starts to time (default 10); the first after dropping the page cache when
#         run as root (a cold start), the rest warm.
# Prints the figures docs/performance.md records.
set -euo pipefail
cd "$(dirname "$0")/../.."
app=${1:-}
runs=${2:-10}
if [ -z "$app" ]; then
    if [ -x /usr/bin/houserule-desktop ]; then app=/usr/bin/houserule-desktop; else app=target/release/houserule-desktop; fi
fi
cli=$(dirname "$app")/houserule
[ -x "$cli" ] || cli=target/release/houserule
[ -x "$cli" ] || cli=target/debug/houserule

if [ -z "${HOUSERULE_IN_XVFB:-}" ]; then
    export HOUSERULE_IN_XVFB=1
    exec xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$app" "$runs"
fi

work=$(mktemp -d)
trap 'kill "${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
"$cli" demo "$work" --ruleset fumbles >/dev/null
campaign="$work/fumbles-demo.houserule"
title="Demo: the goblin barbecue · Houserule"
export XDG_DATA_HOME="$work/data" WEBKIT_DISABLE_DMABUF_RENDERER=1

# Once, so the file is checked and stamped (as on a GM's machine after the first open).
"$cli" verify "$campaign" >/dev/null

descendants() {
    local p=$1
    echo "$p"
    for c in $(pgrep -P "$p" || true); do descendants "$c"; done
}

times=()
for i in $(seq 1 "$runs"); do
    cold=""
    if [ "$i" -eq 1 ] && [ "$(id -u)" -eq 0 ]; then
        sync && echo 3 >/proc/sys/vm/drop_caches && cold=" (cold: page cache dropped)"
    fi
    start=$(date +%s%N)
    "$app" "$campaign" >"$work/app.log" 2>&1 &
    pid=$!
    until xwininfo -root -tree 2>/dev/null | grep -qF "\"$title\""; do
        kill -0 "$pid" 2>/dev/null || { cat "$work/app.log" >&2; echo "the app exited" >&2; exit 1; }
        sleep 0.01
    done
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    times+=("$ms")
    echo "start $i: ${ms} ms$cold"
    if [ "$i" -eq "$runs" ]; then
        sleep 3
        total_rss=0 total_pss=0
        echo "memory of the process tree, the table showing:"
        for p in $(descendants "$pid"); do
            [ -r "/proc/$p/smaps_rollup" ] || continue
            rss=$(awk '/^Rss:/ {print $2}' "/proc/$p/smaps_rollup")
            pss=$(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup")
            name=$(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-60)
            printf '  %-60s RSS %6d KiB  PSS %6d KiB\n' "$name" "$rss" "$pss"
            total_rss=$((total_rss + rss)) total_pss=$((total_pss + pss))
        done
        echo "  total: RSS $((total_rss / 1024)) MiB, PSS $((total_pss / 1024)) MiB (PSS shares libraries fairly; RSS counts them per process)"
    fi
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    sleep 0.5
done
sorted=$(printf '%s\n' "${times[@]:1}" | sort -n)
n=$(echo "$sorted" | wc -l)
median=$(echo "$sorted" | sed -n "$(( (n + 1) / 2 ))p")
max=$(echo "$sorted" | tail -n 1)
echo "first start ${times[0]} ms; the next $n: median ${median} ms, max ${max} ms"
