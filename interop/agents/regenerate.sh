#!/usr/bin/env bash
# Regenerates the agent fixtures of AgentFixturesTest (mcp.host/src/test/resources/agents/):
#
#   interop/agents/regenerate.sh [SCENARIO...]      (all scenarios when none is named)
#
# The agents' own CLIs (pinned in package-lock.json, installed by ../install.sh) write the config files
# and judge them: for each scenario a scratch root (home/, project/, ...) is built, the tools' own
# "mcp add" / "add-json" commands write the servers with HOME=<root>/home, and their list/get commands
# run in the scenario's folders with the environment of fixture.env. What they print, and how they
# started the recording server (recorder.cjs: argv, cwd, environment, HTTP headers), is the expected
# result. Only what a tool decides in an interactive dialog (Claude Code's project-server approval and
# trust dialog, Codex's and Gemini CLI's folder trust) is written by hand, into the file the tool
# itself writes it to; each such place says so.
#
# Offline: every server and URL is on 127.0.0.1, and the tools run with their update checks and
# telemetry off. Running it twice gives no diff (normalize.cjs replaces the scratch root by @ROOT@,
# the recorder's port by @PORT@, and per-install ids and timestamps by placeholders).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
resources=$(cd "$here/../.." && pwd)/mcp.host/src/test/resources/agents

"$here/../install.sh" "$here"
bin=$here/node_modules/.bin
node_dir=$(dirname "$(command -v node)")

