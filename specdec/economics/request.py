"""A whole request: prefill, decode and a fixed setup cost.

Turns the per-token speedup of :mod:`specdec.economics` into a request-level one by Amdahl's
law, in shares (:func:`end_to_end_speedup`) or in times (:func:`request_speedup`), and gives the
output length at which a one-off setup cost pays back (:func:`break_even_output_length`). A
request's decode time is ``tpot * (n_output_tokens - 1)``: the first token comes with the prefill
(TTFT). Token counts may be fractional (means over requests); all times share one unit.

See chapters "When speculation does not help" and "When not to use it".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_nonnegative,
    check_positive,
    check_probability,
    describe,
    is_scalar_input,
    to_output,
)

__all__ = ["decode_time", "end_to_end_speedup", "request_speedup", "break_even_output_length", "setup_time_for_break_even"]


def decode_time(tpot: ArrayLike, mean_output_tokens: ArrayLike) -> float | np.ndarray:
    """Decode time of a request: every output token after the first costs one TPOT.

    ``decode_time = tpot * (mean_output_tokens - 1)``; the first token comes
    with the prefill and is counted in TTFT.

    Defined in chapter "The decision checklist".

    Parameters
    ----------
    tpot : float or array_like
        Time per output token after the first, > 0 (any time unit).
    mean_output_tokens : float or array_like
        Output tokens per request, >= 1.

    Returns
    -------
    float or numpy.ndarray
        Decode time, in the unit of ``tpot``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.request.decode_time(20.0, 101)
    2000.0
    """
    tp = check_positive(tpot, "tpot", "(time)")
    n = _check_output_tokens(mean_output_tokens, "mean_output_tokens")
    check_broadcast(tpot=tp, mean_output_tokens=n)
    return to_output(_decode_time(tp, n), is_scalar_input(tpot, mean_output_tokens))


def _decode_time(tp: float | np.ndarray, n: float | np.ndarray) -> float | np.ndarray:
    """:func:`decode_time` of validated inputs (no checks)."""
    return tp * (n - 1.0)


def _check_output_tokens(value: ArrayLike, name: str) -> np.ndarray:
    n = check_positive(value, name, "(tokens)")
    if (n < 1).any():
        raise ValueError(f"{name} must be >= 1 (the first token comes with the prefill); got {describe(n[n < 1].flat[0])}")
    return n


def end_to_end_speedup(decode_speedup: ArrayLike, prefill_share: ArrayLike,
                       setup_share: ArrayLike = 0.0) -> float | np.ndarray:
    r"""Speedup of a whole request when only its decode phase speeds up (Amdahl's law).

    With a share ``p`` of the request's plain time spent in prefill, the rest
    in decode, which speculation speeds up by ``S``, and a one-off cost of
    speculation worth a share ``o`` of the plain time:

    .. math:: S_\text{e2e} = \frac{1}{p + o + (1 - p) / S}

    With ``o = 0``, ``S_e2e`` lies between 1 and ``S``; it is ``S`` when
    ``p = 0`` and 1 when ``p = 1``, and it can never exceed ``1 / p`` however
    large ``S`` is. :func:`request_speedup` is the same law written in times.

    Defined in chapter "When not to use it".

    Parameters
    ----------
    decode_speedup : float or array_like
        Per-token decode speedup ``S``, > 0 (below 1 when speculation hurts).
    prefill_share : float or array_like
        Share of the plain request time spent in prefill, in [0, 1]
        (see :func:`specdec.serving.regimes.prefill_share`).
    setup_share : float or array_like, optional
        One-off cost of speculation per request as a share of the plain
        request time, >= 0; default 0.

    Returns
    -------
    float or numpy.ndarray
        End-to-end speedup.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.request.end_to_end_speedup(2.0, 0.5)      # 1 / (0.5 + 0.25)
    1.3333333333333333
    """
    s = check_positive(decode_speedup, "decode_speedup", "(ratio)")
    p = check_probability(prefill_share, "prefill_share")
    o = check_nonnegative(setup_share, "setup_share", "(share)")
    check_broadcast(decode_speedup=s, prefill_share=p, setup_share=o)
    return to_output(_amdahl(s, p, o), is_scalar_input(decode_speedup, prefill_share, setup_share))


def _amdahl(s: float | np.ndarray, p: float | np.ndarray, o: float | np.ndarray) -> float | np.ndarray:
    """Amdahl's law with a one-off share ``o``: the kernel both public functions call, unchecked."""
    return 1.0 / (p + o + (1.0 - p) / s)


def request_speedup(n_output_tokens: ArrayLike, speedup: ArrayLike, tpot: ArrayLike, t_setup: ArrayLike = 0.0,
                    ttft: ArrayLike = 0.0) -> float | np.ndarray:
    r"""Speedup of a whole request when speculation costs a fixed setup time.

    .. math:: S_\text{req}(N) = \frac{\text{TTFT} + (N-1)\,\text{TPOT}}
              {\text{TTFT} + T_\text{setup} + (N-1)\,\text{TPOT} / S}

    The first of the ``N`` output tokens comes with the prefill; speculation
    shortens only the ``N - 1`` decode tokens, by the per-token speedup
    ``S``, and pays ``t_setup`` once (for example the draft's own prefill of
    the prompt). Tokens are treated as a continuous amount: the last round's
    overshoot is ignored.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    n_output_tokens : float or array_like
        Output tokens per request, >= 1.
    speedup : float or array_like
        Per-token decode speedup ``S`` (for example :func:`specdec.economics.speedup`), > 0.
    tpot : float or array_like
        Plain time per output token, > 0.
    t_setup : float or array_like, optional
        One-off cost of speculation per request, >= 0, same unit as ``tpot``.
    ttft : float or array_like, optional
        Time to first token, >= 0 (0 compares decode phases only).

    Returns
    -------
    float or numpy.ndarray
        Ratio of plain to speculative request time; > 1 means faster.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.request.request_speedup(11, 2.0, 5.0, t_setup=5.0)
    1.6666666666666667
    """
    n = _check_output_tokens(n_output_tokens, "n_output_tokens")
    s = check_positive(speedup, "speedup")
    tp = check_positive(tpot, "tpot", "(time)")
    ts = check_nonnegative(t_setup, "t_setup", "(time)")
    tf = check_nonnegative(ttft, "ttft", "(time)")
    check_broadcast(n_output_tokens=n, speedup=s, tpot=tp, t_setup=ts, ttft=tf)
    return to_output(_request_speedup(n, s, tp, ts, tf), is_scalar_input(n_output_tokens, speedup, tpot, t_setup, ttft))


def _request_speedup(n: float | np.ndarray, s: float | np.ndarray, tp: float | np.ndarray, ts: float | np.ndarray,
                     tf: float | np.ndarray) -> np.ndarray:
    """:func:`request_speedup` of validated inputs (no checks)."""
    plain = tf + tp * (n - 1.0)
    safe = np.where(plain > 0, plain, 1.0)
    return np.where(plain > 0, _amdahl(s, tf / safe, ts / safe),
                    np.where(ts > 0, 0.0, 1.0))   # N = 1 and no TTFT: only the setup is left, or nothing


def break_even_output_length(t_setup: ArrayLike, tpot: ArrayLike, speedup: ArrayLike) -> float | np.ndarray:
    r"""Output length below which speculation makes a request slower.

    Speculation wins when ``t_setup + (N-1) TPOT / S < (N-1) TPOT``, i.e. for

    .. math:: N > N^* = 1 + \frac{T_\text{setup}}{\text{TPOT}\,(1 - 1/S)} .

    ``N*`` is ``inf`` when ``S <= 1`` (no length pays back the setup) and 1
    when there is no setup cost. It does not depend on TTFT, which both
    sides pay.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    t_setup : float or array_like
        One-off cost of speculation per request, >= 0.
    tpot : float or array_like
        Plain time per output token, > 0, same unit as ``t_setup``.
    speedup : float or array_like
        Per-token decode speedup, > 0.

    Returns
    -------
    float or numpy.ndarray
        ``N*`` in tokens (not rounded).

    Examples
    --------
    A 10 ms setup, 5 ms per token and a 2x per-token speedup: the setup is
    paid back after 4 decode tokens.

    >>> import specdec as sd
    >>> sd.request.break_even_output_length(10.0, 5.0, 2.0)
    5.0
    >>> sd.request.break_even_output_length(10.0, 5.0, 0.9)
    inf
    """
    ts = check_nonnegative(t_setup, "t_setup", "(time)")
    tp = check_positive(tpot, "tpot", "(time)")
    s = check_positive(speedup, "speedup")
    check_broadcast(t_setup=ts, tpot=tp, speedup=s)
    return to_output(_break_even_output_length(ts, tp, s), is_scalar_input(t_setup, tpot, speedup))


def _break_even_output_length(ts: float | np.ndarray, tp: float | np.ndarray, s: float | np.ndarray) -> np.ndarray:
    """:func:`break_even_output_length` of validated inputs (no checks)."""
    saving = 1.0 - 1.0 / s  # fraction of each decode token's time saved
    with np.errstate(divide="ignore", invalid="ignore"):
        n = 1.0 + ts / (tp * saving)
    return np.where(saving > 0, np.where(ts == 0, 1.0, n), np.inf)


def setup_time_for_break_even(n_output_tokens: ArrayLike, tpot: ArrayLike, speedup: ArrayLike) -> float | np.ndarray:
    r"""The setup cost that makes ``N`` output tokens the break-even length.

    Inverse of :func:`break_even_output_length`:
    ``T_setup = (N - 1) * TPOT * (1 - 1/S)``, clipped at 0 when ``S <= 1``.
    Use it to ask what setup cost a quoted threshold ("fewer than 10 tokens")
    implies.

    Defined in chapter "When speculation does not help".

    Parameters
    ----------
    n_output_tokens : float or array_like
        Break-even output length, >= 1.
    tpot : float or array_like
        Plain time per output token, > 0.
    speedup : float or array_like
        Per-token decode speedup, > 0.

    Returns
    -------
    float or numpy.ndarray
        Setup time in the unit of ``tpot``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.request.setup_time_for_break_even(5.0, 5.0, 2.0)
    10.0
    """
    n = _check_output_tokens(n_output_tokens, "n_output_tokens")
    tp = check_positive(tpot, "tpot", "(time)")
    s = check_positive(speedup, "speedup")
    check_broadcast(n_output_tokens=n, tpot=tp, speedup=s)
    out = np.maximum((n - 1.0) * tp * (1.0 - 1.0 / s), 0.0)
    return to_output(out, is_scalar_input(n_output_tokens, tpot, speedup))
