"""specdec: cost accounting for speculative decoding.

The package behind the book *Speculative decoding, costed*. Import it as
``import specdec as sd``. The core formulas are available at the top level;
the larger topics are submodules, loaded on first use so that importing
``specdec`` stays fast and does not pull in matplotlib:

======================  =====================================================
``sd.acceptance``       the acceptance process: E[L] and its inverse, the
                        distribution of L, engine metrics, per-position rates
``sd.economics``        round cost, speedup, break-even alpha, best k
``sd.request``          a whole request: TTFT, decode time, setup cost
``sd.checklist``        the deployment checklist (Workload, assess)
``sd.policy``           the verdict policy: every threshold a verdict uses, named once
``sd.symbolic``         sympy derivations displayed in the chapters
``sd.hardware``         roofline model of one forward pass (calibrated presets): step time, c_v, c_d
``sd.calibration``      the roofline calibrated against measurements (chapter 16)
``sd.catalogue``        one catalogue of GPUs, models, draft heads, weight formats (cited)
``sd.presets``          Model and Hardware, built from the catalogue
``sd.kernels``          GEMMs at small M: tile quantization, hidden arithmetic
``sd.timings``          published plain-decoding timings the calibration fits and checks
``sd.profiles``         engine profiles: fixed cost per step, launch regime, per GPU
``sd.fit_uncertainty``  bootstrap of the fits: term intervals, headline sensitivity
``sd.memory``           memory accounting: weights, KV cache, what fits
``sd.deployment``       speculation on the roofline: costs, latency,
                        throughput, break-even batch
``sd.sampling``         exact speculative sampling and its simulation
``sd.synthetic``        example distributions, synthetic model pairs, temperature
``sd.estimation``       alpha from logs and engine counters, intervals
``sd.engine_metrics``   vLLM's speculative decoding counters and their /metrics text
``sd.decision``         ``sd.decide(...)``: a verdict from an engine's metrics and measured times
``sd.cli``              the command line, ``python -m specdec decide ...``
``sd.verification``     verification rules: rejection sampling, greedy, one-hot, typical acceptance
``sd.trees``            token trees: expected tokens, best tree for a budget, multi-draft
``sd.dynamic``          dynamic speculation length: oracle bound, HF's schedule
``sd.goodput``          continuous batching: throughput at a per-token latency target
``sd.drafters``         today's draft methods (heads, MTP, n-gram, small models) as cited inputs
``sd.lookup``           n-gram / prompt lookup: Spec-Bench's and vLLM's matching rules, simulated
``sd.suffix``           suffix decoding: a model-free draft from earlier outputs, costed
``sd.draft_parallel``   a separate draft's own tensor-parallel size on the roofline
``sd.block_verify``     block verification (Sun et al.): exact, never fewer tokens than token-wise
``sd.drafts``           draft arrangements: separate model, extra heads, self-speculation
``sd.regimes``          where speculation helps, is neutral or hurts (maps, capacity planning)
``sd.tables``           computed tables rendered as Markdown for the chapters
``sd.literature``       published numbers (inputs) and their recomputation
``sd.measure``          timing a matrix product on the reader's machine
``sd.plots``            matplotlib figures (presentation only)
``sd.widgets``          ipywidgets explorers (presentation only)
``sd.exercises``        self-check exercises: ``sd.exercises.check(label, answer)``
``sd.errata``           where the sources' numbers differ from ours
``sd.predict``          ``sd.predict_speedup(...)``: a published setup's speedup, with an interval
``sd.heldout``          the predictions of held-out published speedups, their table and error
``sd.validation_rows``  held-out published speedups (not used by the calibration) for checking predictions
``sd.sources``          every cited work, and ``Cited``: the one record type for a quoted number
======================  =====================================================

Imports run one way: ``_validate`` <- ``acceptance`` <- ``economics`` <-
the other core modules <- ``plots`` / ``widgets`` / ``exercises``
(``tests/test_architecture.py`` checks it).
"""

from __future__ import annotations

import importlib

from .acceptance import (
    acceptance_rate,
    accepted_tokens_pmf,
    alpha_for_expected_tokens,
    expected_tokens,
    expected_tokens_per_position,
    tokens_per_round_variance,
)
from .economics import (
    break_even_alpha,
    costs_from_times,
    improvement_factor,
    operations_factor,
    optimal_k,
    quick_estimate,
    round_cost,
    round_time,
    round_times_vs_k,
    speedup,
    speedup_from_costs,
    times_from_costs,
)

__version__ = "0.1.0"

_SUBMODULES = {
    "acceptance", "economics", "request", "checklist", "symbolic", "hardware", "memory", "deployment",
    "sampling", "synthetic", "estimation", "engine_metrics", "literature", "measure", "plots", "widgets", "exercises", "errata",
    "drafts", "regimes", "policy", "tables", "decision", "cli", "calibration", "verification", "trees", "dynamic",
    "goodput", "drafters", "lookup", "block_verify", "suffix", "draft_parallel",
    "catalogue", "kernels", "profiles", "presets", "timings", "fit_uncertainty",
    "predict",
    "heldout",
    "validation_rows",
    "sources",
}

# Functions at the top level that live in a submodule loaded on first use
# (so that ``import specdec`` stays fast and numpy-only): name -> module.
_LAZY_FUNCTIONS = {"decide": "decision", "tree_expected_tokens": "trees", "predict_speedup": "predict"}

__all__ = [
    "expected_tokens", "accepted_tokens_pmf", "tokens_per_round_variance",
    "expected_tokens_per_position", "acceptance_rate", "alpha_for_expected_tokens",
    "round_time", "round_cost", "round_times_vs_k", "speedup", "speedup_from_costs", "costs_from_times", "times_from_costs",
    "quick_estimate", "break_even_alpha", "optimal_k", "improvement_factor", "operations_factor",
    *sorted(_LAZY_FUNCTIONS), *sorted(_SUBMODULES),
]


def __getattr__(name: str):
    if name in _LAZY_FUNCTIONS:
        function = getattr(importlib.import_module(f".{_LAZY_FUNCTIONS[name]}", __name__), name)
        globals()[name] = function
        return function
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'specdec' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(_LAZY_FUNCTIONS))
