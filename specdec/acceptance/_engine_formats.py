"""Every form an engine prints, detected by its shape: the reader behind :func:`specdec.acceptance.engine_metrics.read_engine_source`.

A private part of :mod:`specdec.acceptance.engine_metrics` (which re-exports its public names).

Defined in chapter "Decide for your service".
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from specdec._validate import check_count, check_nonnegative, check_probability, check_scalar, describe
from specdec.acceptance import _expected_tokens_array
from specdec.acceptance._vllm_counters import (
    PER_POSITION,
    REQUIRED,
    SAMPLE_LINE,
    VLLM_METRICS,
    add_sample,
    is_path,
    one_model,
    parse_labels,
    parse_vllm_metrics,
)

__all__ = ["ENGINES", "EngineSource", "read_engine_source", "rate_reading", "check_engine"]


# --------------------------------------------------------------------------
# every form an engine prints: detected by its shape
# --------------------------------------------------------------------------
# What each engine's printed rate means (documented at specdec.acceptance.engine_metrics.ENGINES, which is this dict).
ENGINES = {
    "vllm": "vLLM V1 (0.8 and later): 'Avg Draft acceptance rate' = accepted / drafted = (E[L] - 1) / k",
    "vllm-v0": "vLLM V0 (up to 0.9): 'Draft acceptance rate' = positions passed / positions tested, every position "
               "tested (no causality): an estimate of alpha itself",
    "sglang": "SGLang (from 0.5): 'accept rate' = accepted drafts / (rounds x (num_draft_tokens - 1)) = (E[L] - 1) / k",
    "sglang-legacy": "older SGLang: 'accept rate' = accept len / num_draft_tokens = E[L] / (k + 1) for a chain",
    "trtllm": "TensorRT-LLM: its acceptance length is E[L]; its printed rates are not read here (pass the length)",
}


def rate_reading(rate: float, k: int, engine: str) -> float:
    """The mean acceptance length E[L] that a printed acceptance rate stands for, by engine.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    rate : float
        The printed rate as a fraction, in [0, 1].
    k : int
        Draft tokens per round, >= 1.
    engine : str
        One of :data:`ENGINES`.

    Returns
    -------
    float
        E[L], bonus token included (may lie outside [1, k + 1] when the rate cannot come from that engine).

    Examples
    --------
    >>> import specdec as sd
    >>> [round(sd.engine_metrics.rate_reading(0.6, 4, e), 4) for e in ("vllm", "vllm-v0", "sglang-legacy")]
    [3.4, 2.3056, 3.0]
    """
    r = float(check_scalar(rate, "draft_acceptance_rate", check_probability))
    kk = check_count(k, "k")
    engine = check_engine(engine)
    if engine in ("vllm", "sglang"):
        return 1.0 + r * kk
    if engine == "vllm-v0":
        return float(_expected_tokens_array(np.asarray(r), np.asarray(float(kk))))
    if engine == "sglang-legacy":
        return r * (kk + 1)
    raise ValueError("engine='trtllm': TensorRT-LLM's printed acceptance rates are not read here (its stats paths "
                     "define them differently); pass its acceptance length as mean_acceptance_length, or its counts")


def check_engine(engine: Any) -> str:
    """``engine`` as one of :data:`ENGINES` (case and ``_`` folded), or a ValueError listing them."""
    if not isinstance(engine, str) or engine.strip().lower().replace("_", "-") not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}; got {describe(engine)}")
    return engine.strip().lower().replace("_", "-")


@dataclass(frozen=True)
class EngineSource:
    """What one engine printout holds, read by :func:`read_engine_source`.

    Defined in chapter "Decide for your service".

    Attributes
    ----------
    engine : str
        The engine (and version) the form belongs to: a key of :data:`ENGINES`, or ``"sglang?"`` for an SGLang
        printout whose version the numbers do not tell.
    form : str
        The form read, in words (``"vLLM V1 /metrics page"``, ``"sum of 3 vLLM V1 'SpecDecoding metrics' log
        lines"``, ...).
    counters : dict or None
        ``num_drafts``, ``num_draft_tokens``, ``num_accepted_tokens`` and, when known,
        ``accepted_per_position``: counts of one window. None when the form holds only a mean.
    mean_acceptance_length : float or None
        The printed mean, for forms without counts (SGLang's gauges and log lines, vLLM V0's pages).
    k : int or None
        Draft tokens per round, when the form says it.
    tpot_on_ms : float or None
        A measured time per output token with speculation on (``vllm bench serve``'s ``mean_tpot_ms``).
    requests : numpy.ndarray or None
        Per-request counts, shape ``(n, 3)``: drafts, draft tokens, accepted tokens.
    notes : tuple of str
        How the form was read (which lines, what was reconstructed), in sentences.
    """

    engine: str
    form: str
    counters: dict | None = None
    mean_acceptance_length: float | None = None
    k: int | None = None
    tpot_on_ms: float | None = None
    requests: np.ndarray | None = None
    notes: tuple = field(default=())


_NO_METRICS = ("no speculative decoding metrics found (looked for vLLM V1's vllm:spec_decode_num_drafts_total, "
               "vLLM V0's vllm:spec_decode_num_emitted_tokens_total, SGLang's sglang:spec_accept_length, the log "
               "lines 'SpecDecoding metrics:', 'Speculative metrics:' and 'Decode batch ... accept len:', and "
               "vllm bench serve's spec_decode_* fields)")


def _decode(data: bytes, where: str) -> str:
    """Bytes as text: gunzipped when gzip, UTF-8 with or without a byte-order mark; clear errors otherwise."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{where} is a gzip file that cannot be unpacked ({exc}); is it truncated?") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save "
                         f"the page or log as text (UTF-8, or gzip of it)") from None


