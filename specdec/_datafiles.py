"""One reader for the small files readers keep their measurements in: JSON, TOML, or plain text.

Private helper of :mod:`specdec.acceptance.engine_metrics` (a saved counters file or
``/metrics`` page) and :mod:`specdec.decision` (the ``--from FILE`` of the
command line). TOML needs Python >= 3.11 (``tomllib``) or the ``tomli``
package; without either the error says so.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

__all__ = ["read_data_file", "read_toml_text"]


def _toml(text: str, path: str | pathlib.Path, what: str) -> Any:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - depends on the Python version
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise ValueError(f"{what} {str(path)!r} is TOML, which needs Python >= 3.11 or the tomli package "
                             f"on this Python: pip install tomli (or give the file as JSON)") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} {str(path)!r} is not valid TOML: {exc}") from exc


def read_toml_text(text: str, path: str, what: str) -> Any:
    """TOML text as a table, or a ValueError naming ``what`` and ``path``."""
    return _toml(text, path, what)


def read_data_file(path: Any, what: str = "file", text_ok: bool = False) -> Any:
    """The content of a ``.json`` or ``.toml`` file; another name is tried as JSON, then TOML, then text.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    what : str
        What the file is, for error messages ("counters file", "file").
    text_ok : bool
        Whether a file that is neither JSON nor TOML is returned as its text
        (a saved ``/metrics`` page) instead of refused.

    Returns
    -------
    dict, list or str
        The parsed content (``str`` only with ``text_ok``).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from specdec._datafiles import read_data_file
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.toml"
    >>> _ = p.write_text('t0 = "12ms"\\nk = 4\\n')
    >>> read_data_file(p)
    {'t0': '12ms', 'k': 4}
    """
    p = pathlib.Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{what} {str(p)!r} cannot be read: {exc.strerror or exc}") from exc
    suffix = p.suffix.lower()
    if suffix == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{what} {str(p)!r} is not valid JSON: {exc}") from exc
    if suffix == ".toml":
        return _toml(text, p, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return _toml(text, p, what)
    except ValueError:
        if text_ok:
            return text
        raise ValueError(f"{what} {str(p)!r} is neither JSON nor TOML") from None
