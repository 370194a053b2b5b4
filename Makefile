# DiceHost: two commands set up everything on a fresh Debian machine with Swift.
#   make play   installs Lua 5.4 if missing, builds, plays a shipped game
#   make test   installs Lua 5.4 if missing, builds, runs every test

RULES ?= rules/race.lua
SWIFT_BUILD_FLAGS ?=

.PHONY: deps build play test bench clean

deps:
	@bash scripts/ensure-deps.sh

build: deps
	swift build $(SWIFT_BUILD_FLAGS)

play: build
	.build/debug/dicehost play $(RULES)

test: deps
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	swift test --skip-build
	.build/debug/dicehost test rules/tests examples/rules/tests

bench: deps
	swift build -c release $(SWIFT_BUILD_FLAGS)
	bash bench/run.sh

clean:
	rm -rf .build
