#!/usr/bin/env bash
# bench-compare: aghcheck validate (NDJSON, every rule) against ajv-cli 5
# (the seed's envelope JSON Schema only, draft 2020-12, same envelopes as one
# JSON array), side by side on the same generated corpus, and against the
# byte-scan floor (scripts/bytescan: json.Valid over every NDJSON line on all
# cores). Prints wall time and peak RSS of each (best of RUNS) and the ratios;
# aghcheck and the floor run in alternation, and their ratio is also given as
# the median of the paired runs and in CPU time (user + system).
#
# Needs Go, node and npm; ajv-cli is installed with npm into a temp dir.
# Environment: N (envelopes, default 100000), RUNS (default 5), BIN (aghcheck
# binary, default bin/aghcheck, built if missing), KEEP=1 keeps the temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
RUNS=${RUNS:-5}
BIN=${BIN:-bin/aghcheck}
work=$(mktemp -d)
if [ "${KEEP:-}" = 1 ]; then echo "temp dir: $work"; else trap 'rm -rf "$work"' EXIT; fi

[ -x "$BIN" ] || go build -o "$BIN" ./cmd/aghcheck
go run ./scripts/gen-envelopes -n "$N" -o "$work"

echo "installing ajv-cli@5 into $work/npm ..."
npm install --prefix "$work/npm" --no-audit --no-fund --loglevel=error ajv-cli@5 >/dev/null
AJV="$work/npm/node_modules/.bin/ajv"
"$AJV" help >/dev/null 2>&1 || { echo "ajv-cli did not install" >&2; exit 2; }

# The seed schema describes one envelope; a two-line wrapper applies it to
# every element of the array. --all-errors makes ajv check every envelope
# instead of stopping at the first invalid one (the corpus has ~3% of them).
cp schemas/agh-envelope.schema.json "$work/envelope.schema.json"
cat > "$work/array.schema.json" <<'JSON'
{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
 "items": {"$ref": "https://agh.dev/schemas/network/v0/envelope.schema.json"}}
JSON

# once NAME CMD...: runs CMD once and appends "wall rss cpu" (seconds, KiB,
# user+system seconds) to $work/NAME. Exit status 1 (some envelopes
# invalid) is expected from both tools.
once() {
  local name=$1; shift
  local rc=0 wall rss=0 cpu=0
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err" || rc=$?
    read -r wall rss user sys < <(tail -n 1 "$work/time")
    cpu=$(echo "$user + $sys" | bc)
  else
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>"$work/err" || rc=$?; t1=$(date +%s.%N)
    wall=$(echo "$t1 - $t0" | bc)
  fi
  if [ "$rc" -gt 1 ]; then echo "$name failed (exit $rc):" >&2; head -5 "$work/err" >&2; exit 2; fi
  echo "$wall $rss $cpu" >> "$work/$name"
}

# report NAME: the best wall time over the runs of NAME, and the highest peak RSS.
report() {
  local name=$1 best rss
  best=$(sort -n "$work/$name" | head -n 1 | cut -d' ' -f1)
  rss=$(sort -n -k2 "$work/$name" | tail -n 1 | cut -d' ' -f2)
  printf '%-9s wall %6.2f s   peak RSS %6.1f MiB   (best of %d)\n' "$name" "$best" "$(echo "$rss / 1024" | bc -l)" "$(wc -l < "$work/$name")"
  eval "${name}_wall=$best; ${name}_rss=$rss"
}

# median FILE: the median of a column of numbers.
median() { sort -n "$1" | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

size=$(du -m "$work/envelopes.ndjson" | cut -f1)
echo "corpus: $N envelopes, ${size} MB (NDJSON for aghcheck, JSON array for ajv); $RUNS runs each"
for _ in $(seq "$RUNS"); do
  once ajv "$AJV" validate --spec=draft2020 --all-errors --strict=false \
    -s "$work/array.schema.json" -r "$work/envelope.schema.json" -d "$work/envelopes.json"
done
# aghcheck against the byte-scan floor (json.Valid over every NDJSON line on
# all cores, nothing else), run in alternation, so that both meet the same
# load: on a shared machine only such paired runs give a meaningful ratio.
go build -o "$work/bytescan" ./scripts/bytescan
for i in $(seq "$RUNS"); do
  if [ $((i % 2)) = 1 ]; then
    once aghcheck "$BIN" validate --quiet "$work/envelopes.ndjson"; once floor "$work/bytescan" "$work/envelopes.ndjson"
  else
    once floor "$work/bytescan" "$work/envelopes.ndjson"; once aghcheck "$BIN" validate --quiet "$work/envelopes.ndjson"
  fi
done
# Start-up: both tools on the corpus's first envelope, in alternation. A fixed
# cost per process (Go runtime, package init: the jsonschema library compiles
# its meta-schemas in its init) that the floor, a tiny program, hardly pays;
# the checking cost below is the wall time without it.
head -n 1 "$work/envelopes.ndjson" > "$work/one.ndjson"
# (20 back-to-back runs timed as one: a single start-up is too short for
# /usr/bin/time's 10 ms steps; both tools pay the same shell loop)
startup() {
  local name=$1 t0 t1; shift
  t0=$(date +%s%N)
  for _ in $(seq 20); do "$@" >/dev/null 2>&1 || true; done
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 20 ))" | awk '{printf "%.6f\n", $1/1e9}' >> "$work/$name"
}
for _ in $(seq "$RUNS"); do
  startup aghcheck-start "$BIN" validate --quiet "$work/one.ndjson"; startup floor-start "$work/bytescan" "$work/one.ndjson"
done
report ajv
report aghcheck
report floor

ratio=$(echo "$aghcheck_wall / $ajv_wall" | bc -l)
printf 'ratio     aghcheck / ajv wall time = %.2f (target <= 0.50)\n' "$ratio"
floor_ratio=$(echo "$aghcheck_wall / $floor_wall" | bc -l)
paste -d' ' "$work/aghcheck" "$work/floor" | awk '{print $1/$4}' > "$work/paired"
paste -d' ' "$work/aghcheck" "$work/floor" | awk '$6 > 0 {print $3/$6}' > "$work/cpu"
printf 'floor     aghcheck / json.Valid byte scan wall time = %.2f best to best, %.2f median of paired runs; CPU time %.2f (goal <= 1.0; reported, not enforced)\n' \
  "$floor_ratio" "$(median "$work/paired")" "$(median "$work/cpu")"
a0=$(median "$work/aghcheck-start"); f0=$(median "$work/floor-start")
paste -d' ' "$work/aghcheck" "$work/floor" | awk -v a0="$a0" -v f0="$f0" '{print ($1-a0)/($4-f0)}' > "$work/checking"
printf 'floor     start-up (one envelope, median) aghcheck %.0f ms, floor %.0f ms; checking cost (wall minus start-up) ratio %.2f, median of paired runs\n' \
  "$(echo "$a0 * 1000" | bc -l)" "$(echo "$f0 * 1000" | bc -l)" "$(median "$work/checking")"
rss_mib=$(echo "$aghcheck_rss / 1024" | bc -l)
printf 'aghcheck  peak RSS %.1f MiB (target <= 64 MiB)\n' "$rss_mib"
ok=1
[ "$(echo "$ratio <= 0.5" | bc)" = 1 ] || { echo "FAIL: aghcheck slower than half of ajv" >&2; ok=0; }
[ "$(echo "$rss_mib <= 64" | bc)" = 1 ] || { echo "FAIL: aghcheck peak RSS above 64 MiB" >&2; ok=0; }
[ "$ok" = 1 ]