def _load(source: Any, where: str) -> Any:
    """(object, where): a file's or bytes' content as text or parsed JSON/TOML; other objects as they are."""
    if isinstance(source, (bytes, bytearray)):
        return _text_object(_decode(bytes(source), where), where, None), where
    if is_path(source):
        path = os.fspath(source).strip()
        where = f"{where} file {path!r}"
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise ValueError(f"{where} cannot be read: {exc.strerror or exc}") from None
        return _text_object(_decode(data, where), where, path), where
    if isinstance(source, str):
        return _text_object(source.lstrip("\ufeff"), where, None), where
    return source, where


def _text_object(text: str, where: str, path: str | None) -> Any:
    """Text that is JSON becomes its object; a .toml file (or text that is only TOML) its table; else the text."""
    stripped = text.strip()
    is_log = any(marker in stripped for marker in ("SpecDecoding metrics:", "Speculative metrics:", "accept len:"))
    if stripped[:1] in ("{", "[") and not is_log:
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where} is not valid JSON: {exc}") from None
    if path is not None and str(path).lower().endswith(".toml") or (
            stripped and not _looks_like_metrics(stripped) and "=" in stripped):
        from specdec._datafiles import read_toml_text

        try:
            return read_toml_text(text, path or "(text)", where)
        except ValueError:
            if path is not None and str(path).lower().endswith(".toml"):
                raise
    return text


def _looks_like_metrics(text: str) -> bool:
    return any(marker in text for marker in ("vllm:", "sglang:", "SpecDecoding metrics", "Speculative metrics",
                                             "accept len", "# HELP", "# TYPE"))


