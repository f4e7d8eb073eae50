#!/usr/bin/env bash
# Measures `aghcheck run` against the built-in reference peer with every
# shipped scenario: broker and IUT start-up included. Prints the wall time
# of each run and the harness's own figures (wall, sum of scenario times).
# Then one run each of two faulty peers, with the ratio to the correct
# peer's wall time.
# Usage: scripts/bench-run.sh [RUNS]   (default 5)
set -euo pipefail
runs=${1:-5}
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/aghcheck
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/aghcheck
for i in $(seq "$runs"); do
  start=$(date +%s%N)
  "$bin" run --format json >"$bin.json"
  end=$(date +%s%N)
  python3 - "$bin.json" "$(( (end - start) / 1000000 ))" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["summary"]
print(f"wall {sys.argv[2]:>5} ms (harness {r['duration_ms']:.0f} ms)  scenario time {s['scenario_time_ms']:.0f} ms  "
      f"pass {s['pass']} fail {s['fail']} warn {s['warn']} skip {s['skip']} error {s['error']}  claim {s['claim']}")
PY
done

# A failing run ends on the evidence, not on ceilings: each deliberately
# faulty peer's run, beside the correct peer's, with the ratio.
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null || true; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
base=$(ms "$bin" run)
echo "correct peer: wall $base ms"
for fault in accept-expired reopen-terminal; do
  w=$(ms "$bin" run --iut "$bin peer --fault $fault")
  python3 -c "import sys; print(f'--fault {sys.argv[1]}: wall {sys.argv[2]} ms, {int(sys.argv[2])/int(sys.argv[3]):.1f}x the correct peer')" "$fault" "$w" "$base"
done
