#!/usr/bin/env bash
# Renders the HTML report of a failing run in a real headless Chromium
# (Debian's package: apt-get install -y chromium), takes a screenshot and
# checks the page's text: the verdict, the claims, a failing scenario with
# its expected-vs-arrived comparison, the exchanged envelopes.
# The run certifies the built-in reference peer with a fault that sends
# directed receipts on the broadcast subject, so the NATS binding fails.
# Usage: scripts/html-check.sh [OUTDIR]   (default bin/html-check)
# Leaves OUTDIR/report.html, report.png and report.dom.html to look at.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bin/html-check}
chromium=${CHROMIUM:-chromium}
if ! command -v "$chromium" >/dev/null; then
  echo "html-check: $chromium not found (apt-get install -y chromium)" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/aghcheck" ./cmd/aghcheck

code=0
"$tmp/aghcheck" run --iut 'aghcheck peer --fault receipt-on-broadcast' --format html -o "$out/report.html" || code=$?
if [ "$code" -ne 1 ]; then
  echo "html-check: the faulty run exited $code, want 1 (claim not earned)" >&2
  exit 1
fi

# Headless Chromium on a closed network: no background traffic, a fresh
# profile. One run takes the screenshot and prints the DOM after scripts ran.
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --hide-scrollbars --window-size=1280,2400 \
  --screenshot="$out/report.png" --dump-dom "file://$out/report.html" >"$out/report.dom.html" 2>"$tmp/chromium.log" || {
  cat "$tmp/chromium.log" >&2
  exit 1
}

fail=0
check() { # check DESCRIPTION FIXED-STRING
  if grep -qF -- "$2" "$out/report.dom.html"; then
    echo "ok   $1"
  else
    echo "FAIL $1: the rendered page lacks $2" >&2
    fail=1
  fi
}
check "verdict" '<span class="badge no">NOT PASSED</span>'
check "the certified command" 'peer --fault receipt-on-broadcast'
check "claims" '<h3><span class="mark">✘</span>NATS Peer</h3>'
check "a claim's reason" 'nats.directed-replies-on-peer-subject: fail'
check "grid cell of a failure" 'href="#sc-nats.directed-replies-on-peer-subject"'
check "its details" '<details class="scenario fail" id="sc-nats.directed-replies-on-peer-subject"'
check "expected block" '<h5>expected</h5>'
check "arrived block" '<h5>arrived</h5>'
check "exchanged envelopes" 'Exchanged envelopes ('
check "requirements coverage" 'tested ('
check "passive validation" 'NATS-PUBLISH-SUBJECT'
# A link to a scenario (the grid's, or one shared) opens its details.
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile2" --dump-dom "file://$out/report.html#sc-nats.directed-replies-on-peer-subject" \
  >"$tmp/linked.html" 2>>"$tmp/chromium.log"
if grep -qF 'id="sc-nats.directed-replies-on-peer-subject" open=""' "$tmp/linked.html"; then
  echo "ok   a link opens the scenario's details"
else
  echo "FAIL a link to #sc-nats.directed-replies-on-peer-subject does not open its details" >&2
  fail=1
fi
size=$(wc -c <"$out/report.png")
if [ "$size" -lt 50000 ]; then
  echo "FAIL screenshot: $out/report.png is only $size bytes" >&2
  fail=1
else
  echo "ok   screenshot ($size bytes): $out/report.png"
fi
exit "$fail"
