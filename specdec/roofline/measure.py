"""Timing a matrix product on the reader's machine, next to its roofline prediction.

:func:`measure_matmul` times a ``d x d`` weight matrix times ``t = 1 .. 64`` token vectors with
numpy, with weights several times larger than the last-level cache (:func:`last_level_cache`), and
measures the machine's bandwidth (:func:`measure_bandwidth`) and FLOP/s with the same BLAS thread
count (:func:`blas_threads`, :func:`blas_thread_limit`); :meth:`MatmulMeasurement.check` says
whether the times agree with :func:`predict_matmul_time`. Timing functions take a ``timer``
(default :func:`time.perf_counter`).
"""

from __future__ import annotations

import math
import os
import textwrap
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import (
    check_broadcast,
    check_instance,
    check_integer,
    check_positive,
    describe,
    is_scalar_input,
    to_output,
)
from specdec.roofline._machine import (
    CACHE_FACTOR,
    FALLBACK_CACHE_BYTES,
    BlasThreads,
    CacheSize,
    _blas_thread_limit,
    blas_thread_limit,
    blas_threads,
    check_threads,
    last_level_cache,
    matrix_size_for_cache,
)
from specdec.roofline.hardware import Hardware

__all__ = [
    "DEFAULT_TOKENS",
    "CACHE_FACTOR",
    "FALLBACK_CACHE_BYTES",
    "BOUND_TOLERANCE",
    "matmul_bytes",
    "matmul_flops",
    "predict_matmul_time",
    "matmul_knee",
    "CacheSize",
    "last_level_cache",
    "matrix_size_for_cache",
    "BlasThreads",
    "blas_threads",
    "blas_thread_limit",
    "time_matmul",
    "measure_bandwidth",
    "measure_peak_flops",
    "measure_machine",
    "fit_roofline",
    "RooflineCheck",
    "MatmulMeasurement",
    "measure_matmul",
]

#: Token counts timed by default: dense at the small end where the knee usually is.
DEFAULT_TOKENS = (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64)
#: A measured point counts as below the roofline when it is faster than ``(1 - tolerance)``
#: times the prediction: the measured bandwidth and FLOP/s are themselves estimates.
BOUND_TOLERANCE = 0.10

_DTYPES = {"float32": np.float32, "float64": np.float64}


def _check_dtype(dtype: str) -> np.dtype:
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if name not in _DTYPES:
        raise ValueError(f"dtype must be one of {sorted(_DTYPES)}; got {describe(dtype)}")
    return np.dtype(_DTYPES[name])


def _check_timer(timer: Callable[..., Any]) -> Callable[..., Any]:
    if not callable(timer):
        raise TypeError(f"timer must be a callable returning seconds, got {describe(timer)}")
    return timer


def _check_tokens(tokens: ArrayLike) -> np.ndarray:
    t = check_integer(tokens, "tokens", minimum=1, maximum=4096)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"tokens must be a non-empty 1-D sequence of whole numbers >= 1; got shape {t.shape}")
    return t


def _time_repeats(fn: Callable[..., Any], repeats: int, timer: Callable[..., Any], warm: bool = True) -> np.ndarray:
    """Call ``fn`` once untimed (warm-up, unless ``warm`` is False), then ``repeats`` timed calls; the durations."""
    if warm:
        fn()
    out = np.empty(repeats)
    for i in range(repeats):  # the timed calls themselves cannot be vectorized
        start = timer()
        fn()
        out[i] = timer() - start
    return out


def matmul_bytes(d: ArrayLike, tokens: ArrayLike, bytes_per_elem: float = 4) -> float | np.ndarray:
    """Bytes a ``(d x d) @ (d x t)`` product must move: ``bytes_per_elem * (d*d + 2*d*t)``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d, tokens : int or array_like of int
        Weight matrix size and token vectors ``t`` multiplied at once, >= 1.
    bytes_per_elem : float, optional
        Bytes per number, > 0 (4 for float32).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.matmul_bytes(1024, 1)
    4202496.0
    """
    dd, t, b = _check_product(d, tokens, bytes_per_elem)
    return to_output(_matmul_bytes(dd, t, b), is_scalar_input(d, tokens, bytes_per_elem))