# Outside any repository, so that a folder without .git really has no repository root. Codex warns
# on stderr that it creates no helper binaries under a temporary directory; that is all it does.
work=$(cd "$(mktemp -d "${TMPDIR:-/tmp}/mcp-host-agents.XXXXXX")" && pwd -P)
cleanup() {
  stop_http
  rm -rf "$work"
}
stop_http() {
  if [ -n "${http_PID:-}" ]; then
    local pid=$http_PID
    eval "exec ${http[1]}>&-"
    wait "$pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

mapfile -t fixture_env < <(grep -E '^[A-Z_][A-Z0-9_]*=' "$here/fixture.env")

# Codex starts servers only in a session (codex exec), which also tries to reach its model: that
# runs in a network namespace of its own, where only 127.0.0.1 exists (codex-exec.sh).
if unshare --net --map-root-user true 2>/dev/null; then
  netns=(unshare --net --map-root-user)
elif unshare --net true 2>/dev/null; then
  netns=(unshare --net)
else
  echo "regenerate.sh: \`unshare --net\` is needed to run codex exec without a network" \
    "(enable unprivileged user namespaces, or run as root)" >&2
  exit 1
fi
command -v ip >/dev/null || { echo "regenerate.sh: ip (iproute2) is needed inside the namespace" >&2; exit 1; }

# The environment of every tool run: fixed, so that the names a server inherits are the same on
# every machine. HOME is the scenario's; CODEX_HOME is never set.
base_env() {
  echo "PATH=$bin:$node_dir:/usr/bin:/bin"
  echo "HOME=$root/home"
  echo "USER=fixture"
  echo "LOGNAME=fixture"
  echo "SHELL=/bin/sh"
  echo "LANG=C.UTF-8"
  echo "TZ=UTC"
  echo "DISABLE_AUTOUPDATER=1"
  echo "DISABLE_TELEMETRY=1"
  echo "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"
}

# setup DIR CMD...: a tool's own command that writes config, run in <root>/DIR without the fixture's
# variables: Gemini CLI rewrites its whole settings file with every $VAR it can resolve, so only
# without them do the references stay in the file as the user wrote them. Its output goes to
# expected/setup.log, for the reader.
setup() {
  local dir=$1; shift
  local -a env_now
  mapfile -t env_now < <(base_env)
  {
    echo "\$ (cd $dir && ${*@Q})"
    (cd "$root/$dir" && env -i "${env_now[@]}" timeout 120 "$@" </dev/null 2>&1) && true
    echo "[exit $?]"
  } >>"$scenario/expected/setup.log"
}

# judge RUN NAME CMD...: a tool's list or get command, run in the folder of RUN with the fixture's
# variables; its stdout, stderr, exit code and the recorder's launch records (sorted: servers start
# in parallel) are expected/RUN/NAME.{stdout,stderr,exit,launches.jsonl}.
judge() {
  local run=$1 name=$2; shift 2
  local dir=${run_dirs[$run]} out=$scenario/expected/$run
  local -a env_now
  mapfile -t env_now < <(base_env)
  mkdir -p "$out"
  rm -f "$root/launches.jsonl"
  set +e
  (cd "$root/$dir" && env -i "${env_now[@]}" "${fixture_env[@]}" timeout 120 "$@" \
    </dev/null >"$out/$name.stdout" 2>"$out/$name.stderr")
  echo $? >"$out/$name.exit"
  set -e
  # The last HTTP request (a DELETE, say) may still be on its way when the tool exits.
  sleep 0.3
  if [ -f "$root/launches.jsonl" ]; then
    LC_ALL=C sort "$root/launches.jsonl" >"$out/$name.launches.jsonl"
    rm "$root/launches.jsonl"
  fi
}

# codex_exec RUN: how Codex starts the servers in the folder of RUN in a real session (codex exec,
# offline in a namespace of its own); the recorder's records are expected/RUN/exec.launches.jsonl.
codex_exec() {
  local run=$1 out=$scenario/expected/$1
  local -a env_now
  mapfile -t env_now < <(base_env)
  mkdir -p "$out"
  rm -f "$root/launches.jsonl"
  "${netns[@]}" "$here/codex-exec.sh" "$root" "$root/${run_dirs[$run]}" "$port" "${env_now[@]}" "${fixture_env[@]}"
  if [ -f "$root/launches.jsonl" ]; then
    LC_ALL=C sort "$root/launches.jsonl" >"$out/exec.launches.jsonl"
    rm "$root/launches.jsonl"
  fi
}

# model RUN NAME [--call] [NAME=VALUE...] -- CMD...: one turn of an agent in the folder of RUN against the recording
# model endpoint (model-recorder.cjs, through agent-model.sh, offline in a network namespace of its own), with the
# fixture's environment and the variables given (@MODEL@ is the endpoint's base URL): the MCP tools the agent
# offered its model are expected/RUN/NAME.jsonl; with --call the endpoint asks to call every one of them, and the
# calls the agent let run (the recording servers write them down) are expected/RUN/NAME.calls.jsonl.
model() {
  local run=$1 name=$2 call=-
  shift 2
  if [ "$1" = --call ]; then
    call=--call
    shift
  fi
  local -a extra=()
  while [ "$1" != "--" ]; do
    extra+=("$1")
    shift
  done
  shift
  local out=$scenario/expected/$run
  local -a env_now
  mapfile -t env_now < <(base_env)
  mkdir -p "$out"
  rm -f "$root/launches.jsonl" "$out/$name.jsonl"
  "${netns[@]}" "$here/agent-model.sh" "$out/$name.jsonl" "$call" "$root/${run_dirs[$run]}" "${env_now[@]}" \
    "${fixture_env[@]}" "${extra[@]}" -- "$@"
  [ -f "$out/$name.jsonl" ] || { echo "regenerate.sh: $tool sent no model request in $run ($name)" >&2; exit 1; }
  if [ "$call" = --call ]; then
    { grep -h '"kind":"call"' "$root/launches.jsonl" 2>/dev/null || true; } | LC_ALL=C sort >"$out/$name.calls.jsonl"
  fi
  rm -f "$root/launches.jsonl"
}

# begin NAME TOOL: a fresh scratch root with the recorder in it (its launch records go next to it),
# and the HTTP recorder on a free 127.0.0.1 port ($port).
declare -A run_dirs
run_order=()
begin() {
  name=$1 tool=$2
  scenario=$work/$name
  root=$scenario/root
  mkdir -p "$root/home" "$root/project" "$scenario/expected"
  cp "$here/recorder.cjs" "$root/recorder.cjs"
  run_dirs=()
  run_order=()
  git_dirs=()
  empty_dirs=()
  # A coprocess: closing its stdin ends it (the recorder exits on EOF), and it prints its port.
  coproc http { exec node "$root/recorder.cjs" --http 0; }
  read -r -t 10 port <&"${http[0]}" || { echo "the HTTP recorder did not start" >&2; exit 1; }
  echo "== $name ($tool)" >&2
}

# repo DIR: a folder with a real repository (git init), which the test recreates as an empty .git.
repo() {
  mkdir -p "$root/$1"
  git -C "$root/$1" init -q
  git_dirs+=("$1")
}

# run NAME DIR: a folder the tools are judged in.
run() {
  mkdir -p "$root/$2"
  run_dirs[$1]=$2
  run_order+=("$1")
}

# dir DIR: an empty folder the fixture needs (a server's cwd), recreated by the test.
dir() {
  mkdir -p "$root/$1"
  empty_dirs+=("$1")
}

json_list() {
  local first=1
  printf '['
  for item in "$@"; do
    [ $first = 1 ] || printf ', '
    first=0
    printf '"%s"' "$item"
  done
  printf ']'
}

# end: scenario.json, the copy into the test resources, and the HTTP recorder stopped.
end() {
  {
    printf '{\n  "tool": "%s",\n  "git": %s,\n  "dirs": %s,\n  "runs": [' "$tool" \
      "$(json_list "${git_dirs[@]}")" "$(json_list "${empty_dirs[@]}")"
    local first=1
    for run in "${run_order[@]}"; do
      [ $first = 1 ] || printf ','
      first=0
      printf '\n    {"name": "%s", "cwd": "%s"}' "$run" "${run_dirs[$run]}"
    done
    printf '\n  ]\n}\n'
  } >"$scenario/scenario.json"
  stop_http
  node "$here/normalize.cjs" "$scenario" "$resources/$name" "$root" "$port"
}

# edit_json FILE JS: changes a JSON file the way a tool's dialog would, JS working on "d".
edit_json() {
  node -e '
    const fs = require("fs"), file = process.argv[1];
    const d = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
    (new Function("d", process.argv[2]))(d);
    fs.mkdirSync(require("path").dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(d, null, 2) + "\n");' "$1" "$2"
}

recorder() {
  echo "$root/recorder.cjs"
}

# toml_insert FILE TABLE LINE...: adds lines to a table of a TOML file, right under its header.
toml_insert() {
  local file=$1 table=$2; shift 2
  local lines
  lines=$(printf '%s\n' "$@")
  awk -v header="[$table]" -v lines="$lines" '{ print } $0 == header { print lines }' "$file" >"$file.new"
  mv "$file.new" "$file"
}

# ---------------------------------------------------------------------------------------- Claude Code

# Every place a Claude Code server can come from, in every state, judged at the repository root and
# in a subfolder.
# -e and -H take every later word up to the next option: the name (and URL) come before them.
scenario_claude_scopes() {
  begin claude-scopes claude
  repo project
  run project project
  run sub project/sub
  local r url=http://127.0.0.1:$port
  r=$(recorder)
  setup project claude mcp add -s user u-stdio -e FIX_A=1 -e FIX_NAME=FIX_VAR -- node "$r" u-stdio '${FIX_VAR}' '${FIX_UNSET:-dflt}'
  setup project claude mcp add -s user u-off -- node "$r" u-off
  setup project claude mcp add -s local l-stdio -e FIX_A=2 -- node "$r" l-stdio '${FIX_VAR}'
  setup project claude mcp add -s project p-approved -e FIX_A=3 -e 'FIX_CMD=!echo from-command' -- node "$r" p-approved '${FIX_VAR}'
  setup project claude mcp add -s project p-pending -- node "$r" p-pending
  setup project claude mcp add -s project p-declined -- node "$r" p-declined
  setup project claude mcp add-json -s user u-http \
    '{"type":"http","url":"'"$url"'/u-http/mcp","headers":{"X-Api-Key":"k1","Authorization":"Bearer ${FIX_TOKEN}","X-Name":"FIX_VAR"}}'
  setup project claude mcp add-json -s user u-streamable '{"type":"streamable-http","url":"'"$url"'/u-streamable/mcp"}'
  setup project claude mcp add-json -s user u-notype '{"url":"'"$url"'/u-notype/mcp"}'
  setup project claude mcp add-json -s user u-ws '{"type":"ws","url":"ws://127.0.0.1:'"$port"'/u-ws/ws"}'
  setup project claude mcp add -s local --transport sse l-sse "$url/l-sse/sse" -H 'X-Api-Key: k2'
  setup project claude mcp add-json -s project p-http \
    '{"type":"http","url":"'"$url"'/p-http/mcp","headers":{"X-Team":"${FIX_VAR}"}}'
  # By hand, as the approval dialog of `claude` would for every project of the user (the user's
  # settings file), and as `/mcp` → disable does for this project (its entry in ~/.claude.json).
  edit_json "$root/home/.claude/settings.json" \
    'd.enabledMcpjsonServers = ["p-approved", "p-http"]; d.disabledMcpjsonServers = ["p-declined"];'
  edit_json "$root/home/.claude.json" "((d.projects ??= {})[\"$root/project\"] ??= {}).disabledMcpServers = [\"u-off\"];"
  judge project list claude mcp list
  for server in u-stdio u-off l-stdio p-approved p-pending p-declined u-http u-streamable u-ws l-sse p-http; do
    judge project "get-$server" claude mcp get "$server"
  done
  judge sub list claude mcp list
  end
}

# enableAllProjectMcpServers approves every project server, but for one the user declined.
scenario_claude_approve_all() {
  begin claude-approve-all claude
  repo project
  run project project
  local r
  r=$(recorder)
  setup project claude mcp add -s project p-one -- node "$r" p-one
  setup project claude mcp add -s project p-two -e FIX_A=2 -- node "$r" p-two
  setup project claude mcp add -s project p-declined -- node "$r" p-declined
  # By hand, as the approval dialog's "use all" and "no" answers would.
  edit_json "$root/home/.claude/settings.json" \
    'd.enableAllProjectMcpServers = true; d.disabledMcpjsonServers = ["p-declined"];'
  judge project list claude mcp list
  end
}

# Approvals in the project's own settings files count only once the user accepted the trust dialog
# for the folder; a cloned repository cannot approve its own servers.
scenario_claude_trust() {
  local trusted
  for trusted in true false; do
    if [ $trusted = true ]; then begin claude-trusted claude; else begin claude-untrusted claude; fi
    repo project
    run project project
    local r
    r=$(recorder)
    setup project claude mcp add -s project p-shared -- node "$r" p-shared
    setup project claude mcp add -s project p-local -- node "$r" p-local
    setup project claude mcp add -s project p-pending -- node "$r" p-pending
    # By hand: the repository's shared settings approve p-shared, the approval dialog writes p-local
    # to the project's local settings, and the trust dialog sets hasTrustDialogAccepted.
    edit_json "$root/project/.claude/settings.json" 'd.enabledMcpjsonServers = ["p-shared"];'
    edit_json "$root/project/.claude/settings.local.json" 'd.enabledMcpjsonServers = ["p-local"];'
    edit_json "$root/home/.claude.json" "((d.projects ??= {})[\"$root/project\"] ??= {}).hasTrustDialogAccepted = $trusted;"
    judge project list claude mcp list
    end
  done
}

# One name in several scopes: which config wins, and whether a project server that is not approved
# hides the user's server of the same name.
scenario_claude_precedence() {
  begin claude-precedence claude
  repo project
  run project project
  local r
  r=$(recorder)
  setup project claude mcp add -s user dup-all -- node "$r" dup-all user
  setup project claude mcp add -s project dup-all -- node "$r" dup-all project
  setup project claude mcp add -s local dup-all -- node "$r" dup-all local
  setup project claude mcp add -s user dup-approved -- node "$r" dup-approved user
  setup project claude mcp add -s project dup-approved -- node "$r" dup-approved project
  setup project claude mcp add -s user dup-pending -- node "$r" dup-pending user
  setup project claude mcp add -s project dup-pending -- node "$r" dup-pending project
  setup project claude mcp add -s user dup-declined -- node "$r" dup-declined user
  setup project claude mcp add -s project dup-declined -- node "$r" dup-declined project
  # By hand, as the approval dialog would.
  edit_json "$root/home/.claude/settings.json" \
    'd.enabledMcpjsonServers = ["dup-all", "dup-approved"]; d.disabledMcpjsonServers = ["dup-declined"];'
  judge project list claude mcp list
  local server
  for server in dup-all dup-approved dup-pending dup-declined; do
    judge project "get-$server" claude mcp get "$server"
  done
  end
}

# Approval lists where Claude Code kept them before: the project's entry of ~/.claude.json, with the
# trust dialog accepted. Claude Code moves such lists into the project's .claude/settings.local.json
# (the fixture holds the files as they are after its runs; expected/before/ as written).
scenario_claude_old_approvals() {
  begin claude-old-approvals claude
  repo project
  run project project
  local r
  r=$(recorder)
  setup project claude mcp add -s project p-old-approved -- node "$r" p-old-approved
  setup project claude mcp add -s project p-old-declined -- node "$r" p-old-declined
  setup project claude mcp add -s project p-pending -- node "$r" p-pending
  # By hand, as older Claude Code versions' dialogs wrote them.
  edit_json "$root/home/.claude.json" "const p = ((d.projects ??= {})[\"$root/project\"] ??= {});
    p.hasTrustDialogAccepted = true; p.enabledMcpjsonServers = [\"p-old-approved\"];
    p.disabledMcpjsonServers = [\"p-old-declined\"];"
  mkdir -p "$scenario/expected/before"
  cp "$root/home/.claude.json" "$scenario/expected/before/home.claude.json"
  judge project list claude mcp list
  end
}

# Files Claude Code 2.1.328 is believed not to read (.claude/mcp.json, ~/.claude/mcp.json), and a
# .mcp.json of a parent folder outside any repository.
scenario_claude_legacy_files() {
  begin claude-legacy-files claude
  repo project
  run project project
  run child nogit/parent/child
  local r
  r=$(recorder)
  setup project claude mcp add -s project p-real -- node "$r" p-real
  setup nogit/parent claude mcp add -s project parent-found -- node "$r" parent-found
  # Hand-written: no command of Claude Code writes these files.
  edit_json "$root/project/.claude/mcp.json" \
    "d.mcpServers = {\"legacy-project\": {\"command\": \"node\", \"args\": [\"$r\", \"legacy-project\"]}};"
  edit_json "$root/home/.claude/mcp.json" \
    "d.mcpServers = {\"legacy-user\": {\"command\": \"node\", \"args\": [\"$r\", \"legacy-user\"]}};"
  # By hand, as the approval dialog would: every project server named here is approved.
  edit_json "$root/home/.claude/settings.json" \
    'd.enabledMcpjsonServers = ["p-real", "legacy-project", "parent-found"];'
  judge project list claude mcp list
  judge project get-legacy-project claude mcp get legacy-project
  judge project get-legacy-user claude mcp get legacy-user
  judge child list claude mcp list
  judge child get-parent-found claude mcp get parent-found
  end
}

# Claude Code's permission rules for MCP tools, as the tools it offers its model and the calls it lets run in
# `claude -p` show them (a call that would need a permission prompt is refused there): rules of every shape in the
# user's, the project's and the local settings, judged at the repository root and in a subfolder with settings of its
# own, in a folder Claude Code does not trust and in one it does. Tool search is off, so that the tools are in the
# request itself and the model can call them at once.
scenario_claude_permissions() {
  local trusted
  for trusted in false true; do
    if [ $trusted = true ]; then begin claude-permissions-trusted claude; else begin claude-permissions claude; fi
    repo project
    run project project
    run sub project/sub
    local r
    r=$(recorder)
    setup project claude mcp add -s user srv -- node "$r" --tools a,ab,ba,b,c,d,e,get.thing,send-it srv
    setup project claude mcp add -s user srv2 -- node "$r" --tools a,q,x srv2
    setup project claude mcp add -s project p -- node "$r" --tools a,b p
    # Hand-written: `claude mcp add` refuses a name with a dot, which Claude Code reads from its file all the same.
    edit_json "$root/home/.claude.json" "d.mcpServers['my.srv'] = { type: 'stdio', command: 'node',
      args: ['$r', '--tools', 'a,b', 'my.srv'], env: {} };"
    # By hand, as the approval dialog and /permissions write them; the trust dialog's answer in ~/.claude.json.
    edit_json "$root/home/.claude/settings.json" 'd.enabledMcpjsonServers = ["p"]; d.permissions = {
      deny: ["mcp__srv__a*", "mcp__my_srv__a", "mcp__srv__get_thing", "mcp__s*__x", "mcp__srv__e(x)"],
      ask: ["mcp__srv__c", "mcp__p", "mcp__srv2__q"],
      allow: ["mcp__srv__c", "mcp__srv__send-it", "mcp__my.srv__b", "mcp__p__a", "mcp__srv2__*", "mcp__s*"] };'
    edit_json "$root/project/.claude/settings.json" 'd.permissions = { deny: ["mcp__srv__d"], allow: ["mcp__srv__b"] };'
    edit_json "$root/project/.claude/settings.local.json" 'd.permissions = { allow: ["mcp__srv__ba", "mcp__my_srv__b"] };'
    edit_json "$root/project/sub/.claude/settings.json" 'd.permissions = { deny: ["mcp__srv__b"] };'
    edit_json "$root/home/.claude.json" "((d.projects ??= {})[\"$root/project\"] ??= {}).hasTrustDialogAccepted = $trusted;"
    local run
    for run in project sub; do
      judge $run list claude mcp list
      model $run model --call ANTHROPIC_BASE_URL=@MODEL@ ANTHROPIC_API_KEY=sk-ant-fixture ENABLE_TOOL_SEARCH=false \
        -- claude -p "Use your tools."
    done
    end
  done
}

# headersHelper: Claude Code runs a user server's helper in ~/.claude, and a local or project server's only once
# the folder is trusted, in the working directory (from a subfolder too); the helper's headers replace configured
# ones of the same name. The helper prints what it was given, so the fixture shows the variables' names and values.
scenario_claude_headers_helper() {
  local trusted
  for trusted in true false; do
    if [ $trusted = true ]; then begin claude-helper-trusted claude; else begin claude-helper-untrusted claude; fi
    repo project
    run project project
    [ $trusted = true ] && run sub project/sub
    local url=http://127.0.0.1:$port server scope
    # shellcheck disable=SC2016 # the helper's own shell expands these
    local helper='printf '"'"'{"X-Helper-Name":"%s","X-Helper-Url":"%s","X-Helper-Dir":"%s","X-Over":"helper"}'"'"' "$CLAUDE_CODE_MCP_SERVER_NAME" "$CLAUDE_CODE_MCP_SERVER_URL" "$PWD"'
    for server in u-helper l-helper p-helper; do
      case $server in u-*) scope=user ;; l-*) scope=local ;; *) scope=project ;; esac
      setup project claude mcp add-json -s $scope $server "$(node -e '
        const [url, helper] = process.argv.slice(1);
        console.log(JSON.stringify({type: "http", url, headers: {"X-Static": "s", "X-Over": "static"},
          headersHelper: helper}));' "$url/$server/mcp" "$helper")"
    done
    # By hand, as the approval dialog and the trust dialog would.
    edit_json "$root/home/.claude/settings.json" 'd.enabledMcpjsonServers = ["p-helper"];'
    edit_json "$root/home/.claude.json" "((d.projects ??= {})[\"$root/project\"] ??= {}).hasTrustDialogAccepted = $trusted;"
    judge project list claude mcp list
    [ $trusted = true ] && judge sub list claude mcp list
    end
  done
}

