#!/usr/bin/env bash
# Runs one agent turn against the recording model endpoint (model-recorder.cjs), in a network namespace of its own
# where only 127.0.0.1 exists, so that the agent sends its model request (with the tools it offers) to the recorder
# and nothing it tries beyond that can leave the machine: regenerate.sh calls it through `unshare --net`.
#
#   agent-model.sh LOG CALL DIR NAME=VALUE... -- COMMAND ARGS...
#
# LOG gets the recorder's lines; CALL is --call (the recorder asks to call every MCP tool offered) or -; the agent
# runs in DIR with exactly the given environment, in which @MODEL@ stands for the recorder's base URL
# (http://127.0.0.1:PORT), as it may in the arguments. The agent's own output is dropped, or kept in the file
# AGENT_OUTPUT names (set in the environment of this script, not the agent's) for whoever has to find out why a turn
# went as it did.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$1 call=$2 dir=$3
shift 3
env_vars=()
while [ "$1" != "--" ]; do
  env_vars+=("$1")
  shift
done
shift
ip link set lo up
if [ "$call" = --call ]; then
  coproc model { exec node "$here/model-recorder.cjs" "$log" --call; }
else
  coproc model { exec node "$here/model-recorder.cjs" "$log"; }
fi
read -r port <&"${model[0]}"
url=http://127.0.0.1:$port
command=()
for word in "$@"; do command+=("${word//@MODEL@/$url}"); done
resolved=()
for assignment in "${env_vars[@]}"; do resolved+=("${assignment//@MODEL@/$url}"); done
output=${AGENT_OUTPUT:-/dev/null}
(cd "$dir" && env -i "${resolved[@]}" timeout 120 "${command[@]}" </dev/null >"$output" 2>&1) || true
pid=$model_PID
eval "exec ${model[1]}>&-"
wait "$pid" 2>/dev/null || true
