#!/usr/bin/env bash
# Certify the reference runtime, github.com/compozy/agh at a pinned release,
# with aghcheck's full suites and compare the outcome with its baseline of
# known deviations. Usage (docs/reference.md):
#
#   make reference REF=<checkout or bare git dir of github.com/compozy/agh>
#   make reference                          # tries git clone of the public repository
#
# Environment: REF, GO (default go), BASELINE (default
# baselines/compozy-agh.yaml), RUN_ARGS (more `aghcheck run` flags, e.g.
# '--format json'), WRITE_BASELINE=FILE (write today's deviations to FILE,
# keeping the reasons BASELINE gives those that still hold: the first step of
# bumping the pin), KEEP=DIR (copy
# the built adapter and aghcheck there, for runs of your own).
#
# Nothing is written into this repository: the runtime's source, the
# adapter build and aghcheck's binary live in one temporary directory that
# is removed on exit. The runtime's own dependencies come through the Go
# module proxy; the runtime itself never does (the proxy refuses it).
set -euo pipefail

# The pin. Bumping it: docs/reference.md, "Bumping the pin".
PIN_TAG=v0.0.5
PIN_COMMIT=cd4b155166e332c542516b3bbc55adf65bf86ece
REPO_URL=https://github.com/compozy/agh.git

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}
# An empty BASELINE (set, but to nothing) means none: WRITE_BASELINE then
# writes every entry with reason TODO.
BASELINE=${BASELINE-$ROOT/baselines/compozy-agh.yaml}
REF=${REF:-}
# The adapter's files that go into the runtime's copy; stub.go and the tests
# stay behind (stub.go is what the adapter is without the runtime).
ADAPTER_FILES=(main.go config.go runtime.go)

die() {
	echo "reference: $*" >&2
	exit 2
}
say() { echo "reference: $*" >&2; }
elapsed() { echo "$(($(date +%s) - $1))s"; }

command -v git >/dev/null || die "git is not installed"
command -v "$GO" >/dev/null || die "$GO is not installed"

# What the run is compared with, checked before anything is built.
if [ -n "${WRITE_BASELINE:-}" ]; then
	compare=(--write-baseline "$WRITE_BASELINE")
	# The current baseline, when there is one, lends its reasons to the
	# entries that still hold (and keeps the warnings it pins); the rest get
	# TODO. The exit status is then that of the comparison with it.
	if [ -n "$BASELINE" ]; then
		[ -f "$BASELINE" ] || die "no baseline at $BASELINE (BASELINE= for none)"
		compare+=(--baseline "$BASELINE")
	fi
else
	[ -n "$BASELINE" ] || die "BASELINE is empty: name the baseline to compare with"
	[ -f "$BASELINE" ] || die "no baseline at $BASELINE (write one with WRITE_BASELINE=FILE)"
	compare=(--baseline "$BASELINE")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aghcheck-reference.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)

# 1. The runtime's git directory: REF (a checkout or a bare git dir), else a
#    shallow clone of the pinned tag.
if [ -z "$REF" ]; then
	if ! GIT_TERMINAL_PROMPT=0 git clone --quiet --bare --depth 1 --branch "$PIN_TAG" \
		"$REPO_URL" "$tmp/agh.git" 2>"$tmp/clone.err"; then
		die "cannot clone $REPO_URL ($(tail -n 1 "$tmp/clone.err")); pass a checkout or bare git dir of github.com/compozy/agh that has $PIN_TAG: make reference REF=/path/to/agh"
	fi
	REF=$tmp/agh.git
fi
[ -d "$REF" ] || die "REF=$REF is not a directory (want a checkout or bare git dir of github.com/compozy/agh)"
gitdir=$(git -C "$REF" rev-parse --absolute-git-dir 2>/dev/null) ||
	die "REF=$REF is not a git checkout or git directory (want one of github.com/compozy/agh)"
g() { git --git-dir="$gitdir" "$@"; }

# 2. The pinned commit: the tag when the copy has it (and it must still name
#    the pinned commit), else the commit itself.
if tagged=$(g rev-parse --verify --quiet "refs/tags/$PIN_TAG^{commit}"); then
	[ "$tagged" = "$PIN_COMMIT" ] ||
		die "$PIN_TAG in $REF is commit $tagged, not the pinned $PIN_COMMIT (docs/reference.md, \"Bumping the pin\")"