def _prom_samples(text: str, where: str) -> list:
    """(name, labels, value) for every sample line of a Prometheus text page (comments, blank lines skipped)."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = SAMPLE_LINE.match(line)
        if not m:
            raise ValueError(f"{where}: not a Prometheus sample line: {line!r}")
        try:
            value = float(m.group("value"))
        except ValueError:
            raise ValueError(f"{where}: the value of {m.group('name')} is not a number: {line!r}") from None
        out.append((m.group("name"), parse_labels(m.group("labels") or "", line), value, line))
    return out


def _base(name: str) -> str:
    return name[:-len("_total")] if name.endswith("_total") else name


def _select(samples: list[tuple[Any, ...]], labels: Mapping | None, where: str) -> list:
    """The samples carrying every label of ``labels``; an error naming the label when none does."""
    if not labels:
        return samples
    kept = [s for s in samples if all(s[1].get(key) == str(val) for key, val in labels.items())]
    spec = [s for s in samples if s[0].startswith(("vllm:spec_decode", "sglang:spec_"))]
    if spec and not any(s in kept for s in spec):
        key, val = next(iter(labels.items()))
        seen = sorted({s[1][key] for s in spec if key in s[1]})
        have = (f"values of {key} there: {', '.join(seen)}" if seen else
                f"no speculative decoding sample carries a label {key!r}")
        raise ValueError(f"{where}: no speculative decoding sample has the label {key}={str(val)!r} ({have}); "
                         f"check labels= (--label)")
    return kept


def _from_samples(samples: list, labels: Mapping | None, where: str, form: str, k: int | None) -> EngineSource:
    """A reading from Prometheus samples (a page, an HTTP API answer, LLM.get_metrics()): vLLM V1, V0 or SGLang."""
    samples = _select(samples, labels, where)
    names = {_base(s[0]) for s in samples if not s[0].endswith("_created")}
    if "vllm:spec_decode_num_drafts" in names:
        return EngineSource("vllm", f"vLLM V1 {form}", counters=_v1_counts(samples, where))
    if "vllm:spec_decode_num_emitted_tokens" in names:
        return _v0_page(samples, where, form, k)
    if "sglang:spec_accept_length" in names:
        return _sglang_gauges(samples, where, form, k)
    if names >= {"vllm:spec_decode_num_draft_tokens", "vllm:spec_decode_num_accepted_tokens"}:
        if k is None:
            raise ValueError(f"{where}: missing the counter(s) num_drafts ({VLLM_METRICS['num_drafts']}), as on "
                             f"early vLLM V1 pages; pass k (--k) to count the rounds as draft tokens / k")
        kk = check_count(k, "k")
        drafted = sum(s[2] for s in samples if _base(s[0]) == "vllm:spec_decode_num_draft_tokens")
        if drafted % kk:
            raise ValueError(f"{where}: {drafted:g} draft tokens is not a multiple of k = {kk}, so the rounds of a "
                             f"page without {VLLM_METRICS['num_drafts']} cannot be counted")
        samples = samples + [("vllm:spec_decode_num_drafts_total", {}, drafted / kk, "(drafted / k)")]
        return EngineSource("vllm", f"vLLM V1 {form} (early, without num_drafts)",
                            counters=_v1_counts(samples, where), k=kk,
                            notes=(f"rounds = draft tokens / k = {drafted:g} / {kk}: the page has no "
                                   f"{VLLM_METRICS['num_drafts']}; this holds when every round drafts k tokens",))
    raise ValueError(f"{where}: {_NO_METRICS}")


def _v1_counts(samples: list, where: str) -> dict:
    names = {v: key for key, v in VLLM_METRICS.items()}
    found: dict = {}
    models: set = set()
    for name, lab, value, line in samples:
        if name.endswith("_created"):
            continue
        base = _base(name)
        if base not in names:
            continue
        add_sample(found, models, names[base], name, lab, value, line, where)
    one_model(models, f"{where}: samples", "labels={'model_name': ...} (--label model_name=...)")
    return _finish_counts(found, where)


def _finish_counts(found: dict, where: str) -> dict:
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


def _need_k(k: int | None, where: str, what: str) -> int:
    if k is None:
        raise ValueError(f"{where}: {what} does not say k (draft tokens per round); pass k (--k)")
    return check_count(k, "k")


def _v0_page(samples: list[tuple[Any, ...]], where: str, form: str, k: int | None) -> EngineSource:
    """vLLM V0's page: its counters are increased by the cumulative totals at every log interval
    (``PrometheusStatLogger.log`` in ``vllm/engine/metrics.py``), so they are not the counts of any window;
    the system-efficiency gauge (emitted / (rounds (k + 1)) since the engine started) gives E[L]."""
    kk = _need_k(k, where, "a vLLM V0 page")
    gauges = {_base(s[0]): s[2] for s in samples}
    notes = ["vLLM V0 adds its cumulative totals to these counters at every log interval, so they are not counts "
             "of a window and give no interval"]
    if "vllm:spec_decode_efficiency" in gauges and math.isfinite(gauges["vllm:spec_decode_efficiency"]):
        length = gauges["vllm:spec_decode_efficiency"] * (kk + 1)
        notes.append(f"E[L] = system efficiency x (k + 1) = {gauges['vllm:spec_decode_efficiency']:.4g} x {kk + 1} "
                     f"(totals since the engine started)")
    else:
        emitted = sum(s[2] for s in samples if _base(s[0]) == "vllm:spec_decode_num_emitted_tokens")
        drafted = sum(s[2] for s in samples if _base(s[0]) == "vllm:spec_decode_num_draft_tokens")
        if not drafted > 0:
            raise ValueError(f"{where}: vllm:spec_decode_num_draft_tokens_total is missing or 0")
        length = kk * emitted / drafted
        notes.append("E[L] = k x emitted / drafted over the summed snapshots (an average of cumulative values)")
    if "vllm:spec_decode_draft_acceptance_rate" in gauges:
        notes.append(f"V0's own 'draft acceptance rate' gauge, {gauges['vllm:spec_decode_draft_acceptance_rate']:.4g}, "
                     f"estimates alpha from every position tested, not only those reached")
    return EngineSource("vllm-v0", f"vLLM V0 {form}", mean_acceptance_length=float(length), k=kk, notes=tuple(notes))


def _sglang_version(length: float, rate: float, k: int) -> str:
    """Which SGLang printed ``rate`` next to ``length`` at ``k``: both printed at 2 decimals."""
    tol_new = 0.005 + 0.005 / k + 1e-9
    tol_old = 0.005 + 0.005 / (k + 1) + 1e-9
    new = abs(rate - (length - 1.0) / k) <= tol_new
    old = abs(rate - length / (k + 1)) <= tol_old
    return "sglang" if new and not old else ("sglang-legacy" if old and not new else "sglang?")


def _sglang_gauges(samples: list[tuple[Any, ...]], where: str, form: str, k: int | None) -> EngineSource:
    lengths = [s[2] for s in samples if s[0] == "sglang:spec_accept_length"]
    rates = [s[2] for s in samples if s[0] == "sglang:spec_accept_rate"]
    steps = [s[2] for s in samples if s[0] == "sglang:spec_num_steps"]
    notes = ["SGLang's gauges hold a mean over its last log interval only (no counts): no interval"]
    if k is None and steps:
        k = int(round(steps[-1]))
        notes.append(f"k = {k} from sglang:spec_num_steps")
    kk = _need_k(k, where, "an SGLang page without sglang:spec_num_steps")
    length = float(np.mean(lengths))
    if len(set(lengths)) > 1:
        notes.append(f"{len(lengths)} ranks report accept lengths {min(lengths):.3g} .. {max(lengths):.3g}; their "
                     f"unweighted mean is used")
    engine = "sglang?" if not rates else _sglang_version(length, float(np.mean(rates)), kk)
    return EngineSource(engine, f"SGLang {form} (sglang:spec_accept_length)", mean_acceptance_length=length, k=kk,
                        notes=tuple(notes))


_NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan)"


def _field(pattern: str, line: str) -> Any:
    m = re.search(pattern, line)
    return None if m is None else m.group(1)


def _v1_early(line: str, acc: str | None, dra: str | None, k: int | None, where: str) -> float | None:
    """Rounds of an early vLLM V1 line (0.8: 'Draft acceptance rate: X%, Accepted: A tokens, Drafted: D tokens'),
    which does not count them: drafted / k, each round taken to draft k tokens."""
    if acc is None or dra is None or "Draft acceptance rate:" not in line:
        return None
    if k is None:
        raise ValueError(f"{where}: an early vLLM V1 'SpecDecoding metrics' line (Draft acceptance rate, Accepted, "
                         f"Drafted; no mean acceptance length) does not count rounds; pass k (--k), and the rounds "
                         f"are read as drafted / k: {line.strip()!r}")
    if float(dra) % k:
        raise ValueError(f"{where}: {dra} drafted tokens is not a multiple of k = {k}, so the rounds of the early "
                         f"vLLM V1 line cannot be counted; pass its mean acceptance length instead")
    return float(dra) / k


def _v1_log(lines: list, where: str, k_given: int | None = None) -> EngineSource:
    """vLLM V1's 'SpecDecoding metrics' lines: each covers the interval since the one before; summed."""
    n_total = d_total = a_total = 0.0
    per_pos: Any = None  # a list of counts, None (none yet) or False (left out)
    ks: set[Any] = set()
    reconstructed = early = 0
    for line in lines:
        length = _field(r"Mean acceptance length: " + _NUM, line)
        acc = _field(r"Accepted: (\d+) tokens", line)
        dra = _field(r"Drafted: (\d+) tokens", line)
        rates = _field(r"Per-position acceptance rate: ([-+0-9.eE, nan]*?)(?:, [A-Z]|\s*$|,?\s*\[)", line)
        if length is None and rates is None and (n := _v1_early(line, acc, dra, k_given, where)) is not None:
            early += 1
            ks.add(k_given)
            per_pos = False
            n_total, d_total, a_total = n_total + n, d_total + float(dra), a_total + float(acc)
            continue
        if length is None or acc is None or dra is None or rates is None:
            raise ValueError(f"{where}: a 'SpecDecoding metrics' line without the mean acceptance length, the "
                             f"accepted and drafted counts and the per-position rates: {line.strip()!r}")
        L, A, D = float(length), float(acc), float(dra)
        r = [float(x) for x in rates.split(",") if x.strip()]
        k = len(r)
        ks.add(k)
        if k == 0 or D == 0:
            continue
        n = D / k
        if not (D % k == 0 and abs(1.0 + A / n - L) <= 0.005 + 1e-9):
            if not L > 1.0:
                raise ValueError(f"{where}: cannot count the rounds of the line {line.strip()!r} (mean length "
                                 f"{length} with {acc} accepted)")
            n = float(round(A / (L - 1.0)))
            reconstructed += 1
        counts = _allocate(r, n, A)
        n_total, d_total, a_total = n_total + n, d_total + D, a_total + A
        if counts is None or (per_pos not in (None, False) and len(per_pos) != k):
            per_pos = False
        elif per_pos is not False:
            per_pos = counts if per_pos is None else [x + y for x, y in zip(per_pos, counts, strict=False)]
    if n_total == 0:
        raise ValueError(f"{where}: the 'SpecDecoding metrics' lines drafted nothing")
    notes = [f"{'the one line' if len(lines) == 1 else f'the sum of {len(lines)} lines'}: vLLM V1 prints each line "
             f"over the interval since the one before, so the sum is the window they cover"]
    if early:
        notes.append(f"{early} of {len(lines)} lines have the early vLLM V1 form without a round count: their rounds "
                     f"are drafted / k = {k_given}, which holds when every round drafts k tokens (draft models, EAGLE) "
                     f"and overstates E[L] for n-gram rounds that draft fewer")
    if reconstructed:
        notes.append(f"in {reconstructed} of {len(lines)} lines the rounds did not all draft k tokens; their rounds "
                     f"are reconstructed from the mean acceptance length printed at 2 decimals (approximate counts)")
    counters: dict[str, Any] = {"num_drafts": n_total, "num_draft_tokens": d_total, "num_accepted_tokens": a_total}
    if per_pos:
        counters["accepted_per_position"] = [float(x) for x in per_pos]
    elif len(ks) > 1:
        notes.append(f"the lines have different numbers of positions ({sorted(ks)}): per-position rates left out")
    form = f"vLLM V1 'SpecDecoding metrics' log line{'s' if len(lines) > 1 else ''} ({len(lines)})"
    return EngineSource("vllm", form, counters=counters, notes=tuple(notes))


