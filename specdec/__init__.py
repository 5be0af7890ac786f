"""specdec: cost accounting for speculative decoding.

The package behind the book *Speculative decoding, costed*. Import it as
``import specdec as sd``. The core formulas are available at the top level.
Every other module has one home in a concept package and one short name at the
top level (``sd.hardware`` is ``specdec/roofline/hardware.py``), loaded on first
use so that importing ``specdec`` stays fast and does not pull in matplotlib.

The concept packages, lowest first (each imports only from those above it):

================  =========================================================================
package           its modules (short names) and what they hold
================  =========================================================================
``sources``       every cited work, and ``Cited``, the one record type for a quoted number
``acceptance``    the acceptance process: E[L], its inverse, the distribution of L;
                  ``estimation`` (alpha from logs and counters, intervals);
                  ``engine_metrics`` (what vLLM, SGLang and TensorRT-LLM print)
``economics``     round cost, speedup, break-even alpha, best k; ``request`` (a whole
                  request, Amdahl); ``symbolic`` (the sympy derivations)
``decision``      ``sd.decide(...)``; ``policy`` (every verdict threshold, named once);
                  ``checklist`` (Workload, assess)
``roofline``      ``hardware`` (one forward pass: step time, c_v, c_d), ``kernels`` (GEMMs at
                  small M), ``catalogue`` (GPUs, models, heads, formats), ``presets``
                  (Model and Hardware from the catalogue), ``memory``, ``measure``
``verification``  the verification rules; ``sampling`` (exact speculative sampling),
                  ``block_verify``, ``trees`` (token trees), ``synthetic`` (example
                  distributions and model pairs)
``serving``       ``deployment`` (speculation under batching, break-even batch), ``regimes``
                  (helps, neutral or hurts), ``goodput`` (continuous batching at a latency
                  target), ``dynamic`` (dynamic speculation length)
``drafts``        draft arrangements; ``drafters`` (today's draft methods as cited inputs),
                  ``lookup`` (n-gram matching rules), ``suffix`` (suffix decoding),
                  ``draft_parallel`` (a draft's own tensor-parallel size)
``calibration``   the roofline fitted to measurements; ``timings`` (the measurements),
                  ``profiles`` (engine profiles), ``fit_uncertainty`` (bootstrap)
``predict``       ``sd.predict_speedup(...)``; ``validation_rows`` (held-out published
                  speedups), ``heldout`` (their predictions and error)
``literature``    published numbers recomputed; ``errata`` (where the sources differ)
================  =========================================================================

At the top level beside them: ``tables`` (the one writer of Markdown and HTML tables), ``cli`` (``python -m
specdec ...``) and the private helpers ``_validate``, ``_units``, ``_datafiles``. Presentation
sits on top and imports the core, never the other way: ``plots`` (matplotlib figures), ``widgets``
(ipywidgets explorers). ``tests/test_architecture.py`` checks the order. The course tooling
(exercises, assignments, the grader) is a distribution of its own, ``specdec_course``
(``course/`` in the repository), which imports specdec and is never imported by it.
"""

from __future__ import annotations

import importlib
from typing import Any

from specdec.acceptance import (
    acceptance_rate,
    accepted_tokens_pmf,
    alpha_for_expected_tokens,
    expected_tokens,
    expected_tokens_per_position,
    tokens_per_round_variance,
)
from specdec.economics import (
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

# Every module, by its short name (``sd.hardware``), and its one home in a concept package
# (``specdec/roofline/hardware.py``). The short names are the chapters' vocabulary; the packages
# are the maintainer's map. Loaded on first use.
_SUBMODULES = {
    # the acceptance process, its estimation, and what engines print of it
    "acceptance": "acceptance", "estimation": "acceptance.estimation",
    "engine_metrics": "acceptance.engine_metrics",
    # the cost of a round and of a request
    "economics": "economics", "request": "economics.request", "symbolic": "economics.symbolic",
    # verifying a draft: the rules, exact sampling, block verification, trees
    "verification": "verification", "sampling": "verification.sampling",
    "block_verify": "verification.block_verify", "trees": "verification.trees",
    "synthetic": "verification.synthetic",
    # the hardware model: one forward pass on a GPU, its catalogue, memory, measuring it
    "roofline": "roofline", "hardware": "roofline.hardware", "kernels": "roofline.kernels",
    "presets": "roofline.presets", "catalogue": "roofline.catalogue", "memory": "roofline.memory",
    "measure": "roofline.measure",
    # serving: speculation on the roofline under batching
    "serving": "serving", "deployment": "serving.deployment", "regimes": "serving.regimes",
    "goodput": "serving.goodput", "dynamic": "serving.dynamic",
    # verdicts: the one policy, the checklist, decide
    "decision": "decision", "policy": "decision.policy", "checklist": "decision.checklist",
    # draft methods
    "drafts": "drafts", "drafters": "drafts.drafters", "lookup": "drafts.lookup",
    "suffix": "drafts.suffix", "draft_parallel": "drafts.draft_parallel",
    # the roofline fitted to measurements
    "calibration": "calibration", "profiles": "calibration.profiles",
    "fit_uncertainty": "calibration.fit_uncertainty", "timings": "calibration.timings",
    # predictions of published setups and their check
    "predict": "predict", "heldout": "predict.heldout", "validation_rows": "predict.validation_rows",
    # published numbers, recomputed; where the sources differ
    "literature": "literature", "errata": "literature.errata",
    # cited works; shared tables; the command line
    "sources": "sources", "tables": "tables", "cli": "cli",
    # presentation
    "plots": "plots", "widgets": "widgets",
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


def __getattr__(name: str) -> Any:
    if name in _LAZY_FUNCTIONS:
        module = importlib.import_module(f"{__name__}.{_SUBMODULES[_LAZY_FUNCTIONS[name]]}")
        function = getattr(module, name)
        globals()[name] = function
        return function
    if name in _SUBMODULES:
        module = importlib.import_module(f"{__name__}.{_SUBMODULES[name]}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'specdec' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBMODULES) | set(_LAZY_FUNCTIONS))
