"""Every figure of the book is legible at the size it is shown (issue 13, item 4).

A notebook shows a figure at 100 dpi and the HTML book's text column is
672 CSS px wide in a 1280-px window (768 px at 1400): a figure at most
``CONTENT_WIDTH`` (7 in) wide is shown at 93 % of its size or more there, so
text of ``MIN_FONT_SIZE`` (7 pt = 9.7 px) stays above 9 px. For every figure
function, called as its chapter calls it: the figure is at most
``CONTENT_WIDTH`` wide, no text is smaller than ``MIN_FONT_SIZE``, and no
text sticks out of the figure (the "tight" bounding box the notebook's
inline backend saves is at most 0.15 in wider than the figure: its own
padding), so nothing is clipped or shrunk further, no two texts (titles,
labels, tick labels, legends, annotations) are drawn over each other, and no
legend's box covers a text that is not its own.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.legend import Legend
from matplotlib.text import Text

import specdec as sd
from specdec.plots._style import MIN_FONT_SIZE

H = sd.hardware
CAL = sd.calibration
T70, D8, TP8 = H.LLAMA_70B, H.LLAMA_8B, H.H100.scaled(8)


def _speedup_pair():
    fig, (left, right) = sd.plots.new_figure(11.0, 3.8, ncols=2)     # the chapter asks 11 in; it gets the column
    sd.plots.speedup_vs_k(verify_slope=0.0, ax=left)
    sd.plots.speedup_vs_k(verify_slope=0.4, ax=right)
    return fig


def figures():
    p = sd.plots
    chat = sd.checklist.EXAMPLES["chat"]
    counts = sd.estimation.simulate_accepted_counts(0.8, 4, 300, np.random.default_rng(7))
    ks = np.arange(1, 21)
    arrangements = [sd.drafts.DraftArrangement("separate draft", 0.1, (0.8,) * 8),
                    sd.drafts.DraftArrangement("heads", 0.0, (0.6, 0.45, 0.35, 0.3))]
    cv = H.verify_cost(CAL.LLAMA2_7B, H.A100, np.arange(1, 11), 1, 512)
    ra = sd.drafters.medusa_rank_accept()
    comp = sd.goodput.compare_at_equal_latency(T70, D8, H.H100.scaled(8), 0.8, 5, 2048, 0.012,
                                               sd.goodput.output_lengths(300, 256, rng=1))
    bm = sd.regimes.batch_alpha_map(T70, D8, TP8, np.linspace(0.05, 0.95, 19), [1, 8, 64, 512])
    pm = sd.regimes.prefill_alpha_map(T70, D8, TP8, np.linspace(0.05, 0.95, 19), [0.0, 0.3, 0.6, 0.9])
    return {
        "expected_tokens_vs_k": lambda: p.expected_tokens_vs_k(),
        "marginal_gain_vs_k": lambda: p.marginal_gain_vs_k(),
        "tokens_distribution": lambda: p.tokens_distribution(),
        "expected_tokens_overview": lambda: p.expected_tokens_overview(),
        "round_breakdown": lambda: p.round_breakdown(),
        "speedup_vs_k": lambda: p.speedup_vs_k(),
        "speedup_vs_k, two panels as chapter 2 draws them": _speedup_pair,
        "speedup_overview": lambda: p.speedup_overview(),
        "verify_cost_overview": lambda: p.verify_cost_overview(T70, TP8),
        "no_help_batch": lambda: p.no_help_batch(T70, D8, TP8),
        "no_help_context": lambda: p.no_help_context(T70, D8, TP8, 0.8, 5, (1024, 8192, 32768), 512),
        "no_help_short_output": lambda: p.no_help_short_output(2.13, 5.2, setups=(2.0, 10.0, 25.0, 50.0)),
        "sampling_residual": lambda: p.sampling_residual(),
        "sampling_exactness": lambda: p.sampling_exactness(sizes=[100, 1000, 10000]),
        "sampling_wasted_arithmetic": lambda: p.sampling_wasted_arithmetic(),
        "sampling_tokens_per_round": lambda: p.sampling_tokens_per_round(),
        "sampling_temperature": lambda: p.sampling_temperature(),
        "sampling_alpha_from_log": lambda: p.sampling_alpha_from_log(counts, 4, 0.8),
        "threshold_vs_k": lambda: p.threshold_vs_k(ks, {"c_d = 0.05, c_v = 1": (0.05, 1.0), "c_d = 0.2, c_v = 1.1": (0.2, 1.1)},
                                                   {"c_v = 1 + 0.05 k": (0.05, sd.drafts.verify_cost_linear(ks, 1.0, 0.05))}),
        "speedup_heatmap": lambda: p.speedup_heatmap(np.linspace(0, 1, 41), np.arange(1, 21), 0.05, 1.0, 0.05),
        "threshold_panel": lambda: p.threshold_panel(),
        "draft_size_tradeoff": lambda: p.draft_size_tradeoff(marks={"1B / 70B": 0.0176, "8B / 70B": 0.114}),
        "arrangement_thresholds": lambda: p.arrangement_thresholds(arrangements),
        "latency_throughput_vs_batch": lambda: p.latency_throughput_vs_batch(T70, D8, TP8, mark_batch=256),
        "concurrency_vs_context": lambda: p.concurrency_vs_context(T70, D8, TP8, 0.8, 5),
        "regime_maps": lambda: p.regime_maps(bm, pm, low_alpha=0.42, batch_lines={"verify compute-bound": 120},
                                             prefill_line=0.8),
        "roofline_diagram": lambda: p.roofline_diagram(T70, TP8),
        "roofline_verify_cost_vs_k": lambda: p.roofline_verify_cost_vs_k(T70, TP8),
        "roofline_speedup_vs_batch": lambda: p.roofline_speedup_vs_batch(T70, D8, TP8, 0.8, 5, contexts=(0, 1024, 8192)),
        "roofline_concurrency": lambda: p.roofline_concurrency(T70, TP8, D8, k=5),
        "roofline_latency_throughput": lambda: p.roofline_latency_throughput(T70, D8, TP8, 0.8, 5, context=512),
        "roofline_overview": lambda: p.roofline_overview(T70, D8, TP8),
        "literature_optimal_gamma": lambda: p.literature_optimal_gamma(),
        "literature_t5_expected_vs_measured": lambda: p.literature_t5_expected_vs_measured(),
        "literature_bonus_token_error": lambda: p.literature_bonus_token_error(),
        "literature_serving_metrics": lambda: p.literature_serving_metrics(),
        "alpha_by_temperature": lambda: p.alpha_by_temperature(sd.literature.leviathan_table3()),
        "arrangements_measured": lambda: p.arrangements_measured(sd.drafters.spec_bench_table(),
                                                                 {"SpS": "separate draft model"}),
        "break_even_by_round_cost": lambda: p.break_even_by_round_cost([1.2, 2.0, 3.0]),
        "worth_it_vs_alpha": lambda: p.worth_it_vs_alpha(chat),
        "decision_figure": lambda: p.decision_figure(sd.decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4,
                                                               mean_acceptance_length=3.1)),
        "calibration_residuals": lambda: p.calibration_residuals(CAL.residual_table()),
        "step_time_breakdown": lambda: p.step_time_breakdown(),
        "calibrated_speedup_vs_batch": lambda: p.calibrated_speedup_vs_batch(),
        "large_draft_speedups": lambda: p.large_draft_speedups(),
        "calibration_overview": lambda: p.calibration_overview(T70, D8, H.H100.scaled(8)),
        "draft_round_costs": lambda: p.draft_round_costs(sd.drafters.draft_catalogue()),
        "prompt_lookup_vs_copy": lambda: p.prompt_lookup_vs_copy([0.0, 0.1, 0.2], cv, n_tokens=3000, prompt_tokens=500),
        "prompt_lookup_histogram": lambda: p.prompt_lookup_histogram(sd.drafters.prompt_lookup_run()),
        "draft_cost_floor": lambda: p.draft_cost_floor([CAL.VICUNA_68M, H.LLAMA_1B], CAL.LLAMA2_7B, H.A100),
        "verification_rules_bars": lambda: p.verification_rules_bars(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT),
        "acceptance_vs_temperature": lambda: p.acceptance_vs_temperature(
            {"flat": sd.synthetic.synthetic_logit_pair("flat", vocab=50, n_contexts=8)}, [0.5, 1.0]),
        "tree_budget_curves": lambda: p.tree_budget_curves(ra, 32, {"flat": np.ones(32)}),
        "draw_tree": lambda: p.draw_tree(sd.trees.best_tree(14, ra, 3)),
        "schedule_speedups": lambda: p.schedule_speedups({"w": sd.dynamic.beta_alphas(50, 0.7, 2.0, rng=0)}, 64),
        "oracle_gain_curves": lambda: p.oracle_gain_curves(np.linspace(0.3, 0.95, 66), [0.0, 0.02, 0.05, 0.1]),
        "goodput_curves": lambda: p.goodput_curves(comp, np.linspace(0.006, 0.06, 55), 0.012),
        "matmul_prediction": lambda: p.matmul_prediction(4096, H.Hardware(bandwidth=80e9, flops=2e12, memory=16e9)),
        "roofline_speedup_in_memory": lambda: p.roofline_speedup_in_memory(T70, D8, TP8),
    }


FIGURES = figures()


def describe_legend(legend) -> str:
    return "legend of " + ", ".join(t.get_text()[:20] for t in legend.get_texts()[:3])


def test_every_figure_function_is_covered():
    """Every public function of sd.plots that draws a figure is in the list above (or is an explorer's helper)."""
    helpers = {"new_figure", "latency_throughput_batches", "latency_throughput_curves", "no_help_context_curve",
               "matmul_measured_vs_predicted", "matmul_measurement"}   # the last two need a machine measurement:
    #                                                                        tests/test_measure.py
    functions = {n for n in sd.plots.__all__ if callable(getattr(sd.plots, n)) and n[0].islower()
                 and not isinstance(getattr(sd.plots, n), type(sd.plots))}
    assert functions - helpers == {name for name in FIGURES if " " not in name}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_fits_the_column_with_legible_text(name):
    fig = FIGURES[name]()
    width = float(fig.get_size_inches()[0])
    assert width <= sd.plots.CONTENT_WIDTH + 1e-9, f"{name}: {width} in wide"
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)          # new_figure closes its figures in pyplot: give them a canvas that draws
    fig.set_dpi(100)
    fig.canvas.draw()             # runs the layout, as the notebook's inline backend does
    small = sorted({(t.get_fontsize(), t.get_text()[:40]) for t in fig.findobj(Text)
                    if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FONT_SIZE - 1e-9})
    assert not small, f"{name}: text below {MIN_FONT_SIZE} pt: {small[:5]}"
    renderer = fig.canvas.get_renderer()
    hidden = set()            # tick labels matplotlib keeps but does not draw (outside the view limits)
    corner = {}               # x and y tick labels of one axes may touch at its corner (matplotlib's usual look)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                corner[id(tick.label1)] = corner[id(tick.label2)] = (id(ax), axis.axis_name)
            lo, hi = sorted(axis.get_view_interval())
            span = hi - lo
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                loc = tick.get_loc()
                if loc is None or not (lo - 1e-9 * span <= loc <= hi + 1e-9 * span):
                    hidden.update({id(tick.label1), id(tick.label2)})
                for label, on in ((tick.label1, tick.label1.get_visible()), (tick.label2, tick.label2.get_visible())):
                    if not on:
                        hidden.add(id(label))
    boxes = [(t.get_text().replace("\n", " ")[:30], t.get_window_extent(renderer).padded(1.5), corner.get(id(t)))
             for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0 and id(t) not in hidden]
    overlaps = [(a, b) for i, (a, box_a, ca) in enumerate(boxes) for b, box_b, cb in boxes[i + 1:]
                if box_a.overlaps(box_b)       # 1.5 px of padding each: touching texts count too
                and not (ca and cb and ca[0] == cb[0] and ca[1] != cb[1])]
    assert not overlaps, f"{name}: texts drawn over each other: {overlaps[:5]}"
    # no legend covers a label, an annotation or a title (figure 17.1's legend hid its "1x" label)
    covered = []
    for legend in fig.findobj(Legend):
        if not legend.get_visible():
            continue
        own = {id(t) for t in legend.findobj(Text)}
        frame = legend.get_window_extent(renderer)
        covered += [(t, describe_legend(legend)) for t, box, _ in
                    ((t, t.get_window_extent(renderer), None) for t in fig.findobj(Text)
                     if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0 and id(t) not in hidden
                     and id(t) not in own)
                    if frame.overlaps(box)]
    assert not covered, f"{name}: a legend covers {[(t.get_text()[:30], where) for t, where in covered][:5]}"
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    from PIL import Image

    shown = Image.open(io.BytesIO(buffer.getvalue())).size[0]
    assert shown <= (width + 0.15) * 100, f"{name}: text sticks out of the figure ({shown} px for {width} in)"
