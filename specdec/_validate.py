"""Argument checks shared by every public ``specdec`` function.

One place for validation means one wording for every error message: each
message names the parameter, the allowed range, and what was received.
Nothing here knows about speculative decoding; it only knows numbers.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = [
    "as_float_array",
    "check_probability",
    "check_nonnegative",
    "check_positive",
    "check_integer",
    "check_distribution",
    "check_fraction_open",
    "to_output",
    "is_scalar_input",
]


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(value: Any, name: str) -> np.ndarray:
    """Convert ``value`` to a float array or raise ``TypeError`` naming ``name``.

    Booleans, strings, ``None`` and objects that are not numbers are rejected:
    ``True`` silently meaning ``1.0`` hides mistakes.
    """
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {_describe(value)}")
    if isinstance(value, numbers.Number) and not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got complex {_describe(value)}")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - exotic objects
        raise TypeError(f"{name} must be numeric, got {_describe(value)}") from exc
    if arr.dtype == object:
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be numeric, got {_describe(value)}") from exc
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must be numeric, got booleans {_describe(value)}")
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real, got complex {_describe(value)}")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric, got {_describe(value)} (dtype {arr.dtype})")
    return arr.astype(float, copy=False)


def _reject_nan(arr: np.ndarray, name: str, allowed: str) -> None:
    if np.isnan(arr).any():
        raise ValueError(f"{name} must be {allowed}; got NaN")


def check_probability(value: Any, name: str = "alpha") -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is in [0, 1]."""
    arr = as_float_array(value, name)
    _reject_nan(arr, name, "in [0, 1]")
    if ((arr < 0) | (arr > 1)).any():
        bad = arr[(arr < 0) | (arr > 1)].flat[0]
        raise ValueError(f"{name} must be in [0, 1]; got {bad!r}")
    return arr


def check_fraction_open(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is in (0, 1)."""
    arr = as_float_array(value, name)
    _reject_nan(arr, name, "in (0, 1)")
    if ((arr <= 0) | (arr >= 1)).any():
        bad = arr[(arr <= 0) | (arr >= 1)].flat[0]
        raise ValueError(f"{name} must be in (0, 1); got {bad!r}")
    return arr


def check_nonnegative(value: Any, name: str, unit: str = "") -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is finite and >= 0."""
    arr = as_float_array(value, name)
    suffix = f" {unit}" if unit else ""
    _reject_nan(arr, name, f"a finite number >= 0{suffix}")
    if (~np.isfinite(arr)).any() or (arr < 0).any():
        bad = arr[(~np.isfinite(arr)) | (arr < 0)].flat[0]
        raise ValueError(f"{name} must be a finite number >= 0{suffix}; got {bad!r}")
    return arr


def check_positive(value: Any, name: str, unit: str = "") -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is finite and > 0."""
    arr = as_float_array(value, name)
    suffix = f" {unit}" if unit else ""
    _reject_nan(arr, name, f"a finite number > 0{suffix}")
    if (~np.isfinite(arr)).any() or (arr <= 0).any():
        bad = arr[(~np.isfinite(arr)) | (arr <= 0)].flat[0]
        raise ValueError(f"{name} must be a finite number > 0{suffix}; got {bad!r}")
    return arr


def check_integer(value: Any, name: str = "k", minimum: int = 1, maximum: int | None = None) -> np.ndarray:
    """Return ``value`` as an int64 array of whole numbers in [minimum, maximum].

    Integer-valued floats such as ``5.0`` are accepted; ``2.5`` is not.
    """
    rng = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    arr = as_float_array(value, name)
    _reject_nan(arr, name, f"a whole number {rng}")
    if (~np.isfinite(arr)).any():
        raise ValueError(f"{name} must be a whole number {rng}; got {arr[~np.isfinite(arr)].flat[0]!r}")
    if (arr != np.round(arr)).any():
        bad = arr[arr != np.round(arr)].flat[0]
        raise ValueError(f"{name} must be a whole number {rng}; got {bad!r}")
    if (arr < minimum).any() or (maximum is not None and (arr > maximum).any()):
        mask = arr < minimum if maximum is None else (arr < minimum) | (arr > maximum)
        bad = arr[mask].flat[0]
        raise ValueError(f"{name} must be a whole number {rng}; got {bad:g}")
    return arr.astype(np.int64)


def check_distribution(value: Any, name: str, atol: float = 1e-9) -> np.ndarray:
    """Return ``value`` as a float array whose last axis is a probability distribution.

    Every entry must be finite and >= 0, and each slice along the last axis
    must sum to 1 within ``atol``.
    """
    arr = as_float_array(value, name)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must be a probability vector (an array over the vocabulary, last axis); got shape {arr.shape}")
    _reject_nan(arr, name, "a probability distribution (entries >= 0 summing to 1)")
    if (~np.isfinite(arr)).any() or (arr < 0).any():
        raise ValueError(f"{name} must be a probability distribution: entries must be finite and >= 0")
    sums = arr.sum(axis=-1)
    if (np.abs(sums - 1.0) > atol).any():
        bad = np.asarray(sums)[np.abs(sums - 1.0) > atol].flat[0]
        raise ValueError(f"{name} must be a probability distribution summing to 1 along its last axis; a slice sums to {bad!r}")
    return arr


def is_scalar_input(*values: Any) -> bool:
    """True when every argument is a scalar (so the caller returns a Python number)."""
    return all(np.ndim(v) == 0 for v in values)


def to_output(result: Any, scalar: bool, kind: type = float) -> Any:
    """Return a Python ``float``/``int`` for scalar calls, else an ndarray."""
    if scalar:
        return kind(np.asarray(result).reshape(()))
    return np.asarray(result)
