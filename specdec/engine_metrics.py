"""What serving engines export: vLLM's speculative decoding counters and their text format.

vLLM (the V1 engine) keeps four speculative decoding counters per engine and
exports them to Prometheus; a running server prints them at ``/metrics``.
This module knows their names (:data:`VLLM_METRICS`) and reads them, from a
dict or from that text, into plain numbers (:func:`parse_vllm_metrics`);
:func:`specdec.estimation.read_engine_counters` turns them into alpha.
Nothing here is statistics: only names and the exposition format.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np

from ._validate import as_float_array, check_nonnegative

__all__ = ["VLLM_METRICS", "parse_vllm_metrics", "counter_difference"]


#: vLLM's speculative decoding counters, keyed by the names used here. Each is
#: a Prometheus counter (cumulative since the engine started); the exposition
#: text printed by ``/metrics`` appends ``_total`` to the name and carries
#: labels such as ``model_name`` and ``engine``, and the per-position counter
#: also a 0-based ``position`` label. Read in vLLM's source,
#: ``vllm/v1/spec_decode/metrics.py`` (classes ``SpecDecodingStats``,
#: ``SpecDecodingLogging``, ``SpecDecodingProm``) at commits
#: ``016a8587edb04ae53c913a1da9355a07dc0ca4ae`` and
#: ``ee4ceaae5953d367d8edd2132fd86d6c42506e1e``, and a later version that also
#: tracks ``num_draft_tokens_per_pos`` in ``SpecDecodingStats`` without
#: exporting it; the scheduler (``vllm/v1/core/sched/scheduler.py``) counts one
#: draft per request per verification step with ``num_draft_tokens`` the
#: drafts actually scheduled for that request, which can be fewer than
#: ``num_speculative_tokens``.
VLLM_METRICS = {
    "num_drafts": "vllm:spec_decode_num_drafts",
    "num_draft_tokens": "vllm:spec_decode_num_draft_tokens",
    "num_accepted_tokens": "vllm:spec_decode_num_accepted_tokens",
    "accepted_per_position": "vllm:spec_decode_num_accepted_tokens_per_pos",
    "draft_tokens_per_position": "vllm:spec_decode_num_draft_tokens_per_pos",
}
REQUIRED = ("num_drafts", "num_draft_tokens", "num_accepted_tokens")
PER_POSITION = ("accepted_per_position", "draft_tokens_per_position")



_SAMPLE = re.compile(r'^(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+\S+)?\s*$')
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def _parse_labels(text: str, line: str) -> dict:
    labels, pos = {}, 0
    while pos < len(text):
        m = _LABEL.match(text, pos)
        if not m:
            raise ValueError(f"metrics: cannot read the labels of the line {line!r}")
        labels[m.group(1)] = m.group(2).replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        pos = m.end()
    return labels


def _parse_text(text: str, labels: Mapping | None) -> dict:
    names = {v: key for key, v in VLLM_METRICS.items()}
    found: dict = {}
    models: set = set()
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m:
            raise ValueError(f"metrics: not a Prometheus sample line: {line!r}")
        name = m.group("name")
        base = name[:-len("_total")] if name.endswith("_total") else name
        if base not in names:
            continue
        lab = _parse_labels(m.group("labels") or "", line)
        if labels and any(lab.get(key) != str(val) for key, val in labels.items()):
            continue
        try:
            value = float(m.group("value"))
        except ValueError:
            raise ValueError(f"metrics: the value of {name} is not a number: {line!r}") from None
        key = names[base]
        if "model_name" in lab:
            models.add(lab["model_name"])
        if key in PER_POSITION:
            if "position" not in lab:
                raise ValueError(f"metrics: {name} needs a 'position' label: {line!r}")
            slot = found.setdefault(key, {})
            i = int(lab["position"])
            slot[i] = slot.get(i, 0.0) + value
        else:
            found[key] = found.get(key, 0.0) + value
    if len(models) > 1:
        raise ValueError(f"metrics: counters of several models ({', '.join(sorted(models))}); pass "
                         f"labels={{'model_name': ...}} to read one")
    return found


def parse_vllm_metrics(source, labels=None):
    """Read vLLM's speculative decoding counters from a dict or from ``/metrics`` text.

    Accepts either a mapping keyed by the metric names of
    :data:`VLLM_METRICS` (with or without the ``_total`` suffix the
    exposition text adds; the per-position counters as a list indexed by
    position, or a dict ``{position: count}``), or the Prometheus text
    exposition a running vLLM server prints at ``/metrics``. Samples of
    several engines (label ``engine``) are summed; counters of several models
    must be narrowed with ``labels``.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    source : Mapping or str
        The counters.
    labels : dict, optional
        Only samples carrying all these label values are read (text only),
        e.g. ``{"model_name": "meta-llama/Llama-3.1-8B-Instruct"}``.

    Returns
    -------
    dict
        ``num_drafts``, ``num_draft_tokens``, ``num_accepted_tokens`` (floats)
        and, when present, ``accepted_per_position`` and
        ``draft_tokens_per_position`` (lists by position 1, 2, ...).

    Examples
    --------
    >>> import specdec as sd
    >>> text = '''
    ... vllm:spec_decode_num_drafts_total{model_name="m"} 100.0
    ... vllm:spec_decode_num_draft_tokens_total{model_name="m"} 300.0
    ... vllm:spec_decode_num_accepted_tokens_total{model_name="m"} 150.0
    ... vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",position="0"} 80.0
    ... vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",position="1"} 45.0
    ... vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="m",position="2"} 25.0
    ... '''
    >>> sd.engine_metrics.parse_vllm_metrics(text)["accepted_per_position"]
    [80.0, 45.0, 25.0]
    """
    if isinstance(source, str):
        found = _parse_text(source, labels)
    elif isinstance(source, Mapping):
        if labels is not None:
            raise ValueError("labels applies to the /metrics text only; select the entries of a dict yourself")
        names = {v: key for key, v in VLLM_METRICS.items()}
        found = {}
        for name, value in source.items():
            if not isinstance(name, str):
                continue
            base = name[:-len("_total")] if name.endswith("_total") else name
            if base not in names:
                continue
            key = names[base]
            if key in PER_POSITION:
                if isinstance(value, Mapping):
                    found[key] = {int(i): v for i, v in value.items()}
                else:
                    found[key] = dict(enumerate(as_float_array(value, name).reshape(-1).tolist()))
            else:
                found[key] = float(check_nonnegative(value, name))
    else:
        raise TypeError(f"source must be a dict of vLLM counters or the /metrics text, got {type(source).__name__}")
    missing = [VLLM_METRICS[key] for key in REQUIRED if key not in found]
    if missing:
        raise ValueError(f"metrics: missing the counter(s) {', '.join(missing)}")
    out = {key: float(found[key]) for key in REQUIRED}
    for key in PER_POSITION:
        if key in found:
            slots = found[key]
            if sorted(slots) != list(range(len(slots))):
                raise ValueError(f"metrics: {VLLM_METRICS[key]} must have positions 0, 1, ..., k - 1; got "
                                 f"{sorted(slots)}")
            out[key] = [float(slots[i]) for i in range(len(slots))]
    return out


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
            out[key] = [a - b for a, b in zip(value, before[key])]
        else:
            out[key] = value - before[key]
    for key, value in out.items():
        if np.any(np.asarray(value) < 0):
            raise ValueError(f"{VLLM_METRICS[key]} decreased between the snapshots (did the engine restart?); "
                             "counters only grow")
    return out
