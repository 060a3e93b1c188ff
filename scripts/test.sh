#!/usr/bin/env bash
# `npm test`: lint, type checks, then both test tiers in one Jest run (jest.config.js's projects):
# unit (*.spec.ts beside the code, no services) and e2e (test/**/*.e2e-spec.ts, real Redis,
# LibreOffice, Python, Chromium). Arguments go to Jest: `npm test -- libs/engine`,
# `npm test -- --selectProjects unit`, `npm test -- -t 'RedisScript'` (docs/testing.md).
# Ends with the plain line "tests: N passed, N failed" (", N skipped" when any) that CI reads,
# summing both tiers; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
echo "== lint" >&2
npx eslint . || exit 1
npx prettier --check . >/dev/null || { npx prettier --check . ; exit 1; }
echo "== imports (dependency-cruiser: no cycles, the engine's layers, BullMQ only in libs/queue)" >&2
node scripts/check-deps.mjs || exit 1
echo "== typecheck" >&2
npx tsc -p tsconfig.json --noEmit || exit 1
echo "== tests: unit and e2e" >&2
mkdir -p .tmp
counts=.tmp/jest-counts.json
rm -f "$counts"
npx jest --ci "$@" --reporters=default --reporters=./scripts/jest-counts.cjs
status=$?
if [ -f "$counts" ]; then
  node -e '
    const { total, tiers } = require(process.argv[1]);
    const line = (c) => `${c.passed} passed, ${c.failed} failed` + (c.skipped ? `, ${c.skipped} skipped` : "");
    const names = [...new Set(["unit", "e2e", ...Object.keys(tiers)])].filter((n) => tiers[n]);
    for (const name of names) console.log(`  ${name}: ${line(tiers[name])}`);
    console.log(`tests: ${line(total)}`);
  ' "$(pwd)/$counts"
fi
exit $status
