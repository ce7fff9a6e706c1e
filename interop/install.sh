#!/usr/bin/env bash
# Installs the npm peers that the interoperability tests run (versions pinned in package-lock.json).
# Runs "npm ci" only when the lock file is newer than the last install, so rebuilds stay fast.
set -euo pipefail
cd "$(dirname "$0")"
stamp=node_modules/.installed-from-lock
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "interop/install.sh: npm is needed to install the reference MCP servers (apt-get install nodejs npm)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
touch "$stamp"
