# Sourced by the desktop scripts: starts Xvfb and the app BINARY in sandbox mode on a throw-away
# data dir, setting $display, $app, $xvfb and $data, and cleaning up on exit.
start_app_under_xvfb() {
  local bin=$1
  data=$(mktemp -d)
  display=:$(( 100 + RANDOM % 400 ))
  Xvfb "$display" -screen 0 1280x820x24 >/dev/null 2>&1 &
  xvfb=$!
  trap 'kill $app $xvfb 2>/dev/null || true; rm -rf "$data"' EXIT
  sleep 1
  DISPLAY=$display LIBGL_ALWAYS_SOFTWARE=1 NO_AT_BRIDGE=1 STAFFROOM_SECRET_STORE=memory \
    dbus-run-session -- "$bin" --sandbox --data-dir "$data/data" >"$data/app.log" 2>&1 &
  app=$!
}
