# vibing — build, test, benchmark and demo.
#
#   make          build bin/vibing-agent (what lazy.nvim's build = "make" runs): a lean build
#                 for check and hook, which hands audit, rpc and run to bin/vibing-agent-full,
#                 which starts bin/vibing-agent-otel when the audit export is on (SPEC §16)
#   make deps     install what the tests need into .deps/ (skips what is there): the pinned
#                 claude CLI and Neovim 0.7, 0.10 and 0.12 unpacked from Debian's packages
#   make test     make deps, then gofmt, go vet, every Go test, a short fuzz run (and the
#                 slow twins' fuzz targets for TWINDRAWS inputs each), the Lua
#                 suite and the embedded-Neovim end-to-end tests on Neovim 0.7, 0.10 and 0.12
#                 (the three Neovims side by side); make test-lua-0.12, test-e2e-0.10, ...
#                 run one of them
#   make bench    the benchmarks (Go and Neovim), ending with the side-by-side figures of
#                 SPEC §9; BENCHCOUNT=6 repeats them for benchstat (output in bin/bench.txt)
#   make friction the friction measurement of issue 29 (slow-ish, not in make test): the real
#                 claude CLI's default mode and vibing on tests/friction/testdata/everyday.txt,
#                 written to tests/friction/RESULTS.md
#   make oracle   the oracle of SPEC §15: ORACLE_N generated lines (default 20000, from
#                 ORACLE_SEED) asked of the engine; what it allows runs for real in
#                 bubblewrap under strace; prints escapes, false positives, throughput
#   make demo     Neovim with the plugin and a scripted demo agent (no API key needed); the
#                 system nvim, or else Neovim 0.12 unpacked into .deps/

GO        ?= go
BIN       := bin/vibing-agent
BIN_FULL  := bin/vibing-agent-full
BIN_OTEL  := bin/vibing-agent-otel
NVIM_07   ?= $(CURDIR)/.deps/bin/nvim-0.7
NVIM_010  ?= $(CURDIR)/.deps/bin/nvim-0.10
NVIM_012  ?= $(CURDIR)/.deps/bin/nvim-0.12
FUZZTIME  ?= 20000x
TWINDRAWS ?= 100000
GOFILES   := $(shell find cmd internal -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod go.sum

export VIBING_TEST_CLAUDE_BIN ?= $(CURDIR)/.deps/bin/claude
# the agent's sandbox: the machine's bubblewrap, else the private one make deps unpacked
export VIBING_BWRAP ?= $(shell command -v bwrap 2>/dev/null || echo $(CURDIR)/.deps/bin/bwrap)
# the oracle's witness (SPEC §15): the machine's strace, else the private one
export VIBING_STRACE ?= $(shell command -v strace 2>/dev/null || echo $(CURDIR)/.deps/bin/strace)

.PHONY: all build doc deps test test-go test-fuzz test-lua test-e2e-nvim test-otel bench demo clean lint friction oracle \
	test-lua-0.7 test-lua-0.10 test-lua-0.12 test-e2e-0.7 test-e2e-0.10 test-e2e-0.12

all: build

build: $(BIN) doc/tags

# bin/vibing-agent is built with -tags lean: it leaves out the commands that
# link SQLite and the Neovim client (so that check and hook start fast) and
# runs them from bin/vibing-agent-full, the build that holds every command.
# bin/vibing-agent-otel (-tags otel) is the full build with the OpenTelemetry
# sender of the audit export: only it links the SDK and gRPC.
$(BIN): $(GOFILES)
	@command -v $(GO) >/dev/null 2>&1 || { echo "make: vibing-agent is built with Go (go.mod names the version); $(GO) is not on PATH"; exit 1; }
	@mkdir -p bin
	@echo "== make [1/2]: $(BIN_FULL), every command (the first build also fetches the Go modules)"
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN_FULL) ./cmd/vibing-agent
	@echo "== make [2/2]: $(BIN), the lean build for check and hook"
	CGO_ENABLED=0 $(GO) build -trimpath -tags lean -o $(BIN) ./cmd/vibing-agent
	CGO_ENABLED=0 $(GO) build -trimpath -tags otel -o $(BIN_OTEL) ./cmd/vibing-agent
	@echo "== make: done: $(BIN) and $(BIN_FULL) ($$(./$(BIN) version 2>/dev/null | head -1))"

