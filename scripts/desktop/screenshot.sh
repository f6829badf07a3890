#!/usr/bin/env bash
# Starts a built desktop binary in sandbox mode under Xvfb and saves a screenshot of the screen.
# Usage: scripts/desktop/screenshot.sh BINARY OUT.png [SECONDS_TO_WAIT] [-- xdotool steps...]
# Used to look at screens as a person would; the end-to-end suite drives the app properly.
set -euo pipefail
bin=$1 out=$2 wait=${3:-8}
shift $(( $# >= 3 ? 3 : $# ))
[ "${1:-}" = "--" ] && shift
data=$(mktemp -d)
display=:$(( 90 + RANDOM % 100 ))
Xvfb "$display" -screen 0 1280x820x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true; rm -rf "$data"' EXIT
sleep 1
DISPLAY=$display WEBKIT_DISABLE_COMPOSITING_MODE=1 NO_AT_BRIDGE=1 STAFFROOM_SECRET_STORE=memory \
  dbus-run-session -- "$bin" --sandbox --data-dir "$data" >"$data/app.log" 2>&1 &
app=$!
sleep "$wait"
for step in "$@"; do
  DISPLAY=$display xdotool $step
  sleep 1.5
done
DISPLAY=$display import -window root "$out"
echo "saved $out"