def _allocate(rates: list, n: float, total: float) -> list[int] | None:
    """Per-position counts from rates printed at 3 decimals over ``n`` rounds, summing to ``total``, or None."""
    lo = [max(math.ceil((r - 0.0005) * n - 1e-9), 0) for r in rates]
    hi = [math.floor((r + 0.0005) * n + 1e-9) for r in rates]
    counts = [min(max(round(r * n), a), b) for r, a, b in zip(rates, lo, hi, strict=True)]
    diff = int(round(total - sum(counts)))
    order = sorted(range(len(rates)), key=lambda i: -(rates[i] * n - counts[i]) * (1 if diff > 0 else -1))
    for i in order * 2:
        if diff == 0:
            break
        step = 1 if diff > 0 else -1
        if lo[i] <= counts[i] + step <= hi[i]:
            counts[i] += step
            diff -= step
    if diff != 0 or any(b > a for a, b in zip(counts, counts[1:], strict=False)):
        return None
    return counts


def _v0_log(lines: list, where: str) -> EngineSource:
    """vLLM V0's 'Speculative metrics' lines: totals since the engine started; the last line is read."""
    line = lines[-1]
    k = _field(r"Number of speculative tokens: (\d+)", line)
    dra = _field(r"Number of draft tokens(?: tokens)?: (\d+)", line)
    emi = _field(r"Number of emitted tokens(?: tokens)?: (\d+)", line)
    rate = _field(r"Draft acceptance rate: " + _NUM, line)
    if k is None or dra is None or emi is None:
        raise ValueError(f"{where}: a 'Speculative metrics' line without the number of speculative, draft and "
                         f"emitted tokens: {line.strip()!r}")
    kk, D, E = int(k), float(dra), float(emi)
    if kk < 1 or D % kk:
        raise ValueError(f"{where}: {dra} draft tokens is not a multiple of k = {k} (vLLM V0 drafts k per round)")
    n = D / kk
    notes = [f"the last of {len(lines)} line{'s' if len(lines) > 1 else ''}: vLLM V0 prints totals since the engine "
             f"started (for a window, pass an earlier line as counters_before)",
             f"rounds = draft tokens / k = {D:.0f} / {kk}; accepted = emitted - rounds (the bonus token taken out)"]
    if rate is not None:
        notes.append(f"V0's own 'Draft acceptance rate' {rate} estimates alpha from every position tested, not only "
                     f"those reached; the counts are used instead")
    counters = {"num_drafts": n, "num_draft_tokens": D, "num_accepted_tokens": E - n}
    return EngineSource("vllm-v0", "vLLM V0 'Speculative metrics' log line", counters=counters, k=kk,
                        notes=tuple(notes))


