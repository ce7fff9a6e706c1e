#!/usr/bin/env bash
# The HTTP choice of `mcp-host serve` (bench/HTTP-CHOICE.md, BENCHMARKS.md "HTTP server library"): the same minimal
# Streamable HTTP endpoint on the JDK's com.sun.net.httpserver and on Jetty 12.1 core (modules mcp.bench.http.jdk and
# mcp.bench.http.jetty, each a server process with its library alone), measured by mcp.bench.internal.HttpChoice with a
# java.net.http client: latency, requests/s, RSS, start, jlink image size, and the checks a gateway cares about (body
# limits, idle timeouts, a never-read SSE stream, stalled uploads). About 8 minutes on the 2-core machine.
#
# Usage: bench/httpchoice.sh [options]   e.g. --rounds 3, --checks false, --jlink false (see HttpChoice)
# Needs a JDK 17 and Maven. Output: mcp.bench/target/httpchoice/ (httpchoice.json, httpchoice.md, logs/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

echo "httpchoice: building mcp.bench and mcp-host's image modules (tests skipped)" >&2
mvn -B -q -DskipTests package -pl mcp.bench,mcp.cli -am >&2

target=mcp.bench/target
jar=$(ls "$target"/mcp.bench-*-SNAPSHOT.jar | grep -v classpath | head -1)
module_path="$jar:$(cat "$target/bench-module-path.txt")"
cli_jar=$(ls mcp.cli/target/mcp.cli-*.jar | grep -v -- -sources | head -1)

exec java -XX:+UseSerialGC -p "$module_path" -m mcp.bench/mcp.bench.internal.HttpChoice --repo "$root" \
  --jdk-path "$target/http-jdk-classes" --jetty-path "$target/http-jetty-classes:$(cat "$target/bench-jetty-path.txt")" \
  --image-modules "mcp.cli/target/image-modules:$cli_jar" "$@"
