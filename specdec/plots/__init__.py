"""Matplotlib figures for the book (presentation only, no formulas).

One submodule per topic, each owning the figures of the chapters on that
topic; every public function returns a :class:`matplotlib.figure.Figure`
and never calls ``plt.show``. All public names of the submodules are
re-exported here, so chapters write ``sd.plots.expected_tokens_vs_k(...)``.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._style import COLORS, SEQUENCE, new_figure

__all__: list[str] = ["COLORS", "SEQUENCE", "new_figure"]

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("_"):
        continue
    _module = importlib.import_module(f".{_info.name}", __name__)
    for _name in getattr(_module, "__all__", []):
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)
    globals()[_info.name] = _module