def _sglang_log(lines: list, where: str, k: int | None) -> EngineSource:
    line = lines[-1]
    length = float(_field(r"accept len: " + _NUM, line))
    rate = _field(r"accept rate: " + _NUM, line)
    notes = [f"the last of {len(lines)} 'Decode batch' line{'s' if len(lines) > 1 else ''}: SGLang prints a mean over "
             f"its last decode_log_interval batches and no counts, so no interval"]
    if len(lines) > 1:
        others = [float(_field(r"accept len: " + _NUM, x)) for x in lines]
        notes.append(f"accept len over the {len(lines)} lines ranges {min(others):.2f} .. {max(others):.2f}")
    engine = "sglang?"
    if k is None and rate is not None and float(rate) > 0:
        guesses = {}
        for name, kg in (("sglang", (length - 1.0) / float(rate)), ("sglang-legacy", length / float(rate) - 1.0)):
            if round(kg) >= 1 and abs(kg - round(kg)) <= 0.06 * max(kg, 1.0):
                guesses[name] = int(round(kg))
        if len(guesses) == 1:
            engine, k = next(iter(guesses.items()))
            notes.append(f"k = {k} inferred from accept len and accept rate ({engine} form)")
    kk = _need_k(k, where, "an SGLang 'Decode batch' line")
    if rate is not None and engine == "sglang?":
        engine = _sglang_version(length, float(rate), kk)
    return EngineSource(engine, "SGLang 'Decode batch' log line", mean_acceptance_length=length, k=kk,
                        notes=tuple(notes))


