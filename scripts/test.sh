#!/usr/bin/env bash
# The one test command: installs what the tests need, then lint, type checks (the benchmarks'
# too), unit and e2e tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# TAPE_NODE=/path/to/node runs all of it under that Node (e.g. 24, from the npm registry's `node`
# package: docs/operator.md, "Node versions"): its directory goes first on PATH, so npm, npx,
# the npm scripts, Jest and every process the tests start use it.
if [ -n "${TAPE_NODE:-}" ]; then
  node_dir=$(dirname "$(readlink -f "$TAPE_NODE")")
  [ -x "$node_dir/node" ] || { echo "TAPE_NODE: no node at $TAPE_NODE" >&2; exit 1; }
  export PATH="$node_dir:$PATH"
fi
echo "node $(node --version) ($(command -v node))"

# Before Jest, lanes at once, as each keeps about one core busy: the Debian packages (downloads
# and dpkg; minutes on a fresh machine), from the start; on a fresh clone the native addons'
# build (node-gyp compiling SQLite for better-sqlite3: over 2 min, one C file); ESLint with type
# information (about 90 s here); the build and the type check (about 50 s), in the foreground.
# A lane's output is shown when it ends, not interleaved.
lane_names=()
lane_pids=()
lane_logs=()
lane_kill=()
start_lane() {
  local name=$1 killable=$2 log
  shift 2
  log=$(mktemp)
  # Its own process group, so that a failure elsewhere stops all of it.
  setsid "$@" >"$log" 2>&1 &
  lane_names+=("$name")
  lane_pids+=("$!")
  lane_logs+=("$log")
  lane_kill+=("$killable")
}
# On a failure: the other lanes are stopped, except those waited for: dpkg cut short leaves the
# system's packages half-configured, and an addon build cut short leaves a node_modules that the
# next run would not install again.
stop_lanes() {
  local i
  for i in "${!lane_pids[@]}"; do
    [ -n "${lane_pids[$i]}" ] || continue
    if [ "${lane_kill[$i]}" = kill ]; then
      kill -- "-${lane_pids[$i]}" 2>/dev/null || true
    else
      wait "${lane_pids[$i]}" 2>/dev/null || true
    fi
  done
  rm -f "${lane_logs[@]}"
}
trap stop_lanes EXIT
# Waits for one lane (by its name) and shows its output; fails when it failed.
wait_lane() {
  local i status=0
  for i in "${!lane_pids[@]}"; do
    [ "${lane_names[$i]}" = "$1" ] && [ -n "${lane_pids[$i]}" ] || continue
    wait "${lane_pids[$i]}" || status=$?
    lane_pids[$i]=''
    cat "${lane_logs[$i]}"
    rm -f "${lane_logs[$i]}"
    if [ "$status" -ne 0 ]; then
      echo "error: $1 failed" >&2
      return 1
    fi
  done
}
# Waits for every lane still running; fails when one of them failed.
wait_lanes() {
  local failed=0 i
  for i in "${!lane_pids[@]}"; do
    [ -n "${lane_pids[$i]}" ] || continue
    wait_lane "${lane_names[$i]}" || failed=1
  done
  return "$failed"
}

start_lane 'the Debian packages' wait bash scripts/install-test-deps.sh
if [ ! -d node_modules ]; then
  # The packages without their install scripts, which then run as a lane: only better-sqlite3's
  # takes long (no prebuilt binary is reachable here), and nothing before Jest loads an addon.
  npm install --no-audit --no-fund --ignore-scripts
  start_lane 'the native addons (npm rebuild)' wait bash -c \
    'npm rebuild || { echo "run npm rebuild (or remove node_modules) before npm test again"; exit 1; }'
elif ! node -e "try { require('node:sqlite') } catch { new (require('better-sqlite3'))(':memory:') }" \
  2>/dev/null; then
  # Node 20 (no node:sqlite) with an addon built for another Node (the last run used TAPE_NODE).
  start_lane 'the native addons (npm rebuild better-sqlite3)' wait npm rebuild better-sqlite3
fi
start_lane 'npm run lint' kill npm run lint
# The benchmarks' own build (tsconfig.bench.json: no Jest types, so a helper in test/support that
# uses Jest globals fails here, as `npm run bench` would).
start_lane 'npm run typecheck:bench' kill npm run typecheck:bench
npm run build
npm run typecheck
# The program check needs clang, from the Debian packages.
wait_lane 'the Debian packages'
npm run check:program
wait_lanes

npx jest --ci
