#!/usr/bin/env bash
# Makes sure the browser test can run: Debian's chromium and chromium-driver (installed
# with apt-get when run as root, as CI does), and Selenium in a virtual environment in
# .build-venv (kept out of git). Prints nothing when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build-venv
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v chromedriver >/dev/null 2>&1 || missing="$missing chromium-driver"
if [ ! -x "$venv/bin/python" ] && ! python3 -c "import ensurepip" >/dev/null 2>&1; then missing="$missing python3-venv"; fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "dicehost: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq $missing >/dev/null
  else
    echo "dicehost: the browser test needs$missing:" >&2
    echo "    sudo apt-get install$missing" >&2
    exit 1
  fi
fi
if ! "$venv/bin/python" -c "import selenium" >/dev/null 2>&1; then
  echo "dicehost: installing selenium into $venv" >&2
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "selenium>=4.20,<5"
fi
