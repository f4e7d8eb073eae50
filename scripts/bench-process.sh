#!/usr/bin/env bash
# bench-process: whole-process timings of `aghcheck validate` (start-up,
# reading, checking, reporting) on the generated corpus, per input form and
# output format. Uses hyperfine when installed, else a plain loop reporting
# the best and mean wall time and the peak RSS.
#
# Environment: N (envelopes, default 100000), RUNS (default 5), BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
RUNS=${RUNS:-5}
BIN=${BIN:-bin/aghcheck}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/aghcheck
go run ./scripts/gen-envelopes -n "$N" -o "$work"

cases=(
  "ndjson-quiet|$BIN validate --quiet $work/envelopes.ndjson"
  "array-quiet|$BIN validate --quiet $work/envelopes.json"
  "ndjson-text|$BIN validate $work/envelopes.ndjson"
  "ndjson-json|$BIN validate --format json $work/envelopes.ndjson"
  "ndjson-junit|$BIN validate --format junit $work/envelopes.ndjson"
  "ndjson-github|$BIN validate --format github $work/envelopes.ndjson"
  "ndjson-1-core|$BIN validate --quiet -j 1 $work/envelopes.ndjson"
  "stdin-quiet|sh -c '$BIN validate --quiet - < $work/envelopes.ndjson'"
)

if command -v hyperfine >/dev/null; then
  args=()
  for c in "${cases[@]}"; do args+=(-n "${c%%|*}" "${c#*|}"); done
  hyperfine -N -i --warmup 1 --runs "$RUNS" "${args[@]}"
  exit 0
fi

printf '%-15s %9s %9s %11s %12s\n' case best_s mean_s rss_MiB envelopes/s
for c in "${cases[@]}"; do
  name=${c%%|*}; cmd=${c#*|}
  best=""; total=0; rss=0
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$work/time" sh -c "$cmd > /dev/null 2>&1" || true
    read -r wall kib < <(tail -n 1 "$work/time")
    total=$(echo "$total + $wall" | bc -l)
    [ "$kib" -gt "$rss" ] && rss=$kib
    if [ -z "$best" ] || [ "$(echo "$wall < $best" | bc)" = 1 ]; then best=$wall; fi
  done
  printf '%-15s %9.2f %9.2f %11.1f %12.0f\n' "$name" "$best" "$(echo "$total / $RUNS" | bc -l)" \
    "$(echo "$rss / 1024" | bc -l)" "$(echo "$N / $best" | bc -l)"
done
