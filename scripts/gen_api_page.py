#!/usr/bin/env python3
"""Regenerate ``book/appendix/api.md``: one autodoc section per public specdec module.

Usage::

    python scripts/gen_api_page.py          # rewrite book/appendix/api.md
    python scripts/gen_api_page.py --check  # exit 1 if the page is out of date

Every importable module of ``specdec`` whose name has no part starting with
``_`` gets an ``automodule`` block with its members, in the order of the
package's own listing (core formulas first, presentation last). Run it after
adding a module; ``tests/test_notebooks_meta.py`` fails while the page lags.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import pkgutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "appendix" / "api.md"

# Teaching order; modules not listed here follow alphabetically.
ORDER = [
    "acceptance", "economics", "symbolic", "hardware", "sampling", "drafts", "workload",
    "tables", "literature", "measure", "errata", "exercises", "plots", "widgets",
]

HEADER = """\
# API reference

Every public function of the `specdec` package, generated from its docstrings
(the same text `help(...)` shows in a notebook). Each entry names the chapter
that teaches it. Import the package as `import specdec as sd`; the core
formulas of `specdec.acceptance` and `specdec.economics` are also available
at the top level (`sd.expected_tokens`, `sd.speedup`, ...).

```{eval-rst}
.. automodule:: specdec
   :no-members:
```
"""


def public_modules() -> list[str]:
    import specdec

    names = []
    for info in pkgutil.walk_packages(specdec.__path__, prefix="specdec."):
        parts = info.name.split(".")[1:]
        if any(part.startswith("_") for part in parts):
            continue
        if parts[0] == "exercises" and len(parts) > 1:
            continue  # chapter exercise modules only register data
        names.append(info.name)

    def key(name: str) -> tuple:
        parts = name.split(".")[1:]
        top = parts[0]
        rank = ORDER.index(top) if top in ORDER else len(ORDER)
        return (rank, top, len(parts), name)

    return sorted(names, key=key)


def render(modules: list[str]) -> str:
    out = [HEADER]
    for name in modules:
        module = importlib.import_module(name)
        is_package = hasattr(module, "__path__")
        out.append(f"\n## `{name}`\n")
        if is_package and name.count(".") == 1 and name.split(".")[1] in ("plots", "widgets"):
            # The package re-exports its topic submodules; document those instead.
            extra = "\n".join(reexported_from_private(module))
            out.append(f"\n```{{eval-rst}}\n.. automodule:: {name}\n   :no-members:\n\n{extra}```\n")
            continue
        out.append(f"\n```{{eval-rst}}\n.. automodule:: {name}\n   :members:\n```\n")
    return "".join(out)


def reexported_from_private(module) -> list[str]:
    """Directives for names in ``module.__all__`` defined in a private module.

    autodoc skips imported members, so ``sd.plots.new_figure`` (defined in
    ``specdec.plots._style``) would otherwise appear nowhere.
    """
    lines = []
    for attr in getattr(module, "__all__", []):
        obj = getattr(module, attr, None)
        home = getattr(obj, "__module__", None) or ""
        if not home.startswith("specdec") or home == module.__name__:
            continue
        if not any(part.startswith("_") for part in home.split(".")[1:]):
            continue
        if isinstance(obj, type):
            lines.append(f".. autoclass:: {module.__name__}.{attr}\n   :members:\n")
        elif callable(obj):
            lines.append(f".. autofunction:: {module.__name__}.{attr}\n")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the page is current")
    args = parser.parse_args(argv)
    text = render(public_modules())
    if args.check:
        current = PAGE.read_text() if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python scripts/gen_api_page.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)} ({len(public_modules())} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
