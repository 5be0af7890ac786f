"""Tests for specdec.synthetic: example distributions, synthetic pairs, temperature."""

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
