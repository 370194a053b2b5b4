#!/usr/bin/env python3
"""Lua's own test suite (testes/ of Lua 5.4.4), piece by piece, in plain lua5.4 and in
DiceHost's sandbox, with every difference classified. See README.md beside this file.

    python3 tests/lua-testes/run.py [--testes DIR] [--dicehost PATH] [--json FILE] [FILE.lua ...]

DIR (or $LUA_TESTES) is the testes/ folder of a Lua 5.4.4 source tree; without one the
run is skipped (exit 0) with a note on how to get it. Exit 1 when a difference is not
explained by a documented sandbox rule.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# all.lua runs the others (dofile, os, io); heavy.lua allocates gigabytes by design (all.lua
# does not run it either).
SKIPPED = {"all.lua": "the suite's driver (dofile, io, os)", "heavy.lua": "allocates gigabytes on purpose; all.lua skips it too"}

HOW_TO_GET = """Lua's test suite is not part of this repository. Get the one for Lua 5.4.4 with either of
  git clone --depth 1 --branch v5.4.4 https://github.com/lua/lua /tmp/lua-5.4.4   (testes/ is /tmp/lua-5.4.4/testes)
  curl -O https://www.lua.org/tests/lua-5.4.4-tests.tar.gz && tar xzf lua-5.4.4-tests.tar.gz   (testes/ is lua-5.4.4-tests)
