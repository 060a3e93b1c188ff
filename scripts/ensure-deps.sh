#!/usr/bin/env bash
# Every npm entry point runs this first, so `npm start` and `npm test` work on a fresh machine:
# system packages through apt-get when missing, then `npm ci` when node_modules is missing or
# older than package-lock.json. With --npm-only (`npm run test:unit`, which needs no system service),
# only the npm part.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${1:-}" = --npm-only ] || bash scripts/ensure-system-deps.sh
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "Installing npm dependencies (npm ci)..." >&2
  # The lock records every platform's optional binaries (@swc/core-darwin-arm64 and the rest),
  # so `npm ci` accepts it on Linux x64/arm64 and macOS alike; test/lockfile checks that.
  npm ci --no-audit --no-fund >&2
fi
