#!/usr/bin/env bash
# Builds a product only when its program is missing or older than the sources:
#   scripts/build-if-stale.sh CONFIG PRODUCT [--if-built] [SWIFT BUILD FLAGS...]
# `make play` and `make install` call it because SwiftPM needs half a minute or more of CPU
# to find that nothing changed (it plans the whole package graph, the server's packages
# too); comparing the program with Package.swift, Package.resolved and Sources/ takes
# milliseconds. --if-built: leave a product that was never built alone (dicehost-server).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/build-if-stale.sh CONFIG PRODUCT [--if-built] [FLAGS...]" >&2
  exit 2
fi
config=$1 product=$2
shift 2
only_if_built=no
if [ "${1:-}" = --if-built ]; then only_if_built=yes; shift; fi
program=.build/$config/$product
if [ ! -x "$program" ]; then
  [ $only_if_built = yes ] && exit 0
elif [ -z "$(find Package.swift Package.resolved Sources -newer "$program" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
exec swift build -c "$config" --product "$product" "$@"
