#!/usr/bin/env bash
# Every bench in bench/ at its small size (`--small`), each timed. CI runs this, so a bench that
# no longer runs fails the build. The loop takes every bench there is: a new bench needs a
# --small of its own, a run that finishes in seconds and still goes through the real code and
# exits non-zero when that is broken. Every bench runs even after one fails, so that one build
# names all the broken ones.
#
# The benches run side by side, as many at once as there are cores (BENCH_JOBS to choose): at
# their small size their figures are not read, only whether they run, and many of them wait on
# a server or a subprocess for much of their time. Each one's output is printed whole when it
# ends, so two benches' lines never interleave.
set -uo pipefail
cd "$(dirname "$0")/.."

jobs=${BENCH_JOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
started=$SECONDS

run_one() {
  local bench=$1 began=$SECONDS name
  name=$(basename "$bench" .py)
  if uv run python "$bench" --small >"$logs/$name.log" 2>&1; then
    echo "::: $bench --small: $((SECONDS - began)) s" >>"$logs/$name.log"
  else
    echo "::: $bench --small: FAILED after $((SECONDS - began)) s" >>"$logs/$name.log"
    touch "$logs/$name.failed"
  fi
  (
    flock 9
    echo "::: $bench --small"
    cat "$logs/$name.log"
  ) 9>"$logs/.printing"
}

for bench in bench/*.py; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n
  done
  run_one "$bench" &
done
wait

echo "::: every bench at its small size, $jobs at once: $((SECONDS - started)) s"
broken=()
for bench in bench/*.py; do
  [ -e "$logs/$(basename "$bench" .py).failed" ] && broken+=("$bench")
done
if [ "${#broken[@]}" -gt 0 ]; then
  echo "::: broken: ${broken[*]}" >&2
  exit 1
fi
