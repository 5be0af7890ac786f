"""ipywidgets explorers for the book (presentation only, no formulas).

One submodule per topic, each owning the explorers of the chapters on that
topic; every public function returns an ipywidgets widget whose
default values reproduce the static figure beside it. All public names are
re-exported here, so chapters write ``sd.widgets.expected_tokens_explorer(...)``.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__: list[str] = []

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name.startswith("_"):
        continue
    _module = importlib.import_module(f".{_info.name}", __name__)
    for _name in getattr(_module, "__all__", []):
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)
    globals()[_info.name] = _module
