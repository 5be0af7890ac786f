"""What serving engines print: vLLM's and SGLang's definitions as quoted inputs, and the readings built on them.

The records (:data:`VLLM_COUNTERS`, :data:`VLLM_DEFINITIONS`,
:data:`SGLANG_DEFINITIONS`) quote each engine's code with the release or
commit read; :func:`metric_readings` and :func:`misread_alphas` compute what
an engine prints for an alpha and what common misreadings give. Import them
from :mod:`specdec.literature`, which re-exports them; this private module
only keeps that one under the package's length limit.

Defined in chapter "What serving engines print".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import check_broadcast, check_integer, check_probability, is_scalar_input, to_output
from specdec.acceptance import _draft_acceptance_rate, _expected_tokens_array, alpha_for_expected_tokens
from specdec.acceptance.estimation import EngineReading
from specdec.sources import Cited

__all__ = ["VLLM_COUNTERS", "VLLM_DEFINITIONS", "SGLANG_DEFINITIONS", "metric_readings", "misread_alphas"]

_VLLM_METRICS_READ = ("vllm/v1/spec_decode/metrics.py of vllm-project/vllm at commit "
                      "016a8587edb04ae53c913a1da9355a07dc0ca4ae (search-tool index file id 32454485834); the same "
                      "definitions in the vLLM 0.33.0 wheel")

VLLM_COUNTERS = Cited(("vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_draft_tokens_total",
                        "vllm:spec_decode_num_accepted_tokens_total",
                        "vllm:spec_decode_num_accepted_tokens_per_pos_total"),
                       "vllm-metrics", "SpecDecodingProm (Prometheus counters; the exposition adds the _total "
                       "suffix; labels model_name and engine, and position 0 .. k - 1 for the per-position counter)",
                       "verified", _VLLM_METRICS_READ)

#: What vLLM's periodic log line and its counters mean, as the code computes them.
VLLM_DEFINITIONS = {
    "mean_acceptance_length": Cited(
        "1 + num_accepted_tokens / num_drafts", "vllm-metrics", "SpecDecodingLogging.log, 'Mean acceptance length'",
        "verified", _VLLM_METRICS_READ, note="code comment: 'Conventionally, mean acceptance length includes the "
                                             "bonus token'"),
    "draft_acceptance_rate": Cited(
        "num_accepted_tokens / num_draft_tokens * 100", "vllm-metrics",
        "SpecDecodingLogging.log, 'Avg Draft acceptance rate' (a percentage)", "verified", _VLLM_METRICS_READ),
    "per_position_rate": Cited(
        "num_accepted_tokens_per_pos[i] / num_drafts", "vllm-metrics",
        "SpecDecodingLogging.log, 'Per-position acceptance rate' (each formatted to 3 decimals)", "verified",
        _VLLM_METRICS_READ,
        note="SpecDecodingStats.observe_draft adds 1 to positions 0 .. N - 1 of a draft that accepted N tokens, so "
             "position i counts the drafts with at least i + 1 accepted: the unconditional rate"),
    "num_draft_tokens": Cited(
        "len(scheduled_spec_token_ids), once per request and scheduler step with a draft", "vllm-0.33",
        "vllm/v1/core/sched/scheduler.py, Scheduler.update_from_output", "verified", "the vLLM 0.33.0 wheel",
        note="drafts shorter than num_speculative_tokens (n-gram proposals, requests near max_model_len, "
             "structured output) make num_draft_tokens / num_drafts a non-integer"),
    "log_interval_s": Cited(
        10.0, "vllm-0.33", "vllm/envs.py, VLLM_LOG_STATS_INTERVAL (default 10 seconds)", "verified",
        "the vLLM 0.33.0 wheel", note="each log line sums only its own interval; the counters are cumulative"),
    "draft_sample_method": Cited(
        "greedy", "vllm-0.33", "vllm/config/speculative.py, SpeculativeConfig.draft_sample_method", "verified",
        "the vLLM 0.33.0 wheel",
        note="\"'greedy' always picks the argmax token, and the draft probabilities are treated as one-hot during "
             "rejection sampling\"; n-gram drafts pass no probabilities (draft_probs None, the kernel uses "
             "draft_prob = 1: vllm/v1/sample/rejection_sampler.py)"),
    "unconditional_to_conditional": Cited(
        "c_i = p_i / p_(i-1)", "vllm-0.33", "vllm/v1/spec_decode/utils.py, unconditional_to_conditional_rates",
        "verified", "the vLLM 0.33.0 wheel",
        note="vLLM's own conversion of per-position unconditional rates to conditional ones"),
    "per_request_metrics": Cited(
        "--per-request-spec-decode-metrics {none, summary, detailed}, default none", "vllm-0.33",
        "vllm/config/observability.py (per_request_spec_decode_metrics); vllm/v1/metrics/stats.py "
        "(RequestSpecDecodeMetrics: a histogram of accepted drafts per step and, with detailed, each step's drafted "
        "count)", "verified", "the vLLM 0.33.0 wheel"),
    "v0_draft_acceptance_rate": Cited(
        "accepted_tokens / draft_tokens, with every position tested whether or not an earlier one was rejected",
        "vllm-0.7.3", "vllm/spec_decode/metrics.py (_collect_rejsample_metrics); the sampler's docstring 'This "
        "implementation does not apply causality' (vllm/model_executor/layers/rejection_sampler.py)", "verified",
        "the vLLM 0.7.3 wheel", note="under the i.i.d. model this estimates alpha itself; the log values are cumulative"),
    "v0_system_efficiency": Cited(
        "emitted_tokens / ((draft_tokens // k) * (k + 1))", "vllm-0.7.3",
        "vllm/spec_decode/metrics.py (system_efficiency, get_max_num_emitted_tokens)", "verified",
        "the vLLM 0.7.3 wheel", note="E[L] / (k + 1)"),
    "tpot": Cited(
        "(latency - ttft) / (output_len - 1), per request", "vllm-0.33",
        "vllm/benchmarks/serve.py, calculate_metrics ('Time per Output Token (excl. 1st token)')", "verified",
        "the vLLM 0.33.0 wheel"),
    "itl": Cited(
        "the time between two streamed chunks of a request", "vllm-0.33",
        "vllm/benchmarks/lib/endpoint_request_func.py (output.itl.append(timestamp - most_recent_timestamp)); "
        "stream_interval default 1 in vllm/config/scheduler.py", "verified", "the vLLM 0.33.0 wheel",
        note="one chunk carries every token of an engine step, so with speculation an ITL sample is the time of a "
             "round, not of a token"),
}

_SGLANG_READ = "the SGLang 0.5.23 wheel"

#: What SGLang's decode log line prints (its Prometheus gauges carry the same values).
SGLANG_DEFINITIONS = {
    "accept_length": Cited(
        "spec_num_accept_tokens / spec_num_forward_ct", "sglang-0.5.23",
        "sglang/srt/managers/scheduler_components/metrics_reporter.py, decode log line 'accept len'", "verified",
        _SGLANG_READ, note="accepted drafts plus one token per request and verify step: the bonus token included"),
    "accept_rate": Cited(
        "num_correct_drafts / (spec_num_forward_ct * (speculative_num_draft_tokens - 1))", "sglang-0.5.23",
        "same file, decode log line 'accept rate'", "verified", _SGLANG_READ,
        note="with speculative_eagle_topk > 1 the denominator counts tree nodes, not the depth of the accepted path"),
    "accept_rate_earlier": Cited(
        "spec_num_accepted_tokens / (spec_num_forward_ct * speculative_num_draft_tokens)", "sglang-78ac30c2",
        "SchedulerMetricsMixin.log_decode_stats ('accept rate'); update_spec_metrics adds num_accepted_tokens + bs "
        "to spec_num_accepted_tokens", "verified",
        "sgl-project/sglang at commit 78ac30c2056f2c25089c1d3203c3d5c13dc3d946 (search-tool index file id 135806541)",
        note="the numerator counts the bonus token and the denominator the verified slots, so for a chain the rate "
             "is E[L] / (k + 1), not the (E[L] - 1) / k of release 0.5.23; 'accept len' is E[L] in both"),
    "chain_draft_tokens": Cited(
        "speculative_num_draft_tokens = speculative_num_steps + 1 when speculative_eagle_topk == 1", "sglang-0.5.23",
        "sglang/srt/arg_groups/speculative_hook.py (the warning 'speculative_num_draft_tokens is adjusted to "
        "speculative_num_steps + 1 when speculative_eagle_topk == 1')", "verified", _SGLANG_READ),
    "log_interval_steps": Cited(
        40, "sglang-0.5.23", "sglang/srt/arg_groups/fields/observability.py, decode_log_interval (decode iterations)",
        "verified", _SGLANG_READ),
    "gauges": Cited(
        "sglang:spec_accept_length and sglang:spec_accept_rate, Prometheus gauges of the last log window",
        "sglang-0.5.23", "sglang/srt/observability/metrics_collector.py", "verified", _SGLANG_READ,
        note="no raw counters are exported, so a window's alpha cannot be given an interval from them"),
    "tpot": Cited(
        "(latency - ttft) / (output_len - 1), per request", "sglang-0.5.23",
        "sglang/benchmark/serving.py, calculate_metrics", "verified", _SGLANG_READ),
    "itl": Cited(
        "a chunk's gap divided by its tokens, once per token", "sglang-0.5.23",
        "sglang/benchmark/serving.py, calculate_metrics (adjusted_itl = itl / num_tokens, when an accept length is "
        "known and the backend is sglang-oai or sglang-oai-chat)", "verified", _SGLANG_READ,
        note="a per-token gap, unlike vLLM's per-chunk ITL: the two benchmarks' ITLs cannot be compared"),
}


# --------------------------------------------------------------------------
# serving metrics
# --------------------------------------------------------------------------


def metric_readings(alpha: ArrayLike, k: ArrayLike) -> dict[str, Any]:
    """The numbers an engine would print for a given alpha and k, side by side.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    alpha : float or array_like
        Per-position acceptance probability, in [0, 1].
    k : int or array_like of int
        Draft tokens per round, >= 1.

    Returns
    -------
    dict
        ``alpha``, ``draft_acceptance_rate`` ((E[L] - 1) / k: vLLM's "Avg
        Draft acceptance rate" as a fraction, SGLang 0.5.23's chain "accept
        rate"), ``length_with_bonus`` (E[L]: vLLM's "Mean acceptance length",
        SGLang's "accept len"), ``length_without_bonus`` (E[L] - 1) and
        ``efficiency`` (E[L] / (k + 1): vLLM V0's "System efficiency", and the
        chain "accept rate" of SGLang at commit 78ac30c2).

    Examples
    --------
    >>> import specdec as sd
    >>> m = sd.literature.metric_readings(0.8, 4)
    >>> round(m["draft_acceptance_rate"], 4), round(m["length_with_bonus"], 4), round(m["efficiency"], 4)
    (0.5904, 3.3616, 0.6723)
    """
    a = check_probability(alpha, "alpha")
    kk = check_integer(k, "k", minimum=1)
    shape = check_broadcast(alpha=a, k=kk)
    scalar = is_scalar_input(alpha, k)
    k_float = kk.astype(np.float64)  # as check_whole returns it
    length = _expected_tokens_array(a, k_float)
    return {
        "alpha": to_output(np.broadcast_to(a, shape), scalar),
        "draft_acceptance_rate": to_output(_draft_acceptance_rate(a, k_float), scalar),
        "length_with_bonus": to_output(length - 0.0, scalar),
        "length_without_bonus": to_output(length - 1.0, scalar),
        "efficiency": to_output(length / (np.asarray(kk) + 1.0), scalar),
    }


def misread_alphas(reading: EngineReading) -> dict[str, Any]:
    """The alphas a reader gets from an engine reading by each common misreading.

    Defined in chapter "What serving engines print".

    Parameters
    ----------
    reading : specdec.acceptance.estimation.EngineReading
        From :func:`specdec.acceptance.estimation.read_engine_counters`.

    Returns
    -------
    dict
        ``correct`` (the i.i.d. alpha), ``rate_as_alpha`` (the draft
        acceptance rate taken as alpha), ``length_without_bonus_as_with``
        (E[L] - 1 fed to the with-bonus inversion, clipped to alpha >= 0),
        ``length_with_bonus_as_without`` (E[L] fed to the without-bonus
        inversion; ``nan`` when E[L] > k makes that impossible).

    Examples
    --------
    >>> import specdec as sd
    >>> r = sd.estimation.read_engine_counters(1000, 4000, 2362)
    >>> m = sd.literature.misread_alphas(r)
    >>> round(m["rate_as_alpha"], 4)
    0.5905
    """
    if not isinstance(reading, EngineReading):
        raise TypeError(f"reading must be an EngineReading (from specdec.acceptance.estimation.read_engine_counters); "
                        f"got {type(reading).__name__}")
    k = reading.k
    el = reading.mean_acceptance_length
    m = reading.mean_draft_length if reading.mean_draft_length else float(k)
    wrong_with = float(alpha_for_expected_tokens(max(el - 1.0, 1.0), m)) if el - 1.0 >= 1.0 else 0.0
    wrong_without = float(alpha_for_expected_tokens(el + 1.0, m)) if el <= m else float("nan")
    return {
        "correct": reading.alpha,
        "rate_as_alpha": reading.draft_acceptance_rate,
        "length_without_bonus_as_with": wrong_with,
        "length_with_bonus_as_without": wrong_without,
    }
