#!/usr/bin/env bash
# Smoke test of the built desktop app: starts it in sandbox mode under Xvfb, waits until the core
# has started and a window titled "Staffroom" is mapped, then closes it. Fails otherwise, or if
# WebKit's web context was built without the app's memory limit (src-tauri/src/webkit_memory.rs).
set -euo pipefail
bin=${1:?usage: smoke.sh BINARY}
source "$(dirname "$0")/xvfb-app.sh"
start_app_under_xvfb "$bin"
for _ in $(seq 1 60); do
  if grep -q "desktop app started" "$data/app.log" && DISPLAY=$display xdotool search --name '^Staffroom$' >/dev/null 2>&1; then
    # The log is coloured: its escapes are taken out first.
    if ! sed 's/\x1b\[[0-9;]*m//g' "$data/app.log" | grep -qE "tidies up past [0-9]+ MB contexts=[1-9]"; then
      echo "WebKit's web context was built without the app's memory limit:"; cat "$data/app.log"; exit 1
    fi
    echo "desktop smoke test: the app started in sandbox mode and opened its window, its web context given the memory limit"
    exit 0
  fi
  kill -0 $app 2>/dev/null || { echo "the app exited early:"; cat "$data/app.log"; exit 1; }
  sleep 0.5
done
echo "the app did not open its window within 30 s:"; cat "$data/app.log"; exit 1
