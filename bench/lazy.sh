#!/usr/bin/env bash
# The lazy server bench (BENCHMARKS.md, "Lazy servers"): builds mcp.bench and what it needs, then runs
# mcp.bench.internal.LazyStartBench: the first call of a stopped lazy testkit server (start, connect, listing,
# call) against warm calls of the running server, over rounds that each wait for the server to stop when idle.
# About half a minute on the 2-core machine.
#
# Usage: bench/lazy.sh [--rounds N] [--warm N] [--idle-ms MS]
# Needs a JDK 17 and Maven.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

echo "lazy: building mcp.bench (tests skipped)" >&2
mvn -B -q -DskipTests process-classes -pl mcp.bench -am >&2

target=mcp.bench/target
module_path="$target/classes:$(cat "$target/bench-module-path.txt")"
exec java -XX:+UseSerialGC -p "$module_path" -m mcp.bench/mcp.bench.internal.LazyStartBench "$@"
