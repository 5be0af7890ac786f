"""Part IV's figures and explorers: they draw what specdec computes, start at the chapters' figures, and store
a static snapshot (never kernel state) when a notebook is saved."""

from __future__ import annotations

import html as _html

import numpy as np
import pytest
from matplotlib.figure import Figure

import specdec as sd
from specdec import calibration as cal
from specdec import hardware as hw
from specdec.plots import calibration as cp
from specdec.widgets._base import SNAPSHOT_NOTE, Explorer

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def test_calibration_figures_plot_the_table():
    rows = cal.residual_table()
    fig = cp.calibration_residuals(rows)
    ax = fig.axes[0]
    filled = np.concatenate([c.get_offsets()[:, 1] for c in ax.collections[1:] if c.get_facecolor().size and
                             c.get_facecolor()[0][3] > 0])
    assert sorted(np.round(filled, 9)) == sorted(np.round([r["model_ms"] for r in rows], 9))
    for f in (cp.step_time_breakdown(), cp.calibrated_speedup_vs_batch(), cp.large_draft_speedups(np.array([0.5, 0.8])),
              cp.calibration_overview(hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8))):
        assert isinstance(f, Figure)


def test_breakdown_bars_add_up_to_the_step_time():
    g = hw.H100.scaled(8)
    cases = [("decode", hw.LLAMA_70B, g, 1, 0, 1), ("verify", hw.LLAMA_70B, g, 4, 1024, 6)]
    fig = cp.step_time_breakdown(cases)
    bars = fig.axes[0].patches
    for i, (_, m, hwr, b, c, n) in enumerate(cases):
        ends = [p.get_x() + p.get_width() for p in bars if abs(p.get_y() + p.get_height() / 2 - i) < 1e-9]
        assert abs(max(ends) - hw.step_time(m, hwr, b, c, n) * 1e3) <= 1e-9


def test_engine_figures_draw():
    cv = hw.verify_cost(cal.LLAMA2_7B, hw.A100, np.arange(1, 11), 1, 512)
    ra = sd.drafters.medusa_rank_accept()
    figs = [sd.plots.draft_round_costs(sd.drafters.draft_catalogue()),
            sd.plots.prompt_lookup_vs_copy([0.0, 0.1], cv, n_tokens=3000, prompt_tokens=500),
            sd.plots.prompt_lookup_histogram(sd.drafters.prompt_lookup_run(n_tokens=3000, prompt_tokens=500)),
            sd.plots.draft_cost_floor([cal.VICUNA_68M, hw.LLAMA_1B], cal.LLAMA2_7B, hw.A100),
            sd.plots.verification_rules_bars(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT),
            sd.plots.acceptance_vs_temperature({"flat": sd.synthetic.synthetic_logit_pair("flat", vocab=50, n_contexts=8)},
                                         [0.5, 1.0]),
            sd.plots.tree_budget_curves(ra, 16, {"flat": np.ones(16)}),
            sd.plots.draw_tree(sd.trees.best_tree(6, ra)),
            sd.plots.schedule_speedups({"w": sd.dynamic.beta_alphas(20, 0.7, 2.0, rng=0)}, 40),
            sd.plots.oracle_gain_curves([0.5, 0.8], [0.0, 0.05])]
    assert all(isinstance(f, Figure) for f in figs)


def test_prompt_lookup_speedup_is_what_the_figure_draws():
    cv = hw.verify_cost(cal.LLAMA2_7B, hw.A100, np.arange(1, 11), 1, 512)
    fig = sd.plots.prompt_lookup_vs_copy([0.1], cv, n_tokens=3000, prompt_tokens=500)
    run = sd.drafters.simulate_prompt_lookup(sd.drafters.synthetic_copy_text(3000, 32000, 0.1, 20.0, rng=0), 500, 3, 10)
    assert fig.axes[1].lines[0].get_ydata()[0] == run.speedup(cv)
    assert fig.axes[0].lines[0].get_ydata()[0] == run.tokens_per_round


EXPLORERS = {
    "calibration_explorer": {},
    "prompt_lookup_explorer": {},
    "verification_explorer": {},
    "tree_explorer": {},
    "dynamic_k_explorer": {},
    "goodput_explorer": {},
}


@pytest.mark.parametrize("name", list(EXPLORERS))
def test_explorer_bundle_has_a_snapshot_and_no_repr(name):
    e = getattr(sd.widgets, name)(**EXPLORERS[name])
    assert isinstance(e, Explorer)
    bundle = e._repr_mimebundle_()
    html = bundle["text/html"]
    assert f'data-explorer="{e.name}"' in html and "disabled" in html and _html.escape(SNAPSHOT_NOTE) in html
    assert "data:image" not in html and e.model_id not in html
    assert html == getattr(sd.widgets, name)(**EXPLORERS[name]).snapshot_html()      # deterministic
    assert "children=" not in bundle["text/plain"] and len(bundle["text/plain"]) < 400
    assert all(_html.escape(text) in html for _, _, text in e.rows(e.values))
    assert e.image.value.startswith('<img src="data:image/png;base64,')
    assert WIDGET_VIEW in bundle


