#!/usr/bin/env bash
# Builds the UI and the desktop app (serving the built UI), then opens Staffroom in sandbox mode.
# Extra arguments go to the app (e.g. --data-dir DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."
echo "==> Building the UI"
(cd ui && npm run build --silent)
echo "==> Building the desktop app (the first build takes several minutes)"
cargo build -p staffroom-desktop --features custom-protocol
bin="${CARGO_TARGET_DIR:-target}/debug/staffroom-desktop"
echo "==> Starting Staffroom in sandbox mode"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "no display found: starting it inside a virtual X server (xvfb-run)"
  exec xvfb-run -a dbus-run-session -- env LIBGL_ALWAYS_SOFTWARE=1 NO_AT_BRIDGE=1 "$bin" --sandbox "$@"
fi
exec "$bin" --sandbox "$@"
