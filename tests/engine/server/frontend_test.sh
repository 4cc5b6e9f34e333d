#!/usr/bin/env bash
# `vt serve`'s HTTP front end under hostile and bursty clients (frontend_test.py says what each
# part checks): slow clients, a connection burst, pipelining, the connection cap and a header
# that never ends. Each server is started and waited for with serve_wait.sh.
# Usage: frontend_test.sh VT_BINARY
set -uo pipefail
vt=$1
here=$(dirname "$0")
source "$here/serve_wait.sh"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
failures=0
part() {  # part NAME PORT ARGS... : one frontend_test.py mode against PORT
  python3 "$here/frontend_test.py" "$1" 127.0.0.1 "${@:2}" || failures=$((failures + 1))
}

# Descriptors for 700 client sockets here and as many on the server.
ulimit -n 4096 2>/dev/null || true

start_serve "$vt" "$work/main.log"
pids+=("$served_pid")
part slow "$served_port"
part burst "$served_port"
part pipeline "$served_port"
kill "$served_pid"

start_serve "$vt" "$work/cap.log" --max-connections 8
pids+=("$served_pid")
part cap "$served_port" 8
kill "$served_pid"

start_serve "$vt" "$work/header.log" --max-connections 1 --header-timeout 2
pids+=("$served_pid")
part header "$served_port" 2

if [ "$failures" -ne 0 ]; then echo "$failures part(s) failed"; exit 1; fi
echo "all checks passed"
