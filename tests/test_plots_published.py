"""The figures of published measurements (sd.plots.alpha_by_temperature in specdec.plots.literature,
sd.plots.arrangements_measured in specdec.plots.drafts) draw exactly the cited inputs they are given."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose

import specdec as sd


def test_alpha_by_temperature_draws_every_pair_at_its_printed_values():
    t = sd.literature.leviathan_table3()
    fig = sd.plots.alpha_by_temperature(t)
    ax = fig.axes[0]
    segments = [line for line in ax.get_lines() if len(line.get_xdata()) == 2 and line.get_linewidth() == 2]
    assert len(segments) == len(t["draft"])
    for line, a0, a1 in zip(segments, t["alpha_t0"], t["alpha_t1"], strict=True):
        assert_allclose(line.get_xdata(), [a0, a1])
    labels = [tick.get_text() for tick in ax.get_yticklabels()]
    assert len(labels) == 16 and labels[0].startswith("GPT-like")


def test_arrangements_measured_bars_and_points_are_the_table():
    t = sd.drafters.spec_bench_table()
    fig = sd.plots.arrangements_measured(t, {"SpS": "separate draft model", "Medusa": "heads on the target"},
                                          highlight=("SpS",))
    left, right = fig.axes
    widths = [p.get_width() for p in left.patches if np.isfinite(p.get_width())]
    assert_allclose(sorted(widths), sorted(t["speedup"]))
    xs = np.concatenate([line.get_xdata() for line in right.get_lines() if line.get_marker() == "o"])
    assert_allclose(sorted(xs), sorted(t["mean_accepted_tokens"]))
