"""Issue 12 items 3 and 4: specdec takes what serving stacks pass and answers bad input plainly.

Every test here failed on the code before the consolidation (np.float64 in messages, Decimal read
as complex, float32 softmaxes rejected, k = 10**20 giving -inf, bare numpy broadcasting errors,
an 8 GB allocation for a pmf, round_times_vs_k refusing an array of draft times).
"""

from __future__ import annotations

import decimal
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd
from specdec import _validate as V

NUMPY_REPR = re.compile(r"np\.(float|int|bool|str)\w*\(|array\(")


def message(call) -> str:
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    return str(info.value)


# ------------------------------------------------------------ plain numbers in messages
@pytest.mark.parametrize("call, number", [
    (lambda: sd.expected_tokens(np.float64(1.5), 3), "1.5"),
    (lambda: sd.speedup_from_costs(0.5, 3, np.float32(-0.25), 1.0), "-0.25"),
    (lambda: sd.break_even_alpha(np.array([2, 3]), np.array([0.1, -0.5]), 1.0), "-0.5"),
    (lambda: sd.hardware.step_time(sd.hardware.LLAMA_8B, sd.hardware.H100, batch=np.int64(0)), "0"),
    (lambda: sd.drafts.toy_draft_alpha(np.array([0.5, 1.5])), "1.5"),
    (lambda: sd.request.decode_time(5.0, np.float64(0.5)), "0.5"),
    (lambda: sd.acceptance.alpha_from_mean_acceptance_length(np.float64(7.25), 4), "7.25"),
    (lambda: sd.literature.medusa_speedup(np.float64(0.75), 1.0), "0.75"),
    (lambda: sd.estimation.read_engine_counters(10, 40, np.float64(50.5)), "50.5"),
    (lambda: sd.economics.round_times_vs_k(1, 5, 1.0, 1.0, verify_slope=np.float64(-1.0)), "-1.0"),
])
def test_messages_print_plain_numbers(call, number):
    """Numpy scalars and arrays in a message print as plain numbers, never np.float64(...)."""
    text = message(call)
    assert number in text, text
    assert not NUMPY_REPR.search(text), text


def test_describe_renders_numbers_plainly():
    assert V.describe(np.float64(1.5)) == "1.5"
    assert V.describe(np.array(2.0)) == "2.0"
    assert V.describe(np.int32(7)) == "7"
    assert V.describe([np.float32(0.5), np.int64(2)]) == "[0.5, 2]"
    assert V.describe(decimal.Decimal("0.30")) == "0.30"
    assert V.describe(Fraction(3, 4)) == "3/4"
    assert V.describe(10**20) == "100000000000000000000"
    assert V.describe(np.zeros((3, 4))) == "an array of shape (3, 4)"
    assert V.describe("x") == "'x'"


# ------------------------------------------------------------ Decimal, Fraction, huge ints, 0-d arrays
@pytest.mark.parametrize("value", [decimal.Decimal("0.8"), Fraction(4, 5), np.float32(0.8), np.array(0.8), [0.8][0]])
def test_number_types_are_numbers(value):
    """Decimal and Fraction are numbers (not 'complex'); results equal the float input's to 1e-7."""
    ref = sd.speedup_from_costs(0.8, 5, 0.05, 1.0)
    got = sd.speedup_from_costs(value, 5, 0.05, 1.0)
    assert isinstance(got, float)
    assert abs(got - ref) <= 1e-7 * ref   # float32(0.8) differs from 0.8 in the 8th digit
    assert isinstance(sd.break_even_alpha(decimal.Decimal(5), decimal.Decimal("0.1"), Fraction(5, 4)), float)


def test_decimal_nan_and_complex_are_refused_clearly():
    assert "nan" in message(lambda: sd.expected_tokens(decimal.Decimal("NaN"), 3))
    text = message(lambda: sd.expected_tokens(0.5 + 0j, 3))
    assert "complex" in text and "alpha" in text
    text = message(lambda: sd.round_time([1.0, "2"], 3.0))
    assert "t_draft" in text


