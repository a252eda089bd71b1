#!/usr/bin/env bash
# Runs remote_workspaces.py against a running local server: run_remote.sh SOCKET MACHINE.
# The server must have MACHINE as a remote (`signaltty remote add`); signaltty-cli's
# tests/remote_api.rs sets one up over a private sshd and runs this. Exit 0 = it worked.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
gen="$(mktemp -d)"
trap 'rm -rf "$gen"' EXIT
. "$here/env.sh"
PYTHONPATH="$gen" "$venv/bin/python" "$here/remote_workspaces.py" "$1" "$2"
