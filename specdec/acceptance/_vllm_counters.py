"""vLLM's speculative decoding counters: their names, the Prometheus text lines, and :func:`parse_vllm_metrics`.

A private part of :mod:`specdec.acceptance.engine_metrics` (which re-exports its public names), and the lowest of the
engine modules: ``specdec.acceptance._engine_formats`` reads every engine's printout with these helpers.

Defined in chapter "What serving engines print".
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from specdec._datafiles import read_data_file
from specdec._validate import check_nonnegative, check_scalar, describe

__all__ = ["VLLM_METRICS", "REQUIRED", "PER_POSITION", "SAMPLE_LINE", "parse_labels", "position_label", "is_path",
           "parse_vllm_metrics"]


# vLLM's counter names (documented at specdec.acceptance.engine_metrics.VLLM_METRICS, which is this dict).
VLLM_METRICS = {
    "num_drafts": "vllm:spec_decode_num_drafts",
    "num_draft_tokens": "vllm:spec_decode_num_draft_tokens",
    "num_accepted_tokens": "vllm:spec_decode_num_accepted_tokens",
    "accepted_per_position": "vllm:spec_decode_num_accepted_tokens_per_pos",
    "draft_tokens_per_position": "vllm:spec_decode_num_draft_tokens_per_pos",
}
REQUIRED = ("num_drafts", "num_draft_tokens", "num_accepted_tokens")
PER_POSITION = ("accepted_per_position", "draft_tokens_per_position")



SAMPLE_LINE = re.compile(r'^(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)(?:\s+\S+)?\s*$')
_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')


def parse_labels(text: str, line: str) -> dict:
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
        m = SAMPLE_LINE.match(line)
        if not m:
            raise ValueError(f"metrics: not a Prometheus sample line: {line!r}")
        name = m.group("name")
        base = name[:-len("_total")] if name.endswith("_total") else name
        if base not in names:
            continue
        lab = parse_labels(m.group("labels") or "", line)
        if labels and any(lab.get(key) != str(val) for key, val in labels.items()):
            continue
        try:
            value = float(m.group("value"))
        except ValueError:
            raise ValueError(f"metrics: the value of {name} is not a number: {line!r}") from None
        add_sample(found, models, names[base], name, lab, value, line, "metrics")
    one_model(models, "metrics: counters", "labels={'model_name': ...}")
    return found


def add_sample(found: dict, models: set, key: str, name: str, lab: dict, value: float, line: str,
               where: str) -> None:
    """Add one sample of counter ``key`` to ``found`` (per-position counters by their position label), and note
    its model; the one accumulation rule of every form that carries Prometheus samples."""
    if "model_name" in lab:
        models.add(lab["model_name"])
    if key in PER_POSITION:
        if "position" not in lab:
            raise ValueError(f"{where}: {name} needs a 'position' label: {line!r}")
        slot = found.setdefault(key, {})
        i = position_label(lab["position"], line, where)
        slot[i] = slot.get(i, 0.0) + value
    else:
        found[key] = found.get(key, 0.0) + value


def one_model(models: set, what: str, how: str) -> None:
    """Refuse samples of several models: a window must be read for one model, picked by its label."""
    if len(models) > 1:
        raise ValueError(f"{what} of several models ({', '.join(sorted(models))}); pass {how} to read one")


def position_label(text: str, line: str, where: str = "metrics") -> int:
    """vLLM's 0-based ``position`` label as a whole number, or an error quoting the line."""
    try:
        i = int(str(text).strip())
    except ValueError:
        i = -1
    if i < 0:
        raise ValueError(f"{where}: the 'position' label must be a whole number >= 0 (vLLM's 0-based draft "
                         f"position); got {str(text)!r} in {line!r}")
    return i


def is_path(source: Any) -> bool:
    """A file to read: a path object, a string without whitespace (every /metrics sample line has some), or
    a one-line string naming an existing file."""
    if isinstance(source, os.PathLike):
        return True
    if not isinstance(source, str) or not source.strip() or "\n" in source.strip():
        return False
    return not any(ch.isspace() for ch in source.strip()) or os.path.isfile(source.strip())


