#!/usr/bin/env bash
# Rebuilds the WordNet vocabulary of the experiment in RESULTS.md (mcp/search/internal/wordnet.txt.gz) from WordNet
# 3.0 with derive.py (its docstring says what is kept). Only useful at the merge of branch wordnet, where the
# experiment's code is: the code and the resource were removed from mcp.search after it (RESULTS.md).
# Needs python3 and the WordNet database files (Debian: apt-get install -y wordnet-base, which puts them
# in /usr/share/wordnet; or pass another folder holding index.noun, data.noun, index.verb, data.verb).
# Usage: bench/wordnet/derive.sh [WORDNET_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
wordnet=${1:-/usr/share/wordnet}
if [[ ! -f "$wordnet/data.noun" ]]; then
  echo "derive.sh: no WordNet database in $wordnet (Debian: apt-get install -y wordnet-base)" >&2
  exit 1
fi
exec python3 "$root/bench/wordnet/derive.py" "$wordnet" \
  "$root/mcp.search/src/main/resources/mcp/search/internal/wordnet.txt.gz"