def _bench_json(obj: Mapping, where: str) -> EngineSource:
    """``vllm bench serve --save-result``: spec_decode_* fields (window counts) and mean_tpot_ms."""
    def number(key: str) -> float | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where}: {key} must be a number; got {describe(value)}")
        return float(value)

    tpot = number("mean_tpot_ms")
    n, d, a = number("spec_decode_num_drafts"), number("spec_decode_draft_tokens"), number("spec_decode_accepted_tokens")
    notes = []
    if tpot is not None:
        notes.append(f"mean_tpot_ms = {tpot:.4g} ms: the benchmark's time per output token with speculation on")
    if n is None or d is None or a is None:
        length = number("spec_decode_acceptance_length")
        if length is None:
            raise ValueError(f"{where}: a vllm bench serve result without spec_decode_num_drafts, "
                             f"spec_decode_draft_tokens, spec_decode_accepted_tokens (was the server speculating?)")
        return EngineSource("vllm", "vllm bench serve result (mean only)", mean_acceptance_length=length,
                            tpot_on_ms=tpot, notes=tuple(notes + ["only the mean acceptance length: no interval"]))
    counters: dict[str, Any] = {"num_drafts": n, "num_draft_tokens": d, "num_accepted_tokens": a}
    rates = obj.get("spec_decode_per_position_acceptance_rates") or []
    if rates:
        counts = [float(round(float(r) * n)) for r in rates]
        if abs(sum(counts) - a) <= 0.5 * len(counts) + 1e-9:
            counters["accepted_per_position"] = counts
        else:
            notes.append("the per-position rates do not add up to the accepted count: left out")
    pct = number("spec_decode_acceptance_rate")
    if pct is not None and d > 0 and abs(pct - 100.0 * a / d) > 1e-6 * max(pct, 1.0) + 1e-9:
        notes.append(f"spec_decode_acceptance_rate {pct:.4g} is not 100 x accepted / drafted = {100 * a / d:.4g}")
    return EngineSource("vllm", "vllm bench serve result", counters=counters, tpot_on_ms=tpot, notes=tuple(notes))


def _prometheus_api(obj: Mapping, where: str) -> list:
    """Samples from a Prometheus HTTP API answer (/api/v1/query: vector, or matrix whose last value is taken)."""
    if obj.get("status") != "success":
        raise ValueError(f"{where}: the Prometheus answer has status {obj.get('status')!r}: {obj.get('error', '')}")
    data = obj.get("data") or {}
    out = []
    for item in data.get("result") or []:
        metric = dict(item.get("metric") or {})
        name = metric.pop("__name__", None)
        if name is None:
            raise ValueError(f"{where}: a Prometheus result without a metric name (__name__): query the raw series, "
                             f"e.g. {{__name__=~\"vllm:spec_decode.*|sglang:spec_.*\"}}, not an expression")
        value = item.get("value") or (item.get("values") or [[None, None]])[-1]
        try:
            number = float(value[1])
        except (TypeError, ValueError, IndexError):
            raise ValueError(f"{where}: the value of {name} is not a number: {value!r}") from None
        out.append((name, {str(k): str(v) for k, v in metric.items()}, number, f"{name}{metric}"))
    return out


def _metric_objects(items: list, where: str) -> list:
    """Samples from ``LLM.get_metrics()`` (vllm/v1/metrics/reader.py): Counter/Gauge ``value``, Vector ``values``."""
    out = []
    for item in items:
        get: Callable[..., Any] = item.get if isinstance(item, Mapping) else (
            lambda key, obj=item: getattr(obj, key, None))
        name, lab = get("name"), dict(get("labels") or {})
        if get("values") is not None:
            values = get("values")
            if isinstance(values, (str, bytes)) or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                raise ValueError(f"{where}: the values of {name} must be numbers; got {describe(values)}")
            for pos, value in enumerate(values):
                out.append((name, {**lab, "position": str(pos)}, float(value), f"{name}[{pos}]"))
        elif get("value") is not None:
            value = get("value")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{where}: the value of {name} must be a number; got {describe(value)}")
            out.append((name, lab, float(value), str(name)))
    return out


