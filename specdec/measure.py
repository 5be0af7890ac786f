"""Timing a matrix product on the reader's machine, next to its roofline prediction.

A decode step is, at heart, a weight matrix multiplied by one token vector
per sequence. This module times exactly that with numpy: a ``d x d`` weight
matrix times a ``d x t`` block of ``t`` token vectors, for ``t = 1, 2, ...,
64``. It also measures the machine's two roofline numbers (memory bandwidth
from a large array copy, peak FLOP/s from a large square matrix product),
so that the measured times can be plotted against what
:mod:`specdec.hardware`'s model predicts for this machine: a flat,
memory-bound region (reading the weights dominates) that bends into a
rising, compute-bound one at the *knee*.

Measurements vary from run to run and machine to machine; only the shape
is robust. Every timing function accepts a ``timer`` (default
:func:`time.perf_counter`) so the bookkeeping can be tested with a fake clock.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from ._validate import check_broadcast, check_instance, check_integer, check_positive, describe, is_scalar_input, to_output
from .hardware import Hardware

__all__ = [
    "DEFAULT_TOKENS",
    "matmul_bytes",
    "matmul_flops",
    "predict_matmul_time",
    "matmul_knee",
    "time_matmul",
    "measure_bandwidth",
    "measure_peak_flops",
    "measure_machine",
    "fit_roofline",
    "MatmulMeasurement",
    "measure_matmul",
]

#: Token counts timed by default: dense at the small end where the knee usually is.
DEFAULT_TOKENS = (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64)

_DTYPES = {"float32": np.float32, "float64": np.float64}


def _check_dtype(dtype) -> np.dtype:
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name not in _DTYPES:
        raise ValueError(f"dtype must be one of {sorted(_DTYPES)}; got {describe(dtype)}")
    return np.dtype(_DTYPES[name])


def _check_timer(timer):
    if not callable(timer):
        raise TypeError(f"timer must be a callable returning seconds, got {describe(timer)}")
    return timer


def _check_tokens(tokens) -> np.ndarray:
    t = check_integer(tokens, "tokens", minimum=1, maximum=4096)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"tokens must be a non-empty 1-D sequence of whole numbers >= 1; got shape {t.shape}")
    return t


def _time_repeats(fn, repeats: int, timer) -> np.ndarray:
    """Call ``fn`` once untimed (warm-up), then ``repeats`` timed calls; return the durations."""
    fn()
    out = np.empty(repeats)
    for i in range(repeats):  # the timed calls themselves cannot be vectorized
        start = timer()
        fn()
        out[i] = timer() - start
    return out


def matmul_bytes(d, tokens, bytes_per_elem=4):
    """Bytes a ``(d x d) @ (d x t)`` product must move: weights, inputs, outputs.

    ``bytes_per_elem * (d*d + 2*d*t)``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int or array_like of int
        Size of the square weight matrix, >= 1.
    tokens : int or array_like of int
        Token vectors ``t`` multiplied at once, >= 1.
    bytes_per_elem : float, optional
        Bytes per number, > 0 (4 for float32).

    Returns
    -------
    float or numpy.ndarray
        Bytes.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.matmul_bytes(1024, 1)
    4202496.0
    """
    dd = check_integer(d, "d", minimum=1).astype(float)
    t = check_integer(tokens, "tokens", minimum=1).astype(float)
    b = check_positive(bytes_per_elem, "bytes_per_elem", "(bytes)")
    check_broadcast(d=dd, tokens=t, bytes_per_elem=b)
    return to_output(b * (dd * dd + 2 * dd * t), is_scalar_input(d, tokens, bytes_per_elem))


def matmul_flops(d, tokens):
    """FLOPs of a ``(d x d) @ (d x t)`` product: ``2 * d * d * t``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int or array_like of int
        Size of the square weight matrix, >= 1.
    tokens : int or array_like of int
        Token vectors multiplied at once, >= 1.

    Returns
    -------
    float or numpy.ndarray
        FLOPs.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.matmul_flops(1024, 8)
    16777216.0
    """
    dd = check_integer(d, "d", minimum=1).astype(float)
    t = check_integer(tokens, "tokens", minimum=1).astype(float)
    check_broadcast(d=dd, tokens=t)
    return to_output(2 * dd * dd * t, is_scalar_input(d, tokens))


def predict_matmul_time(d, tokens, hardware, bytes_per_elem=4):
    r"""Roofline time of a ``(d x d) @ (d x t)`` product on ``hardware``, seconds.

    .. math:: T(t) = \max\left(\frac{b\,(d^2 + 2 d t)}{BW}, \frac{2 d^2 t}{F}\right)

    Flat while the weight read dominates, then linear in ``t``; the knee is
    near ``t = F / BW * b / 2`` tokens (:func:`specdec.hardware.ridge_batch`
    for a model with ``b`` bytes per parameter).

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int or array_like of int
        Size of the square weight matrix, >= 1.
    tokens : int or array_like of int
        Token vectors multiplied at once, >= 1.
    hardware : specdec.hardware.Hardware
        Bandwidth and FLOP/s of the machine (e.g. from :func:`measure_machine`).
    bytes_per_elem : float, optional
        Bytes per number, > 0. Default 4 (float32).

    Returns
    -------
    float or numpy.ndarray
        Seconds per product.

    Examples
    --------
    A machine with 20 GB/s and 200 GFLOP/s; float32 weights of 2048 x 2048:

    >>> import specdec as sd
    >>> hw = sd.hardware.Hardware(bandwidth=20e9, flops=200e9, memory=8e9)
    >>> t = sd.measure.predict_matmul_time(2048, [1, 64], hw)
    >>> (t * 1e3).round(2)
    array([0.84, 2.68])
    """
    check_instance(hardware, Hardware, "hardware")
    nbytes = matmul_bytes(d, tokens, bytes_per_elem)
    flops = matmul_flops(d, tokens)
    out = np.maximum(np.asarray(nbytes) / hardware.bandwidth, np.asarray(flops) / hardware.flops)
    return to_output(out, is_scalar_input(d, tokens, bytes_per_elem))


def matmul_knee(d, hardware, bytes_per_elem=4):
    r"""Tokens at which the predicted product time turns from memory- to compute-bound.

    Setting the two terms of :func:`predict_matmul_time` equal,
    ``b (d^2 + 2 d t) / BW = 2 d^2 t / F``, gives

    .. math:: t^\ast = \frac{b\,d^2 / BW}{2 d^2 / F - 2 b d / BW}

    slightly above the weights-only ridge ``F / BW * b / 2`` because the
    activations' bytes grow with ``t`` too. ``inf`` if the product never
    turns compute-bound (``d`` too small for the machine).

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int or array_like of int
        Size of the square weight matrix, >= 1.
    hardware : specdec.hardware.Hardware
    bytes_per_elem : float, optional
        Bytes per number, > 0. Default 4 (float32).

    Returns
    -------
    float or numpy.ndarray
        Tokens (real, not rounded).

    Examples
    --------
    >>> import specdec as sd
    >>> hw = sd.hardware.Hardware(bandwidth=20e9, flops=200e9, memory=8e9)
    >>> round(sd.measure.matmul_knee(2048, hw), 3)
    20.398
    """
    if not isinstance(hardware, Hardware):
        raise TypeError(f"hardware must be a specdec.hardware.Hardware, got {type(hardware).__name__}")
    dd = check_integer(d, "d", minimum=1).astype(float)
    b = check_positive(bytes_per_elem, "bytes_per_elem", "(bytes)")
    denom = 2 * dd * dd / hardware.flops - 2 * b * dd / hardware.bandwidth
    with np.errstate(divide="ignore"):
        out = np.where(denom > 0, b * dd * dd / hardware.bandwidth / np.where(denom > 0, denom, 1.0), np.inf)
    return to_output(out, is_scalar_input(d, bytes_per_elem))


def time_matmul(d=2048, tokens=DEFAULT_TOKENS, repeats=5, dtype="float32", seed=0, timer=time.perf_counter):
    """Measure seconds per ``(d x d) @ (d x t)`` product for each token count ``t``.

    For each ``t`` the product is run once untimed (warm-up) and then
    ``repeats`` times, each bracketed by two calls of ``timer``; the median
    of the ``repeats`` durations is returned. The weights are filled from
    ``np.random.default_rng(seed)``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int, optional
        Size of the square weight matrix, in [16, 16384]. Default 2048
        (16 MiB in float32: larger than most CPU caches, small enough to be quick).
    tokens : sequence of int, optional
        Token counts, each in [1, 4096]. Default :data:`DEFAULT_TOKENS`.
    repeats : int, optional
        Timed runs per token count, in [1, 1000]. Default 5.
    dtype : {"float32", "float64"}, optional
        Number format. Default ``"float32"``.
    seed : int, optional
        Seed of the random weights, >= 0.
    timer : callable, optional
        ``() -> seconds``; default :func:`time.perf_counter`.

    Returns
    -------
    numpy.ndarray
        Median seconds per product, one per token count (same order as ``tokens``).

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.time_matmul(d=64, tokens=[1, 2], repeats=3).shape
    (2,)
    """
    dd = int(check_integer(d, "d", minimum=16, maximum=16384))
    t = _check_tokens(tokens)
    reps = int(check_integer(repeats, "repeats", minimum=1, maximum=1000))
    dt = _check_dtype(dtype)
    sd_ = int(check_integer(seed, "seed", minimum=0))
    timer = _check_timer(timer)
    rng = np.random.default_rng(sd_)
    weights = rng.standard_normal((dd, dd)).astype(dt)
    block = rng.standard_normal((dd, int(t.max()))).astype(dt)
    result = np.empty(t.size)
    for i, n in enumerate(t):  # one measurement per token count
        x = np.ascontiguousarray(block[:, :n])
        out = np.empty((dd, n), dtype=dt)
        result[i] = np.median(_time_repeats(lambda: np.matmul(weights, x, out=out), reps, timer))
    return result


def measure_bandwidth(n_bytes=64e6, repeats=5, timer=time.perf_counter):
    """Memory bandwidth in bytes/s from copying a large array (best of ``repeats``).

    Counts ``2 * n_bytes`` per copy (one read, one write), as the STREAM
    "copy" benchmark does.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    n_bytes : float, optional
        Size of the copied array in bytes, in [1e5, 4e9]. Default 64 MB (well
        beyond the caches).
    repeats : int, optional
        Timed copies, in [1, 1000]. Default 5.
    timer : callable, optional
        ``() -> seconds``.

    Returns
    -------
    float
        Bytes per second.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.measure_bandwidth(n_bytes=1e6, repeats=2) > 0
    True
    """
    nb = float(check_positive(n_bytes, "n_bytes", "(bytes)"))
    if not 1e5 <= nb <= 4e9:
        raise ValueError(f"n_bytes must be in [1e5, 4e9] bytes; got {describe(nb)}")
    reps = int(check_integer(repeats, "repeats", minimum=1, maximum=1000))
    timer = _check_timer(timer)
    n = int(nb // 8)
    src = np.ones(n)
    dst = np.empty_like(src)
    best = _time_repeats(lambda: np.copyto(dst, src), reps, timer).min()
    return float(2 * n * 8 / best)


def measure_peak_flops(n=1024, repeats=3, dtype="float32", timer=time.perf_counter):
    """Peak FLOP/s from an ``n x n`` matrix product (best of ``repeats``).

    ``2 n^3`` FLOPs per product; a square product of this size is
    compute-bound on any current machine.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    n : int, optional
        Matrix size, in [16, 16384]. Default 1024.
    repeats : int, optional
        Timed products, in [1, 1000]. Default 3.
    dtype : {"float32", "float64"}, optional
        Number format. Default ``"float32"``.
    timer : callable, optional
        ``() -> seconds``.

    Returns
    -------
    float
        FLOP per second.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.measure_peak_flops(n=64, repeats=2) > 0
    True
    """
    nn = int(check_integer(n, "n", minimum=16, maximum=16384))
    reps = int(check_integer(repeats, "repeats", minimum=1, maximum=1000))
    dt = _check_dtype(dtype)
    timer = _check_timer(timer)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((nn, nn)).astype(dt)
    b = rng.standard_normal((nn, nn)).astype(dt)
    out = np.empty((nn, nn), dtype=dt)
    best = _time_repeats(lambda: np.matmul(a, b, out=out), reps, timer).min()
    return float(2.0 * nn**3 / best)


def _physical_memory() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
        return 8e9


def measure_machine(n_bytes=64e6, n=1024, repeats=3, dtype="float32", memory=None, timer=time.perf_counter):
    """This machine as a :class:`specdec.hardware.Hardware`: measured bandwidth and FLOP/s.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    n_bytes : float, optional
        Array size for :func:`measure_bandwidth`.
    n : int, optional
        Matrix size for :func:`measure_peak_flops`.
    repeats : int, optional
        Repeats for both, in [1, 1000].
    dtype : {"float32", "float64"}, optional
        Number format of the FLOP/s measurement.
    memory : float, optional
        Memory in bytes, > 0; default the physical memory reported by the OS.
    timer : callable, optional
        ``() -> seconds``.

    Returns
    -------
    specdec.hardware.Hardware
        Named ``"this machine (measured)"``.

    Examples
    --------
    >>> import specdec as sd
    >>> hw = sd.measure.measure_machine(n_bytes=1e6, n=64, repeats=1)
    >>> hw.name
    'this machine (measured)'
    """
    mem = _physical_memory() if memory is None else float(check_positive(memory, "memory", "(bytes)"))
    bw = measure_bandwidth(n_bytes, repeats, timer)
    fl = measure_peak_flops(n, repeats, dtype, timer)
    return Hardware(bandwidth=bw, flops=fl, memory=mem, name="this machine (measured)")


def fit_roofline(tokens, seconds):
    """Fit ``T(t) = max(T_flat, s * t)`` to measured times; return ``(T_flat, s, knee)``.

    Every split of the sorted token counts into a flat part (its mean is
    ``T_flat``) and a proportional part (least-squares slope through the
    origin ``s``) is tried at once, and the split with the smallest squared
    relative error wins (on ties, the longest flat part).
    ``knee = T_flat / s`` tokens. A flat part alone
    (no proportional points) gives ``s = 0`` and ``knee = inf``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    tokens : array_like of int
        Token counts (>= 1), at least 2, any order.
    seconds : array_like of float
        Measured times, > 0, same length.

    Returns
    -------
    tuple of float
        ``(T_flat seconds, s seconds per token, knee tokens)``.

    Examples
    --------
    >>> import numpy as np, specdec as sd
    >>> t = np.array([1, 2, 4, 8, 16, 32, 64])
    >>> sd.measure.fit_roofline(t, np.maximum(1.0, t / 10))
    (1.0, 0.1, 10.0)
    """
    t = _check_tokens(tokens).astype(float)
    s = check_positive(seconds, "seconds", "(seconds)")
    if s.shape != t.shape:
        raise ValueError(f"seconds must have the same length as tokens ({t.size}); got shape {s.shape}")
    if t.size < 2:
        raise ValueError("tokens must hold at least 2 token counts to fit a roofline")
    order = np.argsort(t, kind="stable")
    t, s = t[order], s[order]
    n = t.size
    splits = np.arange(1, n + 1)[:, None]            # first `split` points are flat
    idx = np.arange(n)[None, :]
    flat = idx < splits
    n_flat = flat.sum(axis=1)
    t_flat = (s * flat).sum(axis=1) / n_flat
    rest = ~flat
    denom = (t * t * rest).sum(axis=1)
    slope = np.where(denom > 0, (t * s * rest).sum(axis=1) / np.where(denom > 0, denom, 1.0), 0.0)
    model = np.where(flat, t_flat[:, None], slope[:, None] * t)
    err = (((model - s) / s) ** 2).sum(axis=1)
    best = n - 1 - int(np.argmin(err[::-1]))  # on ties, the longest flat part
    tf, sl = float(t_flat[best]), float(slope[best])
    return tf, sl, (tf / sl if sl > 0 else float("inf"))


@dataclass(frozen=True)
class MatmulMeasurement:
    """Measured matrix-product times on this machine and their roofline prediction.

    Defined in chapter "Measure your machine".

    Attributes
    ----------
    d : int
        Weight matrix size.
    dtype : str
        Number format.
    tokens : numpy.ndarray
        Token counts timed.
    seconds : numpy.ndarray
        Median measured seconds per product.
    hardware : specdec.hardware.Hardware
        The machine's measured bandwidth and FLOP/s.
    predicted : numpy.ndarray
        :func:`predict_matmul_time` for ``tokens`` on ``hardware``.
    """

    d: int
    dtype: str
    tokens: np.ndarray
    seconds: np.ndarray
    hardware: Hardware
    predicted: np.ndarray

    @property
    def bytes_per_elem(self) -> int:
        """Bytes per number of ``dtype``."""
        return int(np.dtype(self.dtype).itemsize)

    @property
    def predicted_knee(self) -> float:
        """Tokens at which the prediction turns compute-bound (bytes term = FLOPs term)."""
        return float(matmul_knee(self.d, self.hardware, self.bytes_per_elem))

    @property
    def measured_fit(self) -> tuple:
        """:func:`fit_roofline` of the measured times: ``(T_flat, s, knee)``."""
        return fit_roofline(self.tokens, self.seconds)

    @property
    def seconds_per_token(self) -> np.ndarray:
        """Measured seconds per product divided by the tokens it handled."""
        return self.seconds / self.tokens


def measure_matmul(d=2048, tokens=DEFAULT_TOKENS, repeats=5, dtype="float32", hardware=None, seed=0,
                   timer=time.perf_counter):
    """Time the products and predict them from this machine's measured roofline.

    :func:`time_matmul` for the times; :func:`measure_machine` (unless
    ``hardware`` is given) for bandwidth and FLOP/s; :func:`predict_matmul_time`
    for the prediction. With the defaults it takes a few seconds at most.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d, tokens, repeats, dtype, seed, timer
        As in :func:`time_matmul`.
    hardware : specdec.hardware.Hardware, optional
        Use these numbers instead of measuring the machine.

    Returns
    -------
    MatmulMeasurement

    Examples
    --------
    >>> import specdec as sd
    >>> hw = sd.hardware.Hardware(bandwidth=20e9, flops=200e9, memory=8e9)
    >>> m = sd.measure.measure_matmul(d=64, tokens=[1, 2, 4], repeats=2, hardware=hw)
    >>> m.seconds.shape, m.predicted.shape
    ((3,), (3,))
    """
    dt = _check_dtype(dtype)
    t = _check_tokens(tokens)
    timer = _check_timer(timer)
    if hardware is None:
        hardware = measure_machine(dtype=dt.name, timer=timer)
    elif not isinstance(hardware, Hardware):
        raise TypeError(f"hardware must be a specdec.hardware.Hardware or None, got {type(hardware).__name__}")
    seconds = time_matmul(d, t, repeats, dt.name, seed, timer)
    predicted = np.asarray(predict_matmul_time(int(d), t, hardware, dt.itemsize), dtype=float)
    return MatmulMeasurement(d=int(d), dtype=dt.name, tokens=t, seconds=seconds, hardware=hardware,
                             predicted=predicted)
