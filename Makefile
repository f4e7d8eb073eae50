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

.PHONY: all build test stability bench bench-compare bench-process bench-run bench-guard bench-guard-quick bench-monitor html-check fuzz lint docs regen regen-fast check-rule check-scenario check-format check-fault check-play reference reference-gotest reference-matrix example-peer clean

all: build

build:
	$(GO) build -ldflags "-X github.com/aghcheck/aghcheck/internal/buildinfo.stamped=$(VERSION)" -o $(BIN) ./cmd/aghcheck

## test: the one command CI runs (.ci/run): vet, race-enabled tests, docs in sync.
# -parallel 4: the parallel tests of harness and cmd/aghcheck (conformance
# runs, testscript scripts) mostly wait on a peer, a silence window or a
# step's ceiling, not on a core; the default (GOMAXPROCS, 2 on a small CI
# machine) would play them two at a time. The IUTs those tests start are
# built without the race detector (internal/testiut: they are fixtures).
# GORACE=atexit_sleep_ms=0: a race-enabled binary sleeps a second before it
# exits, and the tests start hundreds of them (every IUT a run starts or
# restarts is the test binary; every command a script runs is one).
# GOGC=400: under the race detector the garbage collector's marking is a
# large share of the tests' CPU, and none of them comes near the machine's
# memory (no test measures it); 400 took a tenth off make test's CPU time
# against 200 on the 2-core machine.
# The packages that take longest are named first, so that they start first
# (go test starts packages in the order given): started last, any of them
# would run alone on an otherwise idle machine at the end.
# GOFLAGS=-trimpath (for every go command the tests start too): without it
# the build cache keys this module's packages by their directory, so a
# fresh clone in a new directory compiled all of them again, twice (with
# and without the race detector): half a minute of every CI run.
SLOW_PKGS = ./harness ./cmd/aghcheck ./scripts/contrib ./internal/fuzz ./reference/adapter ./internal/peer ./aghtest
TEST_GOFLAGS = $(strip -trimpath $(filter-out -trimpath,$(GOFLAGS)))
test:
	GOFLAGS='$(TEST_GOFLAGS)' $(GO) vet $(PKGS)
	GOFLAGS='$(TEST_GOFLAGS)' GORACE=atexit_sleep_ms=0 GOGC=400 $(GO) test -race -count=1 -p 4 -parallel 4 $(if $(filter ./...,$(PKGS)),$(SLOW_PKGS)) $(PKGS)

## stability: every fault of aghcheck peer caught on each of STABILITY (5) runs, plain and
## loaded in turn (slow: added, all its scenarios at once, 16 faults at once); make test
## plays the cheap form, one loaded run of each hand-written fault beside the plain one
## (docs/mutation.md#stability).
stability:
	GORACE=atexit_sleep_ms=0 GOGC=200 AGHCHECK_STABILITY=$(STABILITY) $(GO) test -race -count=1 -timeout 60m -run '^TestMutationStability$$' -v ./harness

bench:
	$(GO) test -run='^$$' -bench=. -benchmem $(PKGS)

## bench-compare: aghcheck vs ajv-cli and vs the json.Valid byte-scan floor on the same 100,000 generated envelopes.
bench-compare: build
	./scripts/bench-compare.sh

## bench-guard: the headline figures (validate, run, monitor, fuzz) of this tree against the last
## release's build (the nearest v* tag, else the commit in scripts/bench-baseline), in turn in one
## run; fails when one is more than 10% slower. Run it before every merge (CONTRIBUTING.md).
bench-guard:
	$(GO) run ./scripts/bench-guard

## bench-guard-quick: validate against the json.Valid byte scan of the same run, in CPU time, within
## 10% of the ratio scripts/bench-baseline records (no old build); .ci/run runs it after make test.
bench-guard-quick:
	$(GO) run ./scripts/bench-guard -quick

## bench-process: whole-process timings of aghcheck validate (every input form and format).
bench-process: build
	./scripts/bench-process.sh

## bench-run: whole-process timings of aghcheck run against the built-in reference peer.
bench-run:
	./scripts/bench-run.sh

## bench-monitor: aghcheck monitor judging MONITOR_N (1,000,000) envelopes published flat out on an embedded broker.
MONITOR_N ?= 1000000
bench-monitor:
	$(GO) test -run='^$$' -bench=Monitor -benchtime=$(MONITOR_N)x ./internal/monitor

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
# Each page is written to a temporary file and renamed into place: a failed
# command leaves the page as it was, never empty.
docs: build
	$(BIN) rules --format markdown > docs/.rules.md.tmp || { rm -f docs/.rules.md.tmp; exit 1; }
	mv docs/.rules.md.tmp docs/rules.md
	$(BIN) rules --coverage --format markdown > docs/.coverage.md.tmp || { rm -f docs/.coverage.md.tmp; exit 1; }
	mv docs/.coverage.md.tmp docs/coverage.md

## regen: rewrite everything generated (fixtures, the mutation matrix, docs/rules.md and
## coverage.md, every golden file and generated region of the docs; scripts/regen.sh says
## what, in order). On a clean checkout it changes nothing. The mutation matrix plays every
## fault (minutes): regen-fast (REGEN_MATRIX=0) skips it.
regen:
	@GO="$(GO)" REGEN_MATRIX="$(or $(REGEN_MATRIX),1)" ./scripts/regen.sh