def _from_mapping(source: Mapping) -> dict:
    """{key: value} from plain names or vLLM's names; other engine metrics ignored, any other key refused."""
    names = {v: key for key, v in VLLM_METRICS.items()}
    names.update({key: key for key in VLLM_METRICS}, num_accepted_tokens_per_pos="accepted_per_position")
    found: dict = {}
    given: dict = {}
    for raw, value in source.items():
        name = str(raw)
        base = name[:-len("_total")] if name.endswith("_total") and name.startswith("vllm:") else name
        if base not in names:
            if name.startswith(("vllm:", "sglang:", "#")):
                continue
            raise ValueError(f"counters has an unknown field {name!r}; known fields: {', '.join(VLLM_METRICS)} "
                             f"(or vLLM's names, e.g. {VLLM_METRICS['num_drafts']})")
        key = names[base]
        if key in PER_POSITION:
            if isinstance(value, Mapping):
                try:
                    slots = {int(str(i)): v for i, v in value.items()}
                except ValueError:
                    raise ValueError(f"{name}: positions must be whole numbers (vLLM's 0-based 'position' label); "
                                     f"got {describe(sorted(map(str, value)))}") from None
                values = check_nonnegative(list(slots.values()), name, "(count)").tolist()
                value = dict(zip(slots, values, strict=True))
            else:
                if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
                    raise TypeError(f"{name} must be a list of counts, one per draft position; got {describe(value)}")
                counts = check_nonnegative(value, name, "(count)").reshape(-1)
                if counts.size == 0:
                    raise ValueError(f"{name} must have one count per draft position; got an empty list")
                value = dict(enumerate(counts.tolist()))
        else:
            value = float(check_scalar(value, name, check_nonnegative, "(count)"))
        if key in found and found[key] != value:
            raise ValueError(f"counters give {key} twice with different values ({given[key]} and {name})")
        found[key], given[key] = value, name
    return found


def _from_sequence(source: Any) -> dict:
    if len(source) not in (3, 4):
        raise ValueError("counters as a sequence must be (num_drafts, num_draft_tokens, num_accepted_tokens"
                         f"[, accepted_per_position]); got {len(source)} items")
    keys = ("num_drafts", "num_draft_tokens", "num_accepted_tokens", "accepted_per_position")
    return _from_mapping(dict(zip(keys, source, strict=False)))


def parse_vllm_metrics(source: Any,
                       labels: dict[str, Any] | None = None) -> dict[str, Any]:
    """Read vLLM's speculative decoding counters from any of the forms they come in.

    * a mapping keyed by the metric names of :data:`VLLM_METRICS` (with or
      without the ``_total`` suffix the exposition text adds) or by the
      plain names (``num_drafts``, ``num_draft_tokens``,
      ``num_accepted_tokens``, ``accepted_per_position``), the per-position
      counters as a list by position or a dict ``{position: count}`` with
      vLLM's 0-based ``position`` label. Other ``vllm:``/``sglang:`` metrics
      are ignored (so ``LLM.get_metrics()`` turned into a dict can be passed
      whole); any other key is refused, so that a misspelt counter is not
      silently dropped;
    * the Prometheus text a running vLLM server prints at ``/metrics``
      (samples of several engines, label ``engine``, are summed; counters of
      several models must be narrowed with ``labels``);
    * a sequence ``(num_drafts, num_draft_tokens, num_accepted_tokens[,
      accepted_per_position])``;
    * a file: a ``pathlib.Path``, a string without whitespace (a
      ``/metrics`` sample line always has some) or a one-line string naming
      an existing file, holding JSON or TOML with such a mapping, or a saved
      ``/metrics`` page.

    Nothing here is statistics; :func:`specdec.acceptance.estimation.read_engine_counters`
    checks what the counts mean and turns them into alpha.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    source : Mapping, str, pathlib.Path or sequence
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
    >>> sd.engine_metrics.parse_vllm_metrics((1000, 4000, 2100))["num_accepted_tokens"]
    2100.0
    """
    where = "metrics" if isinstance(source, str) else "counters"
    if is_path(source):
        where = f"counters file {os.fspath(source).strip()!r}"
        source = read_data_file(os.fspath(source).strip(), "counters file", text_ok=True)
    if labels is not None and not isinstance(source, str):
        raise ValueError("labels applies to the /metrics text only; select the entries of a dict yourself")
    if isinstance(source, str):
        found = _parse_text(source, labels)
    elif isinstance(source, Mapping):
        found = _from_mapping(source)
    elif isinstance(source, (list, tuple)):
        found = _from_sequence(source)
    else:
        raise TypeError(f"source must be a dict of vLLM counters, the /metrics text, a file path or a sequence "
                        f"(num_drafts, num_draft_tokens, num_accepted_tokens[, accepted_per_position]); "
                        f"got {type(source).__name__}")
    if not any(key in found for key in REQUIRED):
        raise ValueError(f"{where}: no vLLM speculative decoding counters (looked for "
                         f"{VLLM_METRICS['num_drafts']}_total and the others)")
    missing = [f"{key} ({VLLM_METRICS[key]})" for key in REQUIRED if key not in found]
    if missing:
        raise ValueError(f"{where}: missing the counter(s) {', '.join(missing)}")
    out: dict[str, Any] = {key: float(found[key]) for key in REQUIRED}
    for key in PER_POSITION:
        if key in found:
            slots = found[key]
            if sorted(slots) != list(range(len(slots))):
                raise ValueError(f"{where}: {VLLM_METRICS[key]} must have positions 0, 1, ..., k - 1 without gaps "
                                 f"(vLLM's 0-based 'position' label); got {describe(sorted(slots))}")
            out[key] = [float(slots[i]) for i in range(len(slots))]
    return out
