#!/usr/bin/env bash
# Installs the npm packages pinned in a folder's package-lock.json: interop/ by default (the peers that
# the interoperability tests run), or the folder given (interop/agents: the agents' CLIs that
# interop/agents/regenerate.sh runs).
# Runs "npm ci" only when the lock file is newer than the last install, so rebuilds stay fast.
set -euo pipefail
cd "${1:-$(dirname "$0")}"
stamp=node_modules/.installed-from-lock
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "interop/install.sh: npm is needed to install the packages of $(pwd) (apt-get install nodejs npm)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
touch "$stamp"