@pytest.mark.parametrize("k", [10**20, 2**70, 1e300])
def test_huge_k_gives_the_limit_without_warnings(k):
    """E[L] -> 1 / (1 - alpha) as k grows: no overflow, no -inf, no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        el = sd.expected_tokens(0.8, k)
        assert abs(el - 1 / (1 - 0.8)) <= 1e-14 * el
        assert abs(sd.expected_tokens(0.3, k) - 1 / 0.7) <= 1e-14
        assert sd.expected_tokens(1.0, k) == float(k) + 1.0
        assert sd.expected_tokens(0.0, k) == 1.0
        assert sd.acceptance.draft_acceptance_rate(0.8, k) >= 0.0
        assert abs(sd.tokens_per_round_variance(0.5, k) - 2.0) <= 1e-12     # geometric: alpha / (1 - alpha)**2
        assert 0.0 < sd.speedup_from_costs(0.8, k, 0.0, 1.0) <= 5.0 + 1e-12
        assert sd.break_even_alpha(k, 0.0, 3.0) == pytest.approx(2 / 3, rel=1e-12)   # 1/(1-a) = 3


def test_huge_k_where_a_size_follows_from_it_is_refused_by_name():
    """A pmf over 0..k or a variance sum over k terms cannot be built for k = 10**9 or beyond."""
    text = message(lambda: sd.accepted_tokens_pmf(0.8, 10**9))
    assert "k is too large" in text and f"{V.MAX_ELEMENTS:,}" in text
    text = message(lambda: sd.accepted_tokens_pmf(0.8, 10**20))
    assert text.startswith("k must be") and "2**62" in text
    text = message(lambda: sd.tokens_per_round_variance(1 - 1e-9, 10**9))
    assert "k must be at most" in text
    text = message(lambda: sd.estimation.simulate_accepted_counts(0.5, 4, 10**9, 0))
    assert "n_rounds is too large" in text
    text = message(lambda: sd.synthetic.synthetic_bigram_pair(10**5, 0))
    assert "vocab is too large" in text
    text = message(lambda: sd.symbolic.break_even_polynomial(10**9, 0.1, 1.0))   # was an unbounded sympy build
    assert "k must be a whole number in [1, 1000]; got 1000000000" in text


def test_whole_number_messages_print_integers():
    assert message(lambda: sd.expected_tokens(0.5, -3)).endswith("got -3")
    assert message(lambda: sd.hardware.step_time(sd.hardware.LLAMA_8B, sd.hardware.H100, batch=0)).endswith("got 0")


# ------------------------------------------------------------ shape mismatches name the parameters
@pytest.mark.parametrize("call, names", [
    (lambda: sd.speedup([0.5, 0.6], [2, 3, 4], 5.2, 2.5, 6.0), ("alpha", "k")),
    (lambda: sd.round_time([1.0, 2.0], [3.0, 4.0, 5.0]), ("t_draft", "t_verify")),
    (lambda: sd.break_even_alpha([1, 2], [0.1, 0.2, 0.3], 1.0), ("k", "c_draft")),
    (lambda: sd.speedup_from_costs(0.8, 5, [0.1, 0.2], [1.0, 1.1, 1.2]), ("c_draft", "c_verify")),
    (lambda: sd.request.request_speedup([10, 20], [2.0, 3.0, 4.0], 5.0), ("n_output_tokens", "speedup")),
    (lambda: sd.hardware.verify_cost(sd.hardware.LLAMA_70B, sd.hardware.H100, [1, 2], batch=[1, 2, 3]),
     ("k", "batch")),
    (lambda: sd.acceptance.alpha_for_expected_tokens([1.5, 2.0], [2, 3, 4]), ("el", "k")),
    (lambda: sd.acceptance_rate(np.full((2, 3), 1 / 3), np.full((4, 3), 1 / 3)), ("p", "q")),
    (lambda: sd.estimation.wilson_interval([1, 2], [3, 4, 5]), ("successes", "trials")),
    (lambda: sd.memory.memory_footprint(sd.hardware.LLAMA_8B, [1, 2], [10, 20, 30]), ("batch", "context")),
    (lambda: sd.request.end_to_end_speedup([1.5, 2.0], [0.1, 0.2, 0.3]), ("decode_speedup", "prefill_share")),
    (lambda: sd.regimes.prefill_share([1.0, 2.0], [1.0, 2.0, 3.0], 10), ("ttft", "tpot")),
    (lambda: sd.drafts.verify_cost_linear([1, 2], [1.0, 1.1, 1.2]), ("k", "base")),
    (lambda: sd.drafts.toy_draft_alpha([0.1, 0.2], [0.5, 0.6, 0.7]), ("size_ratio", "alpha_ref")),
    (lambda: sd.tokens_per_round_variance([0.5, 0.6], [1, 2, 3]), ("alpha", "k")),
    (lambda: sd.hardware.crossover_batch(sd.hardware.LLAMA_8B, sd.hardware.H100, [0, 1], [1, 2, 3]),
     ("context", "new_tokens")),
])
def test_shape_mismatch_names_the_parameters(call, names):
    text = message(call)
    assert "do not broadcast" in text
    for name in names:
        assert name in text, text
    assert "operands could not be broadcast" not in text


def test_round_times_vs_k_is_vectorized_over_every_argument():
    """round_times_vs_k(5, 5, [2.5, 3.0], 6.0) works (it raised a bare TypeError)."""
    td, tv = sd.round_times_vs_k(5, 5, [2.5, 3.0], 6.0)
    assert_allclose(td, [2.5, 3.0], rtol=1e-15) and assert_allclose(tv, [6.0, 6.0], rtol=1e-15) is None
    td, tv = sd.round_times_vs_k([1, 10], [5, 2], 2.5, 6.0, verify_slope=[0.0, 0.5])
    assert_allclose(td, [0.5, 12.5], rtol=1e-15)
    assert_allclose(tv, [6.0, 10.0], rtol=1e-15)
    assert isinstance(sd.round_times_vs_k(3, 5, 2.5, 6.0)[0], float)


def test_nan_and_inf_are_refused_everywhere_they_are_not_meaningful():
    for call in (lambda: sd.acceptance.alpha_for_expected_tokens(np.nan, 4),
                 lambda: sd.acceptance.alpha_for_expected_tokens(2.0, np.inf),
                 lambda: sd.economics.optimal_k(0.8, np.inf),
                 lambda: sd.request.decode_time(np.nan, 10),
                 lambda: sd.memory.memory_footprint(sd.hardware.LLAMA_8B, 1, np.inf)):
        text = message(call)
        assert re.search(r"\b(nan|inf)\b", text), text


# ------------------------------------------------------------ float32 / float16 probability vectors
def softmax(z, dtype):
    z = np.asarray(z, dtype=dtype)
    e = np.exp(z - z.max())
    return e / e.sum(dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("vocab", [2, 10, 100, 1000, 32_000, 128_256, 200_000])
def test_low_precision_softmaxes_are_accepted(dtype, vocab):
    """Seeded softmaxes computed in float32 / float16 (and float64 ones cast down) pass check_distribution."""
    rng = np.random.default_rng(vocab)
    for scale in (0.5, 3.0, 10.0):
        z = rng.standard_normal(vocab) * scale
        p = softmax(z, dtype)
        q = softmax(z, np.float64).astype(dtype)
        assert p.dtype == dtype
        for vec in (p, q):
            arr = V.check_distribution(vec, "p")
            assert arr.dtype == np.float64
        # and the public functions take them: alpha of a vector with itself is 1 to its precision
        assert sd.acceptance_rate(p, p) == pytest.approx(1.0, abs=V.distribution_tolerance(dtype, vocab))


def test_the_issue_float32_example_and_the_tolerance_rule():
    """A float32 softmax at V = 10 summing to 1 + 6.5e-8 (0.55 float32 epsilons) passes; the rule's values."""
    rng = np.random.default_rng(12)
    sums = []
    for _ in range(200):
        p = softmax(rng.standard_normal(10) * 4, np.float32)
        sums.append(abs(float(p.astype(np.float64).sum()) - 1.0))
        V.check_distribution(p, "p")
    assert max(sums) > 0   # the sums are genuinely not 1 in float64
    eps32 = float(np.finfo(np.float32).eps)
    assert V.distribution_tolerance(np.float32, 10) == pytest.approx(eps32 * 6)
    assert V.distribution_tolerance(np.float32, 200_000) == pytest.approx(eps32 * 20)
    assert V.distribution_tolerance(np.float64, 10) == 1e-9
    assert V.distribution_tolerance(np.float16, 2) < 5e-3


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("vocab", [2, 1000, 200_000])
def test_genuinely_off_vectors_are_refused(dtype, vocab):
    """Mass dropped or added beyond the dtype's precision fails, in every dtype.

    2 % for float32 and float64; 10 % for float16, whose tolerance over 200,000 tokens is about 3 %
    (its subnormal spacing alone allows 1.2 %).
    """
    off = 0.10 if dtype is np.float16 else 0.02
    assert V.distribution_tolerance(dtype, vocab) < off / 2
    rng = np.random.default_rng(vocab + 1)
    p = softmax(rng.standard_normal(vocab) * 2, np.float64)
    low = (p * (1 - off)).astype(dtype)
    text = message(lambda: V.check_distribution(low, "p"))
    assert "p must be a probability distribution summing to 1" in text and "renormalize" in text
    high = p.copy()
    high[np.argmax(high)] += off
    with pytest.raises(ValueError, match="summing to 1"):
        V.check_distribution(high.astype(dtype), "q")


