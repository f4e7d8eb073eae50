#!/bin/sh
# make regen: rewrite everything generated, in the order one depends on the
# other. On a clean checkout it changes nothing; after a change, git diff
# shows what the change did to the generated files: review it.
#
#   1. fixtures/agh/invalid/*.json from fixtures/agh/invalid.py (a fixture
#      taken out of its cases disappears);
#   2. the mutation matrix, harness/proven.yaml and docs/mutation.md
#      (TestMutationScore -update: plays every fault, minutes; REGEN_MATRIX=0,
#      which make regen-fast sets, skips it);
#   3. docs/rules.md and docs/coverage.md (make docs);
#   4. every golden file and generated region of the docs: each test that
#      rewrites one (found in the test sources by scripts/goldentests: it
#      uses internal/golden or an -update-* flag) run with its flags.
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
MAKE=make
REGEN_MATRIX=${REGEN_MATRIX:-1}

say() { printf 'regen: %s\n' "$*" >&2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say "fixtures/agh/invalid (fixtures/agh/invalid.py)"
if ! command -v python3 >/dev/null 2>&1; then
	say "python3 is needed to run fixtures/agh/invalid.py"
	exit 1
fi
mkdir "$tmp/invalid"
python3 fixtures/agh/invalid.py "$tmp/invalid" >/dev/null
rm -f fixtures/agh/invalid/*.json
mv "$tmp"/invalid/*.json fixtures/agh/invalid/

"$GO" run ./scripts/goldentests >"$tmp/tests"

run_tests() { # PKG RUN FLAGS...
	pkg=$1 run=$2
	shift 2
	"$GO" test -count=1 -timeout 30m -run "$run" "$pkg" "$@"
}

# The mutation matrix is TestMutationScore's; it runs first, alone.
matrix='TestMutationScore'
if [ "$REGEN_MATRIX" = 0 ]; then
	say "mutation matrix skipped (REGEN_MATRIX=0): harness/proven.yaml and docs/mutation.md are as they were"
else
	say "mutation matrix: harness/proven.yaml, docs/mutation.md (plays every fault: minutes; make regen-fast skips it)"
	pkg=$(awk -v t="$matrix" 'index($2, t) { print $1 }' "$tmp/tests")
	if [ -z "$pkg" ]; then
		say "no test $matrix found: scripts/goldentests lists no mutation matrix"
		exit 1
	fi
	run_tests "$pkg" "^($matrix)\$" -update
fi

say "docs/rules.md, docs/coverage.md (make docs)"
"$MAKE" -s --no-print-directory docs GO="$GO" BIN="$tmp/aghcheck"

say "golden files and generated regions"
# shellcheck disable=SC2086 # the flags are words
while read -r pkg run flags; do
	# Every test of the line but the matrix, which ran above (or is skipped).
	rest=$(printf '%s\n' "$run" | sed -e 's/^\^(//' -e 's/)\$$//' | tr '|' '\n' | grep -vx "$matrix" | paste -sd'|' -)
	if [ -n "$rest" ]; then
		run_tests "$pkg" "^($rest)\$" $flags </dev/null
	fi
done <"$tmp/tests"
say "done: git diff shows what changed"