# The oauth block `claude mcp add --client-id --callback-port` writes, and what `claude mcp get` says of it. The
# recorder never asks for authorization: the login itself is OwnerOAuthTest's, against the testkit's server.
scenario_claude_oauth() {
  begin claude-oauth claude
  run project project
  local url=http://127.0.0.1:$port
  setup project claude mcp add -s user --transport http --client-id fixture-client --callback-port 8765 \
    u-oauth "$url/u-oauth/mcp"
  judge project list claude mcp list
  judge project get-u-oauth claude mcp get u-oauth
  end
}

# ---------------------------------------------------------------------------------------------- Codex

# `codex mcp add` writes the user's file; the fields it cannot write, the project files and the
# folder trust are added by hand. Codex never connects in `list`: `list --json` and `get --json` say
# which servers it would start and how, `codex exec` (offline, codex_exec) shows it starting them.
scenario_codex() {
  begin codex codex
  run trusted trusted
  run untrusted untrusted
  run trusted-sub trusted/sub
  dir work
  local r url=http://127.0.0.1:$port config
  r=$(recorder)
  config=$root/home/.codex/config.toml
  setup trusted codex mcp add x-stdio --env FIX_A=1 -- node "$r" x-stdio '${FIX_VAR}' '$FIX_VAR'
  setup trusted codex mcp add x-http --url "$url/x-http/mcp" --bearer-token-env-var FIX_TOKEN
  setup trusted codex mcp add x-http-unset --url "$url/x-http-unset/mcp"
  setup trusted codex mcp add x-off -- node "$r" x-off
  setup trusted codex mcp add x-plain --env FIX_NAME=FIX_VAR -- node "$r" x-plain
  # By hand: the fields `codex mcp add` has no option for, each under its server's table.
  toml_insert "$config" mcp_servers.x-stdio 'env_vars = ["FIX_PASS", "FIX_NOT_SET"]' "cwd = \"$root/work\"" \
    'startup_timeout_sec = 5' 'tool_timeout_sec = 70'
  # One entry per table: Codex prints these maps in hash order, which changes from run to run.
  toml_insert "$config" mcp_servers.x-http 'http_headers = { "X-Static" = "s1" }' \
    'env_http_headers = { "X-From-Env" = "FIX_HEADER" }'
  toml_insert "$config" mcp_servers.x-http-unset 'env_http_headers = { "X-Unset" = "FIX_NOT_SET" }'
  toml_insert "$config" mcp_servers.x-off 'enabled = false'
  # By hand, as Codex's trust prompt writes them.
  cat >>"$config" <<EOF

[projects."$root/trusted"]
trust_level = "trusted"

[projects."$root/untrusted"]
trust_level = "untrusted"
EOF
  # Hand-written: `codex mcp add` writes only the user's file.
  mkdir -p "$root/trusted/.codex" "$root/untrusted/.codex"
  printf '[mcp_servers.x-project]\ncommand = "node"\nargs = ["%s", "x-project"]\n' "$r" >"$root/trusted/.codex/config.toml"
  printf '[mcp_servers.x-untrusted]\ncommand = "node"\nargs = ["%s", "x-untrusted"]\n' "$r" >"$root/untrusted/.codex/config.toml"
  local run server
  for run in trusted untrusted trusted-sub; do
    judge $run list codex mcp list --json
    for server in x-stdio x-http x-http-unset x-off x-plain x-project x-untrusted; do
      judge $run "get-$server" codex mcp get "$server" --json
    done
    codex_exec $run
  done
  end
}

