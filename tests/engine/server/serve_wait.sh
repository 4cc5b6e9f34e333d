# Readiness waits for the `vt serve` tests, sourced by them. Each wait polls for the state it needs
# and gives up only after a generous bound (VT_TEST_READY_TIMEOUT seconds, default 300), so a loaded
# machine makes a test slower, never red; a server that exits while being waited on fails at once.

ready_timeout=${VT_TEST_READY_TIMEOUT:-300}

# wait_until SECONDS PID COMMAND... : polls COMMAND until it succeeds; fails when PID (if not empty)
# exits or SECONDS pass.
wait_until() {
  local bound=$1 pid=$2 deadline=$((SECONDS + $1))
  shift 2
  until "$@"; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      echo "wait: the server (pid $pid) exited while waiting for: $*" >&2
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "wait: gave up after ${bound} s waiting for: $*" >&2
      return 1
    fi
    sleep 0.1
  done
}

http_status_is() {  # http_status_is CODE URL
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$2")" = "$1" ]
}

# serve_port LOG PID : the port `vt serve --port 0` printed to LOG (it listens before it loads).
serve_port() {
  wait_until "$ready_timeout" "$2" grep -q 'listening on http://' "$1" || return 1
  sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$1" | head -n1
}

# wait_healthy BASE_URL PID : /health answers 200 once the model is loaded (503 before).
wait_healthy() {
  wait_until "$ready_timeout" "$2" http_status_is 200 "$1/health"
}

# try_start_serve VT LOG ARGS... : starts `VT serve --port 0 ARGS` logging to LOG and waits until it
# is healthy; sets served_pid and served_port. A server that does not get there is stopped and the
# call returns 1, its log left in LOG. LOG is emptied before the server starts: a caller that
# restarts its server on the same LOG would otherwise read the port the last server printed whenever
# the new one's shell had not yet truncated the file, and wait on a dead port until the bound.
try_start_serve() {
  local vt=$1 log=$2
  shift 2
  : >"$log"
  "$vt" serve --port 0 "$@" >"$log" 2>&1 &
  served_pid=$!
  served_port=$(serve_port "$log" "$served_pid") && wait_healthy "http://127.0.0.1:$served_port" "$served_pid" && return 0
  kill "$served_pid" 2>/dev/null
  return 1
}

# start_serve VT LOG ARGS... : try_start_serve for a test: a server that does not become ready has
# its log printed, and the test exits 1.
start_serve() {
  try_start_serve "$@" && return 0
  echo "FAIL the server did not become ready:"
  cat "$2"
  exit 1
}

metric_is() {  # metric_is BASE_URL NAME VALUE
  [ "$(curl -s "$1/metrics" | awk -v n="$2" '$1 == n {print $2}')" = "$3" ]
}

# wait_metric BASE_URL NAME VALUE : a gauge reaches VALUE (e.g. running requests back to 0).
wait_metric() {
  wait_until "$ready_timeout" "" metric_is "$1" "$2" "$3"
}
