# DiceHost: two commands set up everything on a fresh Debian machine with Swift.
#   make play    installs Lua 5.4 if missing, builds dicehost alone (no server, tests or
#                benchmarks), plays a shipped game
#   make install puts that build's dicehost on the PATH (root: /usr/local/bin, others:
#                ~/.local/bin), with dicehost-server when it was built (`make server`)
#   make server  builds dicehost-server, the program `dicehost serve` runs
#   make test    installs Lua 5.4 if missing, builds everything, runs every test (and the browser test)

RULES ?= rules/race.lua
SWIFT_BUILD_FLAGS ?=
# `make install`: where dicehost goes. As root /usr/local (on every user's PATH: root's own
# ~/.profile has no ~/.local/bin clause); otherwise ~/.local, which Debian's ~/.profile puts on
# the PATH at the next login once ~/.local/bin exists. The installer asks a login shell and says
# what it found. CONFIG=release installs an optimised build (sim and odds run several times
# faster; it builds dicehost again, in .build/release).
PREFIX ?= $(if $(filter 0,$(shell id -u)),/usr/local,$(HOME)/.local)
CONFIG ?= debug
PROCESS_TESTS = KillNineTests|StopOnSignalTests|OpenFilesLimitTests
# Swift Testing takes a backtrace of every error thrown while a test runs, in case it fails
# the test. Many tests throw on purpose (refusals, budgets, bad input), and String's own
# repair of invalid UTF-8 throws inside the standard library: those backtraces were most of
# the encoder oracle's time (80 s of CPU, 14 s without). A failing test still names its
# error and its line; SWT_SWIFT_ERROR_BACKTRACING_ENABLED=1 make test brings them back.
SWT_SWIFT_ERROR_BACKTRACING_ENABLED ?= 0
export SWT_SWIFT_ERROR_BACKTRACING_ENABLED

.PHONY: deps build server play test test-rules-fuzz test-chaos-short test-memcheck test-lua-conformance check-lua test-browser loadtest loadtest-abuse loadtest-rss loadtest-store loadtest-chaos serve bench bench-idle-rooms bench-solve bench-analysis bench-secrets bench-instructions bench-ws-floor clean fuzz fuzz-build fuzz-smoke fuzz-crashes example test-example

deps:
	@bash scripts/ensure-deps.sh

# dicehost alone: the REPL, test, sim, odds, solve and fuzz, without the server stack.
build: deps
	swift build --product dicehost $(SWIFT_BUILD_FLAGS)

# dicehost-server, the program `dicehost serve` runs (Hummingbird, NIO SSL, SQLite, PostgreSQL).
server: deps
	swift build --product dicehost-server $(SWIFT_BUILD_FLAGS)

# Builds dicehost only when a source is newer than it (scripts/build-if-stale.sh): a second
# `make play` reaches the prompt at once.
play: deps
	@bash scripts/build-if-stale.sh debug dicehost $(SWIFT_BUILD_FLAGS)
	.build/debug/dicehost play $(RULES)

# Puts the build `make play` made on the PATH: PREFIX/bin/dicehost (scripts/install.sh), and
# dicehost-server beside it when it was built; each rebuilt first only if a source is newer.
.PHONY: install
install: deps
	@bash scripts/build-if-stale.sh $(CONFIG) dicehost $(SWIFT_BUILD_FLAGS)
	@bash scripts/build-if-stale.sh $(CONFIG) dicehost-server --if-built $(SWIFT_BUILD_FLAGS)
	@bash scripts/install.sh "$(PREFIX)" .build/$(CONFIG)

