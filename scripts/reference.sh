#!/usr/bin/env bash
# Certify the reference runtime, github.com/compozy/agh, with aghcheck's full
# suites and compare the outcome with its baseline of known deviations.
# Usage (docs/reference.md):
#
#   make reference REF=<working tree of github.com/compozy/agh>   # that tree, uncommitted changes included
#   make reference REF=<git dir or working tree> REV=<commit, tag or branch>
#   make reference REF=<git dir>            # its HEAD
#   make reference REF=<git dir> REV=v0.0.5 # the pinned release
#   make reference                          # the pinned release, cloned from the public repository
#
# Environment: REF, REV, GO (default go), COMPAT=reference (judge by the
# runtime's own reading of every documented erratum: run --compat
# reference, compared with BASELINE's default
# reference/compozy-agh.compat-reference.yaml), BASELINE (default
# reference/compozy-agh.yaml), ADAPTER_OWNED (default
# reference/compozy-agh.adapter.yaml: the requirements whose verdict is the
# adapter's, marked in the report; empty for none), RUN_ARGS (more `aghcheck run` flags, e.g.
# '--format json'), WRITE_BASELINE=FILE (write today's deviations to FILE,
# keeping the reasons BASELINE gives those that still hold: the first step of
# bumping the pin), KEEP=DIR (copy the built adapter and aghcheck there, for
# runs of your own), VERSION (aghcheck's version stamp; make passes its own),
# AGHCHECK=FILE (an aghcheck binary to use instead of building this
# repository's; it should be built from this tree),
# GOTEST=1 (play the suites from go test instead: the adapter's
# conformance_test.go, built in the runtime's copy with aghcheck as a module
# required from this repository; its exit status is go test's).
#
# Only the report goes to stdout; everything the script says goes to stderr.
# Nothing is written into this repository or into REF: the runtime's source,
# the adapter build and aghcheck's binary live in one temporary directory
# that is removed on exit. The runtime's own dependencies come through the
# Go module proxy; the runtime itself never does (the proxy refuses it).
set -euo pipefail

# The pin: the release the shipped baseline records, cloned when no REF is
# given; REV=v0.0.5 names it in a copy of your own, which must agree on its
# commit. Bumping it: docs/reference.md, "Bumping the pin".
PIN_TAG=v0.0.5
PIN_COMMIT=cd4b155166e332c542516b3bbc55adf65bf86ece
REPO_URL=https://github.com/compozy/agh.git
MODULE=github.com/compozy/agh

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}
# An empty BASELINE (set, but to nothing) means none: WRITE_BASELINE then
# writes every entry with reason TODO.
COMPAT=${COMPAT:-}
case "$COMPAT" in
"") default_baseline=$ROOT/reference/compozy-agh.yaml ;;
reference) default_baseline=$ROOT/reference/compozy-agh.compat-reference.yaml ;;
*) echo "reference: COMPAT=$COMPAT: want reference (or nothing for the pages' readings)" >&2; exit 2 ;;
esac
BASELINE=${BASELINE-$default_baseline}
ADAPTER_OWNED=${ADAPTER_OWNED-$ROOT/reference/compozy-agh.adapter.yaml}
REF=${REF:-}
REV=${REV:-}
# The adapter's files that go into the runtime's copy; stub.go and the tests
# stay behind (stub.go is what the adapter is without the runtime).
ADAPTER_FILES=(main.go config.go agent.go initiator.go runtime.go runtime_initiate.go)

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
	# entries that still hold; the rest get TODO. The exit status is then
	# that of the comparison with it.
	if [ -n "$BASELINE" ]; then
		[ -f "$BASELINE" ] || die "no baseline at $BASELINE (BASELINE= for none)"
		compare+=(--baseline "$BASELINE")
	fi
else
	[ -n "$BASELINE" ] || die "BASELINE is empty: name the baseline to compare with"
	[ -f "$BASELINE" ] || die "no baseline at $BASELINE (write one with WRITE_BASELINE=FILE)"
	compare=(--baseline "$BASELINE")
fi
judging=()
[ -n "$COMPAT" ] && judging+=(--compat "$COMPAT")
if [ -n "$ADAPTER_OWNED" ]; then
	[ -f "$ADAPTER_OWNED" ] || die "no adapter file at $ADAPTER_OWNED (ADAPTER_OWNED= for none)"
	judging+=(--owned-by-adapter "$ADAPTER_OWNED")
