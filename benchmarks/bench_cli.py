#!/usr/bin/env python3
"""Benchmark of the command line (issue 16): ``python -m specdec decide ...`` must answer in under 0.5 s.

Measures the wall time of whole runs as a user sees them (a new interpreter each time, imports included),
median of several runs, and prints it with its ratio to the 0.5 s budget. For context it also times a bare
interpreter start and ``import specdec``. Not a test: the figures depend on the machine.

Run: ``python benchmarks/bench_cli.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import time

BUDGET = 0.5  # seconds, from issue 16
ROOT = pathlib.Path(__file__).resolve().parents[1]
COMMAND = ["-m", "specdec", "decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4",
           "--mean-acceptance-length", "3.1", "--draft-acceptance-rate", "0.62"]


def wall_times(args, runs):
    env = {key: v for key, v in os.environ.items() if key != "PYTHONPATH"}
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=env)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed with exit status {done.returncode}:\n{done.stderr}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="runs per measurement (default 11)")
    runs = parser.parse_args().runs
    wall_times(COMMAND, 2)  # warm the file cache and __pycache__
    rows = [
        ("python -c pass", wall_times(["-c", "pass"], runs)),
        ("python -c 'import specdec'", wall_times(["-c", "import specdec"], runs)),
        ("python -m specdec decide ... (text)", wall_times(COMMAND, runs)),
        ("python -m specdec decide ... --json", wall_times([*COMMAND, "--json"], runs)),
    ]
    print(f"median wall time of {runs} runs each ({sys.executable})")
    for label, times in rows:
        med = statistics.median(times)
        print(f"  {label:<40s} {med * 1e3:7.1f} ms  (min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f})")
    worst = max(statistics.median(times) for label, times in rows if "decide" in label)
    print(f"decide command: {worst * 1e3:.1f} ms = {worst / BUDGET:.2f} x the {BUDGET:g} s budget "
          f"({'within' if worst < BUDGET else 'OVER'} budget)")


if __name__ == "__main__":
    main()
