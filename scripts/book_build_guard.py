"""Sphinx extension loaded by ``_config.yml`` (``sphinx.local_extensions``).

It keeps the book build honest whichever way it is started
(``bash scripts/build-book.sh`` or a bare ``jupyter-book build .``):

1. **Vendored assets.** The HTML serves MathJax from ``vendor/`` (fetched by
   ``scripts/fetch-assets.sh``). If it is missing the build stops with a
   message saying how to fetch it, instead of producing pages whose math
   silently fails.
2. **Failures are not forgotten.** Sphinx only reports warnings for documents
   it re-reads; after a build with warnings or an error we delete the saved
   environment so the next build re-reads every page and reports again.
3. **No third-party scripts, a valid theme mode** (see the functions below).

The build does not execute notebooks (``execute_notebooks: off``): it renders
the stored outputs, which nbval checks against a fresh run.
"""

from __future__ import annotations

import pathlib

from sphinx.application import Sphinx
from sphinx.errors import ConfigError
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
ENV_PICKLE = "environment.pickle"
REQUIRED_ASSETS = ("mathjax/tex-chtml.js",)


def check_assets(app: Sphinx, config) -> None:
    root = pathlib.Path(app.srcdir)
    missing = [name for name in REQUIRED_ASSETS if not (root / "vendor" / name).is_file()]
    if missing:
        raise ConfigError(
            "vendored JavaScript missing from vendor/: "
            + ", ".join(missing)
            + ". Run `bash scripts/fetch-assets.sh` (or `bash scripts/build-book.sh`, which does it)."
        )


def forget_failed_build(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or getattr(app, "_warncount", 0):
        (pathlib.Path(app.doctreedir) / ENV_PICKLE).unlink(missing_ok=True)


def light_mode_default(app: Sphinx, config) -> None:
    """Give the theme a valid default colour mode.

    pydata-sphinx-theme logs a console error ("Got invalid theme mode") when
    ``html_context["default_mode"]`` is empty, as Jupyter Book leaves it.
    Light mode also keeps matplotlib figures (white background) readable.
    """
    context = dict(config.html_context or {})
    context.setdefault("default_mode", "light")
    config.html_context = context


def drop_thebe(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """Remove sphinx-thebe's scripts (Jupyter Book always loads the extension).

    Thebe runs code on a remote Binder, which this offline book does not use
    (launch_buttons.thebe is false); its inline configuration is also added
    twice per page, which raises "Identifier 'THEBE_JS_URL' has already been
    declared" in the browser, and it names a CDN (unpkg.com).
    """
    def is_thebe(asset) -> bool:
        name = str(getattr(asset, "filename", "") or "")
        body = str(getattr(asset, "attributes", {}).get("body", "") or "")
        return "thebe" in name or "THEBE_JS_URL" in body

    for key in ("script_files", "css_files"):
        if key in context:
            context[key][:] = [asset for asset in context[key] if not is_thebe(asset)]


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", light_mode_default)
    app.connect("html-page-context", drop_thebe, priority=900)
    app.connect("config-inited", check_assets)
    app.connect("build-finished", forget_failed_build)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
