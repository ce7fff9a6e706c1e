#!/usr/bin/env bash
# The gateway comparison (BENCHMARKS.md, "Gateways"): tools/call of echo on one stdio upstream (the testkit server),
# directly over stdio and through mcp-proxy 6.7.19 and supergateway 4.0.0 (Streamable HTTP, stateful, on 127.0.0.1)
# and mcp-host serve (HTTP and stdio), each with mcp-host's client and with the floor client (--clients); then each
# gateway's RSS with 10 upstreams and 50 client sessions. Installs the two npm gateways from bench/'s lock file,
# builds mcp.bench and the runtime image, runs mcp.bench.internal.Gateways. About 17 minutes on the 2-core machine.
#
# Usage: bench/gateway.sh [options]   e.g. --rounds 3, --gateways direct,mcp-proxy, --upstream everything,
#                                     --memory false, --clients floor (see Gateways)
# Needs a JDK 17, Maven, Node.js and npm. Output: mcp.bench/target/gateways/ (gateways.json, gateways.md, logs/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

source "$root/bench/install-npm.sh"
echo "gateways: installing the npm peers (bench/: mcp-proxy, supergateway; interop/: server-everything)" >&2
install_npm bench
bash interop/install.sh

echo "gateways: building mcp.bench and the runtime image of mcp-host serve (tests skipped)" >&2
mvn -B -q -DskipTests package -pl mcp.bench,mcp.cli -am >&2

target=mcp.bench/target
jar=$(ls "$target"/mcp.bench-*-SNAPSHOT.jar | grep -v classpath | head -1)
module_path="$jar:$(cat "$target/bench-module-path.txt")"

exec java -XX:+UseSerialGC -p "$module_path" -m mcp.bench/mcp.bench.internal.Gateways --repo "$root" \
  --module-path "$module_path" "$@"
