"""ipywidgets explorers for the book (presentation only, no formulas).

One submodule per topic, each owning the explorers of the chapters on that
topic; every explorer is a :class:`Explorer` (an
``ipywidgets.VBox``) whose default values reproduce the static figure beside
it, and every public name is re-exported here (listed explicitly below), so
chapters write ``sd.widgets.expected_tokens_explorer(...)``. The
submodules: ``acceptance``, ``speedup``, ``bounds``, ``checklist``,
``sampling``, ``threshold``, ``capacity``, ``hardware``, ``literature``,
``decide`` (the first chapter's decision), ``measure`` (the matrix-product
roofline), ``engines`` (Part IV: calibration, prompt lookup,
verification rules, token trees, draft length, goodput) and ``predict``
(a published setup's predicted speedup).

In a kernel an explorer is live. Where no kernel runs (the published HTML
book, a notebook opened before it is run) its output shows a snapshot: the
controls at their defaults, disabled, the read-out and a line on how to run
it. Five headline explorers are live in the HTML book too, through the
book's own script ``specdec-live.js``: expected tokens, speedup, the
decision checklist, the break-even threshold and the serving-metrics
converter.
"""

from __future__ import annotations

from . import (
    acceptance,
    bounds,
    checklist,
    decision,
    economics,
    engines,
    literature,
    measure,
    predict,
    roofline,
    serving,
    threshold,
    verification,
)
from ._base import Explorer
from .acceptance import ExpectedTokensExplorer, expected_tokens_explorer
from .bounds import BatchContextExplorer, VerifyCostExplorer, batch_context_explorer, verify_cost_explorer
from .checklist import ChecklistExplorer, checklist_explorer, checklist_html
from .decision import DecideExplorer, decide_explorer
from .economics import SpeedupExplorer, speedup_explorer
from .engines import (
    CalibrationExplorer,
    DynamicKExplorer,
    GoodputExplorer,
    PromptLookupExplorer,
    TreeExplorer,
    VerificationExplorer,
    calibration_explorer,
    dynamic_k_explorer,
    goodput_explorer,
    prompt_lookup_explorer,
    tree_explorer,
    verification_explorer,
)
from .literature import BonusTokenExplorer, ServingMetricsExplorer, bonus_token_explorer, serving_metrics_explorer
from .measure import MATMUL_SIZES, MatmulRooflineExplorer, matmul_roofline_explorer
from .predict import PredictExplorer, predict_explorer
from .roofline import ROOFLINE_BATCHES, ROOFLINE_CONTEXTS, RooflineExplorer, roofline_explorer
from .serving import LatencyThroughputExplorer, RegimeExplorer, latency_throughput_explorer, regime_explorer
from .threshold import ThresholdExplorer, threshold_explorer
from .verification import (
    SamplingLogExplorer,
    SamplingResidualExplorer,
    SamplingTemperatureExplorer,
    sampling_log_explorer,
    sampling_residual_explorer,
    sampling_temperature_explorer,
)

__all__ = [
    "Explorer",
    "ExpectedTokensExplorer", "expected_tokens_explorer",
    "SpeedupExplorer", "speedup_explorer",
    "VerifyCostExplorer", "verify_cost_explorer",
    "BatchContextExplorer", "batch_context_explorer",
    "ChecklistExplorer", "checklist_explorer", "checklist_html",
    "SamplingResidualExplorer", "sampling_residual_explorer",
    "SamplingTemperatureExplorer", "sampling_temperature_explorer",
    "SamplingLogExplorer", "sampling_log_explorer",
    "ThresholdExplorer", "threshold_explorer",
    "LatencyThroughputExplorer", "latency_throughput_explorer",
    "RegimeExplorer", "regime_explorer",
    "RooflineExplorer", "roofline_explorer", "ROOFLINE_BATCHES", "ROOFLINE_CONTEXTS",
    "BonusTokenExplorer", "bonus_token_explorer",
    "ServingMetricsExplorer", "serving_metrics_explorer",
    "DecideExplorer", "decide_explorer",
    "MatmulRooflineExplorer", "matmul_roofline_explorer", "MATMUL_SIZES",
    "PredictExplorer", "predict_explorer",
    "CalibrationExplorer", "calibration_explorer",
    "PromptLookupExplorer", "prompt_lookup_explorer",
    "VerificationExplorer", "verification_explorer",
    "TreeExplorer", "tree_explorer",
    "DynamicKExplorer", "dynamic_k_explorer",
    "GoodputExplorer", "goodput_explorer",
    "acceptance", "bounds", "serving", "checklist", "decision", "engines", "roofline", "literature", "measure",
    "predict", "verification", "economics", "threshold",
]
