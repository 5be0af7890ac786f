"""Tests for the batch sweeps of specdec.serving.deployment, against step times and memory limits computed apart."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import specdec as sd

H = sd.hardware
T70, D8, TP8 = H.LLAMA_70B, H.LLAMA_8B, H.H100.scaled(8)


def test_batch_grid_small_and_large():
    """Every batch once, from 1 to batch_max; a small range is filled in completely."""
    assert sd.deployment.batch_grid(5, n_points=40).tolist() == [1, 2, 3, 4, 5]
    assert sd.deployment.batch_grid(1).tolist() == [1]
    b = sd.deployment.batch_grid(1024, n_points=160)
    assert b[0] == 1 and b[-1] == 1024 and np.all(np.diff(b) > 0) and b.size <= 160
    assert b.dtype == np.int64


def _expected_tokens(alpha, k):
    return (1 - alpha ** (k + 1)) / (1 - alpha)


def test_latency_throughput_in_memory_by_hand():
    """Plain: T(B, C, 1) per token and B / T tokens/s; speculative: the round over E[L]; nan past memory."""
    alpha, k, context = 0.8, 5, 2048
    batches = np.array([1, 16, 64, 400, 1000, 3000])
    v = sd.deployment.latency_throughput_in_memory(T70, D8, TP8, alpha, k, batches, context=context)
    plain_fits = sd.memory.max_concurrent_sequences(T70, TP8, context)
    spec_fits = sd.memory.max_concurrent_sequences(T70, TP8, context, draft=D8, k=k)
    assert spec_fits < plain_fits
    for i, b in enumerate(batches):
        t0 = H.step_time(T70, TP8, b, context, 1)
        t_round = k * H.step_time(D8, TP8, b, context, 1) + H.step_time(T70, TP8, b, context, k + 1)
        if b <= plain_fits:
            assert_allclose(v["latency_baseline"][i], t0, rtol=1e-12)
            assert_allclose(v["throughput_baseline"][i], b / t0, rtol=1e-12)
        else:
            assert np.isnan(v["latency_baseline"][i]) and np.isnan(v["throughput_baseline"][i])
        if b <= spec_fits:
            assert_allclose(v["latency_speculative"][i], t_round / _expected_tokens(alpha, k), rtol=1e-12)
            assert_allclose(v["throughput_speculative"][i], b * _expected_tokens(alpha, k) / t_round, rtol=1e-12)
        else:
            assert np.isnan(v["latency_speculative"][i]) and np.isnan(v["throughput_speculative"][i])


def test_speedup_up_to_capacity_by_hand():
    """Batches up to what fits; without a cap the speedup is E[L] / (k c_d + c_v) from the step times."""
    alpha, k, context = 0.7, 4, 32768
    b, s = sd.deployment.speedup_up_to_capacity(T70, D8, TP8, alpha, k, context)
    limit = int(sd.memory.max_concurrent_sequences(T70, TP8, context))
    assert_array_equal(b, np.arange(1, min(limit, 512) + 1))
    t0 = np.array([H.step_time(T70, TP8, x, context, 1) for x in b])
    cd = np.array([H.step_time(D8, TP8, x, context, 1) for x in b]) / t0
    cv = np.array([H.step_time(T70, TP8, x, context, k + 1) for x in b]) / t0
    assert_allclose(s, _expected_tokens(alpha, k) / (k * cd + cv), rtol=1e-12)
    # a draft that attends to 512 cached tokens is cheaper, so speculation gains; batch_max caps the batches
    b_cap, s_cap = sd.deployment.speedup_up_to_capacity(T70, D8, TP8, alpha, k, context, kv_budget=512)
    assert_array_equal(b_cap, b) and np.all(s_cap > s)
    assert sd.deployment.speedup_up_to_capacity(T70, D8, TP8, alpha, k, 1024, batch_max=7)[0].tolist() == list(range(1, 8))


@pytest.mark.parametrize("call, error, name", [
    (lambda: sd.deployment.batch_grid(0), ValueError, "batch_max"),
    (lambda: sd.deployment.batch_grid(8, n_points=0), ValueError, "n_points"),
    (lambda: sd.deployment.latency_throughput_in_memory(T70, D8, TP8, 1.5, 5, [1]), ValueError, "alpha"),
    (lambda: sd.deployment.latency_throughput_in_memory(T70, D8, TP8, 0.8, 5, [0, 1]), ValueError, "batches"),
    (lambda: sd.deployment.latency_throughput_in_memory(T70, D8, TP8, 0.8, 5, [[1, 2]]), ValueError, "batches"),
    (lambda: sd.deployment.latency_throughput_in_memory(T70, D8, TP8, 0.8, [5, 6], [1]), ValueError, "k"),
    (lambda: sd.deployment.speedup_up_to_capacity(T70, None, TP8, 0.8, 5, 1), TypeError, "draft"),
    (lambda: sd.deployment.speedup_up_to_capacity(T70, D8, TP8, 0.8, 5, 0), ValueError, "context"),
    (lambda: sd.deployment.speedup_up_to_capacity(T70, D8, TP8, 0.8, 5, 1, kv_budget=0), ValueError, "kv_budget"),
    (lambda: sd.deployment.speedup_up_to_capacity(T70, D8, TP8, 0.8, 5, 1, batch_max=0), ValueError, "batch_max"),
])
def test_batch_sweeps_validate(call, error, name):
    with pytest.raises(error, match=name):
        call()
