#!/usr/bin/env bash
# Starts a built desktop binary in sandbox mode under Xvfb and saves a screenshot of the screen.
# Usage: scripts/desktop/screenshot.sh BINARY OUT.png [SECONDS_TO_WAIT] [-- xdotool steps...]
# Used to look at screens as a person would; the end-to-end suite drives the app properly.
set -euo pipefail
bin=$1 out=$2 wait=${3:-8}
shift $(( $# >= 3 ? 3 : $# ))
[ "${1:-}" = "--" ] && shift
source "$(dirname "$0")/xvfb-app.sh"
start_app_under_xvfb "$bin"
sleep "$wait"
for step in "$@"; do
  DISPLAY=$display xdotool $step
  sleep 1.5
done
DISPLAY=$display import -window root "$out"
echo "saved $out"