fi
if [ -n "$REV" ] && [ -z "$REF" ]; then
	die "REV=$REV needs REF=<git dir or working tree of $MODULE> to find it in"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aghcheck-reference.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
mkdir -p "$tmp/bin"

# 1. The runtime's git directory: REF (a working tree or a git directory,
#    bare or not), else a shallow clone of the pinned tag.
cloned=""
if [ -z "$REF" ]; then
	if ! GIT_TERMINAL_PROMPT=0 git clone --quiet --bare --depth 1 --branch "$PIN_TAG" \
		"$REPO_URL" "$tmp/agh.git" 2>"$tmp/clone.err"; then
		die "cannot clone $REPO_URL ($(tail -n 1 "$tmp/clone.err")); pass a working tree or git dir of $MODULE: make reference REF=/path/to/agh"
	fi
	REF=$tmp/agh.git
	cloned=1
	g0=$(git --git-dir="$REF" rev-parse --verify --quiet "refs/tags/$PIN_TAG^{commit}" || true)
	[ "$g0" = "$PIN_COMMIT" ] ||
		die "$PIN_TAG in $REPO_URL is commit ${g0:-none}, not the pinned $PIN_COMMIT (docs/reference.md, \"Bumping the pin\")"
fi
[ -d "$REF" ] || die "REF=$REF is not a directory (want a working tree or git dir of $MODULE)"
gitdir=$(git -C "$REF" rev-parse --absolute-git-dir 2>/dev/null) ||
	die "REF=$REF is not a git working tree or git directory (want one of $MODULE)"
g() { git --git-dir="$gitdir" "$@"; }
top=""
if [ "$(git -C "$REF" rev-parse --is-inside-work-tree 2>/dev/null)" = true ]; then
	top=$(git -C "$REF" rev-parse --show-toplevel)
fi

# 2. What to test, said before anything is built. version names it for
#    every report: git describe's nearest tag, commits since it, the short
#    commit (g…), and -dirty for a working tree with changes.
describe() { g describe --tags --long --always --abbrev=8 "$1" 2>/dev/null || g rev-parse --short=8 "$1"; }
if [ -n "$REV" ]; then
	commit=$(g rev-parse --verify --quiet "$REV^{commit}") ||
		die "REF=$REF has no commit, tag or branch $REV (git fetch it there first)"
	mode=rev
	what="commit $commit ($REV)"
	[ -n "$top" ] && what="$what from the git directory of $top (REV given: its working tree is not used)"
elif [ -n "$top" ]; then
	commit=$(git -C "$top" rev-parse --verify --quiet "HEAD^{commit}") ||
		die "REF=$top is a working tree without a commit (HEAD is unborn)"
	mode=tree
	git -C "$top" status --porcelain --untracked-files=normal >"$tmp/status"
	what="the working tree $top at commit $commit"
elif [ -n "$cloned" ]; then
	commit=$PIN_COMMIT
	mode=pin
	what="the pinned $PIN_TAG, commit $commit, cloned from $REPO_URL"
else
	# A git directory without REV: its HEAD, whatever it names.
	commit=$(g rev-parse --verify --quiet "HEAD^{commit}") ||
		die "REF=$REF has no HEAD commit (pass REV=<commit, tag or branch>, e.g. REV=$PIN_TAG)"
	mode=rev
	head=$(g symbolic-ref --quiet --short HEAD 2>/dev/null || echo "a detached HEAD")
	what="commit $commit, the HEAD ($head) of the git directory $gitdir (REV=$PIN_TAG for the pinned release)"
fi
# The pinned tag, wherever it is asked for, must still name the pinned
# commit: the shipped baseline records that commit's deviations.
if [ "$REV" = "$PIN_TAG" ] && [ "$commit" != "$PIN_COMMIT" ]; then
	die "$PIN_TAG in $REF is commit $commit, not the pinned $PIN_COMMIT (docs/reference.md, \"Bumping the pin\")"
fi
if [ "$mode" = tree ]; then
	gomod=$(cat "$top/go.mod" 2>/dev/null || true)
else
	gomod=$(g show "$commit:go.mod" 2>/dev/null || true)
fi
module=$(awk '$1 == "module" { print $2; exit }' <<<"$gomod")
[ "$module" = "$MODULE" ] ||
	die "$what is not $MODULE (its go.mod names module ${module:-none})"
version=$(describe "$commit")
if [ "$mode" = tree ] && [ -s "$tmp/status" ]; then
	version="$version-dirty"
	what="$what, with uncommitted changes:"
