#!/usr/bin/env bash
# `npm test`: lint, type checks, then every test (unit beside the code, end-to-end in test/).
# Ends with the plain line "tests: N passed, N failed" that CI reads.
set -uo pipefail
cd "$(dirname "$0")/.."
echo "== lint" >&2
npx eslint . || exit 1
npx prettier --check . >/dev/null || { npx prettier --check . ; exit 1; }
echo "== imports (dependency-cruiser: no cycles, the engine's layers, BullMQ only in libs/queue)" >&2
node scripts/check-deps.mjs || exit 1
echo "== typecheck" >&2
npx tsc -p tsconfig.json --noEmit || exit 1
echo "== tests" >&2
mkdir -p .tmp
results=.tmp/jest-results.json
rm -f "$results"
npx jest --ci --json --outputFile="$results" "$@"
status=$?
if [ -f "$results" ]; then
  node -e '
    const r = require(process.argv[1]);
    const failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`tests: ${r.numPassedTests} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
  ' "$(pwd)/$results"
fi
exit $status
