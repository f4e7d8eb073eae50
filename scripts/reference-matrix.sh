#!/usr/bin/env bash
# Certify several versions of the reference runtime, github.com/compozy/agh,
# one after the other, and write their outcomes side by side as a Markdown
# table (aghcheck diff --matrix): scenario × version, changed cells in bold.
# Usage (docs/reference.md):
#
#   make reference-matrix REF=<git dir or working tree of compozy/agh> REVS='v0.0.4 v0.0.5 main'
#
# Environment: REF and REVS (required), OUT=FILE (the table; default
# stdout), REPORTS=DIR (keep each version's JSON report and the script's
# log there; default a temporary directory), GO, BASELINE and RUN_ARGS as
# for scripts/reference.sh. A version the adapter cannot be built against
# (or that cannot be run) is a column saying so, with the last line of its
# log. Exit 0 once the table is written, 2 when it cannot be.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}
REF=${REF:-}
REVS=${REVS:-}

die() {
	echo "reference-matrix: $*" >&2
	exit 2
}
say() { echo "reference-matrix: $*" >&2; }

[ -n "$REF" ] || die "REF is empty: name a git dir or working tree of github.com/compozy/agh"
[ -n "$REVS" ] || die "REVS is empty: name the versions to compare, e.g. REVS='v0.0.4 v0.0.5 main'"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aghcheck-matrix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
reports=${REPORTS:-$tmp/reports}
mkdir -p "$reports" || die "cannot create REPORTS=$reports"

(cd "$ROOT" && "$GO" build -o "$tmp/aghcheck" ./cmd/aghcheck) || die "building aghcheck failed"

# jsonString quotes s as a JSON string (the few characters a log line can
# hold that JSON escapes).
jsonString() {
	local s=${1//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/ }
	printf '"%s"' "$s"
}

columns=()
for rev in $REVS; do
	label=${rev//\//_}
	json=$reports/$label.json
	log=$reports/$label.log
	say "$rev: running scripts/reference.sh (log in $log)"
	set +e
	REF=$REF REV=$rev GO=$GO RUN_ARGS="${RUN_ARGS:-} --format json -o $json" \
		"$ROOT/scripts/reference.sh" >/dev/null 2>"$log"
	status=$?
	set -e
	if [ "$status" -le 1 ] && [ -s "$json" ]; then
		say "$rev: $(tail -n 1 "$log" | sed 's/^reference: //')"
	else
		# Not run: a report that says why, so the table has its column.
		why=$(grep -v '^go: downloading' "$log" | tail -n 1)
		version=$(sed -n 's/^reference: testing github.com\/compozy\/agh \([^:]*\):.*/\1/p' "$log" | head -n 1)
		printf '{"tool":"aghcheck","iut":{"implementation":"github.com/compozy/agh","implementation_version":%s},"scenarios":[],"error":%s}\n' \
			"$(jsonString "${version:-unknown}")" "$(jsonString "exit $status: ${why:-no output}")" >"$json"
		say "$rev: not run (exit $status): $why"
	fi
	columns+=("$json")
done

if [ -n "${OUT:-}" ]; then
	"$tmp/aghcheck" diff --matrix --format markdown -o "$OUT" "${columns[@]}" || die "cannot write the table to OUT=$OUT"
	say "wrote $OUT"
else
	"$tmp/aghcheck" diff --matrix --format markdown "${columns[@]}"
fi
