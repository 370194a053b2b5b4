#!/usr/bin/env bash
# Makes sure the system packages DiceHost builds against are present:
# Lua 5.4 (library, headers, interpreter for the benchmark baseline), libedit (the
# REPL's line editing and history) and pkg-config.
set -euo pipefail
packages="liblua5.4-dev lua5.4 libedit-dev pkg-config"
if pkg-config --exists lua5.4 libedit 2>/dev/null && command -v lua5.4 >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "dicehost: installing $packages" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq $packages >/dev/null
  exit 0
fi
echo "dicehost: Lua 5.4 or libedit is missing. Install them with:" >&2
echo "    sudo apt-get install $packages" >&2
exit 1
