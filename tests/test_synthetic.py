"""Tests for specdec.verification.synthetic: example distributions, synthetic pairs, temperature."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import specdec as sd

# --------------------------------------------------------------------------
# temperature
# --------------------------------------------------------------------------


def test_softmax_by_hand():
    """softmax([2, 0] / t) = (e^(2/t), 1) / (e^(2/t) + 1); shift invariant; huge logits stable."""
    for t in (0.5, 1.0, 2.0):
        e = math.exp(2 / t)
        assert_allclose(sd.synthetic.softmax_with_temperature([2.0, 0.0], t), [e / (e + 1), 1 / (e + 1)], rtol=1e-14)
    assert_allclose(sd.synthetic.softmax_with_temperature([1000.0, 998.0], 1.0), sd.synthetic.softmax_with_temperature([2.0, 0.0], 1.0))
    out = sd.synthetic.softmax_with_temperature([1.0, 2.0, 3.0], np.array([0.5, 1.0, 4.0]))
    assert out.shape == (3, 3)
    assert_allclose(out.sum(axis=1), 1.0)


def test_acceptance_vs_temperature_matches_direct():
    """acceptance_vs_temperature equals mean over contexts of sum(min(p_t, q_t)) computed directly."""
    zt, zd = sd.synthetic.synthetic_logit_pair("flat", vocab=40, n_contexts=6, rng=1)
    temps = np.array([0.3, 1.0, 1.7])
    got = sd.synthetic.acceptance_vs_temperature(zt, zd, temps)
    for i, t in enumerate(temps):
        direct = np.mean([sd.acceptance_rate(sd.synthetic.softmax_with_temperature(zt[c], t),
                                             sd.synthetic.softmax_with_temperature(zd[c], t)) for c in range(6)])
        assert_allclose(got[i], direct, rtol=1e-12)
    assert isinstance(sd.synthetic.acceptance_vs_temperature(zt, zd, 1.0), float)


def test_workload_shapes_behave_as_described():
    """Peaked accepts more than flat at every temperature; a noiseless draft accepts always;
    the peaked workload's acceptance falls from t = 0.2 to t = 1."""
    temps = np.array([0.2, 0.5, 1.0, 1.5])
    zp, dp = sd.synthetic.synthetic_logit_pair("peaked")
    zf, df = sd.synthetic.synthetic_logit_pair("flat")
    peaked = sd.synthetic.acceptance_vs_temperature(zp, dp, temps)
    flat = sd.synthetic.acceptance_vs_temperature(zf, df, temps)
    assert (peaked > flat).all()
    assert peaked[0] > peaked[2]
    z0, d0 = sd.synthetic.synthetic_logit_pair("flat", noise=0.0)
    assert_allclose(sd.synthetic.acceptance_vs_temperature(z0, d0, temps), 1.0)


