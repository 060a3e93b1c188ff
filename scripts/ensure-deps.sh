#!/usr/bin/env bash
# Every npm entry point runs this first, so `npm start` and `npm test` work on a fresh machine:
# system packages through apt-get when missing, then `npm ci` when node_modules is missing or
# older than package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system-deps.sh
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "Installing npm dependencies (npm ci)..." >&2
  if ! npm ci --no-audit --no-fund >&2; then
    # Registries that mirror only some platforms (404 for other platforms' optional binaries such
    # as @swc/core-darwin-arm64) make npm write a lock without them, which `npm ci` then refuses.
    # `npm install --no-save` installs the same locked versions and leaves the lock untouched.
    echo "npm ci refused the lock file; installing the locked versions with npm install --no-save" >&2
    npm install --no-save --no-audit --no-fund >&2
  fi
fi