def test_float32_tolerance_edge():
    """Off by half the tolerance passes, off by twice the tolerance fails (float32, V = 1000)."""
    tol = V.distribution_tolerance(np.float32, 1000)
    exact = np.full(1000, 1 / 1000, dtype=np.float64)
    V.check_distribution(exact.astype(np.float32), "p")
    inside = (exact * (1 + 0.5 * tol)).astype(np.float32)
    assert abs(inside.astype(np.float64).sum() - 1) < tol
    V.check_distribution(inside, "p")
    with pytest.raises(ValueError, match="tolerance for float32 over 1000 tokens"):
        V.check_distribution((exact * (1 + 2.0 * tol)).astype(np.float32), "p")


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_low_precision_softmaxes_pass_through_functions_that_validate_twice(dtype):
    """verification.acceptance_probability validates p and q and then calls acceptance_rate, which validates
    them again: a float32/float16 softmax must pass both (check_distribution renormalizes it in float64).
    Reference: the float64 alpha of the same vectors, sum(min(p, q)) / normalized, within the dtype's precision."""
    rng = np.random.default_rng(7)
    z = rng.standard_normal(1000) * 3
    p, q = softmax(z, dtype), softmax(0.8 * z, dtype)
    p64, q64 = p.astype(np.float64), q.astype(np.float64)
    ref = float(np.minimum(p64 / p64.sum(), q64 / q64.sum()).sum())
    tol = 4 * V.distribution_tolerance(dtype, 1000)
    arr = V.check_distribution(p, "p")
    assert abs(float(arr.sum()) - 1.0) <= 1e-12
    for rule in ("rejection", "greedy", "typical", "sampled-match"):
        got = sd.verification.acceptance_probability(p, q, rule)
        assert 0.0 <= got <= 1.0
        if rule == "rejection":
            assert abs(got - ref) <= tol
    rules = sd.verification.compare_rules(p, q)
    assert abs(rules["rejection"]["acceptance"] - ref) <= tol