def test_calibration_explorer_defaults_equal_the_chapter_numbers():
    e = sd.widgets.calibration_explorer()
    g = hw.H100.scaled(8)
    assert abs(e.values["t0"] - hw.step_time(hw.LLAMA_70B, g)) <= 1e-12 * e.values["t0"]
    assert abs(e.values["speedup"] - sd.deployment.speculative_speedup(hw.LLAMA_70B, hw.LLAMA_8B, g, 0.8, 5,
                                                                       kv_write=True)) <= 1e-9
    assert e.values["break_even_batch"] == cal.break_even_summary(contexts=(0,))[1]["break_even"]
    e.controls["calibrated"].value = False
    assert abs(e.values["t0"] - hw.step_time(hw.LLAMA_70B, hw.H100_IDEAL.scaled(8))) <= 1e-15
    e.controls["k"].value = 3
    assert e.values["k"] == 3 and abs(e.values["c_verify"] - 1.0) <= 1e-15


def test_explorers_follow_their_controls():
    t = sd.widgets.tree_explorer()
    assert t.values["nodes_used"] == 14
    t.controls["n_nodes"].value = 5
    assert t.values["nodes_used"] == 5
    assert abs(t.values["expected_tokens"] - sd.trees.best_tree(5, sd.drafters.medusa_rank_accept(), 3).expected_tokens) \
        <= 1e-12
    v = sd.widgets.verification_explorer()
    assert v.values["rejection"]["total_variation"] <= 1e-12 and v.values["typical"]["total_variation"] > 0.05
    g = sd.widgets.goodput_explorer(tpot_ms=8.0)
    assert g.values["goodput_baseline"] == 0.0 and g.values["goodput_speculative"] > 0


@pytest.mark.parametrize("call, exc, word", [
    (lambda: sd.widgets.calibration_explorer(gpu="tpu"), ValueError, "gpu"),
    (lambda: sd.widgets.calibration_explorer(target="GPT-5"), ValueError, "target"),
    (lambda: sd.widgets.calibration_explorer(batch=3), ValueError, "batch"),
    (lambda: sd.widgets.calibration_explorer(calibrated="yes"), TypeError, "calibrated"),
    (lambda: sd.widgets.calibration_explorer(k=11), ValueError, "k"),
    (lambda: sd.widgets.prompt_lookup_explorer(copy_prob=1.5), ValueError, "copy_prob"),
    (lambda: sd.widgets.prompt_lookup_explorer(num_pred=21), ValueError, "num_pred"),
    (lambda: sd.widgets.verification_explorer(temperature=0.0), ValueError, "temperature"),
    (lambda: sd.widgets.tree_explorer(n_nodes=65), ValueError, "n_nodes"),
    (lambda: sd.widgets.tree_explorer(max_depth=0), ValueError, "max_depth"),
    (lambda: sd.widgets.dynamic_k_explorer(mean=1.2), ValueError, "mean"),
    (lambda: sd.widgets.dynamic_k_explorer(start=0), ValueError, "start"),
    (lambda: sd.widgets.goodput_explorer(tpot_ms=-1.0), ValueError, "tpot_ms"),
    (lambda: sd.widgets.goodput_explorer(context=0), ValueError, "context"),
])
def test_explorer_arguments_are_checked(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_explorer_values_equal_specdec_after_moves():
    p = sd.widgets.prompt_lookup_explorer()
    p.controls["num_pred"].value = 6
    p.controls["copy_prob"].value = 0.25
    run = sd.drafters.simulate_prompt_lookup(sd.drafters.synthetic_copy_text(8000, 32000, 0.25, 20.0, rng=0), 1000, 3, 6)
    assert p.values["tokens_per_round"] == run.tokens_per_round and p.values["match_rate"] == run.match_rate
    assert p.values["speedup"] == run.speedup(hw.verify_cost(cal.LLAMA2_7B, hw.A100, np.arange(1, 7), 1, 512))
    v = sd.widgets.verification_explorer()
    v.controls["temperature"].value = 0.5
    t = sd.synthetic.temper_distribution
    ref = sd.verification.compare_rules(t(sd.synthetic.EXAMPLE_TARGET, 0.5), t(sd.synthetic.EXAMPLE_DRAFT, 0.5))
    assert all(v.values[rule]["acceptance"] == r["acceptance"] for rule, r in ref.items())
    d = sd.widgets.dynamic_k_explorer(c_draft=0.05, c_verify=np.ones(64))
    d.controls["k"].value = 3
    runs = sd.dynamic.compare_schedules(sd.dynamic.beta_alphas(400, 0.7, 2.0, rng=3), 256, 5, k=3, start=20.0,
                                        c_draft=0.05, c_verify=np.ones(64))
    assert d.values["speedup"] == {policy: r.speedup for policy, r in runs.items()}
    g = sd.widgets.goodput_explorer()
    g.controls["alpha"].value = 0.6
    r = sd.goodput.compare_at_equal_latency(hw.LLAMA_70B, hw.LLAMA_8B, hw.H100.scaled(8), 0.6, 5, 2048,
                                            0.012, sd.goodput.output_lengths(2000, 256, rng=1))
    assert g.values["goodput_speculative"] == r.speculative.throughput and g.values["goodput_ratio"] == r.goodput_ratio
    t = sd.widgets.tree_explorer()
    t.controls["calibrated"].value = False
    tree = sd.trees.best_tree(14, sd.drafters.medusa_rank_accept(), 3)
    assert t.values["c_verify"] == sd.trees.tree_verify_cost(cal.LLAMA2_7B, hw.A100.ideal(), 14, 1, 512)
    assert t.values["speedup"] == tree.expected_tokens / t.values["c_verify"]
    assert not hasattr(sd.widgets, "medusa_rank_accept") and not hasattr(sd.widgets, "prompt_lookup_run")