def _requests(items: list, where: str) -> EngineSource:
    rows = []
    for i, item in enumerate(items):
        try:
            n = float(item["num_drafts"])
            a = float(item["num_accepted_tokens"])
            d = float(item.get("num_draft_tokens", float("nan")))
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{where}: request {i} needs num_drafts and num_accepted_tokens (numbers); got "
                             f"{describe(item)}") from None
        rows.append((n, d, a))
    req = np.array(rows, dtype=float)
    if req.size == 0:
        raise ValueError(f"{where}: no requests")
    if np.isnan(req[:, 1]).any():
        raise ValueError(f"{where}: every request needs num_draft_tokens too")
    if (req < 0).any() or (req[:, 2] > req[:, 1]).any() or (req[:, 1] < req[:, 0]).any():
        raise ValueError(f"{where}: per-request counts must be >= 0 with num_drafts <= num_draft_tokens and "
                         f"num_accepted_tokens <= num_draft_tokens")
    req = req[req[:, 0] > 0]
    counters = {"num_drafts": float(req[:, 0].sum()), "num_draft_tokens": float(req[:, 1].sum()),
                "num_accepted_tokens": float(req[:, 2].sum())}
    return EngineSource("vllm", f"per-request counts ({len(req)} requests with drafts)", counters=counters,
                        requests=req, notes=("the interval resamples whole requests (bootstrap)",))


def read_engine_source(source: Any,
                       labels: dict[str, Any] | None = None, k: int | None = None,
                       where: str = "counters") -> EngineSource:
    """Read whatever an engine printed, detected by its form, into counts (or a mean) and how it was read.

    The forms, each read as its engine's source code writes it:

    * **vLLM V1 ``/metrics``** text (``vllm/v1/spec_decode/metrics.py``, ``SpecDecodingProm``): counters, several
      engines summed, ``labels`` selecting a model or engine;
    * **vLLM V0 ``/metrics``** (``vllm/engine/metrics.py``): its counters grow by cumulative totals at every log
      interval, so only the mean acceptance length is read (from the system-efficiency gauge); needs ``k``;
    * **SGLang's gauges** ``sglang:spec_accept_length`` (and ``spec_accept_rate``, ``spec_num_steps``;
      ``python/sglang/srt/metrics/collector.py``): a mean only, no interval;
    * **vLLM V1 log lines** ``SpecDecoding metrics: ...`` (each over the interval since the one before: summed);
    * **vLLM V0 log lines** ``Speculative metrics: ...`` (totals since the start: the last one is read);
    * **SGLang log lines** ``Decode batch, ... accept len: X[, accept rate: Y]`` (the last one; a mean only);
    * ``vllm bench serve --save-result`` **JSON** (``vllm/benchmarks/serve.py``): ``spec_decode_*`` counts and
      ``mean_tpot_ms``;
    * a **Prometheus HTTP API** answer (``/api/v1/query`` JSON, vector or matrix);
    * **``LLM.get_metrics()``** as a list of metric objects or their dicts (``vllm/v1/metrics/reader.py``);
    * **per-request counts**: a list of ``{num_drafts, num_draft_tokens, num_accepted_tokens}`` (or
      ``{"requests": [...]}``);
    * the plain forms of :func:`parse_vllm_metrics` (a dict, a sequence, JSON/TOML files).

    Files may be gzip-compressed and may start with a UTF-8 byte-order mark; ``bytes`` are read the same way.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    source : str, bytes, pathlib.Path, Mapping or sequence
        The printout, a file holding it, or an object.
    labels : dict, optional
        Only samples carrying all these label values (Prometheus forms).
    k : int, optional
        Draft tokens per round, for forms that do not say it (vLLM V0 pages, SGLang).
    where : str, optional
        What the source is called in error messages (``"--counters"`` on the command line).

    Returns
    -------
    EngineSource

    Examples
    --------
    >>> import specdec as sd
    >>> line = ("INFO [metrics.py:120] SpecDecoding metrics: Mean acceptance length: 2.50, Accepted throughput: "
    ...         "1.00 tokens/s, Drafted throughput: 2.00 tokens/s, Accepted: 150 tokens, Drafted: 300 tokens, "
    ...         "Per-position acceptance rate: 0.800, 0.450, 0.250, Avg Draft acceptance rate: 50.0%")
    >>> s = sd.engine_metrics.read_engine_source(line)
    >>> s.engine, s.counters["num_drafts"], s.counters["accepted_per_position"]
    ('vllm', 100.0, [80.0, 45.0, 25.0])
    """
    check_labels(labels)
    return _read_engine_source(source, labels, None if k is None else check_count(k, "k"), where)