# doc/tags, committed so that :help vibing works from a plain runtimepath
# install too (the Lua suite checks it is current). make (and make build)
# regenerates it when doc/vibing.txt is newer, with the nvim on PATH or else
# the unpacked Neovim 0.12; without either it keeps the committed file and
# says so. make doc regenerates it with Neovim 0.12 (installing it first).
NVIM_DOC ?= $(shell command -v nvim 2>/dev/null || { test -x $(NVIM_012) && echo $(NVIM_012); })

doc/tags: doc/vibing.txt
	@if [ -n "$(NVIM_DOC)" ]; then \
		echo "$(NVIM_DOC) --headless -u NONE -c 'helptags doc' -c 'qa!'"; \
		$(NVIM_DOC) --headless -u NONE -c 'helptags doc' -c 'qa!' && touch doc/tags; \
	else echo "doc/tags: no nvim found, the committed doc/tags is kept (:help vibing works with it)"; fi

doc: deps
	$(NVIM_012) --headless -u NONE -c 'helptags doc' -c 'qa!'

deps:
	@command -v bwrap >/dev/null 2>&1 || scripts/install-nvim.sh bwrap
	@command -v strace >/dev/null 2>&1 || scripts/install-nvim.sh strace
	@scripts/install-claude.sh
	@scripts/install-nvim.sh 0.7
	@scripts/install-nvim.sh 0.10
	@scripts/install-nvim.sh 0.12

lint:
	@echo "== make test: gofmt, go vet (and of the otel build), the lean build"
	@out=$$(gofmt -l cmd internal tests); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags otel ./cmd/vibing-agent/
	$(GO) build -tags lean -o /dev/null ./cmd/vibing-agent

# After lint and build, the Go tests (busy on the two cores) and the Lua suites
# (mostly waiting on Neovim's timers) run side by side; then the fuzz runs, then
# the e2e tests. Each step's output is printed whole when it ends.
# (-o deps: make deps ran once, before.)
test: deps lint build
	@$(MAKE) --no-print-directory -o deps -j2 --output-sync=target test-go test-lua
	@$(MAKE) --no-print-directory -o deps test-fuzz
	@$(MAKE) --no-print-directory -o deps test-e2e-nvim

# The Neovim binaries by version, for the per-version steps below.
NVIM_0.7  = $(NVIM_07)
NVIM_0.10 = $(NVIM_010)
NVIM_0.12 = $(NVIM_012)
# The steps that run once per Neovim run side by side (their own temp
# folders, fake API servers and sandboxes), each one's output printed whole
# when it ends: they spend most of their time waiting on Neovim, the claude
# CLI and timers, not on the two cores.
SIDE_BY_SIDE = $(MAKE) --no-print-directory -o deps -j3 --output-sync=target

# The tests that run vibing-agent (cmd/vibing-agent, tests/e2e) take copies
# of the pair make build made (bin/) instead of building their own.
test-go: deps build
	@echo "== make test: every Go test but the e2e ones, then the race detector on four packages"
	VIBING_TEST_AGENT_DIR=$(CURDIR)/bin $(GO) test -count=1 $$($(GO) list ./... | grep -v '/tests/e2e$$')
	@# -short: the slow twins' tests check 5,000 of their seeded draws under the race
	@# detector (the 100,000 ran just above); the four packages' other tests run whole
	$(GO) test -count=1 -race -short ./internal/session/ ./internal/run/ ./internal/claude/ ./internal/rpc/

# The twins' fuzz targets run a count of inputs (TWINDRAWS), not a time:
# -fuzzminimizetime 0 keeps an input that finds new code as the engine found
# it instead of shrinking it for up to a minute first, while the count waits
# (a failing input is still reported and saved under testdata/fuzz). The
# short runs are counted too (FUZZTIME, 20,000 inputs, a few seconds each):
# a run bounded by time can end in Go's bare "context deadline exceeded"
# when the machine is busy, with no failing input.
FUZZFLAGS ?= -fuzzminimizetime 0

