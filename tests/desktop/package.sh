#!/usr/bin/env bash
# The install test: unpacks the Debian package into a throwaway root (dpkg -x, as dpkg would
# install it), checks what a desktop needs from it (the app, the CLI beside it, the desktop entry
# that opens .houserule files, the file type, the icons), runs the installed CLI (a demo campaign,
# a roll, verify), then the installed app on that campaign under Xvfb until its window names the
# campaign, and takes a screenshot.
#
# Usage: tests/desktop/package.sh target/release/bundle/deb/Houserule_0.1.0_amd64.deb
#        (HOUSERULE_SCREENSHOTS=docs/screenshots to refresh the committed screenshot)
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=${1:?usage: tests/desktop/package.sh PACKAGE.deb}
shots=${HOUSERULE_SCREENSHOTS:-target/screenshots}

if [ -z "${HOUSERULE_IN_XVFB:-}" ]; then
    export HOUSERULE_IN_XVFB=1
    exec xvfb-run -a -s "-screen 0 1280x800x24" "$0" "$@"
fi

root=$(mktemp -d)
work=$(mktemp -d)
trap 'kill "${app:-0}" 2>/dev/null || true; rm -rf "$root" "$work"' EXIT
fail() { echo "package test: FAILED: $*" >&2; exit 1; }

dpkg-deb --info "$deb" | grep -E "Package|Version|Depends|Installed-Size" | sed 's/^/  /'
dpkg -x "$deb" "$root"
for f in usr/bin/houserule-desktop usr/bin/houserule usr/share/mime/packages/houserule.xml \
         usr/share/icons/hicolor/128x128/apps/houserule-desktop.png; do
    [ -e "$root/$f" ] || fail "$f is not in the package; it has: $(cd "$root" && find . -type f | sort | tr '\n' ' ')"
done
entry=$(find "$root/usr/share/applications" -name '*.desktop' | head -n 1)
[ -n "$entry" ] || fail "no desktop entry"
grep -q '^Exec=houserule-desktop %f$' "$entry" || fail "the desktop entry does not open a file: $(grep Exec "$entry")"
grep -q '^MimeType=application/x-houserule;$' "$entry" || fail "the desktop entry does not claim .houserule files"
grep -q 'pattern="\*.houserule"' "$root/usr/share/mime/packages/houserule.xml" || fail "the file type has no *.houserule pattern"
if command -v desktop-file-validate >/dev/null; then desktop-file-validate "$entry"; fi
echo "  files: the app, the CLI, $(basename "$entry"), the .houserule file type, icons"

# The installed CLI, from the throwaway root (rulesets and UI are built into the binaries).
cli="$root/usr/bin/houserule"
"$cli" --version
"$cli" demo "$work" --ruleset fumbles >/dev/null
campaign="$work/fumbles-demo.houserule"
"$cli" act "$campaign" trait_check --as player:bo -p character=frody -p traits=agility >/dev/null
"$cli" verify "$campaign" >/dev/null || fail "the installed CLI does not verify its own campaign"
echo "  CLI: demo made, a trait check taken, verified"

# The installed app on that campaign, as a file manager would open it.
title="Demo: the goblin barbecue · Houserule"
XDG_DATA_HOME="$work/data" WEBKIT_DISABLE_DMABUF_RENDERER=1 "$root/usr/bin/houserule-desktop" "$campaign" >"$work/app.log" 2>&1 &
app=$!
for _ in $(seq 1 120); do
    kill -0 "$app" 2>/dev/null || { cat "$work/app.log" >&2; fail "the installed app exited"; }
    xwininfo -root -tree | grep -qF "\"$title\"" && break
    sleep 0.5
done
xwininfo -root -tree | grep -qF "\"$title\"" || { cat "$work/app.log" >&2; fail "no window titled '$title' within 60 s"; }
sleep 3
mkdir -p "$shots"
import -window root "$shots/installed-app.png"
colours=$(convert "$shots/installed-app.png" -format %k info:)
[ "$colours" -gt 50 ] || fail "the screenshot is nearly blank ($colours colours)"
echo "  app: the installed app shows the campaign ($shots/installed-app.png, $colours colours)"
echo "package test: ok"