(Debian's source package, apt-get source lua5.4, is the release tarball without testes/.)
then: make test-lua-conformance LUA_TESTES=/tmp/lua-5.4.4/testes"""

# Why a piece plain Lua passes fails in the sandbox: (class, pattern on the sandbox's message).
# Every class but the last is a documented rule of the sandbox (docs/scripting.md, Sandbox).
CLASSES = [
    ("read-only globals and libraries", re.compile(r"read-only")),
    ("instruction budget", re.compile(r"instruction budget|budget of")),
    ("memory cap", re.compile(r"memory")),
    ("collectgarbage: only \"count\"", re.compile(r'only "count" is allowed')),
    ("%p: no addresses (determinism)", re.compile(r"'%p' would show an address")),
    ("string.dump removed", re.compile(r"field 'dump'")),
    ("pattern limits", re.compile(r"pattern (too complex|too long)|pattern.*(limit|steps)")),
]


def classify(piece):
    message = piece["sandbox_message"]
    for name, pattern in CLASSES:
        if pattern.search(message):
            return name
    # Plain Lua under that rule alone fails it too: the rule, met indirectly (a message a
    # test compares, a coroutine or a load reader that died of it).
    if piece["plain_read_only"] != "pass":
        return "read-only globals and libraries"
    if piece["plain_gc_count_only"] != "pass":
        return "collectgarbage: only \"count\""
    return "unexplained"


def run_plain(testes, out, files):
    script = os.path.join(HERE, "split-and-run-plain.lua")
    proc = subprocess.run(["lua5.4", script, testes, out] + files, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        sys.exit(f"plain Lua run failed:\n{proc.stderr}")
    pieces = []
    with open(os.path.join(out, "manifest.tsv"), encoding="utf-8") as manifest:
        for line in manifest:
            name, file, first, last, result, message, frozen, frozen_message, gc, gc_message = line.rstrip("\n").split("\t", 9)
            pieces.append({"piece": name, "file": file, "lines": f"{first}-{last}", "plain": result, "plain_message": message,
                           "plain_read_only": frozen, "plain_read_only_message": frozen_message,
                           "plain_gc_count_only": gc, "plain_gc_count_only_message": gc_message})
    return pieces


def run_sandbox(dicehost, out, pieces):
    """One `dicehost play` per test file; each piece one `run` input and a `done` marker."""
    shutil.copy(os.path.join(HERE, "sandbox-driver.lua"), os.path.join(out, "sandbox-driver.lua"))
    by_file = collections.OrderedDict()
    for p in pieces:
        by_file.setdefault(p["file"], []).append(p)
    for file, group in by_file.items():
        commands = "".join(f"run {p['piece']}\ndone {p['piece']}\n" for p in group)
        try:
            proc = subprocess.run([dicehost, "play", "sandbox-driver.lua", "--players", "T", "--seed", "1"],
                                  cwd=out, input=commands, capture_output=True, text=True, timeout=1800)
            output = proc.stdout
        except subprocess.TimeoutExpired as e:
            output = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        results, errors = {}, []
        for line in output.splitlines():
            m = re.match(r"^say @@ (pass|fail|done) (\S+?)(?::\s(.*))?$", line)
            if m and m.group(1) == "done":
                name = m.group(2)
                if name not in results:
                    results[name] = ("fail", " / ".join(errors) or "no answer")
                errors = []
            elif m:
                results[m.group(2)] = (m.group(1), m.group(3) or "")
            elif line.startswith("error: "):
                errors.append(line[len("error: "):])
        for p in group:
            p["sandbox"], p["sandbox_message"] = results.get(p["piece"], ("fail", "the run stopped before this piece"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--testes", default=os.environ.get("LUA_TESTES"), help="testes/ of Lua 5.4.4 (default $LUA_TESTES)")
    parser.add_argument("--dicehost", default=os.path.join(ROOT, ".build", "debug", "dicehost"))
    parser.add_argument("--json", help="write every piece's results to this file")
    parser.add_argument("--keep", action="store_true", help="keep the folder of pieces (printed)")
    parser.add_argument("files", nargs="*", help="test files to run (default: all but " + ", ".join(SKIPPED) + ")")
    args = parser.parse_args()

    if not args.testes or not os.path.isfile(os.path.join(args.testes, "strings.lua")):
        print(f"test-lua-conformance: skipped: no Lua test suite at {args.testes or '$LUA_TESTES (unset)'}")
        print(HOW_TO_GET)
        return 0
    if shutil.which("lua5.4") is None:
        sys.exit("test-lua-conformance: lua5.4 is needed for the plain side (apt-get install lua5.4)")
    if not os.access(args.dicehost, os.X_OK):
        sys.exit(f"test-lua-conformance: no dicehost at {args.dicehost} (swift build first)")
    files = args.files or sorted(f for f in os.listdir(args.testes) if f.endswith(".lua") and f not in SKIPPED)

    out = tempfile.mkdtemp(prefix="lua-testes-")
    try:
        pieces = run_plain(args.testes, out, files)
        run_sandbox(args.dicehost, out, pieces)
    finally:
        if args.keep:
            print(f"pieces kept in {out}")
        else:
            shutil.rmtree(out, ignore_errors=True)

    counted = [p for p in pieces if p["plain"] == "pass"]
    both = [p for p in counted if p["sandbox"] == "pass"]
    only_plain = [p for p in counted if p["sandbox"] != "pass"]
    only_sandbox = [p for p in pieces if p["plain"] != "pass" and p["sandbox"] == "pass"]
    for p in only_plain:
        p["class"] = classify(p)
    classes = collections.Counter(p["class"] for p in only_plain)

    print(f"Lua 5.4 test suite ({args.testes}), {len(files)} files, {len(pieces)} pieces")
    print(f"  not counted (fail in plain restricted Lua: io/os/debug, testC, ...): {len(pieces) - len(counted)}")
    print(f"  counted (pass in plain restricted Lua): {len(counted)}")
    print(f"  pass in both: {len(both)}")
    print(f"  pass only in plain Lua: {len(only_plain)}")
    for name, n in classes.most_common():
        print(f"    {n:4}  {name}")
    if only_sandbox:
        print(f"  (pass only in the sandbox, not counted: {len(only_sandbox)})")
    print("differences:")
    for p in only_plain:
        print(f"  {p['file']}:{p['lines']} [{p['class']}] {p['sandbox_message'][:240]}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(pieces, f, indent=1)
    return 1 if classes.get("unexplained") else 0


if __name__ == "__main__":
    sys.exit(main())
