#!/usr/bin/env bash
# The semantic baseline of the tool-search bench (issue 19; BENCHMARKS.md, "Tool search"): ranks the corpus's
# tools with a sentence-embedding model (all-MiniLM-L6-v2, quantized, run by ONNX Runtime), alone and fused with
# mcp-host's word index, on the same queries, metrics and split as bench/search.sh. Fetches the model and its
# runtime (about 130 MB of Maven artifacts) on its first run; neither the build nor CI does. About a minute.
#
# Usage: bench/semantic.sh [--queries queries-sampled.json] [--seed 19]
# Needs a JDK 17 and Maven.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=bench/semantic/target
mkdir -p "$out/classes"

echo "semantic: building mcp.search (tests skipped) and resolving the model" >&2
mvn -B -q -DskipTests process-classes -pl mcp.search >&2
mvn -B -q -f bench/semantic/pom.xml dependency:build-classpath -Dmdep.outputFile=target/class-path.txt >&2
cp="mcp.search/target/classes:$(cat "$out/class-path.txt")"
javac --release 17 -encoding UTF-8 -d "$out/classes" -cp "$cp" bench/semantic/src/main/java/semantic/SemanticBench.java
exec java -Xmx2g -cp "$out/classes:$cp" semantic.SemanticBench --corpus bench/toolcorpus "$@"
