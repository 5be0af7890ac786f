#!/usr/bin/env python3
"""Time the book build: clean, then with nothing changed (the build renders stored outputs).

Usage (from the repository, in the environment the scripts set up)::

    python benchmarks/bench_build.py            # clean build + no-change rebuild
    python benchmarks/bench_build.py --tests    # also time `bash scripts/run-tests.sh`

The builds go to a temporary folder (``--path-output``), so ``./_build`` is not
touched and the clean build starts from nothing.
Targets (issues 2 and 18): clean build < 180 s, no-change rebuild < 15 s, full test
command < 300 s. Prints the seconds measured and each one's ratio to its target;
the exit status is 1 if a build failed (not if a target was missed).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
TARGETS = {"clean build": 180.0, "no-change rebuild": 15.0, "full test command": 300.0}


def jupyter_book() -> str:
    candidate = pathlib.Path(sys.executable).with_name("jupyter-book")
    return str(candidate) if candidate.exists() else (shutil.which("jupyter-book") or "jupyter-book")


def timed(label: str, command: list[str], log: pathlib.Path) -> tuple[float, int]:
    start = time.perf_counter()
    with log.open("w") as handle:
        status = subprocess.call(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    target = TARGETS[label]
    state = "ok" if status == 0 else f"FAILED (exit {status}, log: {log})"
    print(f"{label:20s} {seconds:8.1f} s   target {target:5.0f} s   ratio {seconds / target:5.2f}   {state}", flush=True)
    return seconds, status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", action="store_true", help="also time the full test command")
    parser.add_argument("--keep", action="store_true", help="keep the temporary build folder")
    args = parser.parse_args(argv)

    out = pathlib.Path(tempfile.mkdtemp(prefix="bench-build-"))
    command = [jupyter_book(), "build", ".", "-W", "-n", "--keep-going", "--path-output", str(out)]
    print(f"cores: {os.cpu_count()}; build folder: {out}")
    failed = 0
    try:
        _, status = timed("clean build", command, out / "clean.log")
        failed |= status != 0
        _, status = timed("no-change rebuild", command, out / "rebuild.log")
        failed |= status != 0
        if args.tests:
            _, status = timed("full test command", ["bash", "scripts/run-tests.sh"], out / "tests.log")
            failed |= status != 0
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
