#!/usr/bin/env bash
# The tool search bench of issue 19 (BENCHMARKS.md, "Tool search"): builds mcp.search and the bench module,
# then runs mcp.bench.internal.SearchBench on bench/toolcorpus: recall@5 and MRR of mcp-host's search, of
# each of its extras switched off, of plain BM25, of a substring baseline and of Lucene's BM25 (overall, on
# the queries that share no word with their tool, on both halves of a seeded split), then build time, heap
# and latency over 10,000 tools. About a minute on the 2-core machine.
#
# Usage: bench/search.sh [options]   e.g. --seed 7, --tools 20000, --rounds 5, --misses tune, --smoke,
#        --queries queries-sampled.json (another query file of bench/toolcorpus, same format)
# Needs a JDK 17 and Maven.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

echo "search: building mcp.search and mcp.bench (tests skipped)" >&2
mvn -B -q -DskipTests process-classes -pl mcp.bench -am >&2

target=mcp.bench/target
module_path="$target/classes:$(cat "$target/bench-module-path.txt")"
exec java -XX:+UseSerialGC -Xmx1g -p "$module_path" -m mcp.bench/mcp.bench.internal.SearchBench --repo "$root" "$@"
