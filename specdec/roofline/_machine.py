"""This machine's last-level cache and BLAS threads, for :mod:`specdec.roofline.measure`.

A private helper of :mod:`specdec.roofline.measure`, which re-exports its public names.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from specdec._validate import check_integer, check_positive

__all__ = [
    "CACHE_FACTOR",
    "FALLBACK_CACHE_BYTES",
    "CacheSize",
    "last_level_cache",
    "matrix_size_for_cache",
    "BlasThreads",
    "blas_threads",
    "blas_thread_limit",
    "check_threads",
]

#: The weight matrix is made at least this many times larger than the last-level cache.
CACHE_FACTOR = 4
#: Last-level cache assumed when the machine does not report one (64 MiB: larger than the
#: last-level cache of most laptops and desktops, so the matrix stays out of cache there).
FALLBACK_CACHE_BYTES = 64 * 2**20

_SYSFS_CACHE = "/sys/devices/system/cpu/cpu0/cache"


# ---------------------------------------------------------------------------
# the machine: last-level cache and BLAS threads
# ---------------------------------------------------------------------------
def _parse_size(text: str) -> int:
    """``"32768K"`` -> 33554432; ``"1M"``, ``"512"`` (bytes) likewise."""
    text = text.strip().upper()
    scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
    digits = text[:-1] if scale != 1 else text
    if not digits.isdigit():
        raise ValueError(f"not a cache size: {text!r}")
    return int(digits) * scale


@dataclass(frozen=True)
class CacheSize:
    """The last-level cache of this machine and where its size was found.

    Defined in chapter "Measure your machine".

    Attributes
    ----------
    bytes : int
    level : int or None
        3 for an L3; None when unknown.
    source : str
        The sysfs directory or ``os.sysconf`` name read, or "assumed: ..." for the fallback.
    """

    bytes: int
    level: int | None
    source: str

    @property
    def assumed(self) -> bool:
        """True when the size is the documented fallback, not read from the machine."""
        return self.source.startswith("assumed")


def last_level_cache(sysfs: str = _SYSFS_CACHE) -> CacheSize:
    """Size of the largest (last-level) data or unified cache of this machine.

    Read from Linux's ``/sys/devices/system/cpu/cpu0/cache/index*/``, else from
    ``os.sysconf`` (``SC_LEVEL3_CACHE_SIZE``, ``SC_LEVEL2_CACHE_SIZE``) where the
    platform has them; otherwise ``FALLBACK_CACHE_BYTES`` is assumed and the
    result says so.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    sysfs : str, optional
        Directory of the ``index*`` cache descriptions (a test points it at a fake one).

    Returns
    -------
    CacheSize

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.last_level_cache().bytes > 0
    True
    """
    found = []
    try:
        entries = sorted(os.listdir(sysfs))
    except OSError:
        entries = []
    for entry in entries:
        if not entry.startswith("index"):
            continue
        where = os.path.join(sysfs, entry)
        try:
            with open(os.path.join(where, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(where, "level")) as f:
                level = int(f.read().strip())
            with open(os.path.join(where, "size")) as f:
                size = _parse_size(f.read())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size > 0:
            found.append((level, size, where))
    if found:
        level, size, where = max(found)
        return CacheSize(bytes=size, level=level, source=where)
    for name, level in (("SC_LEVEL3_CACHE_SIZE", 3), ("SC_LEVEL2_CACHE_SIZE", 2)):
        if name in getattr(os, "sysconf_names", {}):
            try:
                size = int(os.sysconf(name))
            except (OSError, ValueError):
                continue
            if size > 0:
                return CacheSize(bytes=size, level=level, source=f"os.sysconf({name})")
    return CacheSize(bytes=FALLBACK_CACHE_BYTES, level=None,
                     source="assumed: the machine reports no cache size (FALLBACK_CACHE_BYTES)")


def matrix_size_for_cache(cache_bytes: float, factor: float = CACHE_FACTOR, bytes_per_elem: float = 4,
                          multiple: int = 256, d_max: int = 16384) -> int:
    """Smallest ``d``, a multiple of ``multiple``, with ``bytes_per_elem * d**2 >= factor * cache_bytes``.

    Capped at ``d_max`` (16384 float32 numbers a side are 1 GiB);
    :meth:`MatmulMeasurement.check` reports the matrix-to-cache ratio.

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    cache_bytes : float
        Last-level cache, bytes, > 0.
    factor, bytes_per_elem : float, optional
        Times the cache (default ``CACHE_FACTOR``) and bytes per number (default 4), > 0.
    multiple, d_max : int, optional
        Rounding, in [1, 4096] (default 256), and largest ``d`` (default 16384).

    Returns
    -------
    int

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.matrix_size_for_cache(32 * 2**20)   # 32 MiB: at least 128 MiB of float32
    5888
    """
    cache = float(check_positive(cache_bytes, "cache_bytes", "(bytes)"))
    f = float(check_positive(factor, "factor"))
    b = float(check_positive(bytes_per_elem, "bytes_per_elem", "(bytes)"))
    m = int(check_integer(multiple, "multiple", minimum=1, maximum=4096))
    top = int(check_integer(d_max, "d_max", minimum=m))
    d = math.isqrt(math.ceil(f * cache / b))
    while b * d * d < f * cache:
        d += 1
    d = -(-max(d, 1) // m) * m
    return int(min(d, top))


@dataclass(frozen=True)
class BlasThreads:
    """The BLAS library behind numpy's products and its thread count.

    Defined in chapter "Measure your machine".

    Attributes
    ----------
    threads : int
    library : str
        ``"openblas"``, ``"mkl"``, ... or ``"unknown"``.
    controllable : bool
        Whether :func:`blas_thread_limit` can change the count here.
    source : str
        How the count was found (``threadpoolctl``, OpenBLAS, or "assumed ...").
    """

    threads: int
    library: str
    controllable: bool
    source: str


def _threadpoolctl() -> Any:
    try:
        import threadpoolctl
    except ImportError:
        return None
    return threadpoolctl


def _openblas() -> tuple[Callable[..., Any], Callable[..., Any], str] | None:
    """(get, set, path) of the OpenBLAS that numpy loaded, found in /proc/self/maps (Linux), or None."""
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        return None
    paths = sorted({line.split()[-1] for line in maps.splitlines()
                    if line.split() and line.split()[-1].startswith("/")
                    and "openblas" in os.path.basename(line.split()[-1]).lower()})
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", "_64_", ""):
                get = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
                put = getattr(lib, f"{prefix}set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    get.restype = ctypes.c_int
                    put.argtypes = [ctypes.c_int]
                    return get, put, path
    return None


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def blas_threads() -> BlasThreads:
    """Threads numpy's BLAS uses for a matrix product, and whether that can be set.

    Asks ``threadpoolctl`` when installed, else the OpenBLAS numpy loaded
    (Linux); else assumes ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` or
    ``MKL_NUM_THREADS`` when set, and otherwise one thread per available CPU
    (the OpenBLAS and MKL default).

    Defined in chapter "Measure your machine".

    Returns
    -------
    BlasThreads

    Examples
    --------
    >>> import specdec as sd
    >>> sd.measure.blas_threads().threads >= 1
    True
    """
    tpc = _threadpoolctl()
    if tpc is not None:
        blas = [i for i in tpc.threadpool_info() if i.get("user_api") == "blas"]
        if blas:
            return BlasThreads(int(blas[0]["num_threads"]), str(blas[0].get("internal_api", "unknown")), True,
                               "threadpoolctl")
    ob = _openblas()
    if ob is not None:
        return BlasThreads(int(ob[0]()), "openblas", True, f"OpenBLAS ({os.path.basename(ob[2])})")
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(name, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return BlasThreads(int(value), "unknown", False, f"assumed from {name}")
    return BlasThreads(_cpus(), "unknown", False, "assumed: one thread per available CPU (the BLAS default)")


@contextlib.contextmanager
def blas_thread_limit(threads: int | None = None) -> Iterator[BlasThreads]:
    """Run the enclosed products with ``threads`` BLAS threads; yield the :class:`BlasThreads` in force.

    ``None`` keeps the current count; the previous count is restored on exit. Where the count cannot
    be controlled, asking for another is an error (set ``OPENBLAS_NUM_THREADS`` instead).

    Defined in chapter "Measure your machine".

    Parameters
    ----------
    threads : int, optional
        In [1, 1024].

    Examples
    --------
    >>> import specdec as sd
    >>> with sd.measure.blas_thread_limit() as blas:
    ...     blas.threads >= 1
    True
    """
    want = None if threads is None else int(check_integer(threads, "threads", minimum=1, maximum=1024))
    with _blas_thread_limit(want) as blas:
        yield blas


@contextlib.contextmanager
def _blas_thread_limit(threads: int | None) -> Iterator[BlasThreads]:
    """:func:`blas_thread_limit` of a validated count (an int in [1, 1024]) or None; checks nothing."""
    now = blas_threads()
    want = now.threads if threads is None else threads
    if want == now.threads:
        yield now
        return
    if not now.controllable:
        raise ValueError(f"threads: the BLAS thread count cannot be set here ({now.source}); got {want}, "
                         f"the library uses {now.threads}: set OPENBLAS_NUM_THREADS={want} before starting Python")
    tpc = _threadpoolctl()
    if tpc is not None and now.source == "threadpoolctl":
        with tpc.threadpool_limits(limits=want, user_api="blas"):
            yield BlasThreads(want, now.library, True, now.source)
        return
    found = _openblas()
    assert found is not None  # controllable, not through threadpoolctl: the OpenBLAS blas_threads found
    get, put, _ = found
    put(want)
    try:
        yield BlasThreads(int(get()), now.library, True, now.source)
    finally:
        put(now.threads)


def check_threads(threads: int | None) -> int:
    """``threads`` as an int in [1, 1024], or the BLAS library's count for ``None``."""
    if threads is None:
        return blas_threads().threads
    return int(check_integer(threads, "threads", minimum=1, maximum=1024))
