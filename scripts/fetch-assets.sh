#!/usr/bin/env bash
# Fetch the JavaScript the book serves itself (no CDN): MathJax 3, RequireJS and
# the ipywidgets HTML manager, from the npm registry, into ./vendor/ (git-ignored).
# Sphinx copies ./vendor/* into _build/html/_static/ (html_static_path in _config.yml).
#
# Versions and npm integrity hashes are pinned below; `npm pack` verifies the
# tarball against the registry and we compare the integrity with our pin.
# Idempotent: does nothing when ./vendor already holds these exact versions.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENDOR="${SPECDEC_VENDOR_DIR:-$ROOT/vendor}"

# name@version  sha512 integrity (from `npm view <name>@<version> dist.integrity`)
PACKAGES=(
  "mathjax@3.2.2 sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="
  "requirejs@2.3.8 sha512-7/cTSLOdYkNBNJcDMWf+luFvMriVm7eYxp4BcFCsAX0wF421Vyce5SXP17c+Jd5otXKGNehIonFlyQXSowL6Mw=="
  "@jupyter-widgets/html-manager@1.0.15 sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA=="
)
WANT="$(printf '%s\n' "${PACKAGES[@]}")"
STAMP="$VENDOR/.vendor-versions"

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" \
      && -f "$VENDOR/mathjax/tex-chtml.js" && -f "$VENDOR/requirejs/require.js" \
      && -f "$VENDOR/html-manager/embed-amd.js" ]]; then
  echo "fetch-assets: vendor/ is up to date ($(du -sh "$VENDOR" | cut -f1))"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-assets: ERROR: npm is not installed. On Debian: sudo apt-get install -y npm" >&2
  exit 1
fi

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
echo "fetch-assets: downloading from the npm registry into $VENDOR"
for entry in "${PACKAGES[@]}"; do
  spec="${entry%% *}"; want_sri="${entry##* }"
  json="$(cd "$TMP" && npm pack --json --silent "$spec")"
  got_sri="$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["integrity"])')"
  if [[ "$got_sri" != "$want_sri" ]]; then
    echo "fetch-assets: ERROR: integrity mismatch for $spec: got $got_sri" >&2
    exit 1
  fi
  file="$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["filename"])')"
  name="${spec%@*}"; name="${name##*/}"
  mkdir -p "$TMP/$name"
  tar xzf "$TMP/$file" -C "$TMP/$name"
done

NEW="$VENDOR.new.$$"
rm -rf "$NEW"; mkdir -p "$NEW/mathjax" "$NEW/requirejs" "$NEW/html-manager"
# MathJax: the whole es5 component tree (tex-chtml.js loads its fonts,
# extensions and the menu lazily relative to its own location).
cp -r "$TMP/mathjax/package/es5/." "$NEW/mathjax/"
cp "$TMP/mathjax/package/LICENSE" "$NEW/mathjax/LICENSE"
# Keep one combined component (tex-chtml.js); the other combined builds and the
# SVG output are alternatives we do not use.
find "$NEW/mathjax" -maxdepth 1 -name '*.js' ! -name 'tex-chtml.js' ! -name 'startup.js' \
  ! -name 'core.js' ! -name 'loader.js' ! -name 'latest.js' -delete
rm -rf "$NEW/mathjax/output/svg" "$NEW/mathjax/output/svg.js"
cp "$TMP/requirejs/package/require.js" "$NEW/requirejs/require.js"
# ipywidgets HTML manager: the AMD embed bundle and the font files its CSS references.
hm="$TMP/html-manager/package/dist"
cp "$hm/embed-amd.js" "$NEW/html-manager/"
find "$hm" -maxdepth 1 -type f \( -name '*.woff' -o -name '*.woff2' -o -name '*.ttf' -o -name '*.eot' -o -name '*.svg' \) \
  -exec cp {} "$NEW/html-manager/" \;
[[ -f "$TMP/html-manager/package/LICENSE" ]] && cp "$TMP/html-manager/package/LICENSE" "$NEW/html-manager/LICENSE" || true
printf '%s\n' "$WANT" > "$NEW/.vendor-versions"
rm -rf "$VENDOR"; mv "$NEW" "$VENDOR"
echo "fetch-assets: done:"
du -sh "$VENDOR/mathjax" "$VENDOR/requirejs" "$VENDOR/html-manager"
