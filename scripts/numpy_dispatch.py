#!/usr/bin/env python3
"""Print the ``NPY_DISABLE_CPU_FEATURES`` value that turns off numpy's highest CPU feature group here.

numpy picks SIMD kernels at run time among the dispatch targets its build
has (``X86_V3`` = AVX2, ``X86_V4`` = AVX-512, ``AVX512_ICL``, ``AVX512_SPR``
on x86; ``ASIMDHP``, ``ASIMDDP``, ``SVE``... on ARM). Floating-point results
can differ in the last bit between them, so the tests run nbval a second time
with the machine's highest group disabled: a stored output that depends on
the SIMD path shows up on the machine that wrote it, not only on a reader's.

The highest group is the highest x86-64 microarchitecture level numpy found
enabled (``X86_V4`` on an AVX-512 CPU, ``X86_V3`` on an AVX2 one) or, on other
architectures, the highest enabled dispatch target; every enabled target
above it in numpy's list depends on it and is disabled with it (numpy refuses
to disable a group while something built on it stays enabled).

Prints nothing (and exits 0) when numpy dispatches to no target beyond its
baseline on this machine, so there is nothing to turn off.
"""

from __future__ import annotations

import sys


def features_to_disable() -> list[str]:
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    enabled = [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]
    if not enabled:
        return []
    levels = [name for name in enabled if name.startswith("X86_V")]
    top = max(levels) if levels else enabled[-1]
    return enabled[enabled.index(top):]


def main() -> int:
    print(" ".join(features_to_disable()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