# Codex's per-tool settings, as the tools `codex exec` offers its model and the calls it lets run show them (exec asks
# nobody: a call that needs an approval is declined): enabled_tools and disabled_tools, approval_mode per server
# (default_tools_approval_mode) and per tool, in the user's file and a trusted project's.
scenario_codex_tools() {
  begin codex-tools codex
  run trusted trusted
  local r config
  r=$(recorder)
  config=$root/home/.codex/config.toml
  setup trusted codex mcp add dflt -- node "$r" --tools a,ro:ro dflt
  setup trusted codex mcp add appr -- node "$r" --tools a,b,c,auto appr
  setup trusted codex mcp add prm -- node "$r" --tools a,b prm
  setup trusted codex mcp add wr -- node "$r" --tools a,ro:ro,one wr
  # By hand: `codex mcp add` has no option for these.
  toml_insert "$config" mcp_servers.appr 'default_tools_approval_mode = "approve"' 'enabled_tools = ["a", "b", "auto"]'
  toml_insert "$config" mcp_servers.prm 'default_tools_approval_mode = "prompt"' 'disabled_tools = ["b"]'
  toml_insert "$config" mcp_servers.wr 'default_tools_approval_mode = "writes"'
  cat >>"$config" <<EOF

[mcp_servers.appr.tools.b]
approval_mode = "prompt"

[mcp_servers.appr.tools.auto]
approval_mode = "auto"

[mcp_servers.wr.tools.one]
approval_mode = "approve"

[projects."$root/trusted"]
trust_level = "trusted"
EOF
  # Hand-written: `codex mcp add` writes only the user's file.
  mkdir -p "$root/trusted/.codex"
  printf '[mcp_servers.proj]\ncommand = "node"\nargs = ["%s", "--tools", "a,b", "proj"]\nenabled_tools = ["a"]\n%s\n' \
    "$r" 'default_tools_approval_mode = "approve"' >"$root/trusted/.codex/config.toml"
  judge trusted list codex mcp list --json
  local server
  for server in dflt appr prm wr proj; do
    judge trusted "get-$server" codex mcp get "$server" --json
  done
  codex_exec trusted
  model trusted model --call -- codex exec --skip-git-repo-check -c model_provider=fixture \
    -c 'model_providers.fixture={name="fixture",base_url="@MODEL@/v1",wire_api="responses",request_max_retries=0,stream_max_retries=0}' \
    -m fixture-model "Use your tools."
  end
}

