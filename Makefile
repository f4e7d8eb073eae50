# aghcheck — every target works from a fresh clone with only Go installed
# (bench-compare and example-peer also need node/npm).
GO        ?= go
PKGS      ?= ./...
FUZZTIME  ?= 20s
STABILITY ?= 5
BIN       ?= bin/aghcheck
# The version --version and every report print: the nearest v* tag, commits
# since, the commit and -dirty for uncommitted changes (plain "dev" outside a
# git checkout).
VERSION   ?= $(shell git describe --tags --match 'v*' --always --dirty 2>/dev/null || echo dev)

.PHONY: all build test stability bench bench-compare bench-process bench-run bench-monitor html-check fuzz lint docs reference reference-gotest reference-matrix example-peer clean

all: build

build:
	$(GO) build -ldflags "-X github.com/aghcheck/aghcheck/internal/buildinfo.stamped=$(VERSION)" -o $(BIN) ./cmd/aghcheck

## test: the one command CI runs (.ci/run): vet, race-enabled tests, docs in sync.
# -parallel 4: the parallel tests of harness and cmd/aghcheck (conformance
# runs, testscript scripts) mostly wait on a peer, a silence window or a
# timeout, not on a core; the default (GOMAXPROCS, 2 on a small CI machine)
# would play them two at a time.
# GORACE=atexit_sleep_ms=0: a race-enabled binary sleeps a second before it
# exits, and the tests start hundreds of them (every IUT a run starts or
# restarts is the test binary; every command a script runs is one).
# GOGC=200: under the race detector the garbage collector's marking is a
# large share of those short processes' CPU, and none of them comes near
# the machine's memory (no test measures it).
test:
	$(GO) vet $(PKGS)
	GORACE=atexit_sleep_ms=0 GOGC=200 $(GO) test -race -count=1 -p 4 -parallel 4 $(PKGS)

## stability: every fault of aghcheck peer caught on each of STABILITY (5) runs, plain and
## loaded in turn (slow: added, all its scenarios at once, 16 faults at once); make test
## plays the cheap form, one loaded run beside the plain one (docs/mutation.md#stability).
stability:
	GORACE=atexit_sleep_ms=0 GOGC=200 AGHCHECK_STABILITY=$(STABILITY) $(GO) test -race -count=1 -timeout 60m -run '^TestMutationStability$$' -v ./harness

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

## bench-compare: aghcheck vs ajv-cli and vs the json.Valid byte-scan floor on the same 100,000 generated envelopes.
bench-compare: build
	./scripts/bench-compare.sh

## bench-process: whole-process timings of aghcheck validate (every input form and format).
bench-process: build
	./scripts/bench-process.sh

## bench-run: whole-process timings of aghcheck run against the built-in reference peer.
bench-run:
	./scripts/bench-run.sh

## bench-monitor: aghcheck monitor judging 1,000,000 envelopes published flat out on an embedded broker.
bench-monitor:
	$(GO) test -run='^$$' -bench=Monitor -benchtime=1000000x ./internal/monitor

## html-check: the HTML report of a failing run, rendered and checked in headless Chromium (apt-get install -y chromium).
html-check:
	./scripts/html-check.sh

## fuzz: run every fuzz target for FUZZTIME each.
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## reference: certify the reference runtime (github.com/compozy/agh) against
## reference/compozy-agh.yaml: REF=<working tree> tests that tree as it is, REF=<git dir>
## REV=<commit, tag or branch> that commit, REF=<git dir> alone the pinned release
## (docs/reference.md). COMPAT=reference judges by the runtime's own reading
## of every documented erratum (run --compat reference) against
## reference/compozy-agh.compat-reference.yaml. The recipe is not echoed:
## stdout is the report alone.
reference:
	@REF="$(REF)" REV="$(REV)" COMPAT="$(COMPAT)" GO="$(GO)" VERSION="$(VERSION)" ./scripts/reference.sh

## reference-gotest: the same, from go test (package aghtest; the adapter's conformance_test.go).
reference-gotest:
	@REF="$(REF)" REV="$(REV)" COMPAT="$(COMPAT)" GO="$(GO)" VERSION="$(VERSION)" GOTEST=1 GOTEST_ARGS="$(GOTEST_ARGS)" ./scripts/reference.sh

## reference-matrix: the runtime's versions side by side as a Markdown table:
## REF=<git dir> REVS='v0.0.4 v0.0.5 main' [OUT=FILE] [REPORTS=DIR] (docs/reference.md).
reference-matrix:
	@REF="$(REF)" REVS="$(REVS)" COMPAT="$(COMPAT)" GO="$(GO)" VERSION="$(VERSION)" ./scripts/reference-matrix.sh

## example-peer: install the Node.js example peer (npm ci) and certify it at level core (needs node/npm).
example-peer: build
	cd examples/node-peer && npm ci --no-audit --no-fund
	$(BIN) run --iut 'node examples/node-peer/peer.js' --level core

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

## docs: regenerate docs/rules.md from the rule catalogue and docs/coverage.md from the clause inventory.
docs: build
	$(BIN) rules --format markdown > docs/rules.md
	$(BIN) rules --coverage --format markdown > docs/coverage.md

clean:
	rm -rf bin