# Each stage's whole output goes to .build/test-logs/STAGE.log (scripts/test-stage.sh); a passing
# run prints a line per stage and, last, "N passed, M failed"; a failing stage prints its log.
# The suites that start a real dicehost serve process (killed, stopped with TERM, run under a
# low open-files limit) run alone: beside the CPU-bound suites on two cores their clients'
# tasks can wait past their deadlines; one at a time (--no-parallel): three WebSocket clients
# set up at once crashed the test process once in the Swift runtime's type metadata lookup.
# The in-process server suites run in a test process of their own: Swift's concurrency pool
# has one thread per core, and the CPU-bound library suites beside them (analysis, fuzz)
# can hold both threads long enough for a WebSocket client's deadline to pass (19 server
# tests failed so on a slower CI machine while each passed alone).
# The later stages' own `build` and `server` prerequisites are taken as made (-o): the build
# stage built every product.
STAGE = @bash scripts/test-stage.sh
test: deps
	@bash scripts/test-stage.sh --start
	$(STAGE) check-lua $(MAKE) --no-print-directory -s check-lua
	$(STAGE) postgres bash scripts/ensure-postgres.sh   # the PostgreSQL store tests start a throwaway server
	$(STAGE) build swift build --build-tests $(SWIFT_BUILD_FLAGS)
	$(STAGE) swift-test swift test --skip-build --skip 'DiceHostServerTests'
	$(STAGE) server-tests swift test --skip-build --filter 'DiceHostServerTests' --skip '$(PROCESS_TESTS)'
	$(STAGE) process-tests swift test --skip-build --no-parallel --filter '$(PROCESS_TESTS)'
	$(STAGE) rule-tests .build/debug/dicehost test   # rules/tests and every examples/**/tests beside a rule script
	$(STAGE) rules-fuzz $(MAKE) --no-print-directory -s -o build -o server test-rules-fuzz
	$(STAGE) report $(MAKE) --no-print-directory -s -o build -o server test-report REPORT_BUDGET=5   # dicehost report of every shipped game, a short budget
	$(STAGE) example $(MAKE) --no-print-directory -s -o build -o server test-example
	$(STAGE) browser $(MAKE) --no-print-directory -s -o build -o server test-browser
	$(STAGE) chaos $(MAKE) --no-print-directory -s -o build -o server test-chaos-short   # after browser, whose script installs python3-venv
	@bash scripts/test-stage.sh --totals

