#!/usr/bin/env bash
# Makes sure the browser test can run: Debian's chromium and chromium-driver (installed
# with apt-get when run as root, as CI does), and Selenium in a virtual environment in
# .build-venv (kept out of git). Prints nothing when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."
packages="chromium chromium-driver"
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "dicehost: installing $packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq $packages python3-venv >/dev/null 2>&1 || apt-get install -y -qq $packages >/dev/null
  else
    echo "dicehost: the browser test needs chromium and chromium-driver:" >&2
    echo "    sudo apt-get install $packages" >&2
    exit 1
  fi
fi
venv=.build-venv
if ! "$venv/bin/python" -c "import selenium" >/dev/null 2>&1; then
  echo "dicehost: installing selenium into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "selenium>=4.20,<5"
fi
