#!/usr/bin/env bash
# `npm test`: lint, type checks, then every test (unit beside the code, end-to-end in test/).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== lint" >&2
npx eslint . 
npx prettier --check . >/dev/null
echo "== typecheck" >&2
npx tsc -p tsconfig.json --noEmit
echo "== tests" >&2
npx jest --ci "$@"
