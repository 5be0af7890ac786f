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

import importlib
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


_NUMPY_SCALAR_REPR = None


def _patch_glue_numpy_scalars() -> None:
    """Let ``{glue:text}`key:.2f``` format numpy 2 scalars.

    numpy 2 prints a scalar as ``np.float64(3.7)``; myst-nb 1.4 formats glued
    ``text/plain`` with ``float(text)`` and fails ("could not convert string
    to float") or, without a format spec, shows the repr in the prose. We
    unwrap ``np.<type>(<literal>)`` before myst-nb formats it. (Authors may
    still glue ``float(x)``; both render the same.)
    """
    import re

    import myst_nb.core.variables as variables

    global _NUMPY_SCALAR_REPR
    if _NUMPY_SCALAR_REPR is not None:
        return
    _NUMPY_SCALAR_REPR = re.compile(r"^\s*(?:np|numpy)\.(?:float|int|uint|bool|complex|str)\w*\((.*)\)\s*$", re.S)
    original = variables.format_plain_text

    def format_plain_text(text: str, fmt_spec: str) -> str:
        match = _NUMPY_SCALAR_REPR.match(text)
        return original(match.group(1) if match else text, fmt_spec)

    variables.format_plain_text = format_plain_text
    # modules that imported the function by name
    for name in ("myst_nb.ext.glue.roles", "myst_nb.ext.glue.crossref", "myst_nb.ext.glue.directives"):
        try:
            module = importlib.import_module(name)
        except ImportError:  # pragma: no cover - other myst-nb layouts
            continue
        if getattr(module, "format_plain_text", None) is original:
            module.format_plain_text = format_plain_text


def setup(app: Sphinx) -> dict:
    _patch_glue_numpy_scalars()
    app.connect("config-inited", light_mode_default)
    app.connect("html-page-context", drop_thebe, priority=900)
    app.connect("config-inited", check_assets)
    app.connect("build-finished", forget_failed_build)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