def check_source(source: EngineSource) -> EngineSource:
    """``source`` with its counts checked (finite numbers >= 0; per-position counts as arrays): an EngineSource made
    by hand rather than by :func:`read_engine_source`, which checks what it reads."""
    if source.counters is not None:
        counts = dict(source.counters)
        for key in ("num_drafts", "num_draft_tokens", "num_accepted_tokens"):
            counts[key] = float(check_scalar(counts.get(key), key, check_nonnegative, "(count)"))
        for key in ("accepted_per_position", "draft_tokens_per_position"):
            if counts.get(key) is not None:
                counts[key] = check_nonnegative(counts[key], key, "(count)").tolist()
        source = replace(source, counters=counts)
    return source


def check_labels(labels: Any) -> None:
    """Raise TypeError unless ``labels`` is None or a dict keyed by strings (the labels of a counter series)."""
    if labels is not None:
        if not isinstance(labels, Mapping) or not all(isinstance(key, str) for key in labels):
            raise TypeError(f"labels must be a dict {{label: value}}, e.g. {{'model_name': 'm'}}; got "
                            f"{describe(labels)}")


def _read_engine_source(source: Any, labels: dict[str, Any] | None, kk: int | None, where: str) -> EngineSource:
    """:func:`read_engine_source` with ``labels`` and ``k`` (``kk``) checked."""
    obj, where = _load(source, where)
    if isinstance(obj, str):
        lines = obj.splitlines()
        v1 = [x for x in lines if "SpecDecoding metrics:" in x]
        v0 = [x for x in lines if "Speculative metrics:" in x]
        sg = [x for x in lines if "Decode batch" in x and "accept len:" in x]
        if v1:
            return _v1_log(v1, where, kk)
        if v0:
            return _v0_log(v0, where)
        if sg:
            return _sglang_log(sg, where, kk)
        if not obj.strip():
            raise ValueError(f"{where}: the text is empty (no speculative decoding metrics in it)")
        if not _looks_like_metrics(obj):
            first = next(x.strip() for x in obj.splitlines() if x.strip())
            raise ValueError(f"{where}: {_NO_METRICS}; its first line is not a Prometheus sample line either: "
                             f"{first[:120]!r}")
        return _from_samples(_prom_samples(obj, where), labels, where, "/metrics page", kk)
    if isinstance(obj, Mapping):
        if "status" in obj and "data" in obj:
            read = _from_samples(_prometheus_api(obj, where), labels, where, "Prometheus query answer", kk)
            if isinstance(obj.get("data"), Mapping) and obj["data"].get("resultType") == "matrix":
                read = replace(read, notes=read.notes + ("a range answer (matrix): the last value of each series "
                                                         "is read, the counters' totals at its end",))
            return read
        if any(str(key).startswith("spec_decode_") or str(key) == "mean_tpot_ms" for key in obj):
            return _bench_json(obj, where)
        if "requests" in obj and isinstance(obj["requests"], list):
            return _requests(obj["requests"], where)
        if any("num_emitted_tokens" in str(key) or str(key).startswith("sglang:spec_") for key in obj):
            samples: list[tuple[Any, ...]] = [(str(key), {}, float(value), str(key)) for key, value in obj.items()
                       if isinstance(value, (int, float)) and not isinstance(value, bool)]
            return _from_samples(samples, labels, where, "metrics (a dict)", kk)
        if labels:
            raise ValueError(f"{where}: labels apply to Prometheus pages and answers; select the entries of a dict "
                             f"yourself")
        return EngineSource("vllm", "counters (a dict)", counters=parse_vllm_metrics(obj))
    if isinstance(obj, (list, tuple)) and obj and all(
            isinstance(x, Mapping) and "name" in x or hasattr(x, "name") and hasattr(x, "labels") for x in obj):
        return _from_samples(_metric_objects(list(obj), where), labels, where, "LLM.get_metrics() list", kk)
    if isinstance(obj, (list, tuple)) and obj and all(isinstance(x, Mapping) and "num_drafts" in x for x in obj):
        return _requests(list(obj), where)
    if isinstance(obj, (list, tuple)):
        if labels:
            raise ValueError(f"{where}: labels apply to Prometheus pages and answers, not to a sequence of numbers")
        return EngineSource("vllm", "counters (numbers)", counters=parse_vllm_metrics(obj))
    raise TypeError(f"{where} must be a printout (text, bytes or a file), a dict, a list of metric objects or of "
                    f"per-request counts, or a sequence of numbers; got {type(obj).__name__}")
