"""What the grader records of an answer: a JSON-able copy (numbers, strings, nested lists; other types by name)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ._forms import type_name

__all__ = ["Opaque", "to_jsonable", "from_jsonable"]


class Opaque:
    """A recorded answer that was not a plain value (a dict, a function, ...): only its type survives."""

    def __init__(self, name: str):
        self.specdec_type_name = str(name)

    def __repr__(self) -> str:
        return f"<{self.specdec_type_name}>"


_MAX_RECORDED = 100_000


def to_jsonable(value: Any, depth: int = 0) -> Any:
    """A JSON-able copy of a reader's answer (numbers, strings, nested lists); other types by name."""
    if depth > 8:
        return {"__type__": "a deeply nested value"}
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, Opaque):
        return {"__type__": value.specdec_type_name}
    if isinstance(value, np.ndarray):
        if value.size > _MAX_RECORDED or value.dtype.kind not in "biuf":
            return {"__type__": "a large or non-numeric array"}
        return {"__ndarray__": value.tolist()}
    if isinstance(value, (tuple, builtins.list)):
        if len(value) > _MAX_RECORDED:
            return {"__type__": "a very long sequence"}
        return [to_jsonable(v, depth + 1) for v in value]
    return {"__type__": type_name(value)}


def from_jsonable(value: Any) -> Any:
    """Undo :func:`to_jsonable` (arrays become arrays, other types become :class:`Opaque`)."""
    if isinstance(value, dict):
        if "__ndarray__" in value:
            return np.asarray(value["__ndarray__"])
        return Opaque(value.get("__type__", "an object"))
    if isinstance(value, builtins.list):
        return [from_jsonable(v) for v in value]
    return value
