#!/usr/bin/env bash
# Installs the agents' CLIs that regenerate.sh runs (versions pinned in package-lock.json).
# Runs "npm ci" only when the lock file is newer than the last install, as interop/install.sh does.
set -euo pipefail
cd "$(dirname "$0")"
stamp=node_modules/.installed-from-lock
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "interop/agents/install.sh: npm is needed to install the agents' CLIs (apt-get install nodejs npm)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
touch "$stamp"
