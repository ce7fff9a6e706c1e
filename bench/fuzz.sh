#!/usr/bin/env bash
# Coverage-guided fuzzing of mcp-host's @FuzzTest targets with Jazzer, each for a chosen time.
#
#   bench/fuzz.sh                       every target, 300 s each
#   bench/fuzz.sh -t 60 SseParserFuzzTest JsonRpcCodecFuzzTest#anyBytesAreOneMessageThatRoundTripsOrTheCodecsError
#   bench/fuzz.sh -n ...                without building first (a second run beside one that built)
#
# `mvn verify` only replays the committed inputs (src/test/resources/<package>/<Class>Inputs/<method>/);
# this runs the fuzzer. What it finds (a failing input: crash-<sha1>) Jazzer writes into that directory
# itself, where the next `mvn verify` replays it: fix the code, keep the file. The corpus the fuzzer
# grew (<module>/.cifuzz-corpus/, not committed) is merged into the same directory afterwards, keeping
# only the inputs that add coverage, so that `mvn verify` replays what the fuzzer learned.
# Jazzer fuzzes one target per JVM: the targets run one after another.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=300
build=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    -t) seconds="$2"; shift 2 ;;
    -n) build=0; shift ;;
    *) break ;;
  esac
done

# Every target as module|Class|method, from the sources.
all_targets() {
  grep -rl --include='*FuzzTest.java' '@FuzzTest' -- */src/test/java | sort | while read -r file; do
    module="${file%%/src/*}"
    class="$(basename "$file" .java)"
    grep -A1 '@FuzzTest' "$file" | sed -n 's/.*void \([A-Za-z0-9_]*\)(.*/\1/p' | while read -r method; do
      echo "$module|$class|$method"
    done
  done
}

selected=()
while read -r target; do
  if [[ $# -eq 0 ]]; then
    selected+=("$target")
  else
    IFS='|' read -r module class method <<< "$target"
    for wanted in "$@"; do
      if [[ "$wanted" == "$class" || "$wanted" == "$class#$method" ]]; then
        selected+=("$target")
      fi
    done
  fi
done < <(all_targets)
if [[ ${#selected[@]} -eq 0 ]]; then
  echo "No fuzz target matches: $*. Targets:" >&2
  all_targets | awk -F'|' '{print "  " $2 "#" $3}' >&2
  exit 2
fi

# Of the inputs and the grown corpus, keeps in the inputs directory one input per coverage edge of
# mcp-host and Jackson (libFuzzer -merge=1 without hit counts), besides the seed-* and crash-* files.
# libFuzzer merges in a child process of its own, which only Jazzer's standalone driver can start.
declare -A classpaths
merge() {
  local module="$1" fqcn="$2" method="$3" inputs="$4" corpus="$5"
  local merged keep file name root="$PWD"
  if [[ -z "${classpaths[$module]:-}" ]]; then
    mvn -B -q -Dstyle.color=never -o -pl "$module" dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile="$root/$module/target/fuzz-classpath.txt"
    classpaths[$module]="$root/$module/target/test-classes:$root/$module/target/classes:$(cat "$module/target/fuzz-classpath.txt")"
  fi
  merged="$(mktemp -d)"
  (cd "$module" && java -cp "${classpaths[$module]}" com.code_intelligence.jazzer.Jazzer --target_class="$fqcn" \
    --target_method="$method" --instrumentation_includes='mcp.**:tools.jackson.**' \
    -merge=1 -use_counters=0 "$merged" "$root/$inputs" "$root/$corpus") \
    > "$module/target/fuzz-${fqcn##*.}-$method-merge.log" 2>&1
  # The seeds and findings stay under their own names; the merge must not add them again as <sha1>.
  keep=""
  for file in "$inputs"/seed-* "$inputs"/crash-*; do
    if [[ -f "$file" ]]; then
      keep+="$(sha1sum < "$file" | cut -c1-40)"$'\n'
    fi
  done
  find "$inputs" -maxdepth 1 -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' -delete
  for file in "$merged"/*; do
    name="$(basename "$file")"
    grep -qx "$name" <<< "$keep" || cp "$file" "$inputs/$name"
  done
  rm -rf "$merged"
}

modules="$(printf '%s\n' "${selected[@]}" | cut -d'|' -f1 | sort -u | paste -sd, -)"
if [[ $build -eq 1 ]]; then
  echo "== building $modules and what they need (tests skipped)"
  mvn -B -q -Dstyle.color=never install -DskipTests -pl "$modules" -am
fi

for target in "${selected[@]}"; do
  IFS='|' read -r module class method <<< "$target"
  package_dir="$(grep -rl --include="$class.java" "class $class" "$module/src/test/java" | head -1)"
  package_dir="$(dirname "${package_dir#"$module/src/test/java/"}")"
  fqcn="${package_dir//\//.}.$class"
  inputs="$module/src/test/resources/$package_dir/${class}Inputs/$method"
  corpus="$module/.cifuzz-corpus/$fqcn/$method"
  mkdir -p "$inputs"
  before="$(ls "$inputs" | wc -l)"
  echo "== fuzzing $class#$method for ${seconds}s (inputs: $before in $inputs)"
  status=0
  JAZZER_FUZZ=1 mvn -B -o -q -Dstyle.color=never -pl "$module" test -Dtest="$class#$method" \
    -Djazzer.instrumentation_includes='mcp.**:tools.jackson.**' \
    -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1=-max_total_time="$seconds" \
    > "$module/target/fuzz-$class-$method.log" 2>&1 || status=$?
  grep -E '^#[0-9]+ *(DONE|INITED)|cov: .*corp:' "$module/target/fuzz-$class-$method.log" | tail -1 || true
  if [[ -d "$corpus" ]]; then
    merge "$module" "$fqcn" "$method" "$inputs" "$corpus"
  fi
  after="$(ls "$inputs" | wc -l)"
  crashes="$(ls "$inputs" | grep -c '^crash-' || true)"
  echo "   exit $status; inputs $before -> $after ($crashes crash-* files); log: $module/target/fuzz-$class-$method.log"
done
