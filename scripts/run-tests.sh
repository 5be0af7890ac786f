#!/usr/bin/env bash
# Set up and run EVERY test:
#   1. set up the venv, requirements and vendored JavaScript (as build-book.sh);
#   2. install Debian's chromium if missing (when running as root);
#   3. build the book into ./_build/html (incremental; notebooks are re-executed
#      when they or specdec/requirements changed) and the student edition into
#      ./_build_student/_build/html (sharing the notebook executions);
#   4. pytest: specdec unit tests, nbval (strict) over every notebook under book/,
#      checks of the built HTML, and the Playwright/chromium browser test of every page.
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

build_status=0
build_book || build_status=$?
if [[ $build_status == 0 ]]; then
  log "Building the student edition (solutions removed) for tests/test_student_edition.py"
  bash "$ROOT/scripts/build-student.sh" || build_status=$?
fi

log "Running pytest: unit tests, nbval over book/, built-HTML checks, browser test"
start=$SECONDS
test_status=0
# pytest-xdist: one worker per core (at most 4; each may start a Chromium). The
# scheduler in tests/conftest.py keeps a notebook's cells on one worker and
# spreads every other test. SPECDEC_TEST_WORKERS=0 runs everything in one process.
SPECDEC_FULL_TEST_RUN=1 python -m pytest tests book \
  --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
  -n "${SPECDEC_TEST_WORKERS:-auto}" --maxprocesses 4 \
  -p no:cacheprovider -q -ra "$@" || test_status=$?
log "pytest finished in $((SECONDS - start)) s (exit status $test_status)"

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
