"""Matplotlib figures for the book (presentation only, no formulas).

One submodule per concept of the core, named as its package: ``acceptance``, ``economics``,
``roofline``, ``verification``, ``decision``, ``serving``, ``drafts``, ``calibration``,
``predict`` and ``literature``; the figure of an idea lives beside the figures of its concept,
whichever chapter shows it. Every public function returns a :class:`matplotlib.figure.Figure`
(or moves the artists of one, for the explorers) and never calls ``plt.show``. The public names
of the submodules are re-exported here, listed explicitly below, so chapters write
``sd.plots.expected_tokens_vs_k(...)``.
"""

from __future__ import annotations

from . import (
    acceptance,
    calibration,
    decision,
    drafts,
    economics,
    literature,
    predict,
    roofline,
    serving,
    verification,
)
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure  # noqa: F401  (CONTENT_WIDTH: sd.plots.CONTENT_WIDTH)
from .acceptance import (
    DEFAULT_ALPHAS,
    AlphaFromLogView,
    ExpectedTokensOverview,
    expected_tokens_overview,
    expected_tokens_vs_k,
    marginal_gain_vs_k,
    sampling_alpha_from_log,
    sampling_temperature,
    sampling_tokens_per_round,
    tokens_distribution,
)
from .calibration import (
    calibrated_speedup_vs_batch,
    calibration_overview,
    calibration_residuals,
    large_draft_speedups,
    small_m_verify_cost,
    step_time_breakdown,
)
from .decision import (
    decision_figure,
    worth_it_vs_alpha,
)
from .drafts import (
    PromptLookupView,
    arrangement_thresholds,
    arrangements_measured,
    draft_cost_floor,
    draft_round_costs,
    draft_size_tradeoff,
    prompt_lookup_histogram,
    prompt_lookup_vs_copy,
)
from .economics import (
    THRESHOLD_FIGSIZE,
    SpeedupOverview,
    ThresholdPanel,
    break_even_by_round_cost,
    no_help_short_output,
    round_breakdown,
    speedup_heatmap,
    speedup_overview,
    speedup_vs_k,
    threshold_panel,
    threshold_vs_k,
)
from .literature import (
    LITERATURE_DEFAULT_CS,
    BonusTokenView,
    ServingMetricsView,
    alpha_by_temperature,
    literature_bonus_token_error,
    literature_optimal_gamma,
    literature_serving_metrics,
    literature_t5_expected_vs_measured,
)
from .predict import (
    predicted_vs_measured,
    round_against_plain,
)
from .roofline import (
    RooflineView,
    matmul_measured_vs_predicted,
    matmul_measurement,
    matmul_prediction,
    roofline_concurrency,
    roofline_diagram,
    roofline_latency_throughput,
    roofline_overview,
    roofline_speedup_in_memory,
    roofline_speedup_vs_batch,
    roofline_verify_cost_vs_k,
    sampling_wasted_arithmetic,
    verify_cost_overview,
)
from .serving import (
    REGIME_COLORS,
    GoodputView,
    ScheduleSpeedupsView,
    concurrency_vs_context,
    goodput_curves,
    latency_throughput_vs_batch,
    no_help_batch,
    no_help_context,
    oracle_gain_curves,
    regime_maps,
    schedule_speedups,
)
from .verification import (
    TreeView,
    VerificationRulesView,
    acceptance_vs_temperature,
    draw_tree,
    sampling_exactness,
    sampling_residual,
    tree_budget_curves,
    verification_rules_bars,
)

__all__ = [
    "COLORS", "SEQUENCE", "new_figure",
    # acceptance
    "DEFAULT_ALPHAS",
    "expected_tokens_vs_k",
    "marginal_gain_vs_k",
    "tokens_distribution",
    "expected_tokens_overview",
    "ExpectedTokensOverview",
    "sampling_tokens_per_round",
    "sampling_temperature",
    "sampling_alpha_from_log",
    "AlphaFromLogView",
    # economics
    "round_breakdown",
    "speedup_vs_k",
    "speedup_overview",
    "SpeedupOverview",
    "THRESHOLD_FIGSIZE",
    "threshold_vs_k",
    "speedup_heatmap",
    "threshold_panel",
    "ThresholdPanel",
    "break_even_by_round_cost",
    "no_help_short_output",
    # roofline
    "roofline_diagram",
    "roofline_verify_cost_vs_k",
    "roofline_speedup_vs_batch",
    "roofline_latency_throughput",
    "roofline_concurrency",
    "roofline_overview",
    "RooflineView",
    "roofline_speedup_in_memory",
    "verify_cost_overview",
    "sampling_wasted_arithmetic",
    "matmul_prediction",
    "matmul_measurement",
    "matmul_measured_vs_predicted",
    # verification
    "sampling_residual",
    "sampling_exactness",
    "verification_rules_bars",
    "VerificationRulesView",
    "acceptance_vs_temperature",
    "tree_budget_curves",
    "draw_tree",
    "TreeView",
    # decision
    "decision_figure",
    "worth_it_vs_alpha",
    # serving
    "latency_throughput_vs_batch",
    "concurrency_vs_context",
    "no_help_batch",
    "no_help_context",
    "REGIME_COLORS",
    "regime_maps",
    "schedule_speedups",
    "ScheduleSpeedupsView",
    "oracle_gain_curves",
    "goodput_curves",
    "GoodputView",
    # drafts
    "draft_size_tradeoff",
    "arrangement_thresholds",
    "arrangements_measured",
    "draft_round_costs",
    "prompt_lookup_vs_copy",
    "prompt_lookup_histogram",
    "PromptLookupView",
    "draft_cost_floor",
    # calibration
    "calibration_residuals",
    "step_time_breakdown",
    "calibrated_speedup_vs_batch",
    "large_draft_speedups",
    "calibration_overview",
    "small_m_verify_cost",
    # predict
    "predicted_vs_measured",
    "round_against_plain",
    # literature
    "LITERATURE_DEFAULT_CS",
    "literature_optimal_gamma",
    "literature_t5_expected_vs_measured",
    "literature_bonus_token_error",
    "BonusTokenView",
    "literature_serving_metrics",
    "ServingMetricsView",
    "alpha_by_temperature",
    # the submodules
    "acceptance", "economics", "roofline", "verification", "decision", "serving", "drafts", "calibration", "predict", "literature",
]
