"""ipywidgets explorers for the book (presentation only, no formulas).

One submodule per concept of the core, named as its package and as the module of
:mod:`specdec.plots` whose figures it moves: ``acceptance``, ``economics``, ``roofline``,
``verification``, ``decision``, ``serving``, ``drafts``, ``calibration``, ``predict`` and
``literature``. Every explorer is an :class:`Explorer` (an ``ipywidgets.VBox``) whose default
values reproduce the static figure beside it, and every public name is re-exported here (listed
explicitly below), so chapters write ``sd.widgets.expected_tokens_explorer(...)``.

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
from ._base import Explorer
from .acceptance import (
    ExpectedTokensExplorer,
    SamplingLogExplorer,
    SamplingTemperatureExplorer,
    expected_tokens_explorer,
    sampling_log_explorer,
    sampling_temperature_explorer,
)
from .calibration import (
    CalibrationExplorer,
    calibration_explorer,
)
from .decision import (
    ChecklistExplorer,
    DecideExplorer,
    checklist_explorer,
    checklist_html,
    decide_explorer,
)
from .drafts import (
    PromptLookupExplorer,
    prompt_lookup_explorer,
)
from .economics import (
    SpeedupExplorer,
    ThresholdExplorer,
    speedup_explorer,
    threshold_explorer,
)
from .literature import (
    BonusTokenExplorer,
    ServingMetricsExplorer,
    bonus_token_explorer,
    serving_metrics_explorer,
)
from .predict import (
    PredictExplorer,
    predict_explorer,
)
from .roofline import (
    MATMUL_SIZES,
    ROOFLINE_BATCHES,
    ROOFLINE_CONTEXTS,
    MatmulRooflineExplorer,
    RooflineExplorer,
    VerifyCostExplorer,
    matmul_roofline_explorer,
    roofline_explorer,
    verify_cost_explorer,
)
from .serving import (
    BatchContextExplorer,
    DynamicKExplorer,
    GoodputExplorer,
    LatencyThroughputExplorer,
    RegimeExplorer,
    batch_context_explorer,
    dynamic_k_explorer,
    goodput_explorer,
    latency_throughput_explorer,
    regime_explorer,
)
from .verification import (
    SamplingResidualExplorer,
    TreeExplorer,
    VerificationExplorer,
    sampling_residual_explorer,
    tree_explorer,
    verification_explorer,
)

__all__ = [
    "Explorer",
    # acceptance
    "ExpectedTokensExplorer", "expected_tokens_explorer", "SamplingTemperatureExplorer", "sampling_temperature_explorer", "SamplingLogExplorer", "sampling_log_explorer",
    # economics
    "SpeedupExplorer", "speedup_explorer", "ThresholdExplorer", "threshold_explorer",
    # roofline
    "RooflineExplorer", "roofline_explorer", "ROOFLINE_BATCHES", "ROOFLINE_CONTEXTS", "VerifyCostExplorer", "verify_cost_explorer", "MatmulRooflineExplorer", "matmul_roofline_explorer", "MATMUL_SIZES",
    # verification
    "SamplingResidualExplorer", "sampling_residual_explorer", "VerificationExplorer", "verification_explorer", "TreeExplorer", "tree_explorer",
    # decision
    "DecideExplorer", "decide_explorer", "ChecklistExplorer", "checklist_explorer", "checklist_html",
    # serving
    "LatencyThroughputExplorer", "latency_throughput_explorer", "RegimeExplorer", "regime_explorer", "BatchContextExplorer", "batch_context_explorer", "DynamicKExplorer", "dynamic_k_explorer", "GoodputExplorer", "goodput_explorer",
    # drafts
    "PromptLookupExplorer", "prompt_lookup_explorer",
    # calibration
    "CalibrationExplorer", "calibration_explorer",
    # predict
    "PredictExplorer", "predict_explorer",
    # literature
    "BonusTokenExplorer", "bonus_token_explorer", "ServingMetricsExplorer", "serving_metrics_explorer",
    # the submodules
    "acceptance", "economics", "roofline", "verification", "decision", "serving", "drafts", "calibration", "predict", "literature",
]