fi
say "testing $MODULE $version: $what"
if [ "$mode" = tree ] && [ -s "$tmp/status" ]; then
	head -n 20 "$tmp/status" | sed 's/^/reference:     /' >&2
	n=$(wc -l <"$tmp/status")
	[ "$n" -le 20 ] || say "    … and $((n - 20)) more (git status in $top)"
fi

# 3. aghcheck itself, from this repository, before the runtime: it checks
#    the baseline's ids first (a renamed scenario would otherwise fail the
#    run only after minutes of building).
t=$(date +%s)
mkdir -p "$tmp/bin"
if [ -n "${AGHCHECK:-}" ]; then
	[ -x "$AGHCHECK" ] && [ -f "$AGHCHECK" ] || die "AGHCHECK=$AGHCHECK is not an executable file"
	cp "$AGHCHECK" "$tmp/bin/aghcheck"
	say "using aghcheck $AGHCHECK"
else
	ldflags=()
	[ -n "${VERSION:-}" ] && ldflags=(-ldflags "-X github.com/aghcheck/aghcheck/internal/buildinfo.stamped=$VERSION")
	(cd "$ROOT" && "$GO" build ${ldflags[@]+"${ldflags[@]}"} -o "$tmp/bin/aghcheck" ./cmd/aghcheck) || die "building aghcheck failed"
	say "built aghcheck in $(elapsed "$t")"
fi
if [ -n "$BASELINE" ]; then
	# The ids against the built-in suites (a --suite of RUN_ARGS may add
	# scenarios the baseline names: then only a warning).
	if ! "$tmp/bin/aghcheck" list ${COMPAT:+--compat "$COMPAT"} --baseline "$BASELINE" >/dev/null 2>"$tmp/list.err"; then
		sed 's/^aghcheck: warning: /reference: /; s/^aghcheck: /reference: /' "$tmp/list.err" >&2
		grep -q 'retired or renamed' "$tmp/list.err" || die "$BASELINE cannot be used"
		if [ -z "${WRITE_BASELINE:-}" ] && [[ " ${RUN_ARGS:-} " != *" --suite"* ]]; then
			say "exit 1: the baseline names retired ids (stale in any run); rename or remove them first"
			exit 1
		fi
	fi
	say "checked the baseline's ids: $BASELINE"
fi

