"""Argument checks shared by every public ``specdec`` function.

One place for validation means one wording for every error message: each
message names the parameter, the allowed range, and what was received,
printed as a plain number ("got 1.5", never "got np.float64(1.5)").
Nothing here knows about speculative decoding; it only knows numbers,
arrays, probability vectors and random generators.

What counts as a number: Python ``int`` (of any size), ``float``,
:class:`fractions.Fraction`, :class:`decimal.Decimal`, numpy scalars, 0-d
arrays, and lists or arrays of these. Booleans, strings, ``None`` and
complex numbers are refused with a ``TypeError``. Every check converts to
float64; results are computed in float64.
"""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "MAX_ELEMENTS",
    "describe",
    "as_float_array",
    "check_probability",
    "check_nonnegative",
    "check_positive",
    "check_tokens_per_round",
    "check_integer",
    "check_whole",
    "check_count",
    "check_distribution",
    "check_distribution_pair",
    "distribution_tolerance",
    "check_fraction_open",
    "check_broadcast",
    "check_size",
    "check_instance",
    "check_bool",
    "check_scalar",
    "check_choice",
    "check_rng",
    "to_output",
    "is_scalar_input",
]

#: Largest number of array elements a function allocates because of an
#: argument (a draft length, a number of rounds, a vocabulary size): 2e7
#: float64 values are 160 MB. Larger requests are refused with a message that
#: names the argument instead of exhausting the reader's memory.
MAX_ELEMENTS = 20_000_000

def _number_text(x: Any) -> str:
    """A plain rendering of one number: ``1.5``, ``3``, ``nan``, ``1e+20``."""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, numbers.Integral):
        text = str(int(x))
        return text if len(text) <= 25 else f"{float(x):.6g}"
    if isinstance(x, decimal.Decimal):
        return str(x)
    if isinstance(x, numbers.Rational) and not isinstance(x, numbers.Integral):
        return str(x)
    if isinstance(x, (numbers.Real, np.floating)):
        return repr(float(x))
    if isinstance(x, (complex, np.complexfloating)):
        return str(complex(x))
    return repr(x)


def describe(value: Any) -> str:
    """Render ``value`` for an error message, as plain numbers.

    Numpy scalars and 0-d arrays print as the number (``1.5``, not
    ``np.float64(1.5)``), small arrays and lists as ``[1.5, 2.0]``, large ones
    by their shape, strings with quotes, other objects by their ``repr``
    (shortened to 60 characters).

    Examples
    --------
    >>> import numpy as np
    >>> from specdec._validate import describe
    >>> describe(np.float64(1.5)), describe(np.array(3)), describe([np.float32(0.5), 2])
    ('1.5', '3', '[0.5, 2]')
    """
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        text = repr(str(value) if isinstance(value, np.str_) else value)
    elif isinstance(value, (numbers.Number, np.generic)):
        text = _number_text(value)
    elif isinstance(value, np.ndarray) and value.ndim == 0:
        text = _number_text(value[()])
    elif isinstance(value, (np.ndarray, list, tuple)):
        try:
            flat = np.asarray(value, dtype=object).reshape(-1)
            shape = np.shape(value)
        except (ValueError, TypeError):
            flat, shape = None, None
        if flat is not None and shape is not None and flat.size <= 8 and len(shape) <= 1:
            text = "[" + ", ".join(_number_text(x) for x in flat) + "]"
        elif shape is not None:
            text = f"an array of shape {shape}"
        else:
            text = repr(value)
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_float_array(value: Any, name: str) -> np.ndarray:
    """Convert ``value`` to a float64 array or raise ``TypeError`` naming ``name``.

    Booleans, strings, ``None``, complex numbers and objects that are not
    numbers are rejected: ``True`` silently meaning ``1.0`` hides mistakes.
    ``Decimal`` and ``Fraction`` values and Python integers beyond the range
    of int64 are converted to the nearest float64.
    """
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {describe(value)}")
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"{name} must be a real number, got the complex number {describe(value)}")
    try:
        arr = np.asarray(value)
    except Exception as exc:  # ragged lists and exotic objects
        raise TypeError(f"{name} must be a number or a rectangular array of numbers, got {describe(value)}") from exc
    if arr.dtype == object:
        flat = arr.reshape(-1)
        for item in flat:
            if isinstance(item, (bool, np.bool_)) or item is None or isinstance(item, (str, bytes)):
                raise TypeError(f"{name} must contain only real numbers, got {describe(item)} in {describe(value)}")
            if isinstance(item, (complex, np.complexfloating)):
                raise TypeError(f"{name} must be real, got the complex number {describe(item)}")
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError, OverflowError) as exc:
            raise TypeError(f"{name} must be numeric, got {describe(value)}") from exc
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must be numeric, got booleans {describe(value)}")
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real, got complex numbers {describe(value)}")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric, got {describe(value)} (dtype {arr.dtype})")
    return arr.astype(np.float64, copy=False)


