#!/usr/bin/env bash
# Set up (venv + requirements + vendored JavaScript) and build the HTML book
# into ./_build/html (open ./_build/html/index.html).
# Extra arguments are passed to `jupyter-book build` (e.g. --all for a clean rebuild).
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
setup_python
fetch_assets
build_book "$@" || exit 1
log "Done. Open $ROOT/_build/html/index.html in a browser."
