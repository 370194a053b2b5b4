#!/usr/bin/env bash
# `make install`: puts a built dicehost on the PATH.
#   scripts/install.sh PREFIX BUILD_FOLDER     e.g. scripts/install.sh ~/.local .build/debug
# PREFIX/lib/dicehost/ holds the program, and dicehost-server with its web files when that
# was built (`dicehost serve` runs dicehost-server from beside the program); PREFIX/bin/dicehost
# links to it. Everything is staged in a temporary folder and moved into place, so a failed
# install leaves the old one working. Last, a login shell started as a new login would be
# (HOME only) is asked whether it finds dicehost, and the message says what it answered.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: scripts/install.sh PREFIX BUILD_FOLDER" >&2
  exit 2
fi
prefix=$1
built=$2
server=dicehost-server
resources=DiceHost_DiceHostServer.resources

if [ ! -f "$built/dicehost" ] || [ ! -x "$built/dicehost" ]; then
  echo "install: no built dicehost in $built (run 'make play' or 'make build' first)" >&2
  exit 1
fi
with_server=no
if [ -f "$built/$server" ] && [ -x "$built/$server" ] && [ -d "$built/$resources" ]; then
  with_server=yes
fi

lib=$prefix/lib/dicehost
bin=$prefix/bin
mkdir -p "$prefix/lib" "$bin"

# Replace only what an earlier install made: a folder holding dicehost, and a link or a file.
if [ -L "$lib" ] || { [ -e "$lib" ] && { [ ! -d "$lib" ] || [ ! -f "$lib/dicehost" ]; }; }; then
  echo "install: $lib exists and is not an earlier dicehost install; move it away first" >&2
  exit 1
fi
if [ -e "$bin/dicehost" ] && [ ! -L "$bin/dicehost" ] && [ ! -f "$bin/dicehost" ]; then
  echo "install: $bin/dicehost exists and is not a file or a link; move it away first" >&2
  exit 1
fi

staging=$(mktemp -d "$prefix/lib/.dicehost-install.XXXXXX")
trap 'rm -rf "$staging"' EXIT
mkdir "$staging/new"
cp "$built/dicehost" "$staging/new/dicehost"
if [ $with_server = yes ]; then
  cp "$built/$server" "$staging/new/$server"
  cp -R "$built/$resources" "$staging/new/$resources"
  chmod 755 "$staging/new/$server"
fi
chmod 755 "$staging" "$staging/new" "$staging/new/dicehost"

if [ -d "$lib" ]; then
  mv "$lib" "$staging/previous"
fi
mv "$staging/new" "$lib"

link=$(mktemp -u "$bin/.dicehost-link.XXXXXX")
ln -s ../lib/dicehost/dicehost "$link"
mv -fT "$link" "$bin/dicehost"

echo "installed $bin/dicehost ($("$bin/dicehost" --version), from $built)"
if [ $with_server = yes ]; then
  echo "with $server: 'dicehost serve' works"
else
  echo "without $server: 'dicehost serve' needs it; 'make server' builds it (several minutes), then 'make install' again"
fi

# What a new login shell finds: only HOME kept, as at a login (/etc/profile, then ~/.profile).
found=$(env -i HOME="$HOME" bash -lc 'command -v dicehost' 2>/dev/null </dev/null || true)
if [ "$found" = "$bin/dicehost" ]; then
  echo "a new login shell finds it: open a new terminal (or log in again) and type dicehost"
  case ":$PATH:" in
    *":$bin:"*) ;;
    *) echo "(this shell's PATH has no $bin yet; until the next login: export PATH=\"$bin:\$PATH\")" ;;
  esac
else
  if [ -n "$found" ]; then
    echo "a new login shell finds another dicehost first, $found"
  else
    echo "$bin is not on a new login shell's PATH"
  fi
  echo "to put it there: echo 'export PATH=\"$bin:\$PATH\"' >> $HOME/.profile   (then log in again)"
fi
