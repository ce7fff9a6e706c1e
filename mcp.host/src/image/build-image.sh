#!/usr/bin/env bash
# Builds the mcp-host runtime image with jlink: the host, its providers (named explicitly, no
# --bind-services), tinylog, and the test server of `mcp-host demo`. Then adds class-data sharing
# archives so that the command starts fast: the JDK's default archive (-Xshare:dump) and an
# application archive recorded from a `--version` run.
# Usage: build-image.sh <java.home> <module path> <output dir>
set -euo pipefail
java_home=$1
module_path=$2
image=$3

rm -rf "$image"
"$java_home/bin/jlink" \
  --module-path "$module_path" \
  --add-modules mcp.host,mcp.transport.stdio,mcp.cache,mcp.config,mcp.testkit,org.tinylog.api.slf4j,org.tinylog.impl \
  --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$image"

cat > "$image/bin/mcp-host" <<'LAUNCHER'
#!/bin/sh
# mcp-host launcher: the image's own Java, with the application class-data archive when present.
dir=$(cd "$(dirname "$0")/.." && pwd)
cds=""
if [ -f "$dir/lib/mcp-host.jsa" ]; then
  cds="-XX:SharedArchiveFile=$dir/lib/mcp-host.jsa -Xshare:auto"
fi
exec "$dir/bin/java" $cds -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xlog:disable $MCP_HOST_JAVA_OPTS -m mcp.host/mcp.host.internal.cli.Main "$@"
LAUNCHER
chmod +x "$image/bin/mcp-host"

# The JDK classes' archive, used by every java of the image (the demo's servers too).
"$image/bin/java" -Xshare:dump -Xlog:disable > /dev/null
# The application's archive, recorded from a short run of the command.
"$image/bin/java" -XX:ArchiveClassesAtExit="$image/lib/mcp-host.jsa" -Xlog:disable \
  -m mcp.host/mcp.host.internal.cli.Main --version > /dev/null
