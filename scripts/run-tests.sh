#!/usr/bin/env bash
# Set up and run EVERY test:
#   1. set up the venv, requirements and vendored JavaScript (as build-book.sh);
#   2. install Debian's chromium if missing (when running as root);
#   3. build the book into ./_build/html and, at the same time, the student edition into
#      ./_build_student/_build/html (both render the stored outputs; nothing executes), followed on
#      its core by ruff and by mypy over the core;
#   4. pytest: specdec unit tests and doctests, nbval (strict) over every
#      notebook under book/ (code-cell outputs, the {eval} values of the prose and
#      the legibility of every figure), checks of the built HTML, the
#      Playwright/chromium browser tests; the 20 slowest tests are listed;
#   5. nbval again with numpy's highest CPU feature group disabled (NPY_DISABLE_CPU_FEATURES).
# Exits non-zero if the build or any test fails, or if a test group collected nothing.
# Extra arguments are passed to pytest (e.g. -x, -k browser).
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
setup_python
fetch_assets

CHROMIUM="${SPECDEC_CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$CHROMIUM" ]]; then
  if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null; then
    log "Installing Debian chromium (apt-get install -y chromium)"
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium || die "apt-get install chromium failed"
  else
    die "$CHROMIUM not found. Install Debian's chromium (sudo apt-get install -y chromium) or set SPECDEC_CHROMIUM."
  fi
fi

# The two editions build at the same time (each Sphinx build uses one core; they share only the
# sources, which neither writes). The student edition's build is the shorter one (it has fewer pages), so
# ruff and mypy run after it on its core while the book's build finishes; their output is printed when
# both are done.
build_status=0
side_log="$(mktemp)"
side_status="$(mktemp)"
log "Building the student edition (solutions removed) for tests/test_student_edition.py, alongside the book; then ruff and mypy"
(
  student=0
  lint=0
  bash "$ROOT/scripts/build-student.sh" || student=$?
  log "The student edition's build: exit status $student"
  log "ruff (the rules of pyproject.toml) over specdec, course, tests, scripts and benchmarks (their notebooks too)"
  ruff check specdec course tests scripts benchmarks || lint=1
  log "mypy (the settings of pyproject.toml [tool.mypy]) over the core: every function annotated and type-checked"
  mypy || lint=1
  echo "$student $lint" > "$side_status"
) > "$side_log" 2>&1 &
side_pid=$!
build_book || build_status=$?
wait "$side_pid" || true
log "The student edition's build, ruff and mypy (run alongside the book's build):"
cat "$side_log"
read -r student_status lint_status < "$side_status" || { student_status=1; lint_status=1; }
rm -f "$side_log" "$side_status"
if [[ $student_status != 0 ]]; then build_status=$student_status; fi

test_status=0
if [[ $lint_status != 0 ]]; then test_status=1; fi

log "Running pytest: unit tests, the doctests of specdec and specdec_course, nbval over book/, built-HTML checks, browser tests"
start=$SECONDS
# pytest-xdist: one worker more than there are cores (at most 4; each may start a Chromium): some tests
# wait for a notebook's time limit or a browser, and the extra worker uses the core they leave (on two
# cores, 3 workers keep 98 % of the CPU busy, 2 workers 92 %). The scheduler in tests/conftest.py keeps a
# notebook's cells on one worker and spreads every other test. SPECDEC_TEST_WORKERS=0 runs everything in
# one process. --durations=20: every run ends with its 20 slowest tests.
workers="${SPECDEC_TEST_WORKERS:-$(( $(nproc) + 1 ))}"
SPECDEC_FULL_TEST_RUN=1 python -m pytest tests book specdec course/specdec_course \
  --doctest-modules --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
  -n "$workers" --maxprocesses 4 \
  -p no:cacheprovider -q -ra --durations=20 "$@" || test_status=$?
log "pytest finished in $((SECONDS - start)) s (exit status $test_status)"

# The stored outputs must not depend on the SIMD kernels numpy picked on the
# machine that wrote them: run nbval again with this machine's highest CPU
# feature group disabled (scripts/numpy_dispatch.py reads it from numpy).
disable="$(python scripts/numpy_dispatch.py)"
if [[ -z "$disable" ]]; then
  log "numpy dispatches to no SIMD target beyond its baseline here: no second dispatch to test"
elif [[ $test_status == 0 ]]; then
  log "nbval again under a second numpy dispatch: NPY_DISABLE_CPU_FEATURES=\"$disable\""
  NPY_DISABLE_CPU_FEATURES="$disable" python - "$disable" <<'PY' || test_status=1
import sys
from numpy._core._multiarray_umath import __cpu_features__ as features
still = [name for name in sys.argv[1].split() if features.get(name)]
if still:
    sys.exit(f"NPY_DISABLE_CPU_FEATURES did not disable {still}")
PY
  start=$SECONDS
  second=0
  # Only book/ is collected here, so tests/conftest.py (and its scheduler) is not loaded:
  # --dist loadfile keeps each notebook's cells on one worker (nbval runs them in one kernel). One worker
  # per core: nothing here waits, and a third worker on two cores made this run slower (44 s, not 40).
  NPY_DISABLE_CPU_FEATURES="$disable" python -m pytest book \
    --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
    -n "${SPECDEC_TEST_WORKERS:-auto}" --maxprocesses 4 --dist loadfile -p no:cacheprovider -q -ra --durations=20 \
    || second=$?
  log "nbval under the second dispatch finished in $((SECONDS - start)) s (exit status $second)"
  if [[ $second != 0 ]]; then test_status=$second; fi
fi

if [[ $test_status == 5 ]]; then
  die "pytest collected no tests: that is a failure, not a pass"
fi
if [[ $build_status != 0 ]]; then
  die "the book build failed (see the messages above); tests exit status: $test_status"
fi
if [[ $test_status != 0 ]]; then
  die "tests failed (see the summary above)"
fi
log "All tests passed. Screenshots of every page: $ROOT/_build/screenshots/"
