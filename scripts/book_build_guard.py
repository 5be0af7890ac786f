"""Sphinx extension loaded by ``_config.yml`` (``sphinx.local_extensions``).

It keeps the book build honest whichever way it is started
(``bash scripts/build-book.sh`` or a bare ``jupyter-book build .``):

1. **Vendored assets.** The HTML serves MathJax, RequireJS and the ipywidgets
   HTML manager from ``vendor/`` (fetched by ``scripts/fetch-assets.sh``). If
   they are missing the build stops with a message saying how to fetch them,
   instead of producing pages whose math and widgets silently fail.
2. **Execution cache that notices dependency changes.** Notebooks execute in
   ``cache`` mode (jupyter-cache re-runs a notebook when its code changes). A
   change of anything a notebook *imports* is not visible to jupyter-cache, so
   we hash the ``specdec`` sources, ``requirements.txt``, ``constraints.txt``,
   ``pyproject.toml``, the Python version and every installed distribution's
   version. When the hash differs from the one stored beside the cache, the
   cache and Sphinx's saved environment are deleted, so every notebook runs
   again with the new code.
3. **Failures are not forgotten.** Sphinx only reports warnings for documents
   it re-reads; after a build with warnings or an error we delete the saved
   environment so the next build re-reads every page and reports again
   (successful notebook executions stay cached).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import pathlib
import shutil
import sys

from sphinx.application import Sphinx
from sphinx.errors import ConfigError
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
STAMP_NAME = "specdec-deps.sha256"
ENV_PICKLE = "environment.pickle"
REQUIRED_ASSETS = ("mathjax/tex-chtml.js", "requirejs/require.js", "html-manager/embed-amd.js")


def dependency_hash(root: pathlib.Path) -> str:
    """Hash everything a notebook's outputs depend on besides its own code."""
    digest = hashlib.sha256()
    files = sorted((root / "specdec").rglob("*.py"))
    files += [root / name for name in ("requirements.txt", "constraints.txt", "pyproject.toml")]
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    versions = sorted(
        f"{dist.metadata['Name']}=={dist.version}" for dist in importlib.metadata.distributions()
    )
    digest.update("\n".join(versions).encode())
    return digest.hexdigest()


def _cache_path(app: Sphinx) -> pathlib.Path:
    configured = app.config.nb_execution_cache_path if hasattr(app.config, "nb_execution_cache_path") else ""
    if configured:
        return pathlib.Path(configured).resolve()
    return pathlib.Path(app.outdir).parent.joinpath(".jupyter_cache").resolve()


def check_assets(app: Sphinx, config) -> None:
    root = pathlib.Path(app.srcdir)
    missing = [name for name in REQUIRED_ASSETS if not (root / "vendor" / name).is_file()]
    if missing:
        raise ConfigError(
            "vendored JavaScript missing from vendor/: "
            + ", ".join(missing)
            + ". Run `bash scripts/fetch-assets.sh` (or `bash scripts/build-book.sh`, which does it)."
        )


def invalidate_on_dependency_change(app: Sphinx, config) -> None:
    root = pathlib.Path(app.srcdir)
    cache = _cache_path(app)
    stamp = cache.parent / STAMP_NAME
    current = dependency_hash(root)
    previous = stamp.read_text().strip() if stamp.is_file() else None
    if previous == current:
        return
    if previous is not None or cache.exists():
        LOGGER.info(
            "book_build_guard: specdec, the requirements or installed packages changed; "
            "clearing the execution cache so every notebook runs again"
        )
    shutil.rmtree(cache, ignore_errors=True)
    (pathlib.Path(app.doctreedir) / ENV_PICKLE).unlink(missing_ok=True)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(current + "\n")


def forget_failed_build(app: Sphinx, exception: BaseException | None) -> None:
    if exception is not None or getattr(app, "_warncount", 0):
        (pathlib.Path(app.doctreedir) / ENV_PICKLE).unlink(missing_ok=True)


def _lookup(dotted: str):
    """Import ``package.module.attr`` and return the object, or None."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _documented_names(app: Sphinx, env) -> dict[int, list[str]]:
    """Map id(object) -> documented Python names, for every specdec object on the API page."""
    cache = getattr(app, "_specdec_documented", None)
    if cache is None:
        cache = {}
        for name in env.get_domain("py").objects:
            if name.startswith("specdec"):
                obj = _lookup(name)
                if obj is not None:
                    cache.setdefault(id(obj), []).append(name)
        app._specdec_documented = cache
    return cache


def resolve_reexports(app: Sphinx, env, node, contnode):
    """Resolve a Python reference to where the object is defined.

    The package re-exports names (``specdec.speedup_from_costs`` is defined
    in ``specdec.economics``; ``sd.plots.new_figure`` in
    ``specdec.plots._style``) and docstrings refer to them by the short name,
    or by a bare name relative to the current module. The API page documents
    each object once, in its defining module; this handler finds it there.
    References that do not lead to a ``specdec`` object stay unresolved (and
    ``-n`` reports them).
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    candidates = []
    if target.startswith("specdec."):
        candidates.append(target)
    else:
        module = node.get("py:module") or ""
        klass = node.get("py:class") or ""
        parts = module.split(".") if module else []
        if module and klass:
            candidates.append(f"{module}.{klass}.{target}")
        for cut in range(len(parts), 0, -1):
            candidates.append(".".join(parts[:cut]) + "." + target)
    domain = env.get_domain("py")
    for candidate in candidates:
        if not candidate.startswith("specdec"):
            continue
        obj = _lookup(candidate)
        if obj is None:
            continue
        if hasattr(obj, "__path__") or type(obj).__name__ == "module":
            real, reftype = obj.__name__, "mod"
        else:
            home = getattr(obj, "__module__", None)
            qualname = getattr(obj, "__qualname__", None)
            if not home or not qualname:
                continue
            real, reftype = f"{home}.{qualname}", node["reftype"]
        # a private defining module (specdec.plots._style) is documented
        # under its public package: try the candidate name, then any
        # documented name bound to the same object
        for name in dict.fromkeys([real, candidate, *_documented_names(app, env).get(id(obj), [])]):
            new = node.deepcopy()
            new["reftarget"] = name
            found = domain.resolve_xref(env, node["refdoc"], app.builder, reftype, name, new, contnode)
            if found is not None:
                return found
    if node["reftype"] in ("attr", "data", "const") and (node.get("py:module") or "").startswith("specdec"):
        # an attribute or constant named in a specdec docstring (often an
        # instance attribute, which autodoc cannot document): keep the name
        # as code, without a link
        contnode["classes"] = [c for c in contnode.get("classes", []) if c != "xref"]
        return contnode
    return None


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
    app.connect("missing-reference", resolve_reexports)
    app.connect("config-inited", check_assets)
    app.connect("config-inited", invalidate_on_dependency_change)
    app.connect("build-finished", forget_failed_build)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