test-fuzz:
	@echo "== make test: short fuzz runs, then the slow twins' fuzz targets ($(TWINDRAWS) inputs each)"
	$(GO) test -run '^$$' $(FUZZFLAGS) -fuzz '^FuzzParseRule$$' -fuzztime $(FUZZTIME) ./internal/matcher/
	$(GO) test -run '^$$' $(FUZZFLAGS) -fuzz '^FuzzMatch$$' -fuzztime $(FUZZTIME) ./internal/matcher/
	$(GO) test -run '^$$' $(FUZZFLAGS) -fuzz '^FuzzEdit$$' -fuzztime $(FUZZTIME) ./internal/frontmatter/
	$(GO) test -run '^$$' $(FUZZFLAGS) -fuzz '^FuzzDecide$$' -fuzztime $(FUZZTIME) ./internal/session/
	@# the slow twins (SPEC §9): every speed shortcut held to its reference, 100,000 inputs each
	$(GO) test -run '^$$' $(FUZZFLAGS) -fuzz '^FuzzGlobTwin$$' -fuzztime $(TWINDRAWS)x ./internal/matcher/
	$(GO) test -run '^$$' $(FUZZFLAGS) -fuzz '^FuzzRuleTwin$$' -fuzztime $(TWINDRAWS)x ./internal/matcher/
	$(GO) test -run '^$$' $(FUZZFLAGS) -fuzz '^FuzzDecideTwin$$' -fuzztime $(TWINDRAWS)x ./internal/session/

test-lua: deps build
	@echo "== make test: the Lua suite on Neovim 0.7, 0.10 and 0.12, side by side"
	@$(SIDE_BY_SIDE) test-lua-0.7 test-lua-0.10 test-lua-0.12

test-lua-0.7 test-lua-0.10 test-lua-0.12: test-lua-%:
	VIBING_TEST_NO_BUILD=1 VIBING_TEST_NVIM=$(NVIM_$*) scripts/test-lua.sh

# The audit export against a real OpenTelemetry Collector (tests/otelcol, a
# module of its own; the e2e steps of make test run these too). The collector is built once per
# version of its sources into the user cache folder: about a minute cold.
test-otel: deps build
	@echo "== the audit export: chats, the hook, an outage and a managed endpoint against a real collector"
	$(GO) test -count=1 -run '^TestOTel' ./tests/e2e/

test-e2e-nvim: deps build
	@echo "== make test: the embedded-Neovim end-to-end tests on Neovim 0.7, 0.10 and 0.12, side by side"
	@$(SIDE_BY_SIDE) test-e2e-0.7 test-e2e-0.10 test-e2e-0.12

test-e2e-0.7 test-e2e-0.10 test-e2e-0.12: test-e2e-%:
	VIBING_TEST_AGENT_DIR=$(CURDIR)/bin VIBING_TEST_NVIM=$(NVIM_$*) $(GO) test -count=1 ./tests/e2e/

# BENCHCOUNT=6 repeats every benchmark (for benchstat); the raw output is kept
# in bin/bench.txt and the side-by-side figures of SPEC §9 are summed up last.
BENCHCOUNT ?= 1
BENCHPKGS  := ./internal/command/ ./internal/matcher/ ./internal/session/ ./internal/run/ ./cmd/vibing-agent/
BENCHSTAT  ?= $(shell command -v benchstat 2>/dev/null || ls $$($(GO) env GOPATH)/bin/benchstat 2>/dev/null)

bench: deps build
	VIBING_TEST_NO_BUILD=1 VIBING_TEST_NVIM=$(NVIM_010) scripts/test-lua.sh bench
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) $(BENCHPKGS) | tee bin/bench.txt
	@echo; echo "== side by side (SPEC §9): file decision vs resolving its path; Bash, 104 rules, and vs its parse and Lstat; check and hook vs hello-world"
	@grep -E '^(Benchmark(FileFloor|DecideBash104|BashFloor|CheckVsHello|HookProcess)|pkg:)' bin/bench.txt
	@if [ -n "$(BENCHSTAT)" ]; then $(BENCHSTAT) -filter '.name:/^(FileFloor|DecideBash104|BashFloor|CheckVsHello|HookProcess)$$/' bin/bench.txt; fi

# ORACLE_N lines from ORACLE_SEED (ORACLE_BUDGET: stop generating after that long, e.g. 20m)
ORACLE_N      ?= 20000
ORACLE_SEED   ?= 1
ORACLE_BUDGET ?= 0
oracle: deps
	$(GO) run ./tests/oracle -n $(ORACLE_N) -seed $(ORACLE_SEED) -budget $(ORACLE_BUDGET)

friction: deps
	VIBING_FRICTION=1 $(GO) test -count=1 -v -run '^TestFriction$$' ./tests/friction/

demo: build
	@scripts/demo.sh

clean:
	rm -rf bin
