#!/usr/bin/env bash
# Installs the npm packages pinned in a folder's package-lock.json: interop/ by default (the peers that
# the interoperability tests run), or the folder given (interop/agents: the agents' CLIs that
# interop/agents/regenerate.sh runs).
# Runs "npm ci" only when the lock file is newer than the last install, so rebuilds stay fast.
# For interop/ it also creates interop/python/venv with the pinned Python peers (python/requirements.txt).
set -euo pipefail
cd "${1:-$(dirname "$0")}"
if [ -f python/requirements.txt ]; then
  venv_stamp=python/venv/.installed-from-requirements
  if [ ! -f "$venv_stamp" ] || [ python/requirements.txt -nt "$venv_stamp" ]; then
    if ! command -v python3 >/dev/null 2>&1; then
      echo "interop/install.sh: python3 (3.10 or later, with venv) is needed for the Python MCP peers" >&2
      exit 1
    fi
    rm -rf python/venv
    python3 -m venv python/venv
    # --retries 0: an index that cannot be reached is passed over at once for the ones that can.
    python/venv/bin/pip install --quiet --disable-pip-version-check --retries 0 -r python/requirements.txt 2>&1 \
      | { grep -v "^WARNING: \(Retrying\|Location\)" || true; } >&2
    touch "$venv_stamp"
  fi
fi
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