def _first_bad(arr: np.ndarray, mask: np.ndarray) -> str:
    return describe(arr[mask].flat[0])


def _first_bad_whole(arr: np.ndarray, mask: np.ndarray) -> str:
    """Like _first_bad, but a whole number prints without a decimal point (``0``, not ``0.0``)."""
    x = float(arr[mask].flat[0])
    return describe(int(x)) if math.isfinite(x) and x == round(x) and abs(x) < 1e18 else describe(x)


def _reject_nan(arr: np.ndarray, name: str, allowed: str) -> None:
    if np.isnan(arr).any():
        raise ValueError(f"{name} must be {allowed}; got nan")


def check_probability(value: Any, name: str = "alpha") -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is in [0, 1]."""
    arr = as_float_array(value, name)
    _reject_nan(arr, name, "in [0, 1]")
    bad = (arr < 0) | (arr > 1)
    if bad.any():
        raise ValueError(f"{name} must be in [0, 1]; got {_first_bad(arr, bad)}")
    return arr


def check_fraction_open(value: Any, name: str) -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is in (0, 1)."""
    arr = as_float_array(value, name)
    _reject_nan(arr, name, "in (0, 1)")
    bad = (arr <= 0) | (arr >= 1)
    if bad.any():
        raise ValueError(f"{name} must be in (0, 1); got {_first_bad(arr, bad)}")
    return arr


