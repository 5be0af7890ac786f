"""Matrix products at small M: tile quantization, and how much arithmetic a weight read hides.

A tensor-core GEMM over ``M`` activation rows computes ``M`` rounded up to whole tiles
(:func:`padded_tokens`); the first tile's arithmetic runs under the weight read and only a share
``1 - o`` of the rest adds to the pass (:func:`overlapped_time`, :func:`gemm_time`).
:mod:`specdec.roofline.hardware` prices every calibrated pass with these; the ideal roofline is
``tile = 1`` with ``o = 1``.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import check_integer, check_nonnegative, check_positive, is_scalar_input, to_output

__all__ = ["padded_tokens", "tile_efficiency", "overlapped_time", "gemm_time"]


def padded_tokens(tokens: ArrayLike, tile: int = 64) -> float | np.ndarray:
    """Tokens a tiled GEMM computes: ``tokens`` rounded up to a whole number of ``tile``-row tiles.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    tokens : float or array_like
        Rows of the activation (batch times new tokens), >= 1.
    tile : int, optional
        Rows per tile, >= 1 (1: no quantization). Default 64.

    Returns
    -------
    float or numpy.ndarray
        ``tile * ceil(tokens / tile)``.

    Examples
    --------
    >>> from specdec import kernels
    >>> kernels.padded_tokens([1, 2, 64, 65, 130], 64).tolist()
    [64.0, 64.0, 64.0, 128.0, 192.0]
    """
    m = _check_rows(tokens)
    t = int(check_integer(tile, "tile", minimum=1))
    return to_output(_padded_tokens(m, t), is_scalar_input(tokens))


def _check_rows(tokens: ArrayLike) -> np.ndarray:
    """``tokens`` as a float array of rows >= 1, or the error naming ``tokens``."""
    m = np.asarray(check_positive(tokens, "tokens"), dtype=float)
    if (m < 1).any():
        raise ValueError(f"tokens must be >= 1; got {float(m[m < 1].flat[0])!r}")
    return m


def _padded_tokens(m: float | np.ndarray, t: int) -> float | np.ndarray:
    """:func:`padded_tokens` of validated rows ``m >= 1`` and tile ``t >= 1`` (no checks)."""
    return t * np.ceil(m / t - 1e-12)


def tile_efficiency(tokens: ArrayLike, tile: int = 64) -> float | np.ndarray:
    """Share of a tiled GEMM's multiply-adds that are useful: ``tokens / padded_tokens(tokens, tile)``.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    tokens : float or array_like
        >= 1.
    tile : int, optional
        Rows per tile, >= 1. Default 64.

    Returns
    -------
    float or numpy.ndarray
        In ``(0, 1]``.

    Examples
    --------
    >>> from specdec import kernels
    >>> kernels.tile_efficiency([1, 32, 64, 65], 64).tolist()
    [0.015625, 0.5, 1.0, 0.5078125]
    """
    m = _check_rows(tokens)
    t = int(check_integer(tile, "tile", minimum=1))
    return to_output(m / np.asarray(_padded_tokens(m, t)), is_scalar_input(tokens))


def overlapped_time(memory: ArrayLike, compute: ArrayLike, hidden: ArrayLike = 0.0,
                    overlap: float = 1.0) -> float | np.ndarray:
    r"""Time of a pass whose memory traffic and arithmetic partly overlap.

    .. math:: T = \max(t_m, t_c) + (1 - o)\,\min\bigl(t_m, \max(t_c - t_h, 0)\bigr)

    ``hidden`` (``t_h``) is arithmetic that always runs under the weight
    stream (the first tile of a tiled GEMM); ``overlap = 1`` is the
    roofline's ``max``, ``overlap = 0`` adds whatever is not hidden.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    memory, compute : float or array_like
        Seconds, >= 0.
    hidden : float or array_like, optional
        Seconds of compute that never add, >= 0. Default 0.
    overlap : float, optional
        In [0, 1]. Default 1.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Examples
    --------
    >>> from specdec import kernels
    >>> kernels.overlapped_time(10.0, 4.0, overlap=0.0), kernels.overlapped_time(10.0, 4.0, 4.0, 0.0)
    (14.0, 10.0)
    """
    tm = np.asarray(check_nonnegative(memory, "memory", "(seconds)"), dtype=float)
    tc = np.asarray(check_nonnegative(compute, "compute", "(seconds)"), dtype=float)
    th = np.asarray(check_nonnegative(hidden, "hidden", "(seconds)"), dtype=float)
    o = float(check_nonnegative(overlap, "overlap"))
    if o > 1:
        raise ValueError(f"overlap must be in [0, 1]; got {o!r}")
    out = _overlapped(tm, tc, th, o)
    return to_output(out, is_scalar_input(memory, compute, hidden))


def _overlapped(tm: float | np.ndarray, tc: float | np.ndarray, th: float | np.ndarray, o: float) -> float | np.ndarray:
    return np.maximum(tm, tc) + (1.0 - o) * np.minimum(tm, np.maximum(tc - th, 0.0))


def gemm_time(tokens: ArrayLike, params: float, bandwidth: float, flops: float, *, bytes_per_param: float = 2.0,
              tile: int = 64, overlap: float = 0.0) -> float | np.ndarray:
    """Seconds to multiply ``params`` weights by ``tokens`` activation rows with a tiled kernel.

    Reads the weights once (``params * bytes_per_param / bandwidth``),
    computes ``2 * params * padded_tokens(tokens, tile) / flops``, hides the
    first tile's arithmetic under the read and adds ``1 - overlap`` of the
    rest (:func:`overlapped_time`). Flat up to one tile, then in steps.

    Defined in chapter "A calibrated roofline".

    Parameters
    ----------
    tokens : float or array_like
        Rows, >= 1.
    params : float
        Weights, > 0.
    bandwidth, flops : float
        Achievable bytes/s and FLOP/s, > 0.
    bytes_per_param : float, optional
        Default 2.
    tile : int, optional
        Rows per tile. Default 64.
    overlap : float, optional
        In [0, 1]. Default 0.

    Returns
    -------
    float or numpy.ndarray
        Seconds.

    Examples
    --------
    Llama 3.1 8B's weights on an A100 at 77 % of 2,039 GB/s and 75 % of 312 TFLOPS:

    >>> from specdec import kernels
    >>> t = kernels.gemm_time([1, 16, 64, 65, 128, 256], 8.03e9, 0.77 * 2.039e12, 0.75 * 312e12)
    >>> [round(float(x) * 1e3, 2) for x in t]
    [10.23, 10.23, 10.23, 14.62, 14.62, 27.8]
    """
    n = float(check_positive(params, "params"))
    bw = float(check_positive(bandwidth, "bandwidth", "(bytes/s)"))
    fl = float(check_positive(flops, "flops", "(FLOP/s)"))
    bpp = float(check_positive(bytes_per_param, "bytes_per_param", "(bytes)"))
    t = int(check_integer(tile, "tile", minimum=1))
    pad = np.asarray(_padded_tokens(_check_rows(tokens), t), dtype=float)
    tm, tc = n * bpp / bw, 2.0 * n * pad / fl
    th = 2.0 * n * np.minimum(pad, t) / fl if t > 1 else 0.0 * pad
    o = float(check_nonnegative(overlap, "overlap"))
    if o > 1:
        raise ValueError(f"overlap must be in [0, 1]; got {o!r}")
    return to_output(_overlapped(tm, tc, th, o), is_scalar_input(tokens))
