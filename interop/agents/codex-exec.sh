#!/usr/bin/env bash
# Runs `codex exec` in a network namespace of its own, where only 127.0.0.1 exists, so that Codex
# starts its MCP servers as in a real session (its `mcp list` never connects) and nothing it tries
# beyond them can leave the machine: regenerate.sh calls it through `unshare --net`.
#
#   codex-exec.sh ROOT DIR PORT NAME=VALUE...
#
# The HTTP recorder listens on PORT inside the namespace; Codex runs in DIR with exactly the given
# environment, against a model provider on 127.0.0.1 that does not answer, until `timeout` ends it.
set -euo pipefail
root=$1 dir=$2 port=$3
shift 3
ip link set lo up
coproc http { exec node "$root/recorder.cjs" --http "$port"; }
read -r _ <&"${http[0]}"
(cd "$dir" && env -i "$@" timeout 10 codex exec --skip-git-repo-check \
  -c model_provider=fixture \
  -c 'model_providers.fixture={name="fixture",base_url="http://127.0.0.1:9/v1",wire_api="responses",request_max_retries=0,stream_max_retries=0}' \
  -m fixture-model "Start your MCP servers." </dev/null >/dev/null 2>&1) || true
pid=$http_PID
eval "exec ${http[1]}>&-"
wait "$pid" 2>/dev/null || true
