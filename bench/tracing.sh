#!/usr/bin/env bash
# The cost of tracing (BENCHMARKS.md, "Tracing"): builds mcp.bench and what it needs, then runs
# mcp.bench.internal.TracingCostBench: sequential tool calls over stdio with no telemetry, with the OpenTelemetry SDK
# sampling nothing, and with it sampling everything, taking turns in one JVM. About a minute on the 2-core machine.
#
# Usage: bench/tracing.sh [--rounds N] [--calls N] [--warmup N]
# Needs a JDK 17 and Maven.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

echo "tracing: building mcp.bench (tests skipped)" >&2
mvn -B -q -DskipTests process-classes -pl mcp.bench -am >&2

target=mcp.bench/target
module_path="$target/classes:$(cat "$target/bench-module-path.txt")"
exec java -XX:+UseSerialGC -p "$module_path" -m mcp.bench/mcp.bench.internal.TracingCostBench "$@"