## regen-fast: make regen without the mutation matrix (harness/proven.yaml, docs/mutation.md).
regen-fast:
	@GO="$(GO)" REGEN_MATRIX=0 ./scripts/regen.sh

# The checks of CONTRIBUTING.md's recipes, one per kind of change, each run after make
# regen. Each is targeted (the packages and tests a change of that kind can break, and
# the changed scenarios played), so it takes seconds; make test runs everything.
#
# DOC_TESTS: the tests of cmd/aghcheck that hold the docs to the code and data (generated
# regions, the rule and clause pages, the protocol page, the table of shipped suites, the
# fixture READMEs, the scenario example).
DOC_TESTS = ^(TestGeneratedDocs|TestShippedSuitesTable|TestProtocolDocRules|TestProtocolDocVectors|TestRulesDocUpToDate|TestRulesCoverage|TestInvalidFixturesFailAsDocumented|TestScenarioDocExampleLints)$$

## check-rule RULE=ID: a new rule: the engine with its fast path and fixtures, the catalogue,
## the clause inventory, its receiver cases, the docs; then its live case is played (the
## correct peer passes it, aghcheck peer --fault overlook:ID does not).
check-rule: build
	@test -n "$(RULE)" || { echo "check-rule: give RULE=ID"; exit 2; }
	$(GO) test -short ./internal/agh ./internal/catalogue ./internal/coverage ./internal/scenario
	$(GO) test -run '$(DOC_TESTS)' ./cmd/aghcheck
	@$(MAKE) -s --no-print-directory check-play RUN='^receiver\.$(RULE)\.' FAULT='overlook:$(RULE)'

## check-scenario RUN=REGEX FAULT=NAME: new scenarios: lint, the loader and the suites, the
## docs; then the scenarios RUN selects are played (the correct peer passes them, aghcheck
## peer --fault NAME does not).
check-scenario: build
	$(BIN) lint-suite --embedded
	$(GO) test ./internal/scenario ./suites
	$(GO) test -run '$(DOC_TESTS)' ./cmd/aghcheck
	@$(MAKE) -s --no-print-directory check-play

## check-format CMD=run|validate|rules FORMAT=NAME [EXT=.ext]: a new report format: the
## reporter, every format fed hostile strings, then the command writes it (to -o
## report.EXT without --format, when EXT maps to it).
check-format: build
	@test -n "$(FORMAT)" || { echo "check-format: give CMD=run|validate|rules FORMAT=NAME"; exit 2; }
	$(GO) test ./reporter
	$(GO) test -run '^TestHostileStringsEveryFormat$$|$(DOC_TESTS)' ./cmd/aghcheck
	@out=$$(mktemp -d); trap 'rm -rf "$$out"' EXIT; case "$(CMD)" in \
	run) $(BIN) run --run '^kinds\.whois-directed-answered$$' --format '$(FORMAT)' >"$$out/report" ;; \
	validate) $(BIN) validate --format '$(FORMAT)' fixtures/agh/valid >"$$out/report" ;; \
	rules) $(BIN) rules --format '$(FORMAT)' >"$$out/report" ;; \
	*) echo "check-format: give CMD=run, validate or rules"; exit 2 ;; esac; \
	test -s "$$out/report" || { echo "check-format: $(CMD) --format $(FORMAT) wrote nothing"; exit 1; }; \
	if [ -n "$(EXT)" ]; then $(BIN) run --run '^kinds\.whois-directed-answered$$' -o "$$out/report$(EXT)" && \
	cmp -s "$$out/report" "$$out/report$(EXT)" || { echo "check-format: -o report$(EXT) does not hold --format $(FORMAT)"; exit 1; }; fi

## check-fault FAULT=NAME RUN=REGEX: a new fault of aghcheck peer: its behaviour test and the
## fault list, the docs; then the scenarios RUN selects are played (the correct peer passes
## them, aghcheck peer --fault NAME does not).
check-fault: build
	@test -n "$(FAULT)" || { echo "check-fault: give FAULT=NAME RUN=REGEX"; exit 2; }
	$(GO) test -run '^(TestFaultsChangeBehaviour|TestFaultList)$$' ./internal/peer
	$(GO) test -run '$(DOC_TESTS)' ./cmd/aghcheck
	@$(MAKE) -s --no-print-directory check-play

## check-play RUN=REGEX FAULT=NAME: the scenarios RUN selects pass against aghcheck peer
## (warnings count: --strict) and do not pass against aghcheck peer --fault NAME.
check-play: build
	@test -n "$(RUN)" -a -n "$(FAULT)" || { echo "check-play: give RUN=REGEX and FAULT=NAME"; exit 2; }
	@$(BIN) run --strict --run '$(RUN)' >/dev/null || { echo "check-play: the correct peer does not pass $(RUN): $(BIN) run --strict --run '$(RUN)'"; exit 1; }
	@s=0; $(BIN) run --strict --run '$(RUN)' --iut '$(BIN) peer --fault $(FAULT)' >/dev/null 2>&1 || s=$$?; \
	[ $$s = 1 ] || { echo "check-play: aghcheck peer --fault $(FAULT) gets exit $$s on $(RUN), want 1 (not passed): $(BIN) run --strict --run '$(RUN)' --iut '$(BIN) peer --fault $(FAULT)'"; exit 1; }
	@echo "check-play: $(RUN): the correct peer passes, --fault $(FAULT) does not"

clean:
	rm -rf bin