fi
g cat-file -e "$PIN_COMMIT^{commit}" 2>/dev/null ||
	die "REF=$REF has neither $PIN_TAG nor commit $PIN_COMMIT (fetch the tag, or pass another copy of github.com/compozy/agh)"

# 3. Its tree into the temporary directory. A mirror may lack blobs the build
#    never reads (images, the OpenAPI document): such paths are left out.
src=$tmp/agh
mkdir -p "$src"
g ls-tree -r "$PIN_COMMIT" | awk -F'\t' '{ split($1, f, " "); if (f[2] == "blob") print f[3] "\t" $2 }' >"$tmp/tree"
cut -f1 "$tmp/tree" | g cat-file --batch-check | awk '$2 == "missing" { print $1 }' >"$tmp/missing"
excludes=()
while IFS=$'\t' read -r sha path; do
	excludes+=(":(exclude,literal)$path")
	say "leaving out $path (its blob is not in $REF)"
done < <(awk -F'\t' 'NR == FNR { miss[$1] = 1; next } ($1 in miss)' "$tmp/missing" "$tmp/tree")
# git archive may still complain about a left-out blob while exiting 0: its
# messages are shown only when it fails.
g archive --format=tar "$PIN_COMMIT" -- . ${excludes[@]+"${excludes[@]}"} 2>"$tmp/archive.err" >"$tmp/agh.tar" || {
	cat "$tmp/archive.err" >&2
	die "git archive of $PIN_COMMIT failed"
}
tar -xf "$tmp/agh.tar" -C "$src"
rm "$tmp/agh.tar"
say "checked out $PIN_TAG ($PIN_COMMIT) in $(elapsed "$start")"

# 4. The adapter, built inside the runtime's module (its network package is
#    internal/). The first build downloads the runtime's dependencies.
adapter_dir=$src/cmd/aghcheck-adapter
mkdir -p "$adapter_dir" "$tmp/bin"
for f in "${ADAPTER_FILES[@]}"; do
	cp "$ROOT/reference/adapter/$f" "$adapter_dir/"
done
t=$(date +%s)
# Files named on the command line are built whatever their build constraints
# (runtime.go carries "ignore" to stay out of aghcheck's own builds);
# -trimpath keeps the build cache valid across temporary directories.
(cd "$adapter_dir" && GOWORK=off "$GO" build -trimpath -o "$tmp/bin/aghcheck-adapter" "${ADAPTER_FILES[@]}") ||
	die "building the adapter inside $PIN_TAG failed (see above)"
say "built the adapter in $(elapsed "$t")"

# 5. aghcheck itself, from this repository.
t=$(date +%s)
(cd "$ROOT" && "$GO" build -o "$tmp/bin/aghcheck" ./cmd/aghcheck) || die "building aghcheck failed"
say "built aghcheck in $(elapsed "$t")"
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP" && cp "$tmp/bin/aghcheck-adapter" "$tmp/bin/aghcheck" "$KEEP/" || die "cannot copy the binaries to KEEP=$KEEP"
	say "kept aghcheck-adapter and aghcheck in $KEEP"
fi

# 6. The run: every suite, judged against the baseline.
# --iut is split like a shell would: quote the path.
iut="'$tmp/bin/aghcheck-adapter'"
say "running aghcheck against $PIN_TAG"
set +e
# shellcheck disable=SC2086 # RUN_ARGS is a list of flags
# A longer step timeout than the default 2 s: the adapter answers one
# message at a time and flushes every publish, so on a loaded machine a
# burst of the parallel scenarios' work can queue for seconds (seen once:
# every expect after a 3-4 s stall timed out). It only lengthens the waits
# that end in a warning; RUN_ARGS='--step-timeout 2s' restores the default.
"$tmp/bin/aghcheck" run --iut "$iut" --step-timeout 5s "${compare[@]}" ${RUN_ARGS:-}
status=$?
set -e
say "exit $status after $(elapsed "$start") in all"
exit "$status"
