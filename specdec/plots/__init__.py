"""Matplotlib figures for the book (presentation only, no formulas).

One submodule per topic, each owning the figures of the chapters on that
topic; every public function returns a :class:`matplotlib.figure.Figure`
(or moves the artists of one, for the explorers) and never calls
``plt.show``. The public names of the submodules are re-exported here, listed
explicitly below, so chapters write ``sd.plots.expected_tokens_vs_k(...)``.
"""

from __future__ import annotations

from . import (
    acceptance,
    bounds,
    calibration,
    decision,
    drafts,
    economics,
    engines,
    feasibility,
    literature,
    measure,
    predict,
    published,
    regimes,
    roofline,
    screens,
    serving,
    threshold,
    verification,
)
from ._style import COLORS, CONTENT_WIDTH, SEQUENCE, new_figure  # noqa: F401  (CONTENT_WIDTH: sd.plots.CONTENT_WIDTH)
from .acceptance import (
    DEFAULT_ALPHAS,
    ExpectedTokensOverview,
    expected_tokens_overview,
    expected_tokens_vs_k,
    marginal_gain_vs_k,
    tokens_distribution,
)
from .bounds import (
    no_help_batch,
    no_help_context,
    no_help_context_curve,
    no_help_short_output,
    verify_cost_overview,
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
)
from .drafts import (
    arrangement_thresholds,
    draft_size_tradeoff,
)
from .economics import (
    WORKED_EXAMPLE,
    SpeedupOverview,
    round_breakdown,
    speedup_overview,
    speedup_vs_k,
)
from .engines import (
    GoodputView,
    PromptLookupView,
    ScheduleSpeedupsView,
    TreeView,
    VerificationRulesView,
    acceptance_vs_temperature,
    draft_cost_floor,
    draft_round_costs,
    draw_tree,
    goodput_curves,
    oracle_gain_curves,
    prompt_lookup_histogram,
    prompt_lookup_vs_copy,
    schedule_speedups,
    tree_budget_curves,
    verification_rules_bars,
)
from .feasibility import (
    roofline_speedup_in_memory,
)
from .literature import (
    LITERATURE_DEFAULT_CS,
    BonusTokenView,
    ServingMetricsView,
    literature_bonus_token_error,
    literature_optimal_gamma,
    literature_serving_metrics,
    literature_t5_expected_vs_measured,
)
from .measure import (
    matmul_measurement,
    matmul_prediction,
)
from .predict import predicted_vs_measured, round_against_plain
from .published import (
    alpha_by_temperature,
    arrangements_measured,
)
from .regimes import (
    REGIME_COLORS,
    regime_maps,
)
from .roofline import (
    RooflineView,
    matmul_measured_vs_predicted,
    roofline_concurrency,
    roofline_diagram,
    roofline_latency_throughput,
    roofline_overview,
    roofline_speedup_vs_batch,
    roofline_verify_cost_vs_k,
)
from .screens import (
    break_even_by_round_cost,
    worth_it_vs_alpha,
)
from .serving import (
    concurrency_vs_context,
    latency_throughput_batches,
    latency_throughput_curves,
    latency_throughput_vs_batch,
)
from .threshold import (
    THRESHOLD_FIGSIZE,
    ThresholdPanel,
    speedup_heatmap,
    threshold_panel,
    threshold_vs_k,
)
from .verification import (
    AlphaFromLogView,
    sampling_alpha_from_log,
    sampling_exactness,
    sampling_residual,
    sampling_temperature,
    sampling_tokens_per_round,
    sampling_wasted_arithmetic,
)

__all__ = [
    "COLORS",
    "SEQUENCE",
    "new_figure",
    "expected_tokens_vs_k",
    "marginal_gain_vs_k",
    "tokens_distribution",
    "expected_tokens_overview",
    "ExpectedTokensOverview",
    "DEFAULT_ALPHAS",
    "verify_cost_overview",
    "no_help_batch",
    "no_help_context",
    "no_help_context_curve",
    "no_help_short_output",
    "latency_throughput_batches",
    "latency_throughput_curves",
    "latency_throughput_vs_batch",
    "concurrency_vs_context",
    "draft_size_tradeoff",
    "arrangement_thresholds",
    "roofline_diagram",
    "roofline_verify_cost_vs_k",
    "roofline_speedup_vs_batch",
    "roofline_latency_throughput",
    "roofline_concurrency",
    "roofline_overview",
    "RooflineView",
    "matmul_measured_vs_predicted",
    "literature_optimal_gamma",
    "literature_t5_expected_vs_measured",
    "literature_bonus_token_error",
    "literature_serving_metrics",
    "BonusTokenView",
    "ServingMetricsView",
    "LITERATURE_DEFAULT_CS",
    "REGIME_COLORS",
    "regime_maps",
    "sampling_residual",
    "sampling_exactness",
    "sampling_wasted_arithmetic",
    "sampling_tokens_per_round",
    "sampling_temperature",
    "sampling_alpha_from_log",
    "AlphaFromLogView",
    "round_breakdown",
    "speedup_vs_k",
    "speedup_overview",
    "SpeedupOverview",
    "WORKED_EXAMPLE",
    "threshold_vs_k",
    "speedup_heatmap",
    "threshold_panel",
    "ThresholdPanel",
    "THRESHOLD_FIGSIZE",
    "alpha_by_temperature",
    "arrangements_measured",
    "break_even_by_round_cost",
    "worth_it_vs_alpha",
    "decision_figure",
    "calibration_residuals",
    "step_time_breakdown",
    "calibrated_speedup_vs_batch",
    "large_draft_speedups",
    "calibration_overview",
    "small_m_verify_cost",
    "draft_round_costs",
    "prompt_lookup_vs_copy",
    "prompt_lookup_histogram",
    "PromptLookupView",
    "draft_cost_floor",
    "verification_rules_bars",
    "VerificationRulesView",
    "acceptance_vs_temperature",
    "tree_budget_curves",
    "draw_tree",
    "TreeView",
    "schedule_speedups",
    "ScheduleSpeedupsView",
    "oracle_gain_curves",
    "goodput_curves",
    "GoodputView",
    "matmul_prediction",
    "matmul_measurement",
    "roofline_speedup_in_memory",
    "predicted_vs_measured",
    "round_against_plain",
    "acceptance", "bounds", "calibration", "serving", "decision", "drafts", "engines", "feasibility", "roofline",
    "literature", "measure", "predict", "published", "regimes", "verification", "screens", "economics", "threshold",
]