def test_bad_temperature_inputs():
    """t <= 0, non-finite logits, mismatched logit shapes, unknown workload kind."""
    with pytest.raises(ValueError, match="t must be a finite number > 0"):
        sd.synthetic.softmax_with_temperature([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="logits must be finite"):
        sd.synthetic.softmax_with_temperature([1.0, np.inf], 1.0)
    with pytest.raises(ValueError, match="same shape"):
        sd.synthetic.acceptance_vs_temperature(np.zeros((2, 3)), np.zeros((2, 4)), 1.0)
    with pytest.raises(ValueError, match="kind"):
        sd.synthetic.synthetic_logit_pair("poetry")
    with pytest.raises(ValueError, match="noise"):
        sd.synthetic.synthetic_logit_pair("flat", noise=-1.0)


def test_temper_and_interpolate():
    """Tempering keeps zeros and equals softmax(log p / t); interpolation is linear in the mismatch."""
    p = np.array([0.2, 0.8, 0.0])
    t = sd.synthetic.temper_distribution(p, 0.5)
    assert t[2] == 0.0
    assert_allclose(t[:2], sd.synthetic.softmax_with_temperature(np.log(p[:2]), 0.5))
    assert_allclose(sd.synthetic.temper_distribution(p, 1.0), p)
    assert_allclose(sd.synthetic.interpolate_draft(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT, 0.0), sd.synthetic.EXAMPLE_TARGET)
    assert_allclose(sd.synthetic.interpolate_draft(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT, 1.0), sd.synthetic.EXAMPLE_DRAFT)
    assert sd.acceptance_rate(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT) == pytest.approx(0.77)


# --------------------------------------------------------------------------
# requests with different acceptance rates
# --------------------------------------------------------------------------


def _beta_moment_fraction(a, b, i):
    """E[A^i] for A ~ Beta(a, b) with integer a, b, as an exact Fraction."""
    from fractions import Fraction

    out = Fraction(1)
    for j in range(i):
        out *= Fraction(a + j, a + b + j)
    return out


def test_beta_mixture_exact_for_integer_parameters():
    """Beta(8, 2), k = 4: E[L] = sum E[A^i] and the pooled limit sum_{1..k} / sum_{0..k-1}, against Fractions."""
    m = sd.synthetic.beta_acceptance_mixture(0.8, 10.0, 4)
    moments = [_beta_moment_fraction(8, 2, i) for i in range(5)]
    assert_allclose(m.expected_tokens, float(sum(moments)), rtol=1e-14)
    pooled = sum(moments[1:]) / sum(moments[:4])
    assert_allclose(m.pooled_alpha, float(pooled), rtol=1e-14)
    assert_allclose(m.expected_tokens_at_pooled, sd.expected_tokens(float(pooled), 4), rtol=1e-14)
    assert_allclose(m.expected_tokens_at_mean, sd.expected_tokens(0.8, 4), rtol=1e-14)
    assert_allclose(m.alpha_sd, math.sqrt(8 * 2 / (10**2 * 11)), rtol=1e-14)
    assert m.expected_tokens > m.expected_tokens_at_mean          # Jensen: E[L] is convex in alpha


def test_beta_mixture_against_monte_carlo():
    """Simulated logs of requests with Beta rates: mean tokens per round and the pooled S / (S + F), seeded."""
    rng = np.random.default_rng(2024)
    alphas = sd.synthetic.heterogeneous_alphas(0.7, 6.0, 40_000, rng)
    counts = sd.estimation.simulate_accepted_counts(alphas, 3, 20, rng)          # 40,000 requests x 20 rounds
    m = sd.synthetic.beta_acceptance_mixture(0.7, 6.0, 3)
    s, f = counts.sum(), (counts < 3).sum()
    # 800,000 rounds; tolerances are several standard errors of the clustered means
    assert abs((counts.mean() + 1) - m.expected_tokens) < 0.01
    assert abs(s / (s + f) - m.pooled_alpha) < 0.003
    assert abs(alphas.mean() - 0.7) < 0.003


def test_beta_mixture_approaches_constant_alpha_when_requests_are_alike():
    """Concentration -> infinity: the mixture's E[L] and pooled alpha tend to the constant-alpha values."""
    m = sd.synthetic.beta_acceptance_mixture(0.8, 1e9, 5)
    assert_allclose(m.expected_tokens, sd.expected_tokens(0.8, 5), rtol=1e-7)
    assert_allclose(m.pooled_alpha, 0.8, rtol=1e-7)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(mean=1.0, concentration=10.0, k=4), ValueError, "mean"),
    (dict(mean=0.0, concentration=10.0, k=4), ValueError, "mean"),
    (dict(mean=0.8, concentration=0.0, k=4), ValueError, "concentration"),
    (dict(mean=0.8, concentration=10.0, k=0), ValueError, "k"),
    (dict(mean=[0.8, 0.9], concentration=10.0, k=4), ValueError, "mean"),
])
def test_beta_mixture_rejects_bad_inputs(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        sd.synthetic.beta_acceptance_mixture(**kwargs)


def test_heterogeneous_alphas_shape_seed_and_validation():
    """Shape as asked, reproducible from a seed, refused without one, and plain messages."""
    a = sd.synthetic.heterogeneous_alphas(0.8, 10.0, (3, 4), 5)
    assert a.shape == (3, 4) and np.all((a >= 0) & (a <= 1))
    assert np.array_equal(a, sd.synthetic.heterogeneous_alphas(0.8, 10.0, (3, 4), 5))
    with pytest.raises((TypeError, ValueError), match="rng"):
        sd.synthetic.heterogeneous_alphas(0.8, 10.0, 4, None)
    with pytest.raises(ValueError, match="size"):
        sd.synthetic.heterogeneous_alphas(0.8, 10.0, 0, 1)
    with pytest.raises(ValueError, match="size"):
        sd.synthetic.heterogeneous_alphas(0.8, 10.0, (10**6, 10**6), 1)


def test_temperature_curve_matches_direct_and_is_memoized():
    """temperature_curve is the mean of sum(min(p_t, q_t)) over the seeded logits, read-only and cached."""
    zt, zd = sd.synthetic.synthetic_logit_pair("flat", vocab=60, n_contexts=5, noise=0.5, sharpness=0.6, rng=3)
    temperatures = [0.5, 1.0, 1.7]
    direct = []
    for t in temperatures:
        p = np.exp(zt / t - (zt / t).max(axis=1, keepdims=True))
        q = np.exp(zd / t - (zd / t).max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        q /= q.sum(axis=1, keepdims=True)
        direct.append(np.minimum(p, q).sum(axis=1).mean())
    curve = sd.synthetic.temperature_curve("flat", 0.5, 0.6, vocab=60, n_contexts=5, seed=3, temperatures=temperatures)
    assert_allclose(curve, direct, rtol=1e-12)
    assert not curve.flags.writeable
    again = sd.synthetic.temperature_curve("flat", 0.5, 0.6, vocab=60, n_contexts=5, seed=3, temperatures=temperatures)
    assert again is curve
    default = sd.synthetic.temperature_curve("peaked")
    assert default.shape == sd.synthetic.TEMPERATURE_GRID.shape == (20,)
    assert_allclose(sd.synthetic.TEMPERATURE_GRID, np.arange(1, 21) / 10, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kwargs, name", [
    ({"kind": "spiky"}, "kind"), ({"noise": -1.0}, "noise"), ({"sharpness": 0.0}, "sharpness"),
    ({"vocab": 1}, "vocab"), ({"n_contexts": 0}, "n_contexts"), ({"seed": -1}, "seed"),
    ({"temperatures": [0.0, 1.0]}, "temperatures"), ({"temperatures": [[1.0]]}, "temperatures"),
])
def test_temperature_curve_validates(kwargs, name):
    with pytest.raises(ValueError, match=name):
        sd.synthetic.temperature_curve(**kwargs)
