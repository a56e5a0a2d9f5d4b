#!/usr/bin/env bash
# The one test command: installs what the tests need, then lint, type check, unit and e2e tests.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm install --no-audit --no-fund

# Before Jest, three lanes at once, as each keeps one core busy or a little more: the Debian
# packages (downloads and dpkg; minutes on a fresh machine) then the program check (it needs
# clang); ESLint with type information (about 90 s here); the build and the type check (about
# 50 s), in the foreground. A lane's output is shown when it ends, not interleaved.
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
# On a failure: the other lanes are stopped, except one installing packages, which is waited
# for (dpkg cut short leaves the system's packages half-configured).
stop_lanes() {
  local i
  for i in "${!lane_pids[@]}"; do
    if [ "${lane_kill[$i]}" = kill ]; then
      kill -- "-${lane_pids[$i]}" 2>/dev/null || true
    else
      wait "${lane_pids[$i]}" 2>/dev/null || true
    fi
  done
  rm -f "${lane_logs[@]}"
}
trap stop_lanes EXIT
wait_lanes() {
  local failed=0 i
  for i in "${!lane_pids[@]}"; do
    if ! wait "${lane_pids[$i]}"; then
      failed=1
      echo "error: ${lane_names[$i]} failed" >&2
    fi
    cat "${lane_logs[$i]}"
  done
  rm -f "${lane_logs[@]}"
  lane_pids=()
  lane_logs=()
  lane_kill=()
  return "$failed"
}

start_lane 'the Debian packages or the program check' wait \
  bash -c 'bash scripts/install-test-deps.sh && npm run check:program'
start_lane 'npm run lint' kill npm run lint
npm run build
npm run typecheck
wait_lanes

npx jest --ci
