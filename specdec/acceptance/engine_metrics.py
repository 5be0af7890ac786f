"""What serving engines export: vLLM's speculative decoding counters and their text format.

The counters' names (:data:`VLLM_METRICS`) and :func:`parse_vllm_metrics`, the one front end
(a dict, the ``/metrics`` text, a saved file or plain numbers); :func:`read_engine_source` for
whatever an engine printed, detected by its form; :func:`rate_reading` and
:func:`printed_figures` for what each engine of :data:`ENGINES` prints. No statistics: the
meaning is read by :func:`specdec.acceptance.estimation.read_engine_counters`. The readers live in
``_vllm_counters`` and ``_engine_formats`` and are re-exported here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from specdec._validate import check_count, check_probability, check_scalar
from specdec.acceptance import (
    _draft_acceptance_rate,
    _engine_formats,
    _expected_tokens_array,
    _vllm_counters,
    unconditional_from_conditional,
)
from specdec.acceptance._engine_formats import EngineSource, rate_reading, read_engine_source
from specdec.acceptance._vllm_counters import is_path, parse_vllm_metrics

__all__ = ["VLLM_METRICS", "ENGINES", "EngineSource", "read_engine_source", "rate_reading", "parse_vllm_metrics",
           "counter_difference", "source_label", "printed_figures"]


#: vLLM's speculative decoding counters, keyed by the names used here. Each is
#: a Prometheus counter (cumulative since the engine started); the exposition
#: text printed by ``/metrics`` appends ``_total`` to the name and carries
#: labels ``model_name`` and ``engine``, and the per-position counter also a
#: 0-based ``position`` label (0 .. ``num_speculative_tokens`` - 1). Read in
#: vLLM's source, ``vllm/v1/spec_decode/metrics.py`` (``SpecDecodingStats``,
#: ``SpecDecodingLogging``, ``SpecDecodingProm``; release 0.33.0, lines
#: 200-264 for the Prometheus names, and release 0.11.0) and at git commits
#: ``016a8587edb04ae53c913a1da9355a07dc0ca4ae`` and
#: ``ee4ceaae5953d367d8edd2132fd86d6c42506e1e``. The scheduler
#: (``vllm/v1/core/sched/scheduler.py``) counts one draft per request per
#: verification step that scheduled at least one draft token, with
#: ``num_draft_tokens`` the draft slots actually scheduled for it (fewer than
#: ``num_speculative_tokens`` for n-gram misses or near the length limit);
#: ``accepted_per_pos[i]`` counts the drafts that accepted more than ``i``
#: tokens. ``num_draft_tokens_per_pos`` exists in ``SpecDecodingStats`` of
#: 0.33.0 but is not exported.
VLLM_METRICS = _vllm_counters.VLLM_METRICS

#: The engines (and versions) whose printed figures are read, and what each one's *rate* means. A printed
#: "acceptance rate" has three meanings across them; the mean acceptance length (bonus token included) has one.
#: Read in the engines' source code (files and commits in :func:`read_engine_source` and
#: ``tests/test_engine_formats.py``).
ENGINES = _engine_formats.ENGINES


def source_label(source: Any) -> str:
    """A few words saying where counters came from, for reports: ``"file m.txt"``, ``"/metrics text"``, ...

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    source : Mapping, str, path or sequence
        What :func:`parse_vllm_metrics` was given.

    Returns
    -------
    str

    Examples
    --------
    >>> import specdec as sd
    >>> sd.engine_metrics.source_label("metrics.txt"), sd.engine_metrics.source_label((10, 40, 25))
    ('file metrics.txt', 'counters (numbers)')
    """
    if is_path(source):
        return f"file {os.fspath(source).strip()}"
    if isinstance(source, str):
        return "/metrics text"
    if isinstance(source, Mapping):
        return "counters (a dict)"
    return "counters (numbers)"


def counter_difference(after: dict, before: dict) -> dict:
    """Counters of the window between two snapshots parsed by :func:`parse_vllm_metrics` (``after - before``).

    Counters only grow; a decrease (an engine restart between the snapshots) is refused.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    after, before : dict
        Two results of :func:`parse_vllm_metrics`, the later one first.

    Returns
    -------
    dict
        The same keys, each the difference.

    Examples
    --------
    >>> import specdec as sd
    >>> a = {"num_drafts": 30.0, "num_draft_tokens": 90.0, "num_accepted_tokens": 40.0}
    >>> b = {"num_drafts": 10.0, "num_draft_tokens": 30.0, "num_accepted_tokens": 15.0}
    >>> sd.engine_metrics.counter_difference(a, b)["num_accepted_tokens"]
    25.0
    """
    out = {}
    for key, value in after.items():
        if key not in before:
            raise ValueError(f"before lacks the counter {VLLM_METRICS[key]} that the later snapshot has")
        if isinstance(value, list):
            if len(before[key]) != len(value):
                raise ValueError(f"{VLLM_METRICS[key]}: the two snapshots have different numbers of positions")
            out[key] = [a - b for a, b in zip(value, before[key], strict=True)]
        else:
            out[key] = value - before[key]
    for key, value in out.items():
        if np.any(np.asarray(value) < 0):
            raise ValueError(f"{VLLM_METRICS[key]} decreased between the snapshots (did the engine restart?); "
                             "a counter only grows")
    return out


def printed_figures(alpha: float, k: int) -> tuple[tuple[Any, ...], ...]:
    """What vLLM and SGLang print for one draft quality: i.i.d. acceptance at ``alpha``, ``k`` drafts per round.

    E[L], ``(E[L] - 1) / k``, the per-position rates ``alpha**i``, vLLM V0's alpha estimate and
    ``E[L] / (k + 1)``, as read in vLLM 0.33.0 and 0.7.3, SGLang 0.5.23 and SGLang at commit
    78ac30c2 (cited in :mod:`specdec.literature`).

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    alpha : float
        Per-position acceptance rate, in [0, 1].
    k : int
        Draft tokens per round (a chain), >= 1.

    Returns
    -------
    tuple of tuple
        ``(engine, printed as, definition, value)`` rows; ``value`` is a float,
        or a tuple of floats for the per-position rates.

    Examples
    --------
    >>> import specdec as sd
    >>> [(engine, name, round(v, 4)) for engine, name, _, v in sd.engine_metrics.printed_figures(0.8, 4)[:2]]
    [('vLLM V1', 'Mean acceptance length', 3.3616), ('vLLM V1', 'Avg Draft acceptance rate', 0.5904)]
    """
    a = float(check_scalar(alpha, "alpha", check_probability))
    kk = check_count(k, "k")
    a_arr, k_arr = np.asarray(a), np.asarray(float(kk))  # as the checks of expected_tokens return them
    length = float(_expected_tokens_array(a_arr, k_arr))
    rate = float(_draft_acceptance_rate(a_arr, k_arr))
    per_position = tuple(float(r) for r in unconditional_from_conditional([a] * kk))
    return (
        ("vLLM V1", "Mean acceptance length", "1 + accepted / drafts", length),
        ("vLLM V1", "Avg Draft acceptance rate", "accepted / draft tokens (printed in %)", rate),
        ("vLLM V1", "Per-position acceptance rate", "accepted at position i / drafts", per_position),
        ("vLLM V0 (up to 0.9)", "Draft acceptance rate", "passed / all k per-position tests (no causality)", a),
        ("vLLM V0 (up to 0.9)", "System efficiency", "emitted / (k + 1) per round", length / (kk + 1)),
        ("SGLang", "accept len", "(accepted + one per request) / rounds", length),
        ("SGLang 0.5.23", "accept rate", "accepted / (rounds x (num_draft_tokens - 1))", rate),
        ("SGLang, older (commit 78ac30c2)", "accept rate", "(accepted + bonus) / (rounds x num_draft_tokens)",
         length / (kk + 1)),
    )
