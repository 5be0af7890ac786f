"""Quantities as people write them: durations with a unit, and the precision a printed number stands for.

A private helper shared by :mod:`specdec.decision` and :mod:`specdec.cli`
(public names are re-exported by :mod:`specdec.decision`):

* :func:`parse_time` reads ``"12ms"``, ``"1.1 ms"``, ``"850us"``, ``"0.012s"``
  into a number in a chosen unit (``TIME_UNITS``);
* :func:`printed_half_unit` says how far a number printed as ``3.1`` may be
  from the value it stands for (0.05), so that two measurements are called
  contradictory only beyond their rounding;
* :func:`format_number` writes a number for a report sentence at a few
  significant digits, never with an exponent for everyday sizes.

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

import numpy as np

from specdec._validate import describe

__all__ = ["TIME_UNITS", "parse_time", "printed_half_unit", "format_number"]

#: Time units accepted in strings such as ``"12ms"``, as powers of ten of a second.
TIME_UNITS = {"s": 0, "ms": -3, "us": -6, "\u00b5s": -6, "\u03bcs": -6, "ns": -9}

_TIME_RE = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan)\s*([^\s\d.+-][^\s]*)?\s*$",
                      re.IGNORECASE)


def parse_time(value: Any, name: str = "time", unit: str = "ms") -> float:
    """A duration as a number in ``unit``: from a string with a unit, or a number already in ``unit``.

    Strings carry their unit: ``"12ms"``, ``"1.1 ms"``, ``"0.012s"``,
    ``"850us"`` (also ``"850µs"``), ``"3e-3 s"``. Numbers are taken to be in
    ``unit`` already. The result is checked to be finite; the sign is left
    to the caller.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    value : str or float
        The duration.
    name : str
        Parameter name for error messages.
    unit : str
        The unit of the result (and of bare numbers): one of ``TIME_UNITS``.

    Returns
    -------
    float
        The duration in ``unit``.

    Examples
    --------
    >>> from specdec.decision import parse_time
    >>> parse_time("1.1ms"), parse_time("850us"), parse_time(12.0)
    (1.1, 0.85, 12.0)
    >>> parse_time("0.5 s", unit="s")
    0.5
    """
    if not isinstance(unit, str) or unit not in TIME_UNITS:
        raise ValueError(f"unit must be one of {', '.join(TIME_UNITS)}; got {describe(unit)}")
    if isinstance(value, str):
        match = _TIME_RE.match(value)
        if match is None:
            raise ValueError(f"{name} must be a duration such as '12ms' (units {', '.join(TIME_UNITS)}); "
                             f"got {value!r}")
        number, src = match.group(1), match.group(2)
        if src is None:
            raise ValueError(f"{name} needs a unit: {value!r} could be seconds or milliseconds "
                             f"(write e.g. '{number}ms'; units {', '.join(TIME_UNITS)})")
        if src not in TIME_UNITS:
            raise ValueError(f"{name} has an unknown unit {src!r} in {value!r} (use {', '.join(TIME_UNITS)})")
        x = float(number)
        if not math.isfinite(x):
            raise ValueError(f"{name} must be a finite duration; got {value!r}")
        shift = TIME_UNITS[src] - TIME_UNITS[unit]
        return x if shift == 0 else (x * 10.0 ** shift if shift > 0 else x / 10.0 ** (-shift))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a duration: a number in {unit} or a string such as '12ms'; "
                        f"got {describe(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number; got {describe(x)}")
    return x


def printed_half_unit(x: float) -> float:
    """Half a unit in the last decimal of ``x`` as written (its shortest repr).

    ``3.1`` was printed with one decimal, so it stands for [3.05, 3.15]; a
    computed float with 17 digits stands for itself (a 1e-9 relative floor).

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    x : float
        The number as given.

    Returns
    -------
    float
        Half a unit of its last printed decimal.

    Examples
    --------
    >>> from specdec._units import printed_half_unit
    >>> printed_half_unit(3.1), printed_half_unit(0.62), printed_half_unit(12.0)
    (0.05, 0.005, 0.05)
    """
    text = repr(float(x))
    if "e" in text or "E" in text:
        mantissa, exponent = text.lower().split("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        half = 0.5 * 10.0 ** (int(exponent) - decimals)
    else:
        decimals = len(text.split(".")[1]) if "." in text else 0
        half = 0.5 * 10.0 ** (-decimals)
    return max(half, 1e-9 * abs(x))


def format_number(x: float, digits: int = 3) -> str:
    """A number for a report sentence: ``digits`` significant digits, no exponent for everyday sizes.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    x : float
        The number.
    digits : int
        Significant digits (numbers of ``10**digits`` and more print whole, with
        thousands separators).

    Returns
    -------
    str

    Examples
    --------
    >>> from specdec._units import format_number
    >>> format_number(18.4), format_number(0.0004567), format_number(27600.0), format_number(float("inf"))
    ('18.4', '0.000457', '27,600', 'infinite')
    """
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "infinite"
    if abs(x) >= 10 ** digits:
        return f"{x:,.0f}"
    text = f"{x:.{digits}g}"
    if "e" in text:
        text = f"{x:.{digits + 3}f}".rstrip("0").rstrip(".")
    return text