def check_nonnegative(value: Any, name: str, unit: str = "") -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is finite and >= 0."""
    arr = as_float_array(value, name)
    suffix = f" {unit}" if unit else ""
    _reject_nan(arr, name, f"a finite number >= 0{suffix}")
    bad = (~np.isfinite(arr)) | (arr < 0)
    if bad.any():
        raise ValueError(f"{name} must be a finite number >= 0{suffix}; got {_first_bad(arr, bad)}")
    return arr


def check_positive(value: Any, name: str, unit: str = "") -> np.ndarray:
    """Return ``value`` as a float array, checking every entry is finite and > 0."""
    arr = as_float_array(value, name)
    suffix = f" {unit}" if unit else ""
    _reject_nan(arr, name, f"a finite number > 0{suffix}")
    bad = (~np.isfinite(arr)) | (arr <= 0)
    if bad.any():
        raise ValueError(f"{name} must be a finite number > 0{suffix}; got {_first_bad(arr, bad)}")
    return arr


def check_tokens_per_round(value: Any, name: str = "expected_tokens") -> np.ndarray:
    """Return ``value`` as a float array of tokens per round: finite and >= 1 (the target's own token)."""
    arr = check_positive(value, name, "(tokens per round)")
    bad = arr < 1.0
    if bad.any():
        raise ValueError(f"{name} must be >= 1 token per round (the target's own token); got {_first_bad(arr, bad)}")
    return arr


def _whole_checked(value: Any, name: str, minimum: int, maximum: int | None) -> np.ndarray:
    rng = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    arr = as_float_array(value, name)
    _reject_nan(arr, name, f"a whole number {rng}")
    bad = ~np.isfinite(arr)
    if bad.any():
        raise ValueError(f"{name} must be a whole number {rng}; got {_first_bad_whole(arr, bad)}")
    bad = arr != np.round(arr)
    if bad.any():
        raise ValueError(f"{name} must be a whole number {rng}; got {_first_bad_whole(arr, bad)}")
    bad = arr < minimum if maximum is None else (arr < minimum) | (arr > maximum)
    if bad.any():
        raise ValueError(f"{name} must be a whole number {rng}; got {_first_bad_whole(arr, bad)}")
    return arr


def check_integer(value: Any, name: str = "k", minimum: int = 1, maximum: int | None = None) -> np.ndarray:
    """Return ``value`` as an int64 array of whole numbers in [minimum, maximum].

    Integer-valued floats such as ``5.0`` are accepted; ``2.5`` is not. Use it
    where the number sets a size or an index; whole numbers beyond int64
    (``10**20``) are refused here with a message naming ``name``. Formulas that
    only do arithmetic with the number use :func:`check_whole`, which accepts
    any size.
    """
    arr = _whole_checked(value, name, minimum, maximum)
    bad = arr > 2.0**62
    if bad.any():
        raise ValueError(f"{name} must be a whole number >= {minimum} and at most 2**62 here (it sets a size or an "
                         f"index); got {_first_bad_whole(arr, bad)}")
    return arr.astype(np.int64)


def check_whole(value: Any, name: str = "k", minimum: int = 1, maximum: int | None = None) -> np.ndarray:
    """Return ``value`` as a float64 array of whole numbers in [minimum, maximum].

    Like :func:`check_integer` but without the int64 limit: ``10**20`` is a
    valid draft length for a formula (E[L] tends to its limit). Whole numbers
    above 2**53 are rounded to the nearest float64, which is what the
    formulas compute with anyway.
    """
    return _whole_checked(value, name, minimum, maximum)


def check_count(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """Return a single whole number >= ``minimum`` as a Python ``int``.

    For arguments that set a count or a size (``n_rounds``, ``vocab``):
    arrays are refused with a message naming ``name``.
    """
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a single whole number >= {minimum}; got an array of shape {np.shape(value)}")
    return int(check_integer(value, name, minimum=minimum, maximum=maximum))


def check_scalar(value: Any, name: str, check: Callable[..., Any], *args: Any, **kwargs: Any) -> np.ndarray:
    """Apply ``check(value, name, *args, **kwargs)`` to a value that must be a single number."""
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a single number here; got an array of shape {np.shape(value)}")
    return check(value, name, *args, **kwargs)


def check_size(n_elements: float, name: str, what: str = "the result") -> None:
    """Refuse to allocate more than :data:`MAX_ELEMENTS` values because of ``name``.

    ``n_elements`` is the number of values the call would allocate; ``what``
    says what would be allocated.
    """
    if n_elements > MAX_ELEMENTS:
        raise ValueError(f"{name} is too large here: {what} would hold {float(n_elements):.3g} values, more than "
                         f"the limit of {MAX_ELEMENTS:,} (specdec._validate.MAX_ELEMENTS)")


def check_broadcast(**arrays: Any) -> tuple:
    """Return the broadcast shape of the named arrays, or raise naming the ones that clash.

    ``check_broadcast(alpha=a, k=kk)``; the message names each parameter with
    its shape instead of numpy's bare "operands could not be broadcast".
    """
    shape: tuple = ()
    seen: list[str] = []
    for key, value in arrays.items():
        s = np.shape(value)
        try:
            shape = np.broadcast_shapes(shape, s)
        except ValueError:
            others = ", ".join(f"{k} {np.shape(arrays[k])}" for k in seen if np.shape(arrays[k]) != ())
            raise ValueError(f"the shapes of the array arguments do not broadcast together: {key} has shape {s}, "
                             f"which does not match {others} (numpy broadcasting rules)") from None
        seen.append(key)
    return shape


def distribution_tolerance(dtype: Any, vocab: int) -> float:
    r"""How far from 1 a probability vector of ``dtype`` over ``vocab`` tokens may sum.

    .. math:: \text{tol} = \max\left(10^{-9},\;
              \varepsilon_\text{dtype}\,(2 + \lceil \log_2 V \rceil)
              + V\,s_\text{dtype}\right)

    Why: a softmax stored in a low-precision dtype is rounded entry by entry
    (at most :math:`\varepsilon/2` relative each, so at most
    :math:`\varepsilon/2` on the sum) after dividing by a normalizing sum that
    numpy, PyTorch and FlashInfer compute by pairwise or tree reduction, whose
    relative error is at most about :math:`\lceil \log_2 V \rceil\,\varepsilon/2`;
    the factor 2 is headroom. Entries below the dtype's smallest normal number
    are rounded to absolute multiples of the smallest subnormal :math:`s`, at
    most :math:`s/2` each. Float32 softmaxes over 2 to 200,000 tokens measure
    at most 2 epsilons in the tests, against 3 to 20 allowed (2.4e-6 at
    200,000 tokens); float16 carries so little precision that over 200,000
    tokens the tolerance is about 3 % of the mass. The floor of
    1e-9 keeps float64 vectors typed with ten decimals valid. A sum computed
    by a plain sequential loop in low precision can be off by much more
    (hundreds of epsilons at V = 200,000): such a vector is refused, and
    renormalizing it (``p / p.sum()``) fixes it.

    Parameters
    ----------
    dtype : numpy dtype or type
        The dtype the vector arrived in (float16, float32, float64; anything
        else counts as float64).
    vocab : int
        Length of the vocabulary axis, >= 1.

    Returns
    -------
    float
        The tolerance on ``|sum - 1|``.

    Examples
    --------
    >>> import numpy as np
    >>> from specdec._validate import distribution_tolerance
    >>> float(distribution_tolerance(np.float32, 10) / np.finfo(np.float32).eps)
    6.0
    """
    dt = np.dtype(dtype)
    if dt.kind != "f" or dt.itemsize >= 8:
        dt = np.dtype(np.float64)
    info = np.finfo(dt)
    v = max(int(vocab), 1)
    tol = float(info.eps) * (2 + math.ceil(math.log2(v))) + v * float(info.smallest_subnormal)
    return max(1e-9, tol)


def check_distribution(value: Any, name: str, atol: float | None = None) -> np.ndarray:
    """Return ``value`` as a float64 array whose last axis is a probability distribution.

    Every entry must be finite and >= 0, and each slice along the last axis
    must sum to 1 within ``atol`` (default: :func:`distribution_tolerance` of
    the dtype the vector arrived in and its length, so a float32 or float16
    softmax from a serving stack is accepted). The result is float64; a
    vector that arrived in a lower precision is renormalized in float64 (it
    sums to 1 only to its own dtype's precision), so code that checks it
    again, or sums it, sees a float64 distribution.
    """
    try:   # the dtype the vector arrived in (a numpy array, a torch tensor, a list of Python floats...)
        src_dtype = np.asarray(value).dtype if not isinstance(value, (str, bytes)) else None
    except Exception:
        src_dtype = None
    if src_dtype is not None and src_dtype.kind != "f":
        src_dtype = None
    arr = as_float_array(value, name)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise ValueError(f"{name} must be a probability vector (an array over the vocabulary, last axis); "
                         f"got shape {arr.shape}")
    _reject_nan(arr, name, "a probability distribution (entries >= 0 summing to 1)")
    if (~np.isfinite(arr)).any() or (arr < 0).any():
        bad = (~np.isfinite(arr)) | (arr < 0)
        raise ValueError(f"{name} must be a probability distribution: entries must be finite and >= 0; "
                         f"got {_first_bad(arr, bad)}")
    tol = distribution_tolerance(src_dtype if src_dtype is not None else np.float64, arr.shape[-1]) \
        if atol is None else float(atol)
    sums = arr.sum(axis=-1)
    off = np.abs(sums - 1.0) > tol
    if off.any():
        bad = np.asarray(sums)[off].flat[0]
        kind = np.dtype(src_dtype).name if src_dtype is not None else "float64"
        raise ValueError(f"{name} must be a probability distribution summing to 1 along its last axis; a slice sums "
                         f"to {describe(bad)} (off by {abs(float(bad) - 1.0):.3g}; the tolerance for {kind} over "
                         f"{arr.shape[-1]} tokens is {tol:.3g}); renormalize it with p / p.sum(axis=-1, keepdims=True)")
    if src_dtype is not None and np.finfo(src_dtype).eps > np.finfo(np.float64).eps and atol is None:
        # a float32/float16 softmax is 1 only to its own precision: renormalized in float64, it is a
        # distribution to float64 precision, so every later check and sum sees one
        arr = arr / sums[..., None]
    return arr


def check_distribution_pair(p: Any, q: Any, p_name: str = "p", q_name: str = "q",
                            broadcast: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Validate two probability vectors over the same vocabulary (last axis); return them as float64.

    With ``broadcast`` (the default) their shapes must also broadcast together.
    """
    pa = check_distribution(p, p_name)
    qa = check_distribution(q, q_name)
    if pa.shape[-1] != qa.shape[-1]:
        raise ValueError(f"{p_name} and {q_name} must cover the same vocabulary: last axes "
                         f"{pa.shape[-1]} and {qa.shape[-1]} differ")
    if broadcast:
        check_broadcast(**{p_name: pa, q_name: qa})
    return pa, qa


def check_instance(value: Any, cls: type, name: str) -> Any:
    """Return ``value`` if it is a ``cls``, else raise ``TypeError`` naming ``name`` and the class."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a {cls.__module__}.{cls.__qualname__}, got {type(value).__name__}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """Return ``value`` as a ``bool``; only ``True`` and ``False`` (or numpy booleans) are accepted."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def check_choice(value: Any, name: str, choices: Any) -> Any:
    """Return ``value`` if it is one of ``choices`` (strings), else raise naming them."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}; got {describe(value)}")
    return value


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Accept a :class:`numpy.random.Generator` or an integer seed; refuse ``None`` (unseeded)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"{name} as a seed must be a whole number >= 0; got {describe(rng)}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"{name} must be a numpy.random.Generator (e.g. np.random.default_rng(0)) or an "
        f"integer seed; got {type(rng).__name__} (unseeded randomness is not allowed)"
    )


def is_scalar_input(*values: Any) -> bool:
    """True when every argument is a scalar (so the caller returns a Python number)."""
    return all(np.ndim(v) == 0 for v in values)


def to_output(result: Any, scalar: bool, kind: type = float) -> Any:
    """Return a Python ``float``/``int`` for scalar calls, else an ndarray."""
    if scalar:
        return kind(np.asarray(result).reshape(()))
    return np.asarray(result)
