#!/usr/bin/env bash
# Deploys a preview of a site per pull request: `tape deploy <dir> --alias pr-<n> --json`.
# The live site ("/") is never touched; the preview answers at
#   <scheme>://pr-<n>--<label>.<site domain>/   and   <gateway>/site/<tape>@pr-<n>/
# with `X-Robots-Tag: noindex`. Promote it after review with `tape promote pr-<n>`.
# Documented in docs/site.md ("A preview per pull request").
#
# Environment (CI secrets and variables):
#   TAPE_DEPLOY_KEY  the keypair (a Solana CLI JSON array of 64 numbers) of the tape's
#                    authority or of its delegate, funded with SOL for fees. Never a file in
#                    the repository: it is written to a private temporary file and removed.
#   TAPE_ADDRESS     the tape to publish to (its address or its label).
#   TAPE_RPC_URL     the chain's RPC URL.          TAPE_GATEWAY  the gateway's URL.
#   TAPE_SITE_DOMAIN optional: the site domain the printed URLs use.
#   PR_NUMBER        the pull request's number; on GitHub Actions it is read from
#                    GITHUB_REF (refs/pull/<n>/merge) when unset.
#   TAPE             optional: how to run the CLI (default `tape`; e.g. `npx tape`).
# Arguments: the built site directory (default: build).
# Output: the preview's URL on stdout (and `url=`, `path_url=`, `version=` in $GITHUB_OUTPUT
# when set). Exit status non-zero, with tape's one-line error on stderr, when the deploy fails.
set -euo pipefail

site_dir="${1:-build}"
tape_cli="${TAPE:-tape}"

fail() {
  echo "deploy-preview: $*" >&2
  exit 1
}

[ -n "${TAPE_DEPLOY_KEY:-}" ] || fail "TAPE_DEPLOY_KEY is not set (the deploy keypair as a JSON array)"
[ -n "${TAPE_ADDRESS:-}" ] || fail "TAPE_ADDRESS is not set"
[ -d "$site_dir" ] || fail "no site directory at $site_dir"

pr="${PR_NUMBER:-}"
if [ -z "$pr" ] && [[ "${GITHUB_REF:-}" =~ ^refs/pull/([0-9]+)/ ]]; then
  pr="${BASH_REMATCH[1]}"
fi
[[ "$pr" =~ ^[0-9]{1,6}$ ]] || fail "PR_NUMBER must be a pull request number (got '${pr}')"
alias_name="pr-${pr}"

# The key lives only in a private temporary file for the length of the deploy.
umask 077
key_file="$(mktemp)"
trap 'rm -f "$key_file"' EXIT
printf '%s' "$TAPE_DEPLOY_KEY" >"$key_file"

answer="$($tape_cli deploy "$site_dir/index.html" --alias "$alias_name" --json -k "$key_file" --tape "$TAPE_ADDRESS")"

# One JSON object; read its fields with the Node that runs tape (no jq needed).
read_field() {
  node -e 'const a = JSON.parse(process.argv[1]); const v = a[process.argv[2]]; process.stdout.write(v === undefined || v === null ? "" : String(v));' "$answer" "$1"
}
url="$(read_field url)"
path_url="$(read_field path_url)"
version="$(read_field version)"
[ -n "$url$path_url" ] || fail "tape deploy printed no URL: $answer"

echo "${url:-$path_url}"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "url=${url:-$path_url}"
    echo "path_url=${path_url}"
    echo "version=${version}"
  } >>"$GITHUB_OUTPUT"
fi
