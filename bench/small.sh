#!/usr/bin/env bash
# Every bench in bench/ at its small size (`--small`), one after the other, each timed. CI runs
# this, so a bench that no longer runs fails the build. The loop takes every bench there is: a
# new bench needs a --small of its own, a run that finishes in seconds and still goes through
# the real code and exits non-zero when that is broken. Every bench runs even after one fails,
# so that one build names all the broken ones.
set -uo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
broken=()
for bench in bench/*.py; do
  began=$SECONDS
  echo "::: $bench --small"
  if uv run python "$bench" --small; then
    echo "::: $bench --small: $((SECONDS - began)) s"
  else
    echo "::: $bench --small: FAILED after $((SECONDS - began)) s" >&2
    broken+=("$bench")
  fi
done
echo "::: every bench at its small size: $((SECONDS - started)) s"
if [ "${#broken[@]}" -gt 0 ]; then
  echo "::: broken: ${broken[*]}" >&2
  exit 1
fi