# --------------------------------------------------------------------------------------------- Gemini

# `gemini mcp add` in both scopes with every option; a trusted and an untrusted folder; mcp.excluded.
scenario_gemini() {
  begin gemini gemini
  run project project
  run untrusted untrusted
  local r url=http://127.0.0.1:$port
  r=$(recorder)
  # The array options (-e, -H, --include-tools, ...) take every later word: they come last.
  setup project gemini mcp add -s user --timeout 5000 --trust --description "user stdio" \
    g-stdio node "$r" g-stdio '$FIX_VAR' '${FIX_VAR}' '%FIX_VAR%' '${FIX_UNSET:-dflt}' \
    -e FIX_A=1 -e 'FIX_B=$FIX_VAR' -e 'FIX_C=${FIX_VAR}' -e 'FIX_D=%FIX_VAR%' -e 'FIX_E=${FIX_TOKEN}' \
    --include-tools recorded --exclude-tools other
  setup project gemini mcp add -s user -t http --timeout 4000 g-http "$url/g-http/mcp" \
    -H 'X-Api-Key: k1' -H 'Authorization: Bearer ${FIX_TOKEN}' -H 'X-Team: %FIX_VAR%'
  setup project gemini mcp add -s user --transport sse g-sse "$url/g-sse/sse" -H 'X-Team: $FIX_VAR'
  setup project gemini mcp add -s user g-excluded node "$r" g-excluded
  setup project gemini mcp add -s project g-project node "$r" g-project -e FIX_A=4 -e FIX_NAME=FIX_VAR
  setup untrusted gemini mcp add -s project g-untrusted-project node "$r" g-untrusted-project
  # By hand: Gemini CLI has no command for these lists of the user's settings.
  edit_json "$root/home/.gemini/settings.json" 'd.mcp = { excluded: ["g-excluded"] };'
  # By hand, as the folder trust dialog writes it.
  edit_json "$root/home/.gemini/trustedFolders.json" "d[\"$root/project\"] = \"TRUST_FOLDER\";"
  judge project list gemini mcp list
  judge untrusted list gemini mcp list
  end
}

