# Shared setup for build-book.sh, build-student.sh and run-tests.sh (sourced, not run).
#
# Python environment: if a virtual environment is already active ($VIRTUAL_ENV),
# it is used as is; otherwise a repo-local ./.venv is created (once) and used.
# requirements.txt (which pins every tool and installs specdec with `pip install -e .`)
# is installed whenever requirements.txt, constraints.txt, pyproject.toml or course/pyproject.toml changed
# since the last install into that environment (a hash is stored in the venv).
# Set SPECDEC_SKIP_INSTALL=1 to skip the pip step (e.g. an environment you manage).

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# each message says how long the script has been running
log() { printf '\n\033[1;34m==> [%d s] %s\033[0m\n' "$SECONDS" "$*"; }
die() { printf '\n\033[1;31mERROR: %s\033[0m\n' "$*" >&2; exit 1; }

setup_python() {
  if [[ -n "${VIRTUAL_ENV:-}" && -x "${VIRTUAL_ENV}/bin/python" ]]; then
    log "Using the active virtual environment $VIRTUAL_ENV"
  else
    if [[ ! -x "$ROOT/.venv/bin/python" ]]; then
      log "Creating the virtual environment $ROOT/.venv"
      command -v python3 >/dev/null || die "python3 not found (Debian: apt-get install -y python3 python3-venv)"
      python3 -m venv "$ROOT/.venv" || die "python3 -m venv failed (Debian: apt-get install -y python3-venv)"
    fi
    # shellcheck disable=SC1091
    source "$ROOT/.venv/bin/activate"
    log "Using the virtual environment $VIRTUAL_ENV"
  fi
  python -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || die "Python >= 3.10 is required (found $(python --version 2>&1))"

  local want stamp
  want="$(cat requirements.txt constraints.txt pyproject.toml course/pyproject.toml | sha256sum | cut -d' ' -f1)"
  stamp="$VIRTUAL_ENV/.specdec-requirements.sha256"
  if [[ "${SPECDEC_SKIP_INSTALL:-0}" == "1" ]]; then
    log "SPECDEC_SKIP_INSTALL=1: not installing requirements.txt"
  elif [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "requirements.txt already installed in $VIRTUAL_ENV"
  else
    log "Installing requirements.txt into $VIRTUAL_ENV"
    python -m pip install --disable-pip-version-check -q -r requirements.txt \
      || die "pip install -r requirements.txt failed"
    echo "$want" > "$stamp"
  fi
  python -c 'import specdec, specdec_course' || die "specdec or specdec_course does not import; see the error above"
  # Bytecode for specdec and specdec_course (installed in place, `pip install -e`): where PYTHONDONTWRITEBYTECODE
  # is set (it is on the machines this book is tested on), Python never writes it, and each of the test run's
  # hundreds of kernels and subprocesses would compile the packages again. compileall writes it anyway.
  python -m compileall -q -j 0 "$ROOT/specdec" "$ROOT/course/specdec_course" >/dev/null \
    || die "python -m compileall specdec course/specdec_course failed"
}

fetch_assets() {
  log "Installing the JavaScript the book serves (MathJax, npm ci) into vendor/"
  bash "$ROOT/scripts/fetch-assets.sh" || die "could not fetch the vendored JavaScript (needs npm and the npm registry)"
}

build_book() {
  # build_book [extra jupyter-book args...]; builds into ./_build/html
  log "Building the book: jupyter-book build . -W -n --keep-going $*"
  local start=$SECONDS
  if ! jupyter-book build . -W -n --keep-going "$@"; then
    printf '\n\033[1;31mBUILD FAILED: the warnings/errors above name the page (a notebook that raised, a broken reference, ...).\033[0m\n' >&2
    return 1
  fi
  log "Book built in $((SECONDS - start)) s"
}
