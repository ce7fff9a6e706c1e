#!/usr/bin/env bash
# Regenerates servers/*.json: installs the pinned servers (npm ci, no install scripts: no browser or
# binary downloads), then starts each one over stdio with dummy credentials and saves its tools/list.
# Usage: bench/toolcorpus/collect.sh [server-name ...]    (a bench command, not run in CI)
set -euo pipefail
cd "$(dirname "$0")"
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
stamp=node_modules/.installed-from-lock
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  # npm 11's ci refuses this lock file for the other platforms' optional binaries of kubernetes-mcp-server
  # and slack-mcp-server that it leaves out; install then lays out the same locked versions, checked below
  # (the same fallback as bench/install-npm.sh).
  if ! npm ci --ignore-scripts --no-audit --no-fund --loglevel=error 2>/dev/null; then
    echo "toolcorpus: npm ci refused the lock file; npm install --no-save from it" >&2
    npm install --no-save --ignore-scripts --no-audit --no-fund --loglevel=error
    node -e '
      const lock = require("./package-lock.json"), fs = require("fs");
      const off = Object.entries(lock.packages).filter(([p, v]) => p && !v.optional
          && (!fs.existsSync(p + "/package.json") || JSON.parse(fs.readFileSync(p + "/package.json")).version !== v.version));
      if (off.length) { console.error("toolcorpus: installed versions differ from the lock file:", off.map(([p]) => p).join(", ")); process.exit(1); }'
  fi
  touch "$stamp"
fi
node collect.mjs "$@"
node queries.mjs --check