# A project's .gemini/settings.json judged from a subfolder of the repository (both trusted).
scenario_gemini_subfolder() {
  begin gemini-subfolder gemini
  repo project
  run sub project/sub
  local r
  r=$(recorder)
  setup project gemini mcp add -s project g-root-project node "$r" g-root-project
  setup project/sub gemini mcp add -s user g-user node "$r" g-user
  edit_json "$root/home/.gemini/trustedFolders.json" "d[\"$root/project\"] = \"TRUST_FOLDER\";"
  judge sub list gemini mcp list
  end
}

# mcp.allowed of the user's settings: every server it does not name is blocked.
scenario_gemini_allowed() {
  begin gemini-allowed gemini
  run project project
  local r
  r=$(recorder)
  setup project gemini mcp add -s user g-allowed node "$r" g-allowed
  setup project gemini mcp add -s user g-other node "$r" g-other
  setup project gemini mcp add -s project g-project-other node "$r" g-project-other
  edit_json "$root/home/.gemini/settings.json" 'd.mcp = { allowed: ["g-allowed"] };'
  edit_json "$root/home/.gemini/trustedFolders.json" "d[\"$root/project\"] = \"TRUST_FOLDER\";"
  judge project list gemini mcp list
  end
}

# Remote entries as Gemini CLI's documentation has users write them: a url without a type (which Gemini CLI
# 0.61.0 POSTs to, Streamable HTTP, and tries as legacy SSE only when that fails) and an httpUrl with a type that
# says otherwise (httpUrl is Streamable HTTP before the type is looked at). Hand-written: `gemini mcp add` always
# writes a type beside a url, and never writes httpUrl.
scenario_gemini_remote() {
  begin gemini-remote gemini
  run project project
  local url=http://127.0.0.1:$port
  edit_json "$root/home/.gemini/settings.json" "d.mcpServers = {
    'g-url': { url: '$url/g-url/mcp', headers: { 'X-Team': '\$FIX_VAR' } },
    'g-httpurl-sse': { httpUrl: '$url/g-httpurl-sse/mcp', type: 'sse' },
  };"
  edit_json "$root/home/.gemini/trustedFolders.json" "d[\"$root/project\"] = \"TRUST_FOLDER\";"
  judge project list gemini mcp list
  end
}

