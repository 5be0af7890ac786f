"""The validators of the core, and a wrapper that counts their outermost calls by the parameter name they report.

Shared by ``test_validate_once.py`` (counts on chosen call paths) and ``test_validate_once_doctests.py`` (counts
on every call the doctests make).
"""

from __future__ import annotations

import collections
import inspect
from collections.abc import Callable

from specdec import _validate
from specdec.decision import _measurements

# Helpers of _validate that check nothing about one named value: shapes, sizes, a pair (it checks each of the
# two by name).
NOT_ONE_VALUE = {"check_broadcast", "check_size", "check_distribution_pair"}
VALIDATORS = [getattr(_validate, name) for name in _validate.__all__
              if (name.startswith("check_") or name == "as_float_array") and name not in NOT_ONE_VALUE]
VALIDATORS += [_measurements.real_number, _measurements.whole_number, _measurements.duration]


def counting(check: Callable, sink: Callable[[], collections.Counter | None], depth: list[int]) -> Callable:
    """``check``, counting into ``sink()`` (when it is not None) the ``name`` of each call made while no other
    validator runs (``depth``, shared by every wrapper: a validator calling another counts once)."""
    signature = inspect.signature(check)

    def counted(*args, **kwargs):
        counts = sink()
        if depth[0] == 0 and counts is not None:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            counts[bound.arguments["name"]] += 1
        depth[0] += 1
        try:
            return check(*args, **kwargs)
        finally:
            depth[0] -= 1
    return counted
