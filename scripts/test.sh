#!/usr/bin/env bash
# The one test command: installs what the tests need, then lint, type check, unit and e2e tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
[ -d node_modules ] || npm install --no-audit --no-fund

# Two lanes at once before Jest, as every step in them is mostly single-threaded: ESLint with
# type information (about 90 s here) beside the build, the program check and the type check
# (about 55 s), so on two cores they take as long as the lint instead of both (145 s). The
# lint's output is shown when it ends, not interleaved with the build's.
lint_log=$(mktemp)
# The lint runs in its own process group (setsid), so that a failed build stops all of it.
lint_pid=""
trap '[ -z "$lint_pid" ] || kill -- "-$lint_pid" 2>/dev/null || true; rm -f "$lint_log"' EXIT
setsid npm run lint >"$lint_log" 2>&1 &
lint_pid=$!
npm run build
npm run check:program
npm run typecheck
lint_rc=0
wait "$lint_pid" || lint_rc=$?
cat "$lint_log"
if [ "$lint_rc" -ne 0 ]; then
  echo "error: npm run lint failed (exit $lint_rc)" >&2
  exit "$lint_rc"
fi

npx jest --ci
