#!/usr/bin/env bash
# The benchmark of issue 7 in one command (BENCHMARKS.md): installs the npm peers it needs, builds
# mcp-host (jars and the jlink image) and the bench module, then runs every part — the four clients
# on the testkit server and on server-everything, startup at scale, whole-process CLI time, JMH — and
# writes the table between the bench markers of BENCHMARKS.md. A few minutes on a 2-core machine.
#
# Usage: bench/run.sh [runner options]   e.g. --rounds 3, --skip jmh,cli (see mcp.bench.internal.Runner)
# Needs a JDK 17, Maven, Node.js and npm. Output: mcp.bench/target/bench/ (results.json, report.md, logs/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# install_npm DIR: npm ci from the lock file (bench/install-npm.sh)
source "$root/bench/install-npm.sh"
echo "bench: installing the npm peers (bench/, interop/)" >&2
install_npm bench
bash interop/install.sh

echo "bench: building mcp-host, its runtime image and mcp.bench (tests skipped)" >&2
mvn -B -q -DskipTests package -pl mcp.bench,mcp.cli -am >&2

target=mcp.bench/target
jar=$(ls "$target"/mcp.bench-*-SNAPSHOT.jar | grep -v classpath | head -1)
cpjar=$(ls "$target"/mcp.bench-*-classpath.jar | head -1)
module_path="$jar:$(cat "$target/bench-module-path.txt")"
class_path="$cpjar:$jar:$(cat "$target/bench-class-path.txt")"

exec java -XX:+UseSerialGC -p "$module_path" -m mcp.bench/mcp.bench.internal.Runner \
  --repo "$root" --module-path "$module_path" --class-path "$class_path" \
  --report "$root/BENCHMARKS.md" --command "bench/run.sh" "$@"
