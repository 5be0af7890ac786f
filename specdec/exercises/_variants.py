"""Per-student variants: the inputs a seed chooses for an exercise.

A seed is a non-negative integer or a string (a student id, say; a string of
digits is that integer). The inputs are drawn by the exercise's ``vary(rng)``
with a numpy generator seeded by the label and the seed, so a seed gives the
same variant on every machine; draws whose reference cannot be computed (or
equal the book's inputs) are drawn again.
"""

from __future__ import annotations

import builtins
import functools
import hashlib
import json
import zlib
from typing import Any

import numpy as np

from ._forms import type_name
from ._registry import REGISTRY, Exercise, Params

__all__ = ["NoVariants", "seed_key", "inputs_for", "seed_literal"]


class NoVariants(LookupError):
    """The exercise has no variants (every reader answers the book's version)."""


def seed_key(seed: Any) -> tuple[int, ...]:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer, str)):
        raise TypeError(f"seed must be a non-negative integer or a string (a student id, say), got {type_name(seed)}")
    if isinstance(seed, str):
        if not seed.strip():
            raise ValueError("seed must not be an empty string")
        if seed.strip().isdigit():  # "17" and 17 are the same seed (a roster file holds text)
            return (0, int(seed.strip()))
        digest = hashlib.sha256(seed.strip().encode("utf-8")).digest()
        return (1,) + tuple(int.from_bytes(digest[i:i + 4], "big") for i in range(0, 16, 4))
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer or a string, got {int(seed)}")
    return (0, int(seed))


def _finite(value: Any) -> bool:
    try:
        if isinstance(value, str):
            return True
        if isinstance(value, (tuple, builtins.list)):
            return all(_finite(v) for v in value)
        return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
    except Exception:
        return False


@functools.lru_cache(maxsize=4096)
def _draw(label: str, key: tuple[int, ...]) -> Params:
    exercise = REGISTRY[label]
    rng = np.random.default_rng([zlib.crc32(label.encode("utf-8")), *key])
    book = exercise.inputs()
    for _attempt in range(200):
        params = book.replace(**exercise.vary(rng))
        if dict(params) == dict(book):
            continue
        try:
            value = exercise.reference(params)
        except Exception:
            continue
        if _finite(value):
            return params
    raise RuntimeError(f"{label}: could not draw valid inputs for this seed (a bug in the exercise's vary())")


def inputs_for(exercise: Exercise, seed: Any) -> Params:
    """The inputs of the book's version (``seed=None``) or of a variant."""
    if seed is None:
        return exercise.inputs()
    if not exercise.has_variants:
        raise NoVariants(exercise.label)
    key = seed_key(seed)
    return _draw(exercise.label, key)




def seed_literal(seed: Any) -> str:
    return json.dumps(seed.strip()) if isinstance(seed, str) else str(int(seed))
