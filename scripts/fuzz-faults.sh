#!/usr/bin/env bash
# Fuzzes the built-in peer with each of its listed faults and allowed
# variants (the templates aside: overlook:RULE-ID, emit:RULE-ID and the
# liveness faults' parameters), a short run each, and prints per fault the
# findings' level, kind and rule. The loop closes when every MUST finding
# kind the fuzzer produces is also caught by a scripted scenario
# (docs/mutation.md lists what fails each fault), and an allowed variant
# gets no finding at all.
#
#   scripts/fuzz-faults.sh [CASES] [OUTDIR]      (defaults: 2000 cases, a temporary directory)
#
# Exit status: 1 when an allowed variant got a finding, else 0.
set -euo pipefail
cases=${1:-2000}
out=${2:-$(mktemp -d)}
cd "$(dirname "$0")/.."
mkdir -p "$out"
bin="$out/aghcheck"
go build -o "$bin" ./cmd/aghcheck
status=0
while read -r fault group; do
  "$bin" fuzz --cases "$cases" --shrink 0 --step-timeout 2s --iut "$bin peer --fault $fault" \
    --format json -o "$out/$fault.json" >/dev/null 2>"$out/$fault.stderr" || true
  found=$(python3 - "$out/$fault.json" <<'PY'
import json, sys
try:
    rep = json.load(open(sys.argv[1]))
except Exception as e:
    print("NOT RUN (%s)" % e); sys.exit()
fs = rep.get("findings") or []
print("; ".join("%s %s %s x%d" % (f["level"], f["kind"], f["rule"], f["count"]) for f in fs) or "no finding",
      "[%d cases%s]" % (rep.get("cases", 0), ", error: " + rep["error"] if rep.get("error") else ""))
PY
)
  printf '%-32s %-10s %s\n' "$fault" "$group" "$found"
  if [ "$group" = allowed ] && [ "${found#no finding}" = "$found" ]; then
    echo "  ^ an allowed variant must get no finding" >&2
    status=1
  fi
done < <("$bin" peer --list-faults | awk 'NR > 1 && $1 !~ /RULE-ID|:[A-Z]/ {print $1, $2}')
echo "reports in $out"
exit $status
