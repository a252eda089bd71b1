#!/usr/bin/env bash
# Runs the Python example against a real server: a venv with pinned grpcio, stubs generated from
# proto/ (grpcio-tools bundles protoc), a server on a private temp socket. Exit 0 = it worked.
# The server binary: see ../find-server.sh (build it first: cargo build -p signaltty-server).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
server="$("$here/../find-server.sh")"
tmp="$(mktemp -d)"
chmod 700 "$tmp"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/gen" "$tmp/ws"
gen="$tmp/gen"
. "$here/env.sh"
# A private config location: the user's own config file must not change the example's server.
XDG_CONFIG_HOME="$tmp/config" SIGNALTTY_CONFIG="" \
  "$server" --socket "$tmp/s.sock" --state-dir "$tmp/state" --log-file "$tmp/server.log" &
server_pid=$!
for _ in $(seq 1 200); do [ -S "$tmp/s.sock" ] && break; sleep 0.05; done
printf 'hello from python\nsecond line\n' |
  PYTHONPATH="$tmp/gen" "$venv/bin/python" "$here/client.py" "$tmp/s.sock" "$tmp/ws"
echo "python example: ok"