# Gemini CLI's per-tool settings, as the tools it offers its model show them: with --yolo every tool its lists leave
# (includeTools, excludeTools), and in headless mode without it only the tools it runs without a confirmation
# (Gemini CLI 0.61.0 refuses the others there, and does not offer them): trust, or mcp.allowed naming the server
# (the workspace settings of the folder "allowed"). Hand-written: `gemini mcp add` would take the recorder's own
# --tools for one of its options; the auth setting as Gemini's auth dialog writes it.
scenario_gemini_tools() {
  begin gemini-tools gemini
  run project project
  run allowed allowed
  local r
  r=$(recorder)
  edit_json "$root/home/.gemini/settings.json" "d.security = { auth: { selectedType: 'gemini-api-key' } };
    d.mcpServers = {
      inc: { command: 'node', args: ['$r', '--tools', 'a,b,c,d', 'inc'], trust: true,
             includeTools: ['a', 'b(x)', 'c'], excludeTools: ['c'] },
      exc: { command: 'node', args: ['$r', '--tools', 'a,b', 'exc'], excludeTools: ['a(x)', 'b'] },
      plain: { command: 'node', args: ['$r', '--tools', 'a,ro:ro', 'plain'], trust: false },
    };"
  edit_json "$root/allowed/.gemini/settings.json" 'd.mcp = { allowed: ["inc", "exc", "plain"] };'
  edit_json "$root/home/.gemini/trustedFolders.json" "d[\"$root/project\"] = \"TRUST_FOLDER\"; d[\"$root/allowed\"] = \"TRUST_FOLDER\";"
  local run
  for run in project allowed; do
    judge $run list gemini mcp list
    model $run model GOOGLE_GEMINI_BASE_URL=@MODEL@ GEMINI_API_KEY=fixture -- gemini -m gemini-2.5-pro --yolo -p "Use your tools."
    model $run headless GOOGLE_GEMINI_BASE_URL=@MODEL@ GEMINI_API_KEY=fixture -- gemini -m gemini-2.5-pro -p "Use your tools."
  done
  end
}