def _check_product(d: ArrayLike, tokens: ArrayLike, bytes_per_elem: float) -> tuple[np.ndarray, ...]:
    """``d``, ``tokens`` (float arrays of whole numbers >= 1) and ``bytes_per_elem`` (> 0), broadcast-checked."""
    dd = check_integer(d, "d", minimum=1).astype(float)
    t = check_integer(tokens, "tokens", minimum=1).astype(float)
    b = check_positive(bytes_per_elem, "bytes_per_elem", "(bytes)")
    check_broadcast(d=dd, tokens=t, bytes_per_elem=b)
    return dd, t, b


def _matmul_bytes(dd: np.ndarray, t: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`matmul_bytes` of checked float arrays; checks nothing."""
    return b * (dd * dd + 2 * dd * t)


def _matmul_flops(dd: np.ndarray, t: np.ndarray) -> np.ndarray:
    """:func:`matmul_flops` of checked float arrays; checks nothing."""
    return 2 * dd * dd * t


def matmul_flops(d: ArrayLike, tokens: ArrayLike) -> float | np.ndarray:
    """FLOPs of a ``(d x d) @ (d x t)`` product: ``2 * d * d * t``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d, tokens : int or array_like of int
        Weight matrix size and token vectors multiplied at once, >= 1.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.matmul_flops(1024, 8)
    16777216.0
    """
    dd = check_integer(d, "d", minimum=1).astype(float)
    t = check_integer(tokens, "tokens", minimum=1).astype(float)
    check_broadcast(d=dd, tokens=t)
    return to_output(_matmul_flops(dd, t), is_scalar_input(d, tokens))


def predict_matmul_time(d: ArrayLike, tokens: ArrayLike, hardware: Hardware,
                        bytes_per_elem: float = 4) -> float | np.ndarray:
    r"""Roofline time of a ``(d x d) @ (d x t)`` product on ``hardware``, seconds.

    .. math:: T(t) = \max\left(\frac{b\,(d^2 + 2 d t)}{BW}, \frac{2 d^2 t}{F}\right)

    Flat while the weight read dominates, then linear in ``t`` past the knee
    (:func:`matmul_knee`), near ``t = F / BW * b / 2``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d, tokens : int or array_like of int
        Weight matrix size and token vectors multiplied at once, >= 1.
    hardware : specdec.roofline.hardware.Hardware
        Bandwidth and FLOP/s (e.g. from :func:`measure_machine`).
    bytes_per_elem : float, optional
        Bytes per number, > 0. Default 4 (float32).

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> import specdec as sd
    >>> hw = sd.hardware.Hardware(bandwidth=20e9, flops=200e9, memory=8e9)
    >>> (sd.measure.predict_matmul_time(2048, [1, 64], hw) * 1e3).round(2)
    array([0.84, 2.68])
    """
    check_instance(hardware, Hardware, "hardware")
    dd, t, b = _check_product(d, tokens, bytes_per_elem)
    return to_output(_predict_matmul_time(dd, t, b, hardware), is_scalar_input(d, tokens, bytes_per_elem))


def _predict_matmul_time(dd: np.ndarray, t: np.ndarray, b: np.ndarray, hardware: Hardware) -> np.ndarray:
    """:func:`predict_matmul_time` of checked float arrays and a Hardware; checks nothing."""
    return np.maximum(_matmul_bytes(dd, t, b) / hardware.bandwidth, _matmul_flops(dd, t) / hardware.flops)


def matmul_knee(d: ArrayLike, hardware: Hardware, bytes_per_elem: float = 4) -> float | np.ndarray:
    r"""Tokens at which the predicted product time turns from memory- to compute-bound.

    Setting ``b (d^2 + 2 d t) / BW = 2 d^2 t / F`` gives
    :math:`t^\ast = \frac{b\,d^2 / BW}{2 d^2 / F - 2 b d / BW}`, slightly above
    the weights-only ridge ``F / BW * b / 2``; ``inf`` if the product never
    turns compute-bound.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int or array_like of int
        Weight matrix size, >= 1.
    hardware : specdec.roofline.hardware.Hardware
    bytes_per_elem : float, optional
        Bytes per number, > 0. Default 4.

    Returns
    -------
    float or numpy.ndarray
        Tokens (not rounded).

    Examples
    --------
    >>> import specdec as sd
    >>> hw = sd.hardware.Hardware(bandwidth=20e9, flops=200e9, memory=8e9)
    >>> round(sd.measure.matmul_knee(2048, hw), 3)
    20.398
    """
    if not isinstance(hardware, Hardware):
        raise TypeError(f"hardware must be a specdec.roofline.hardware.Hardware, got {type(hardware).__name__}")
    dd = check_integer(d, "d", minimum=1).astype(float)
    b = check_positive(bytes_per_elem, "bytes_per_elem", "(bytes)")
    denom = 2 * dd * dd / hardware.flops - 2 * b * dd / hardware.bandwidth
    with np.errstate(divide="ignore"):
        out = np.where(denom > 0, b * dd * dd / hardware.bandwidth / np.where(denom > 0, denom, 1.0), np.inf)
    return to_output(out, is_scalar_input(d, bytes_per_elem))


# ---------------------------------------------------------------------------
# the measurements
# ---------------------------------------------------------------------------
def time_matmul(d: int = 4096, tokens: ArrayLike = DEFAULT_TOKENS, repeats: int = 5, dtype: str = "float32",
                seed: int = 0, threads: int | None = None, timer: Callable[..., Any] = time.perf_counter, *,
                between: Callable[..., Any] | None = None) -> np.ndarray:
    """Fastest seconds per ``(d x d) @ (d x t)`` product for each token count ``t``.

    After an untimed warm-up, ``repeats`` passes time every token count once in turn (weights uniform
    in [0, 1) from ``np.random.default_rng(seed)``; their values do not change the time); the fastest run
    of each is kept.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int, optional
        Weight matrix size, in [16, 16384]. Default 4096 (:func:`matrix_size_for_cache` sizes it past the cache).
    tokens : sequence of int, optional
        Each in [1, 4096]. Default ``DEFAULT_TOKENS``.
    repeats : int, optional
        In [1, 1000]. Default 5.
    dtype : {"float32", "float64"}, optional
    seed : int, optional
        >= 0.
    threads : int, optional
        In [1, 1024]; default the BLAS library's count.
    timer : callable, optional
        ``() -> seconds``.
    between : callable, optional
        Called (untimed here) at the start of every pass; :func:`measure_matmul`
        measures the bandwidth and peak there, spread over the whole experiment.

    Returns
    -------
    numpy.ndarray
        The fastest run per token count, in the order of ``tokens``.

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
    with blas_thread_limit(threads):    # checks threads, and runs the products with that many BLAS threads
        timer = _check_timer(timer)
        if between is not None and not callable(between):
            raise TypeError(f"between must be a callable or None, got {describe(between)}")
        return _time_matmul(dd, t, reps, dt, sd_, timer, between)


def _time_matmul(dd: int, t: np.ndarray, reps: int, dt: np.dtype, sd_: int, timer: Callable[..., Any],
                 between: Callable[..., Any] | None) -> np.ndarray:
    """:func:`time_matmul` of checked arguments, under the caller's BLAS thread limit; checks nothing."""
    rng = np.random.default_rng(sd_)
    # uniform, not normal: a third of the time to draw 1 GiB of weights, and the same products
    weights = rng.random((dd, dd), dtype=np.float32).astype(dt, copy=False)
    block = rng.random((dd, int(t.max())), dtype=np.float32).astype(dt, copy=False)
    inputs = [np.ascontiguousarray(block[:, :n]) for n in t]
    outputs = [np.empty((dd, int(n)), dtype=dt) for n in t]
    runs = np.empty((reps, t.size))
    for x, out in zip(inputs, outputs, strict=True):  # warm-up, untimed
        np.matmul(weights, x, out=out)
    for r in range(reps):  # passes over all token counts, so that a slow spell hits all of them
        if between is not None:
            between()
        for i, (x, out) in enumerate(zip(inputs, outputs, strict=True)):
            runs[r, i] = _time_repeats(lambda x=x, out=out: np.matmul(weights, x, out=out), 1, timer, warm=False)[0]
    result = runs.min(axis=0)
    return result


def measure_bandwidth(n_bytes: float = 256e6, repeats: int = 5, threads: int | None = None,
                      timer: Callable[..., Any] = time.perf_counter) -> float:
    """Memory bandwidth, bytes/s, of a streaming read of an ``n_bytes`` buffer (best of ``repeats``).

    A float32 buffer in ``threads`` contiguous parts, each reduced to its maximum by its own thread
    (a sum is slower than memory on some CPUs).

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    n_bytes : float, optional
        In [1e5, 4e9]. Default 256 MB; give the weights' size to read as much as the product.
    repeats : int, optional
        In [1, 1000]. Default 5.
    threads : int, optional
        In [1, 1024]; default the BLAS library's count (:func:`blas_threads`).
    timer : callable, optional

    Returns
    -------
    float

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.measure_bandwidth(n_bytes=1e6, repeats=2, threads=1) > 0
    True
    """
    nb = float(check_positive(n_bytes, "n_bytes", "(bytes)"))
    if not 1e5 <= nb <= 4e9:
        raise ValueError(f"n_bytes must be in [1e5, 4e9] bytes; got {describe(nb)}")
    reps = int(check_integer(repeats, "repeats", minimum=1, maximum=1000))
    return _measure_bandwidth(nb, reps, check_threads(threads), _check_timer(timer))


def _measure_bandwidth(nb: float, reps: int, n_threads: int, timer: Callable[..., Any]) -> float:
    """:func:`measure_bandwidth` of checked arguments; checks nothing."""
    buffer = np.ones(int(nb // 4), dtype=np.float32)
    parts = np.array_split(buffer, n_threads)
    if n_threads == 1:
        best = _time_repeats(lambda: np.maximum.reduce(buffer), reps, timer).min()
    else:
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            best = _time_repeats(lambda: list(pool.map(np.maximum.reduce, parts)), reps, timer).min()
    return float(buffer.nbytes / best)


def measure_peak_flops(n: int = 2048, repeats: int = 3, dtype: str = "float32", threads: int | None = None,
                       timer: Callable[..., Any] = time.perf_counter) -> float:
    """Peak FLOP/s from an ``n x n`` product (``2 n^3`` FLOPs; best of ``repeats``), with ``threads`` BLAS threads.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    n : int, optional
        In [16, 16384]. Default 2048.
    repeats : int, optional
        In [1, 1000]. Default 3.
    dtype : {"float32", "float64"}, optional
    threads : int, optional
        In [1, 1024]; default the BLAS library's count.
    timer : callable, optional

    Returns
    -------
    float

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.measure_peak_flops(n=64, repeats=2) > 0
    True
    """
    nn = int(check_integer(n, "n", minimum=16, maximum=16384))
    reps = int(check_integer(repeats, "repeats", minimum=1, maximum=1000))
    dt = _check_dtype(dtype)
    with blas_thread_limit(threads):    # checks threads, and runs the product with that many BLAS threads
        return _measure_peak_flops(nn, reps, dt, _check_timer(timer))


def _measure_peak_flops(nn: int, reps: int, dt: np.dtype, timer: Callable[..., Any]) -> float:
    """:func:`measure_peak_flops` of checked arguments, under the caller's BLAS thread limit; checks nothing."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((nn, nn)).astype(dt)
    b = rng.standard_normal((nn, nn)).astype(dt)
    out = np.empty((nn, nn), dtype=dt)
    best = _time_repeats(lambda: np.matmul(a, b, out=out), reps, timer).min()
    return float(2.0 * nn**3 / best)


class _MachineProbe:
    """One streaming read and one square product per call, keeping the fastest of each (for measure_matmul)."""

    def __init__(self, n_bytes: float, n: int, dtype: np.dtype, threads: int, timer: Callable[..., Any]) -> None:
        self.buffer = np.ones(int(n_bytes // 4), dtype=np.float32)
        self.parts = np.array_split(self.buffer, threads)
        self.pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
        rng = np.random.default_rng(0)
        self.a = rng.standard_normal((n, n)).astype(dtype)
        self.b = rng.standard_normal((n, n)).astype(dtype)
        self.out = np.empty((n, n), dtype=dtype)
        self.n, self.timer, self.read_best, self.product_best = n, timer, math.inf, math.inf

    def read(self) -> Any:
        if self.pool is None:
            return np.maximum.reduce(self.buffer)
        return list(self.pool.map(np.maximum.reduce, self.parts))

    def __call__(self) -> None:
        if math.isinf(self.read_best):      # first call: warm both up, untimed
            self.read()
            np.matmul(self.a, self.b, out=self.out)
        self.read_best = min(self.read_best, float(_time_repeats(self.read, 1, self.timer, warm=False)[0]))
        product = _time_repeats(lambda: np.matmul(self.a, self.b, out=self.out), 1, self.timer, warm=False)
        self.product_best = min(self.product_best, float(product[0]))

    def hardware(self, memory: Any) -> Any:
        if self.pool is not None:
            self.pool.shutdown()
        return Hardware(bandwidth=self.buffer.nbytes / self.read_best, flops=2.0 * self.n**3 / self.product_best,
                        memory=memory, name="this machine (measured)")


def _physical_memory() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
        return 8e9


def measure_machine(n_bytes: float = 256e6, n: int = 2048, repeats: int = 3, dtype: str = "float32",
                    memory: float | None = None, threads: int | None = None,
                    timer: Callable[..., Any] = time.perf_counter) -> Hardware:
    """This machine as a :class:`specdec.roofline.hardware.Hardware`: :func:`measure_bandwidth` and :func:`measure_peak_flops`.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    n_bytes, n, repeats, dtype, threads, timer
        As in :func:`measure_bandwidth` and :func:`measure_peak_flops` (both use ``threads``).
    memory : float, optional
        Bytes, > 0; default the physical memory the OS reports.

    Returns
    -------
    specdec.roofline.hardware.Hardware
        Named ``"this machine (measured)"``.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.measure_machine(n_bytes=1e6, n=64, repeats=1).name
    'this machine (measured)'
    """
    mem = _physical_memory() if memory is None else float(check_positive(memory, "memory", "(bytes)"))
    n_threads = check_threads(threads)
    nb = float(check_positive(n_bytes, "n_bytes", "(bytes)"))
    if not 1e5 <= nb <= 4e9:
        raise ValueError(f"n_bytes must be in [1e5, 4e9] bytes; got {describe(nb)}")
    reps = int(check_integer(repeats, "repeats", minimum=1, maximum=1000))
    timer = _check_timer(timer)
    bw = _measure_bandwidth(nb, reps, n_threads, timer)
    nn = int(check_integer(n, "n", minimum=16, maximum=16384))
    dt = _check_dtype(dtype)
    with _blas_thread_limit(n_threads):
        fl = _measure_peak_flops(nn, reps, dt, timer)
    return Hardware(bandwidth=bw, flops=fl, memory=mem, name="this machine (measured)")


def fit_roofline(tokens: ArrayLike, seconds: ArrayLike) -> tuple[float, ...]:
    """Fit ``T(t) = max(T_flat, s * t)`` to measured times; return ``(T_flat, s, knee)``.

    Every split of the sorted token counts into a flat part (mean ``T_flat``) and a proportional part
    (least-squares slope ``s``) is tried; the smallest squared relative error wins (ties: the longest
    flat part). ``knee = T_flat / s``, ``inf`` when ``s = 0``.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    tokens : array_like of int
        At least 2 token counts (>= 1), any order.
    seconds : array_like of float
        Measured times, > 0, same length.

    Returns
    -------
    tuple of float

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




def _times(x: float) -> str:
    return f"{x:.2f} times"


@dataclass(frozen=True)
class RooflineCheck:
    """Whether a measurement agrees with its roofline prediction: the numbers and the verdict.

    Built by :meth:`MatmulMeasurement.check`. The bound *holds* when no point
    is faster than ``(1 - tolerance)`` times its prediction; the times are *flat,
    then rising* when a fit of ``max(T_flat, s t)`` to the matrix-matrix points
    (``t >= 2``; ``t = 1`` runs a matrix-vector kernel) puts the knee inside
    their range. The measurement *agrees* when both hold.

    Defined in chapter "Measure your machine".

    Attributes
    ----------
    tolerance : float
    n_points, n_below : int
        Points timed; points faster than ``(1 - tolerance)`` x prediction.
    worst_ratio, first_ratio : float
        Smallest measured/predicted time; the same at the smallest ``t`` (``first_tokens``).
    first_tokens : int
    flat_ratio : float
        Fitted flat level / the weights' read time (``bytes / BW``).
    arithmetic_ratio : float
        FLOP/s of the fitted rising part / the measured peak (0 without one).
    knee_measured, knee_predicted : float
        Fitted knee (``inf`` without a rising part) and :func:`matmul_knee`.
    fit_range : tuple of int
        Smallest and largest fitted token count.
    n_rising : int
        Fitted points past the knee.
    cache_ratio : float or None
        Weight bytes / last-level cache bytes (None if the cache size was assumed).
    """

    tolerance: float
    n_points: int
    n_below: int
    worst_ratio: float
    first_tokens: int
    first_ratio: float
    flat_ratio: float
    arithmetic_ratio: float
    knee_measured: float
    knee_predicted: float
    fit_range: tuple
    n_rising: int
    cache_ratio: float | None

    @property
    def holds(self) -> bool:
        """No point is faster than ``(1 - tolerance)`` times its prediction."""
        return self.n_below == 0

    @property
    def flat_then_rising(self) -> bool:
        """The fitted knee lies in the fitted range with at least two points past it."""
        return bool(math.isfinite(self.knee_measured) and self.knee_measured >= self.fit_range[0]
                    and self.n_rising >= 2)

    @property
    def agrees(self) -> bool:
        """The bound holds and the times are flat, then rising."""
        return self.holds and self.flat_then_rising

    def verdict(self, width: int | None = None) -> str:
        """The result in sentences computed from the numbers (so never a claim they contradict).

        ``width`` (an int >= 20) wraps the text to lines of at most that many characters.
        """
        text = self._verdict()
        if width is None:
            return text
        return textwrap.fill(text, width=int(check_integer(width, "width", minimum=20)))

    def _verdict(self) -> str:
        if self.agrees:
            head = "Verdict: consistent with the roofline. "
        elif self.holds:
            head = "Verdict: consistent with the roofline as a bound, but not flat-then-rising. "
        else:
            head = "Verdict: NOT consistent with the roofline. "
        if self.holds:
            bound = (f"No point beats the bound: all {self.n_points} take at least {1 - self.tolerance:.0%} of "
                     f"their predicted time (the closest takes {_times(self.worst_ratio)} its prediction).")
        else:
            bound = (f"{self.n_below} of {self.n_points} points beat the bound by more than {self.tolerance:.0%} "
                     f"(the fastest takes {_times(self.worst_ratio)} its prediction): fewer bytes came from memory, "
                     "or faster, than the measured bandwidth allows, as when the weights sit in a cache or another "
                     "program slowed the bandwidth or FLOP/s measurement.")
        first = (f" At t = {self.first_tokens} the product takes {_times(self.first_ratio)} the predicted "
                 "weight-read time.")
        if self.flat_then_rising:
            shape = (f" From t = {self.fit_range[0]} the times stay flat at {_times(self.flat_ratio)} the "
                     f"weight-read time up to a knee at {self.knee_measured:.1f} tokens (predicted "
                     f"{self.knee_predicted:.1f}), then rise with the arithmetic at "
                     f"{self.arithmetic_ratio:.0%} of the measured peak FLOP/s.")
        else:
            knee = ("no rising part of two or more points" if self.n_rising < 2
                    else f"a rise from the start, knee at {self.knee_measured:.1f} tokens")
            shape = (f" The times from t = {self.fit_range[0]} to {self.fit_range[1]} do not turn from flat to "
                     f"rising inside that range (the fit finds {knee}; predicted knee {self.knee_predicted:.1f}).")
        cache = ""
        if self.cache_ratio is not None and self.cache_ratio < 2:
            cache = (f" The weights are only {_times(self.cache_ratio)} the last-level cache: part of them may "
                     "come from the cache.")
        return head + bound + first + shape + cache


@dataclass(frozen=True)
class MatmulMeasurement:
    """Measured matrix-product times on this machine and their roofline prediction.

    Defined in chapter "Measure your machine".

    Attributes
    ----------
    d : int
    dtype : str
    tokens, seconds : numpy.ndarray
        Token counts and the fastest measured seconds per product.
    hardware : specdec.roofline.hardware.Hardware
        Measured bandwidth and FLOP/s.
    predicted : numpy.ndarray
        :func:`predict_matmul_time` at ``tokens``.
    threads : int or None
        Threads of the products and of both machine measurements.
    cache : CacheSize or None
    blas : BlasThreads or None
    """

    d: int
    dtype: str
    tokens: np.ndarray
    seconds: np.ndarray
    hardware: Hardware
    predicted: np.ndarray
    threads: int | None = None
    cache: CacheSize | None = None
    blas: BlasThreads | None = None

    @property
    def bytes_per_elem(self) -> int:
        """Bytes per number of ``dtype``."""
        return int(np.dtype(self.dtype).itemsize)

    @property
    def weight_bytes(self) -> int:
        """Bytes of the weight matrix, ``bytes_per_elem * d**2``."""
        return self.bytes_per_elem * self.d * self.d

    @property
    def predicted_knee(self) -> float:
        """Tokens at which the prediction turns compute-bound (bytes term = FLOPs term)."""
        return float(matmul_knee(self.d, self.hardware, self.bytes_per_elem))

    @property
    def fit_tokens(self) -> np.ndarray:
        """Token counts used by :attr:`measured_fit`: the matrix-matrix products (``t >= 2``), if 2 or more."""
        t = np.asarray(self.tokens)
        return t[t >= 2] if (t >= 2).sum() >= 2 else t

    @property
    def measured_fit(self) -> tuple:
        """:func:`fit_roofline` of the measured times at :attr:`fit_tokens`: ``(T_flat, s, knee)``."""
        t = np.asarray(self.tokens)
        keep = np.isin(t, self.fit_tokens)
        return fit_roofline(t[keep], np.asarray(self.seconds)[keep])

    @property
    def seconds_per_token(self) -> np.ndarray:
        """Measured seconds per product divided by the tokens it handled."""
        return self.seconds / self.tokens

    def check(self, tolerance: float = BOUND_TOLERANCE) -> RooflineCheck:
        """Compare the measurement with its prediction: :class:`RooflineCheck`.

        Parameters
        ----------
        tolerance : float, optional
            Relative tolerance of the lower bound, in [0, 1). Default ``BOUND_TOLERANCE``.

        Returns
        -------
        RooflineCheck

        Examples
        --------
        Times exactly on a roofline of 1 ms up to 10 tokens:

        >>> import numpy as np, specdec as sd
        >>> hw = sd.hardware.Hardware(bandwidth=4 * 256**2 / 1e-3, flops=2 * 256**2 * 10 / 1e-3, memory=1e9)
        >>> t = np.array([1, 2, 4, 8, 16, 32])
        >>> m = sd.measure.MatmulMeasurement(256, "float32", t, np.maximum(1e-3, 1e-4 * t), hw,
        ...                                  sd.measure.predict_matmul_time(256, t, hw))
        >>> c = m.check()
        >>> c.holds, c.flat_then_rising, round(c.knee_measured, 1)
        (True, True, 10.0)
        """
        tol = float(check_positive(tolerance, "tolerance")) if tolerance != 0 else 0.0
        if not 0 <= tol < 1:
            raise ValueError(f"tolerance must be in [0, 1); got {describe(tolerance)}")
        ratio = np.asarray(self.seconds, dtype=float) / np.asarray(self.predicted, dtype=float)
        t_flat, slope, knee = self.measured_fit
        read_time = self.weight_bytes / self.hardware.bandwidth
        first = int(np.argmin(self.tokens))
        fit_t = self.fit_tokens
        arithmetic = (2.0 * self.d * self.d / slope) / self.hardware.flops if slope > 0 else 0.0
        cache_ratio = None if self.cache is None or self.cache.assumed else self.weight_bytes / self.cache.bytes
        return RooflineCheck(
            tolerance=tol, n_points=int(ratio.size), n_below=int((ratio < 1 - tol).sum()),
            worst_ratio=float(ratio.min()), first_tokens=int(self.tokens[first]), first_ratio=float(ratio[first]),
            flat_ratio=float(t_flat / read_time), arithmetic_ratio=float(arithmetic), knee_measured=float(knee),
            knee_predicted=self.predicted_knee, fit_range=(int(fit_t.min()), int(fit_t.max())),
            n_rising=int((fit_t > knee).sum()),
            cache_ratio=cache_ratio)


def measure_matmul(d: int | None = None, tokens: Sequence[int] = DEFAULT_TOKENS, repeats: int = 5,
                   dtype: str = "float32", hardware: Hardware | None = None, seed: int = 0, threads: int | None = None,
                   cache: CacheSize | None = None, timer: Callable[..., Any] = time.perf_counter) -> MatmulMeasurement:
    """Time the products and predict them from this machine's measured roofline.

    Unless ``hardware`` is given, the bandwidth (a read as large as the weights) and the peak (a
    2048 x 2048 product) are measured at the start of every pass, fastest kept; then
    :func:`time_matmul` and :func:`predict_matmul_time`.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    d : int, optional
        In [16, 16384]; default sized from the cache.
    tokens, repeats, dtype, seed, threads, timer
        As in :func:`time_matmul`.
    hardware : specdec.roofline.hardware.Hardware, optional
        Numbers to use instead of measuring the machine.
    cache : CacheSize, optional
        Default :func:`last_level_cache`.

    Returns
    -------
    MatmulMeasurement

    Examples
    --------
    >>> import specdec as sd
    >>> hw = sd.hardware.Hardware(bandwidth=20e9, flops=200e9, memory=8e9)
    >>> sd.measure.measure_matmul(d=64, tokens=[1, 2, 4], repeats=2, hardware=hw).seconds.shape
    (3,)
    """
    dt = _check_dtype(dtype)
    t = _check_tokens(tokens)
    timer = _check_timer(timer)
    if cache is None:
        cache = last_level_cache()
    else:
        check_instance(cache, CacheSize, "cache")
    if d is None:
        d = matrix_size_for_cache(cache.bytes, bytes_per_elem=dt.itemsize)
    dd = int(check_integer(d, "d", minimum=16, maximum=16384))
    if hardware is not None and not isinstance(hardware, Hardware):
        raise TypeError(f"hardware must be a specdec.roofline.hardware.Hardware or None, got {type(hardware).__name__}")
    reps = int(check_integer(repeats, "repeats", minimum=1, maximum=1000))
    sd_ = int(check_integer(seed, "seed", minimum=0))
    with blas_thread_limit(threads) as blas:    # checks threads; None: the library's count
        n_threads = blas.threads
        probe = None if hardware is not None else _MachineProbe(max(1e5, float(dt.itemsize * dd * dd)), 2048,
                                                                 dt, n_threads, timer)
        # entered again with the count, as time_matmul does (tests/test_measure.py spies on both entries):
        # this checks the count a second time when threads was given
        with blas_thread_limit(n_threads):
            seconds = _time_matmul(dd, t, reps, dt, sd_, timer, probe)
        if probe is not None:
            hardware = probe.hardware(_physical_memory())
    assert hardware is not None  # given, or measured by the probe
    predicted = np.asarray(_predict_matmul_time(np.asarray(float(dd)), t.astype(float), np.asarray(float(dt.itemsize)),
                                                hardware), dtype=float)
    return MatmulMeasurement(d=dd, dtype=dt.name, tokens=t, seconds=seconds, hardware=hardware,
                             predicted=predicted, threads=n_threads, cache=cache, blas=blas)
