# Sourced by the example runners: a venv with the pinned grpcio at the repository's root
# (.venv), and stubs generated from proto/ (grpcio-tools bundles protoc) into "$gen".
# Needs: $here (this directory), $root (the repository), $gen (an existing directory).
venv="$root/.venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python" -m grpc_tools.protoc -I "$root/proto" --python_out="$gen" \
  --grpc_python_out="$gen" "$root"/proto/signaltty/v1/*.proto
