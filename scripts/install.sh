#!/usr/bin/env bash
# `make install`: puts a built dicehost on the PATH.
#   scripts/install.sh PREFIX BUILD_FOLDER     e.g. scripts/install.sh ~/.local .build/debug
# PREFIX/lib/dicehost/ holds the program with its web files (`dicehost serve` looks for
# them beside the program) and PREFIX/bin/dicehost links to it. Everything is staged in a
# temporary folder and moved into place, so a failed install leaves the old one working.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: scripts/install.sh PREFIX BUILD_FOLDER" >&2
  exit 2
fi
prefix=$1
built=$2
resources=DiceHost_DiceHostServer.resources

if [ ! -f "$built/dicehost" ] || [ ! -x "$built/dicehost" ] || [ ! -d "$built/$resources" ]; then
  echo "install: no built dicehost in $built (run 'make build' first)" >&2
  exit 1
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
cp "$built/dicehost" "$staging/dicehost"
cp -R "$built/$resources" "$staging/$resources"
chmod 755 "$staging" "$staging/dicehost"

if [ -d "$lib" ]; then
  mv "$lib" "$staging/previous"
fi
mkdir "$staging/new"
mv "$staging/dicehost" "$staging/$resources" "$staging/new/"
mv "$staging/new" "$lib"

link=$(mktemp -u "$bin/.dicehost-link.XXXXXX")
ln -s ../lib/dicehost/dicehost "$link"
mv -fT "$link" "$bin/dicehost"

echo "installed $bin/dicehost ($("$bin/dicehost" --version), from $built)"
case ":$PATH:" in
  *":$bin:"*) ;;
  *)
    echo "$bin is not on your PATH: add it, e.g. export PATH=\"$bin:\$PATH\" in ~/.profile"
    echo "(Debian's ~/.profile adds ~/.local/bin by itself at the next login once the folder exists)"
    ;;
esac