# A short fixed-seed `dicehost fuzz` of every shipped game and example rule script (random
# legal play, every check; a few seconds each in the debug build). A finding fails the
# build with the shrunk case; `dicehost fuzz FILE --save rules/tests/NAME` keeps it as a test.
RULES_FUZZ_INPUTS ?= 400
test-rules-fuzz: build
	@for f in rules/*.lua examples/rules/*.lua examples/dice-games/*.lua; do \
	  out=$$(.build/debug/dicehost fuzz "$$f" --inputs $(RULES_FUZZ_INPUTS) --seed 1 --quiet); status=$$?; \
	  if [ $$status = 0 ]; then echo "$$out" | head -1; else echo "$$out"; exit 1; fi; \
	done

# `dicehost report` of every shipped game and example rule script with a short budget, into
# .build/reports/ (NAME.html and NAME.json); fails if a report cannot be made (docs/report.md).
REPORT_BUDGET ?= 10
.PHONY: test-report
test-report: build
	@mkdir -p .build/reports
	@for f in rules/*.lua examples/rules/*.lua examples/dice-games/*.lua; do \
	  n=$$(basename "$$f" .lua); \
	  .build/debug/dicehost report "$$f" --budget $(REPORT_BUDGET) -o .build/reports/$$n.html --json .build/reports/$$n.json --quiet || exit 1; \
	done

# The chaos test, short (loadtest/chaos.sh): 10 rooms x 4 clients of Race on a debug
# `dicehost serve` with its SQLite store, killed with SIGKILL twice and started again; then
# every room plays to its end. Fails if a client's events differ from the store's room log,
# an acknowledged input is missing, or a room cannot finish. About 45 s.
test-chaos-short: build server
	CHAOS_ROOMS=10 CHAOS_SECONDS=22 CHAOS_KILL_EVERY=10 CHAOS_END_SECONDS=25 DICEHOST=.build/debug/dicehost bash loadtest/chaos.sh

# Not in `make test`: analyses and a short game under valgrind's memcheck (the C helpers'
# out-of-bounds writes and uninitialised reads); needs valgrind, a few minutes.
test-memcheck: build
	bash scripts/memcheck.sh

# Not in `make test`: Lua 5.4.4's own test suite, piece by piece, in plain lua5.4 and in
# the sandbox, each difference classified (tests/lua-testes/README.md). Needs the suite's
# testes/ folder: LUA_TESTES=DIR (skipped, saying how to get it, without one).
test-lua-conformance: build
	python3 tests/lua-testes/run.py $(if $(LUA_TESTES),--testes $(LUA_TESTES),)

# Every shipped .lua file parses: the runtime's Lua halves (compiled into the binary),
# the shipped games and the example scripts.
check-lua: deps
	@files=$$(git ls-files -co --exclude-standard 'Sources/*.lua' 'rules/*.lua' 'examples/*.lua' 'docs/*.lua' 'bench/*.lua'); \
	for f in $$files; do luac5.4 -p "$$f" || exit 1; done; \
	echo "check-lua: $$(echo $$files | wc -w) Lua files parse"

# Two Chromium windows play Snap on `dicehost serve`, and Race to Space with a Pixels die
# on a stand-in navigator.bluetooth (installs chromium, chromium-driver
# and Selenium in .build-venv on first use; see tests/browser).
test-browser: build server
	@bash scripts/ensure-browser.sh
	@.build-venv/bin/python -c "import axe_selenium_python" 2>/dev/null || .build-venv/bin/pip install -q --disable-pip-version-check "axe-selenium-python>=2.1,<3"   # axe-core, for the accessibility checks
	.build-venv/bin/python tests/browser/snap_two_players.py
	.build-venv/bin/python tests/browser/pixels_table.py   # a Pixels die at the table (a stand-in Web Bluetooth), ~7 s
	.build-venv/bin/python tests/browser/liars_dice_three_players.py
	.build-venv/bin/python tests/browser/every_game_table.py   # every shipped game at 1280 and 390 px, with axe-core
	.build-venv/bin/python tests/browser/table_reveal_and_leave.py   # reveals, leaving and play again by clicking
	.build-venv/bin/python tests/browser/sweep_chart.py

serve: build server
	.build/debug/dicehost serve rules --watch

# Not in `make test`: 200 rooms x 4 clients for a minute, one server and then two behind
# nginx (installed on first use); see loadtest/README.md.
loadtest: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash loadtest/run.sh

# Not in `make test`: the same load with the room store (SQLite) and without: CPU per message, latency.
loadtest-store: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash loadtest/store-compare.sh

# Not in `make test`: 100 rooms x 4 clients play Race while `dicehost serve` is killed with
# SIGKILL every 15 s and started again (one process on SQLite; CHAOS_VARIANT=postgres: two
# behind nginx on PostgreSQL); every client checked against the store (loadtest/README.md).
loadtest-chaos: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash loadtest/chaos.sh

# Not in `make test`: a healthy room's input and ping round trips against 0, 2 and 4 rooms
# that run to their budget every 0.6 s, and the server's CPU per message (loadtest/README.md).
loadtest-abuse: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash loadtest/abuse.sh

# Not in `make test`: 1,000 rooms x 4 clients for 10 minutes (bots thinking 4x as long, so
# two cores carry them), the server's memory sampled every 10 s and its trend after the
# warm-up printed (loadtest/README.md). RSS_ROOMS, RSS_SECONDS, RSS_THINK, RSS_GENERATORS.
loadtest-rss: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash loadtest/rss-flat.sh

# The embedding example (examples/RaceToSpace, its own package depending on this one by
# path). `make example` builds that package in its own scratch folder, as an app would, and
# runs it (after an intended change: `make example > examples/RaceToSpace/expected-output.txt`;
# on the simulated Pixel, `make example EXAMPLE_ARGS=--pixels > examples/RaceToSpace/expected-output-pixels.txt`).
# `make test-example` compares what it draws with the expected frames, with the same program
# built by this package (target race-to-space-example): the build `make play` made, not a
# second compile of DiceHost.
EXAMPLE_SCRATCH_PATH = .build-example
example: deps
	@rm -f $(EXAMPLE_SCRATCH_PATH)/debug.yaml
	@swift build --package-path examples/RaceToSpace --scratch-path $(EXAMPLE_SCRATCH_PATH) $(SWIFT_BUILD_FLAGS) >&2
	@$(EXAMPLE_SCRATCH_PATH)/debug/RaceToSpace rules/race.lua $(EXAMPLE_ARGS)

test-example: build
	.build/debug/race-to-space-example rules/race.lua | diff -u examples/RaceToSpace/expected-output.txt -
	.build/debug/race-to-space-example rules/race.lua --pixels | diff -u examples/RaceToSpace/expected-output-pixels.txt -
	@echo "example: RaceToSpace drew the expected frames (on the simulated die and on the simulated Pixel)"

bench: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash bench/run.sh

# Not in `make test`: what an idle served room holds (issue 32). bench-room-memory makes games as
# a room does and breaks one down (Lua state, runtime, rules, garbage, rollback copy, Swift side);
# bench/idle-rooms.py makes IDLE_ROOMS rooms of Snap and of Liar's Dice on a release `dicehost
# serve` (4 seats, 4 inputs, clients gone) and reports RSS per room. bench/rss-over-time.sh BIN
# ROOMS SECONDS samples a loaded server's RSS every 30 s (bench/README.md).
IDLE_ROOMS ?= 1000
bench-idle-rooms: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	@[ -x .build-venv/bin/python ] || python3 -m venv .build-venv
	@.build-venv/bin/python -c "import websockets" 2>/dev/null || .build-venv/bin/pip install -q --disable-pip-version-check "websockets>=12,<16"
	.build/release/bench-room-memory 300
	.build-venv/bin/python bench/idle-rooms.py .build/release/dicehost --rooms $(IDLE_ROOMS)

# Best play of Pig to 100 against the published 0.5306, and with a roll counter declared
# as statistics and not (minutes; bench/solve-pig.sh).
bench-solve: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash bench/solve-pig.sh

# Issue 43's games with large components (Zombie Dice, Knucklebones, Perudo) and one Yacht turn (minutes).
bench-analysis: deps
	swift build -c release $(SWIFT_BUILD_FLAGS) && bash bench/analysis-games.sh

# Best play with secrets: OpenSpiel's liars_dice from a rule script beside OpenSpiel's own
# C++ CFR+ (pip open-spiel in .build-bench-venv), and the shipped Liar's Dice (bench/README.md).
bench-secrets: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash bench/solve-secrets.sh

# Instructions per simulated game (callgrind): the figure a shared machine repeats exactly.
# DICEHOST_BEFORE=old/dicehost[,other] adds older binaries to the table.
bench-instructions: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	python3 bench/instructions.py

# Not in `make test`: the floor under a served input (issue 32): bench/ws-floor (a package of its
# own) answers each input with one frame to each of its room's four seats, on Hummingbird and on
# plain SwiftNIO, beside the release dicehost at the same rooms and pace; server CPU per input,
# user and system apart (bench/ws-floor/README.md). WS_FLOOR_ROOMS (50), WS_FLOOR_SECONDS (20).
bench-ws-floor: deps
	swift build -c release --product dicehost $(SWIFT_BUILD_FLAGS)
	swift build -c release --product dicehost-server $(SWIFT_BUILD_FLAGS)   # what `dicehost serve` runs
	@[ -x .build-venv/bin/python ] || python3 -m venv .build-venv
	@.build-venv/bin/python -c "import websockets" 2>/dev/null || .build-venv/bin/pip install -q --disable-pip-version-check "websockets>=12,<16"
	DICEHOST_BIN=.build/release/dicehost bash bench/ws-floor/run.sh $(or $(WS_FLOOR_ROOMS),50) $(or $(WS_FLOOR_SECONDS),20)

# Fuzzing (libFuzzer; see fuzz/README.md): a separate package in fuzz/, built with its own
# scratch folder so the builds above are untouched. `make fuzz FUZZ_SECONDS=600`,
# `make fuzz FUZZ_TARGETS="repl script"`, `make fuzz FUZZ_ASAN=1` (AddressSanitizer on the
# Swift and C code too: about 4x slower, for memory errors in the C helpers).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_ASAN ?=
FUZZ_SCRATCH_PATH = $(if $(FUZZ_ASAN),.build-fuzz-asan,.build-fuzz)
FUZZ_BUILD_FLAGS = -c release --scratch-path $(FUZZ_SCRATCH_PATH) -Xswiftc -sanitize=fuzzer -Xcc -fsanitize=fuzzer-no-link \
	$(if $(FUZZ_ASAN),--sanitize=address,)

fuzz-build: deps
	@# Re-plan every time: a merge that adds source files to the main package is otherwise missed.
	rm -f fuzz/$(FUZZ_SCRATCH_PATH)/release.yaml
	cd fuzz && swift build $(FUZZ_BUILD_FLAGS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BIN=$(FUZZ_SCRATCH_PATH)/release bash fuzz/run.sh fuzz $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	FUZZ_BIN=$(FUZZ_SCRATCH_PATH)/release bash fuzz/run.sh smoke $(FUZZ_TARGETS)

fuzz-crashes: fuzz-build
	FUZZ_BIN=$(FUZZ_SCRATCH_PATH)/release bash fuzz/run.sh crashes $(FUZZ_TARGETS)

clean:
	rm -rf .build
