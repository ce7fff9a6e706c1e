#!/usr/bin/env bash
# Regenerates servers/*.json: installs the pinned servers (npm ci, no install scripts: no browser or
# binary downloads), then starts each one over stdio with dummy credentials and saves its tools/list.
# Usage: bench/toolcorpus/collect.sh [server-name ...]    (a bench command, not run in CI)
set -euo pipefail
cd "$(dirname "$0")"
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
stamp=node_modules/.installed-from-lock
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  touch "$stamp"
fi
node collect.mjs "$@"
node queries.mjs --check
