#!/usr/bin/env bash
# Smoke test of the built desktop app: starts it in sandbox mode under Xvfb, waits until the core
# has started and a window titled "Staffroom" is mapped, then closes it. Fails otherwise.
set -euo pipefail
bin=${1:?usage: smoke.sh BINARY}
data=$(mktemp -d)
display=:$(( 200 + RANDOM % 100 ))
Xvfb "$display" -screen 0 1280x820x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true; rm -rf "$data"' EXIT
sleep 1
DISPLAY=$display WEBKIT_DISABLE_COMPOSITING_MODE=1 NO_AT_BRIDGE=1 STAFFROOM_SECRET_STORE=memory \
  dbus-run-session -- "$bin" --sandbox --data-dir "$data/data" >"$data/app.log" 2>&1 &
app=$!
for _ in $(seq 1 60); do
  if grep -q "desktop app started" "$data/app.log" && DISPLAY=$display xdotool search --name '^Staffroom$' >/dev/null 2>&1; then
    echo "desktop smoke test: the app started in sandbox mode and opened its window"
    exit 0
  fi
  kill -0 $app 2>/dev/null || { echo "the app exited early:"; cat "$data/app.log"; exit 1; }
  sleep 0.5
done
echo "the app did not open its window within 30 s:"; cat "$data/app.log"; exit 1
