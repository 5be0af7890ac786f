#!/usr/bin/env bash
# Fetch the JavaScript the book serves itself (no CDN) and copy what the pages
# load into ./vendor/ (git-ignored); Sphinx copies ./vendor/* into
# _build/html/_static/ (html_static_path in _config.yml).
#
# What is fetched is package.json + package-lock.json (exact versions and npm
# integrity hashes), installed with `npm ci` into ./node_modules. Today that is
# MathJax 3 only: the explorers' live HTML versions are the book's own
# scripts/static/*.js, and no page needs the ipywidgets HTML manager.
# Idempotent: does nothing when ./vendor was made from this package-lock.json.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENDOR="${SPECDEC_VENDOR_DIR:-$ROOT/vendor}"
STAMP="$VENDOR/.package-lock.sha256"
WANT="$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)"

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" && -f "$VENDOR/mathjax/tex-chtml.js" ]]; then
  echo "fetch-assets: vendor/ is up to date ($(du -sh "$VENDOR" | cut -f1))"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-assets: ERROR: npm is not installed. On Debian: sudo apt-get install -y npm" >&2
  exit 1
fi

echo "fetch-assets: npm ci (package-lock.json) into $ROOT/node_modules"
(cd "$ROOT" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

NEW="$VENDOR.new.$$"
rm -rf "$NEW"; mkdir -p "$NEW/mathjax"
# MathJax: the es5 component tree (tex-chtml.js loads its fonts, extensions and
# the accessibility menu lazily, relative to its own location). Keep the one
# combined component the book uses; drop the other combined builds and SVG output.
MJ="$ROOT/node_modules/mathjax"
cp -r "$MJ/es5/." "$NEW/mathjax/"
cp "$MJ/LICENSE" "$NEW/mathjax/LICENSE"
find "$NEW/mathjax" -maxdepth 1 -name '*.js' ! -name 'tex-chtml.js' ! -name 'startup.js' \
  ! -name 'core.js' ! -name 'loader.js' ! -name 'latest.js' -delete
rm -rf "$NEW/mathjax/output/svg" "$NEW/mathjax/output/svg.js"
echo "$WANT" > "$NEW/.package-lock.sha256"
rm -rf "$VENDOR"; mv "$NEW" "$VENDOR"
echo "fetch-assets: done: $(du -sh "$VENDOR/mathjax" | cut -f1) of MathJax in vendor/"
