#!/usr/bin/env bash
# The recovery bench of issue 17 (BENCHMARKS.md, "Recovery"): builds mcp-host (jars and the jlink image) and
# the bench module, installs the inspector CLI from bench/'s lock file, then runs mcp.bench.internal.Recovery:
# the soak (1,000 connect/close cycles and 300 kills of a server in one host process), the floods (1,000,000
# progress notifications to a blocked consumer, 100,000 junk frames) and the exit of `mcp-host tools` with a
# cached slow server beside the inspector CLI. About 22 minutes on the 2-core machine, most of it the soak.
#
# Usage: bench/recovery.sh [options]   e.g. --parts exit --exit-rounds 5, --kill-cycles 50 (see Recovery)
# Needs a JDK 17, Maven, Node.js and npm. Output: mcp.bench/target/recovery/ (recovery.json, recovery.md, logs/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

source "$root/bench/install-npm.sh"
echo "recovery: installing the npm peers (bench/: the inspector CLI)" >&2
install_npm bench

echo "recovery: building mcp-host, its runtime image and mcp.bench (tests skipped)" >&2
mvn -B -q -DskipTests package -pl mcp.bench,mcp.cli -am >&2

target=mcp.bench/target
jar=$(ls "$target"/mcp.bench-*-SNAPSHOT.jar | grep -v classpath | head -1)
module_path="$jar:$(cat "$target/bench-module-path.txt")"

exec java -XX:+UseSerialGC -p "$module_path" -m mcp.bench/mcp.bench.internal.Recovery \
  --repo "$root" --module-path "$module_path" --log-path "$(cat "$target/bench-log-path.txt")" "$@"