# 4. Its source into the temporary directory.
src=$tmp/agh
mkdir -p "$src"
if [ "$mode" = tree ]; then
	# Exactly the working tree: tracked files as they are on disk and
	# untracked ones git does not ignore; deleted files stay deleted.
	(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
		while IFS= read -r -d '' path; do
			if [ -e "$top/$path" ] || [ -L "$top/$path" ]; then printf '%s\0' "$path"; fi
		done >"$tmp/files"
	tar -C "$top" --null -T "$tmp/files" -cf - | tar -C "$src" -xf -
else
	# A mirror may lack blobs the build never reads (images, the OpenAPI
	# document): such paths are left out, and named.
	g ls-tree -r "$commit" | awk -F'\t' '{ split($1, f, " "); if (f[2] == "blob") print f[3] "\t" $2 }' >"$tmp/tree"
	cut -f1 "$tmp/tree" | g cat-file --batch-check | awk '$2 == "missing" { print $1 }' >"$tmp/missing"
	excludes=()
	while IFS=$'\t' read -r sha path; do
		excludes+=(":(exclude,literal)$path")
		say "leaving out $path (its blob is not in $REF)"
	done < <(awk -F'\t' 'NR == FNR { miss[$1] = 1; next } ($1 in miss)' "$tmp/missing" "$tmp/tree")
	# git archive may still complain about a left-out blob while exiting 0:
	# its messages are shown only when it fails.
	g archive --format=tar "$commit" -- . ${excludes[@]+"${excludes[@]}"} 2>"$tmp/archive.err" >"$tmp/agh.tar" || {
		cat "$tmp/archive.err" >&2
		die "git archive of $commit failed"
	}
	tar -xf "$tmp/agh.tar" -C "$src"
	rm "$tmp/agh.tar"
fi
say "copied its source in $(elapsed "$start")"

# 5. The adapter, built inside the runtime's module (its network package is
#    internal/). The first build downloads the runtime's dependencies.
adapter_dir=$src/cmd/aghcheck-adapter
mkdir -p "$adapter_dir" "$tmp/bin"
for f in "${ADAPTER_FILES[@]}"; do
	cp "$ROOT/reference/adapter/$f" "$adapter_dir/"
done
t=$(date +%s)
# Files named on the command line are built whatever their build constraints
# (runtime.go carries "ignore" to stay out of aghcheck's own builds);
# -trimpath keeps the build cache valid across temporary directories. The
# adapter names the runtime's version in its Peer Card and on --version.
(cd "$adapter_dir" && GOWORK=off "$GO" build -trimpath -ldflags "-X main.runtimeVersion=$version" \
	-o "$tmp/bin/aghcheck-adapter" "${ADAPTER_FILES[@]}") ||
	die "building the adapter inside $MODULE $version failed (see above)"
say "built the adapter in $(elapsed "$t")"
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP" && cp "$tmp/bin/aghcheck-adapter" "$tmp/bin/aghcheck" "$KEEP/" || die "cannot copy the binaries to KEEP=$KEEP"
	say "kept aghcheck-adapter and aghcheck in $KEEP"
fi


# 5b. GOTEST=1: the same suites from go test, the adapter in the test
#     process (package aghtest). A Go workspace of the runtime's copy and
#     this repository gives the test aghcheck's packages without touching
#     the runtime's go.mod.
if [ -n "${GOTEST:-}" ]; then
	cp "$ROOT/reference/adapter/conformance_test.go" "$adapter_dir/"
	runtime_go=$(awk '$1 == "go" { print $2; exit }' "$src/go.mod")
	printf 'go %s\n\nuse (\n\t%s\n\t%s\n)\n' "$runtime_go" "$src" "$ROOT" >"$tmp/go.work"
	# A workspace reads the go.mod of every module the runtime requires,
	# where its own build reads only those it uses. One the module proxy
	# refuses (403/404) and nothing here imports gets an empty stand-in in
	# the workspace, and is named.
	for _ in $(seq 20); do
		if (cd "$adapter_dir" && GOWORK="$tmp/go.work" "$GO" list -m all >/dev/null 2>"$tmp/list.err"); then
			break
		fi
		refused=$(grep -o '[^ ]*@[^ :]*: reading https://[^ ]*\.mod: 40[34]' "$tmp/list.err" | head -n 1 | cut -d: -f1) || true
		[ -n "$refused" ] || {
			cat "$tmp/list.err" >&2
			die "go list -m all in the workspace of $MODULE $version and aghcheck failed"
		}
		stub=$tmp/stub/${refused%@*}
		mkdir -p "$stub"
		printf 'module %s\n' "${refused%@*}" >"$stub/go.mod"
		printf 'replace %s %s => %s\n' "${refused%@*}" "${refused#*@}" "$stub" >>"$tmp/go.work"
		say "the module proxy refuses $refused, which the test does not import: an empty stand-in replaces it"
	done
	say "running go test -run TestConformance against $MODULE $version"
	set +e
	(cd "$adapter_dir" && GOWORK="$tmp/go.work" AGHCHECK_BASELINE="$BASELINE" AGHCHECK_COMPAT="$COMPAT" AGHCHECK_OWNED_BY_ADAPTER="$ADAPTER_OWNED" "$GO" test -count=1 -trimpath \
		-ldflags "-X command-line-arguments.runtimeVersion=$version -X github.com/aghcheck/aghcheck/internal/buildinfo.stamped=${VERSION:-}" \
		-run '^TestConformance$' ${GOTEST_ARGS:-} \
		"${ADAPTER_FILES[@]}" conformance_test.go)
	status=$?
	set -e
	say "go test exit $status after $(elapsed "$start") in all ($MODULE $version)"
	exit "$status"
fi

# 6. The run: every suite, judged against the baseline, every report naming
#    what was tested.
# --iut is split like a shell would: quote the path.
iut="'$tmp/bin/aghcheck-adapter'"
say "running aghcheck against $MODULE $version"
set +e
# shellcheck disable=SC2086 # RUN_ARGS is a list of flags
# No --step-timeout: no verdict rests on how fast the runtime answers; the
# waits for the refusal receipts it never sends (R1, R3 in
# docs/reference.md) end at the 30 s ceiling, all at once.
"$tmp/bin/aghcheck" run --iut "$iut" \
	--implementation "$MODULE" --implementation-version "$version" "${compare[@]}" ${judging[@]+"${judging[@]}"} ${RUN_ARGS:-}
status=$?
set -e
say "exit $status after $(elapsed "$start") in all ($MODULE $version${COMPAT:+, --compat $COMPAT})"
exit "$status"