all=(claude-scopes claude-approve-all claude-trust claude-precedence claude-old-approvals claude-legacy-files
  claude-permissions claude-headers-helper claude-oauth codex codex-tools gemini gemini-allowed gemini-remote gemini-subfolder
  gemini-tools)
for wanted in "${@:-${all[@]}}"; do
  case $wanted in
    claude-scopes) scenario_claude_scopes ;;
    claude-approve-all) scenario_claude_approve_all ;;
    claude-trust | claude-trusted | claude-untrusted) scenario_claude_trust ;;
    claude-precedence) scenario_claude_precedence ;;
    claude-old-approvals) scenario_claude_old_approvals ;;
    claude-legacy-files) scenario_claude_legacy_files ;;
    claude-permissions | claude-permissions-trusted) scenario_claude_permissions ;;
    claude-headers-helper | claude-helper-trusted | claude-helper-untrusted) scenario_claude_headers_helper ;;
    claude-oauth) scenario_claude_oauth ;;
    codex) scenario_codex ;;
    codex-tools) scenario_codex_tools ;;
    gemini) scenario_gemini ;;
    gemini-allowed) scenario_gemini_allowed ;;
    gemini-remote) scenario_gemini_remote ;;
    gemini-subfolder) scenario_gemini_subfolder ;;
    gemini-tools) scenario_gemini_tools ;;
    *) echo "unknown scenario: $wanted (known: ${all[*]})" >&2; exit 2 ;;
  esac
done
# The environment the tools were judged in, for the test: the fixture's values, and HOME.
{
  printf '{\n  "HOME": "@ROOT@/home"'
  for assignment in "${fixture_env[@]}"; do printf ',\n  "%s": "%s"' "${assignment%%=*}" "${assignment#*=}"; done
  printf '\n}\n'
} >"$resources/launcher-env.json"
