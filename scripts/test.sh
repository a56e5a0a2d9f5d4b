#!/usr/bin/env bash
# The one test command: installs what the tests need, then lint, type check, unit and e2e tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
[ -d node_modules ] || npm install --no-audit --no-fund
npm run build
npm run check:program
npm run lint
npx tsc -p tsconfig.json --noEmit
npx jest --ci
