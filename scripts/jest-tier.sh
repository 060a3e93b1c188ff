#!/usr/bin/env bash
# `npm run test:unit` / `npm run test:e2e`: Jest on one tier (a project of jest.config.js), with the
# caller's arguments first: --selectProjects takes every word after it as a project name, so a
# path given after it would be read as one (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
tier="${1:?usage: jest-tier.sh unit|e2e [jest arguments]}"
shift
exec npx jest "$@" --selectProjects "$tier"
