#!/usr/bin/env bash
# Prints the signaltty-server binary the examples run against: $SIGNALTTY_SERVER_BIN when set,
# else the newer of the release and debug builds in cargo's target directory (which honours
# CARGO_TARGET_DIR and .cargo/config.toml, as `cargo metadata` reports it).
set -euo pipefail
if [ -n "${SIGNALTTY_SERVER_BIN:-}" ]; then
  echo "$SIGNALTTY_SERVER_BIN"
  exit 0
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
target="$(cd "$root" && cargo metadata --format-version 1 --no-deps |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
best=""
for candidate in "$target/release/signaltty-server" "$target/debug/signaltty-server"; do
  if [ -x "$candidate" ] && { [ -z "$best" ] || [ "$candidate" -nt "$best" ]; }; then
    best="$candidate"
  fi
done
if [ -z "$best" ]; then
  echo "no signaltty-server in $target/{release,debug}: build it first" \
    "(cargo build -p signaltty-server) or set SIGNALTTY_SERVER_BIN" >&2
  exit 1
fi
echo "$best"
