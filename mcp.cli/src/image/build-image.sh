#!/usr/bin/env bash
# Builds the mcp-host runtime image with jlink: the command (mcp.cli), which requires mcp.host.defaults (the
# host with its default providers, the EC provider and the validator's date-time module: no --bind-services),
# tinylog, and the test server of `mcp-host demo`. Then adds class-data sharing
# archives so that the command starts fast: the JDK's default archive (-Xshare:dump) and an
# application archive recorded from a `tools` run on the image's test server.
# Usage: build-image.sh <java.home> <module path> <output dir>
set -euo pipefail
java_home=$1
module_path=$2
image=$3

rm -rf "$image"
# --add-modules names the roots: the command, and what only ServiceLoader finds (the logging backend, which no
# module requires) or only the demo starts (the test server). Everything else (the host, its providers, Jackson
# with its TOML and YAML modules, snakeyaml-engine, slf4j, the JSON Schema validator, and mcp.server with Jetty,
# which the testkit's conformance fixture is written on) is resolved from the descriptors, from the jars
# maven-dependency-plugin copied into the module path.
"$java_home/bin/jlink" \
  --module-path "$module_path" \
  --add-modules mcp.cli,mcp.testkit,org.tinylog.api.slf4j,org.tinylog.impl \
  --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$image"

cat > "$image/bin/mcp-host" <<'LAUNCHER'
#!/bin/sh
# mcp-host launcher: the image's own Java, with the application class-data archive when present.
dir=$(cd "$(dirname "$0")/.." && pwd)
# Where this launcher is, for the agents' configs that "mcp-host serve --print-config" writes.
MCP_HOST_LAUNCHER="$dir/bin/mcp-host"
export MCP_HOST_LAUNCHER
cds=""
if [ -f "$dir/lib/mcp-host.jsa" ]; then
  cds="-XX:SharedArchiveFile=$dir/lib/mcp-host.jsa -Xshare:auto"
fi
# The one-shot commands start sooner with the quick compiler alone. serve is a server that runs for hours: there the
# optimizing compiler pays back its start within seconds of calls (a call through serve --http costs about half).
jit="-XX:TieredStopAtLevel=1"
for arg in "$@"; do
  case "$arg" in
    --) break ;;
    serve) jit=""; break ;;
  esac
done
exec "$dir/bin/java" $cds $jit -XX:+UseSerialGC -Xlog:disable $MCP_HOST_JAVA_OPTS -m mcp.cli/mcp.cli.Main "$@"
LAUNCHER
chmod +x "$image/bin/mcp-host"

# The JDK classes' archive, used by every java of the image (the demo's servers too).
"$image/bin/java" -Xshare:dump -Xlog:disable > /dev/null
# The application's archive, recorded from a real `tools` run on the image's own test server (discovery,
# connect, tools/list, the tool cache, teardown): what a command loads is archived, not only what
# `--version` loads (that alone left about half the startup classes out). A first run fills the cache,
# so that the recorded run also takes the warm path (deferred tools from the cache at the gate).
train=$(mktemp -d)
trap 'rm -rf "$train"' EXIT
cat > "$train/mcp.json" <<JSON
{"mcpServers": {"train": {"command": "$image/bin/java",
  "args": ["-Xshare:auto", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-m", "mcp.testkit/mcp.testkit.TestServer", "--tools", "20"]}}}
JSON
run_tools() {
  HOME="$train" XDG_CONFIG_HOME="$train/config" XDG_CACHE_HOME="$train/cache" "$image/bin/java" "$@" \
    -Xlog:disable -m mcp.cli/mcp.cli.Main tools --config "$train/mcp.json" --no-project-config \
    --cache-dir "$train/tools" > /dev/null
}
if ! { run_tools && run_tools -XX:ArchiveClassesAtExit="$image/lib/mcp-host.jsa"; }; then
  echo "build-image.sh: the training run failed; recording the archive from --version instead" >&2
  "$image/bin/java" -XX:ArchiveClassesAtExit="$image/lib/mcp-host.jsa" -Xlog:disable \
    -m mcp.cli/mcp.cli.Main --version > /dev/null
fi
