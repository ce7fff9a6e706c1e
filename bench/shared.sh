#!/usr/bin/env bash
# The shared gateway's bench (BENCHMARKS.md, "Serving"): memory and process count for 5 agents x 10 user servers,
# each agent running its own 10 servers (50 upstream processes) against all 5 attached through
# `mcp-host serve --stdio` to one shared gateway (10 upstreams, the gateway, one attach process per agent); for the
# testkit server (a JVM) and the npm reference server server-everything (Node.js). Every row in a scratch HOME of its
# own; the gateway is stopped with `mcp-host serve --stop` and no process may be left. Installs the interop/ npm peers,
# builds mcp.bench and the runtime image, runs mcp.bench.internal.SharedGateways. About 3 minutes a round on the
# 2-core machine.
#
# Usage: bench/shared.sh [options]   e.g. --rounds 3, --upstreams testkit, --modes shared, --start together,
#                                    --attach-java-opts "-Xmx32m" (see SharedGateways)
# Needs a JDK 17, Maven, Node.js and npm. Output: mcp.bench/target/shared/ (shared.json, shared.md, logs/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

echo "shared: installing the npm peers (interop/: server-everything)" >&2
bash interop/install.sh

echo "shared: building mcp.bench and the runtime image of mcp-host serve (tests skipped)" >&2
mvn -B -q -DskipTests package -pl mcp.bench,mcp.cli -am >&2

target=mcp.bench/target
jar=$(ls "$target"/mcp.bench-*-SNAPSHOT.jar | grep -v classpath | head -1)
module_path="$jar:$(cat "$target/bench-module-path.txt")"

exec java -XX:+UseSerialGC -p "$module_path" -m mcp.bench/mcp.bench.internal.SharedGateways --repo "$root" \
  --module-path "$module_path" "$@"
