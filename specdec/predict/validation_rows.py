"""Held-out published speedups: measured results the calibration does not use.

This module is data only. It holds published, *measured* end-to-end
speedups of speculative decoding, each with the mean acceptance length that
the same source reports for the same configuration, so that a predictor
(chapter "A calibrated roofline" and the prediction chapter that follows
it) can be checked on numbers that were not used to fit it. It computes
nothing: no prediction, no error. The procedure below was fixed and
committed before any row was collected and before any prediction was made
on any row; rows are not chosen, dropped or edited according to how well a
model predicts them.

Selection rules
---------------
S1. **Published and measured.** The speedup is a wall-clock measurement
    printed in a paper, the authors' repository, an engine's official
    documentation or an engine team's blog. Simulated, projected or
    "theoretical" speedups, and speedups read off a plot without a printed
    value, are not eligible.
S2. **Acceptance reported for the same configuration.** The source prints
    the mean acceptance length (tokens per round, however named: tau,
    "average acceptance length", "#mean accepted tokens", "acceleration
    rate", "compression ratio", "accept length") or per-position acceptance
    rates for the *same* target, draft, dataset, temperature and batch as
    the speedup. Rows without one are not eligible, however well known.
S2a. **Greedy acceptance at batch > 1.** At temperature 0, with the same
    target, draft, tree and dataset, the accepted tokens do not depend on
    the batch (in exact arithmetic the same tokens are generated). A batch
    > 1 speedup may therefore take the acceptance length the same source
    prints for batch 1 of that configuration; ``tau_batch`` records the
    batch at which the acceptance length was measured. Sampled rows
    (temperature > 0) get no such exception.
S3. **Configuration complete enough to price.** Target model, draft kind,
    GPU model and count, and batch are stated (or fixed by the source's
    setup section for all its rows). The GPU is one the package has or is
    meant to have a preset for (A100 40 GB and 80 GB, RTX 3090, L40S, H100,
    H200, B200); rows on other GPUs are not eligible.
S4. **Not in the fit.** A row is excluded if its speedup or its baseline
    time is one of the measurements the calibration is fitted to
    (``specdec.calibration.MEASUREMENTS`` with role ``"fit"``; the roofline
    fits plain decoding and prefill times only, never speedups). Rows that
    the book quotes elsewhere (for example Spec-Bench's leaderboard in
    ``specdec.drafts.drafters``) are allowed and flagged in ``also_cited_in``.
S5. **Which cells of a table.** From each table, one row per (target,
    draft method and draft shape (k or tree), batch, GPU, temperature) is
    taken, in this order of preference for the dataset: the table's
    overall/mean column if it has one, else MT-bench, else the table's
    first dataset column. Temperature 0 (greedy) is preferred; a
    temperature-1 row is taken only when the source prints no greedy row
    for that configuration. At most 8 rows are taken from one table and at
    most 12 from one source. When a table has more eligible rows than
    that, they are taken round-robin over the table's draft methods (the
    first eligible row, top to bottom, of each method in the order the
    methods first appear, then the second of each, and so on), and a
    source's tables are visited round-robin in the same way, so that no
    single source or method dominates.
S5a. **Draft kinds.** Only the draft kinds the predictor is specified to
    take are eligible: a separate draft model, EAGLE-1/2/3 heads, Medusa-1
    and Medusa-2 heads, MTP modules, n-gram / prompt lookup, lookahead and
    suffix decoding. Rows of other methods (Hydra, HASS, REST, Recycling,
    SAMD, ...) are skipped and do not count towards the caps of S5.
S5b. **Coverage.** If, after the caps, a draft family that S6 requires
    (separate draft model, EAGLE heads, Medusa, n-gram / prompt lookup,
    lookahead, MTP) has no row, the first eligible row of that family, in
    the order the sources are listed in this module, is added beyond the
    caps and flagged ``coverage=True``.
S6. **Mix.** Sources are searched so that the set spans separate draft
    models, EAGLE-1/2/3 heads, Medusa-1/2, n-gram / prompt lookup,
    lookahead and MTP, at batch 1 and at batch > 1. The search order of
    sources is fixed by the method family, not by any result; a source that
    could not be read is listed in the report, not replaced by a guess.

Amendments, all made before any prediction was computed on any row (each
in its own commit after the one that fixed the rules):

A1. S5's caps were "at most 6 per table and 10 per source, in table order";
    S5a was added. Reason: the first table read would have filled its cap
    with one target's older methods. No row had been entered.
A2. S2a and S5b were added. Reason: the sources read so far printed batch
    > 1 speedups only with batch-1 acceptance lengths, and the per-source
    cap left prompt lookup and lookahead without a row.
A3. S5's configuration gained "draft shape", and M8 gained ``"nvfp4"``.
    Reason: two sources print several chain lengths or trees of one method
    side by side, and one runs NVIDIA's 4-bit format.
A4. S5 now says how a source's cap is shared among its tables
    (round-robin, as applied to Spec-Bench's four tables when its rows
    were entered); the earlier text did not say.

Second collection (A5), after the first 31 rows' errors had been seen:

A5. The set is reopened for sources not read before; the predictor, the
    mapping rules M1 to M8 and the decisions D1 to D8 of
    :mod:`specdec.predict.heldout` stay as they are. Sources are searched by
    family in S6's order, each family by its own searcher, who prices
    nothing; every source read is listed (used or not, with the rule that
    excluded it), and its eligible rows enter under S5's caps, in the order
    read. Rows of this collection carry ``collection=2``. A dense target
    missing from the catalogue is entered from its published configuration
    (layers, widths, heads, vocabulary); a target whose architecture the
    catalogue cannot describe is listed as read but not used (S3). The
    chapter reports the median absolute error over the second collection
    alone (the only rows no one had predicted when they were chosen) beside
    the median over all rows. A choice that only a new row raises is
    decided, for all rows, before any new row is priced (D9 of
    :mod:`specdec.predict.heldout`, engines outside the profiles), and S5 is
    read as follows where a source raised the case: a table that re-prints
    another table's rows adds only the rows the other lacks; a separate
    draft with a compressed KV cache (StreamingLLM, SnapKV) is not a kind
    the predictor takes (S5a); an acceptance length measured in a separate
    run whose batch is not stated does not meet S2.

Mapping rules (how a row becomes a predictor's inputs)
------------------------------------------------------
M1. **GPU preset.** ``gpu`` names the card as the source states it;
    "A100" without a memory size maps to the A100 80 GB preset, "H100"
    without a form factor to H100 SXM. ``gpu_count`` is the number of
    cards the target runs on.
M2. **Parallelism.** ``parallelism`` is ``"tp<n>"`` for tensor
    parallelism over n cards, ``"layer-split"`` for a pipeline of layers
    without overlap (Hugging Face ``device_map="auto"``), ``"none"`` for a
    single card. When a multi-card setup does not say which: research code
    built on Hugging Face (engine ``"hf-eager"`` or ``"research"``) means
    ``"layer-split"``; a serving engine (SGLang, vLLM, TensorRT-LLM,
    gpt-fast) means tensor parallelism over all the cards.
M3. **Engine profile.** ``engine`` is one of ``"hf-eager"`` (plain
    ``transformers`` generation), ``"research"`` (the EAGLE / Medusa /
    Hydra / Lookahead research code, eager PyTorch on Hugging Face
    modules), ``"sglang"``, ``"vllm"``, ``"trtllm"``, ``"gpt-fast"``, or
    ``"other:<name>"``. The predictor uses the profile of that engine; the
    speedup's baseline is normally the same engine without speculation
    (M7).
M4. **Context length.** ``context`` is the mean number of tokens in the KV
    cache during decoding when the source states it (prompt length plus
    half the output length when both are stated). When it is not stated
    (``context=None``), the predictor uses a fixed length per dataset:
    512 tokens for chat, question answering, code and maths (MT-bench,
    Alpaca, HumanEval, GSM8K, Spec-Bench's mean over tasks, ShareGPT) and
    1024 tokens for summarisation and retrieval-augmented tasks (CNN/DM,
    XSum, Natural Questions with retrieved passages).
M5. **Draft shape.** ``k`` is the chain length (draft tokens per round)
    for chain drafts. For trees, ``tree_tokens`` (tokens the target
    verifies per round), ``tree_depth`` (draft steps per round) and
    ``tree_topk`` (branching per step) are recorded as the source states
    them. When the source does not state them, the defaults of the
    method's research code at the commit read are used (EAGLE-1: its
    static tree; EAGLE-2 and EAGLE-3: ``total_token``, ``depth`` and
    ``top_k`` of ``EaModel``; Medusa: the default sparse tree of that
    model size) and ``shape_from`` says ``"code default"``; if no default
    could be read, the fields stay ``None`` and ``shape_from`` is
    ``"unstated"``.
M6. **Acceptance length.** ``tau`` is always normalised to tokens per
    round including the target's own token (the bonus or corrected token),
    so plain decoding has ``tau = 1``. ``tau_printed`` is the number as
    printed and ``tau_convention`` says how it was converted:
    ``"includes-target-token"`` (EAGLE's tau, Spec-Bench's #MAT, Medusa's
    acceleration rate, Lookahead's compression ratio, vLLM's and SGLang's
    accept length: ``tau = tau_printed``); ``"draft-tokens-only"`` (mean
    accepted draft tokens: ``tau = tau_printed + 1``);
    ``"per-position-rates"`` (p_i, the chance that the i-th draft token is
    accepted given the earlier ones were: ``tau = 1 + sum of the products
    p_1 ... p_i``); ``"acceptance-rate-mtp1"`` (one MTP token accepted with
    probability p: ``tau = 1 + p``).
M7. **Speedup and its baseline.** ``speedup`` is the printed ratio (or the
    ratio of two printed throughputs or latencies, stated in the note).
    ``baseline`` names what it divides by: ``"same-engine"`` (the same
    engine, GPU, batch and dataset without speculation), or a description
    when the source uses something else (for example Hugging Face
    generation as the baseline of a serving engine's speculative run).
    ``metric`` is ``"latency"`` (time per generated token of one request)
    or ``"throughput"`` (output tokens per second of the whole batch).
M8. **Temperature and precision.** ``temperature`` as the source states
    it (``None`` if unstated); ``precision`` is the weight and activation
    precision of the target (``"fp16"``, ``"bf16"``, ``"fp8"``, or
    ``"nvfp4"`` for NVIDIA's 4-bit format), from the source's setup section
    when a row does not repeat it; a mixed recipe is named by the precision
    of the feed-forward/expert weights, which hold most of the bytes, and
    the rest is stated in ``note``.

Defined in chapter "A calibrated roofline".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from specdec._validate import check_bool, check_choice, check_count, check_instance, check_positive, describe
from specdec.sources import Cited

__all__ = [
    "PublishedSpeedup", "VALIDATION_ROWS", "SEQUOIA_CAPTION",
    "DRAFT_KINDS", "ENGINES", "GPUS", "PRECISIONS", "TAU_CONVENTIONS", "SHAPE_FROM", "METRICS",
]

#: Draft kinds a row may name (M3 and S5a).
DRAFT_KINDS = ("model", "eagle", "eagle2", "eagle3", "medusa", "medusa2", "mtp", "ngram", "pld", "lookahead",
               "suffix")
#: Engine profiles (M3); ``"other:<name>"`` is allowed as well.
ENGINES = ("hf-eager", "research", "sglang", "vllm", "trtllm", "gpt-fast")
#: GPUs as the mapping rules name them (M1).
GPUS = ("A100-40GB", "A100-80GB", "RTX3090", "L40S", "H100", "H200", "B200")
#: Weight and activation precision of the target (M8); ``None`` when the source does not state it.
PRECISIONS = ("fp16", "bf16", "fp8", "nvfp4")
#: How the printed acceptance length becomes ``tau`` (M6).
TAU_CONVENTIONS = ("includes-target-token", "draft-tokens-only", "per-position-rates", "acceptance-rate-mtp1")
#: Where the draft shape comes from (M5).
SHAPE_FROM = ("source", "code default", "unstated")
#: What the speedup divides (M7).
METRICS = ("latency", "throughput")

_PARALLELISM = re.compile(r"^(none|layer-split|tp[1-9][0-9]*)$")

def _optional_count(value: int | None, name: str, minimum: int = 1) -> int | None:
    return None if value is None else check_count(value, name, minimum=minimum)


@dataclass(frozen=True)
class PublishedSpeedup:
    """One published, measured speedup with the acceptance length measured for the same configuration.

    The fields follow the mapping rules M1 to M8 of the module docstring; ``quoted.value`` holds the
    numbers as printed.

    Parameters
    ----------
    key : str
        Unique name of the row.
    quoted : specdec.sources.Cited
        Source, where it was read, status and the copy read.
    target : str
        Target model, named as on the Hugging Face hub (lower case, no organisation).
    draft_kind : str
        One of :data:`DRAFT_KINDS`.
    draft_model : str or None
        The draft's name; required for ``draft_kind="model"``.
    k : int or None
        Draft tokens per round of a chain draft.
    tree_tokens, tree_depth, tree_topk : int or None
        Tokens the target verifies per round (the target's own token included), draft steps and branching.
    shape_from : str
        One of :data:`SHAPE_FROM`.
    gpu : str
        One of :data:`GPUS`.
    gpu_count : int
        Cards the target runs on.
    parallelism : str
        ``"none"``, ``"layer-split"`` or ``"tp<n>"``.
    batch : int
        Sequences decoded together.
    tau_batch : int
        Batch at which ``tau`` was measured (S2a).
    engine : str
        One of :data:`ENGINES` or ``"other:<name>"``.
    dataset : str
        Dataset or task.
    context : int or None
        Mean tokens in the KV cache when the source states it (M4).
    temperature : float or None
        Sampling temperature, ``None`` if not stated.
    precision : str or None
        One of :data:`PRECISIONS`, ``None`` if not stated.
    tau_printed : float
        The acceptance length (or rate) as printed.
    tau_convention : str
        One of :data:`TAU_CONVENTIONS`.
    tau : float
        Tokens per round including the target's own token (>= 1).
    speedup : float
        The measured speedup (> 0).
    baseline : str
        What the speedup divides by (``"same-engine"`` or a description).
    metric : str
        One of :data:`METRICS`.
    also_cited_in : tuple of str
        Other records of the package that quote the same number.
    coverage : bool
        Added by rule S5b.
    collection : int
        1 for the rows chosen before any prediction, 2 for the second collection (A5).
    note : str
        Anything else a reader needs.

    Defined in chapter "A calibrated roofline".

    Examples
    --------
    >>> from specdec.predict.validation_rows import VALIDATION_ROWS
    >>> row = VALIDATION_ROWS[0]
    >>> row.draft_kind, row.tau >= 1, row.speedup > 0
    ('eagle2', True, True)
    """

    key: str
    quoted: Cited
    target: str
    draft_kind: str
    draft_model: str | None
    k: int | None
    tree_tokens: int | None
    tree_depth: int | None
    tree_topk: int | None
    shape_from: str
    gpu: str
    gpu_count: int
    parallelism: str
    batch: int
    tau_batch: int
    engine: str
    dataset: str
    context: int | None
    temperature: float | None
    precision: str | None
    tau_printed: float
    tau_convention: str
    tau: float
    speedup: float
    baseline: str
    metric: str
    also_cited_in: tuple = ()
    coverage: bool = False
    note: str = ""
    collection: int = 1

    def __post_init__(self) -> None:
        for name in ("key", "target", "dataset", "baseline"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise TypeError(f"{name} must be a non-empty string, got {describe(value)}")
        check_instance(self.quoted, Cited, "quoted")
        check_choice(self.draft_kind, "draft_kind", DRAFT_KINDS)
        if self.draft_kind == "model" and not (isinstance(self.draft_model, str) and self.draft_model):
            raise ValueError("draft_model must name the draft when draft_kind is 'model'")
        for name in ("k", "tree_tokens", "tree_depth", "tree_topk"):
            _optional_count(getattr(self, name), name)
        if self.tree_tokens is not None and self.tree_tokens < 2:
            raise ValueError(f"tree_tokens must be >= 2 (the target's token and one draft); got {self.tree_tokens}")
        check_choice(self.shape_from, "shape_from", SHAPE_FROM)
        check_choice(self.gpu, "gpu", GPUS)
        check_count(self.gpu_count, "gpu_count")
        if not isinstance(self.parallelism, str) or not _PARALLELISM.match(self.parallelism):
            raise ValueError(f"parallelism must be 'none', 'layer-split' or 'tp<n>'; got {describe(self.parallelism)}")
        if (self.parallelism == "none") != (self.gpu_count == 1):
            raise ValueError(f"parallelism 'none' goes with gpu_count 1; got {self.parallelism!r} on {self.gpu_count}")
        if self.parallelism.startswith("tp") and int(self.parallelism[2:]) > self.gpu_count:
            raise ValueError(f"parallelism {self.parallelism!r} needs more than gpu_count={self.gpu_count} cards")
        check_count(self.batch, "batch")
        check_count(self.tau_batch, "tau_batch")
        if self.engine not in ENGINES and not (isinstance(self.engine, str) and self.engine.startswith("other:")
                                               and len(self.engine) > len("other:")):
            raise ValueError(f"engine must be one of {', '.join(map(repr, ENGINES))} or 'other:<name>'; "
                             f"got {describe(self.engine)}")
        _optional_count(self.context, "context")
        if self.temperature is not None and not (isinstance(self.temperature, (int, float))
                                                 and 0 <= self.temperature <= 2):
            raise ValueError(f"temperature must be None or a number in [0, 2]; got {describe(self.temperature)}")
        if self.precision is not None:
            check_choice(self.precision, "precision", PRECISIONS)
        check_choice(self.tau_convention, "tau_convention", TAU_CONVENTIONS)
        check_positive(self.tau_printed, "tau_printed")
        check_positive(self.speedup, "speedup")
        if not (isinstance(self.tau, (int, float)) and math.isfinite(self.tau) and self.tau >= 1):
            raise ValueError(f"tau must be a number >= 1 (tokens per round with the target's own); got {self.tau!r}")
        if self.tau_convention == "includes-target-token" and self.tau != self.tau_printed:
            raise ValueError("tau must equal tau_printed when tau_convention is 'includes-target-token'")
        if self.tau_convention in ("draft-tokens-only", "acceptance-rate-mtp1") \
                and not math.isclose(self.tau, 1 + self.tau_printed):
            raise ValueError(f"tau must be 1 + tau_printed for tau_convention {self.tau_convention!r}")
        cap = self.tree_tokens if self.tree_tokens is not None else (None if self.k is None else self.k + 1)
        if cap is not None and self.tau > cap:
            raise ValueError(f"tau={self.tau} exceeds the {cap} tokens a round can produce")
        check_choice(self.metric, "metric", METRICS)
        if not isinstance(self.also_cited_in, tuple) or not all(isinstance(s, str) for s in self.also_cited_in):
            raise TypeError("also_cited_in must be a tuple of strings")
        check_bool(self.coverage, "coverage")
        if check_count(self.collection, "collection") > 2:
            raise ValueError(f"collection must be 1 or 2; got {self.collection}")


# --------------------------------------------------------------------------
# the rows, source by source, in the order the sources were read
# --------------------------------------------------------------------------

_SB_COMMIT = "fd2c1cd7d2201ef71db4c5f4e455008f017967bf"
_SB_CHECKED = f"GitHub hemingkx/Spec-Bench Leaderboard.md at commit {_SB_COMMIT} (a fetched snapshot)"
_SB_TABLES = {
    "3090-vicuna7b": ("'Leaderboard on 3090' (a single RTX 3090 24GB, Vicuna-7B-v1.3, greedy, FP16, batch size 1)",
                      "RTX3090", "vicuna-7b-v1.3"),
    "a100-vicuna7b": ("'Leaderboard on A100', 'Vicuna-7B-v1.3' (a single A100 80GB, greedy, FP16, batch size 1)",
                      "A100-80GB", "vicuna-7b-v1.3"),
    "a100-vicuna13b": ("'Leaderboard on A100', 'Vicuna-13B-v1.3' (a single A100 80GB, greedy, FP16, batch size 1)",
                       "A100-80GB", "vicuna-13b-v1.3"),
    "a100-vicuna33b": ("'Leaderboard on A100', 'Vicuna-33B-v1.3' (a single A100 80GB, greedy, FP16, batch size 1)",
                       "A100-80GB", "vicuna-33b-v1.3"),
}
_SB_CODE = f"GitHub hemingkx/Spec-Bench at commit {_SB_COMMIT}"
#: Spec-Bench method -> (draft_kind, draft_model, k, tree_tokens, tree_depth, tree_topk, engine, shape note).
_SB_METHODS = {
    "EAGLE2": ("eagle2", None, None, 60, 6, 10, "research",
               "evaluation/inference_eagle2.py defaults total_token=60, depth=5, top_k=10 (model/eagle2/cnets.py: the "
               "target verifies total_token tokens including its own; one first draft pass and depth=5 expansion "
               "passes, so 6 draft steps); EAGLE-1 weights (eval.sh Eagle_PATH) with the dynamic tree"),
    "EAGLE3": ("eagle3", None, None, 60, 6, 10, "research",
               "evaluation/inference_eagle3.py defaults total_token=60, depth=5, top_k=10 (model/eagle3/cnets.py as "
               "for EAGLE-2); head EAGLE3-Vicuna1.3-13B (eval.sh Eagle3_PATH)"),
    "EAGLE": ("eagle", None, None, 26, 5, None, "research",
              "evaluation/inference_eagle.py default tree mc_sim_7b_63 in model/eagle/choices.py: 25 draft nodes "
              "plus the target's token, longest path 5; a static tree, so no single top-k"),
    "Medusa": ("medusa", None, None, 64, 4, None, "research",
               "evaluation/inference_medusa.py default medusa_choices mc_sim_7b_63 (model/medusa/medusa_choices.py): "
               "63 candidate nodes plus the target's token, longest path 4, for every target size; Medusa-1 heads "
               "(eval.sh's example Medusa_PATH is medusa-vicuna-7b-v1.3); greedy, so typical acceptance is not "
               "involved"),
    "SpS": ("model", "vicuna-68m", 5, None, None, None, "hf-eager",
            "Hugging Face assisted generation (evaluation/inference_sps.py and model/sps/decoding.py, which use "
            "transformers' AssistedCandidateGenerator with the draft's default generation config) under "
            "transformers==4.37.1 (requirements.txt); k = 5 is the default num_assistant_tokens with the "
            "'heuristic' schedule (+2 after a fully accepted round, -1 otherwise) as read for transformers 4.40.0 "
            "(specdec.drafts.drafters.HF_DEFAULTS; 4.37.1 itself not read), so k varies around 5; draft vicuna-68m "
            "(eval.sh Drafter_PATH)"),
    "PLD": ("pld", None, 10, None, None, None, "research",
            "model/pld/pld.py find_candidate_pred_tokens defaults max_ngram_size=3, num_pred_tokens=10: up to 10 "
            "copied tokens per round"),
    "Lookahead": ("lookahead", None, None, None, None, None, "research",
                  "eval.sh runs Lookahead with level 5, window 7, guess 7 (N=5, W=7, G=7); no tree in the sense of M5"),
}


def _specbench(table: str, method: str, tau: float, speedup: float, *, also: tuple[Any, ...] | tuple[str] = (),
               coverage: bool = False) -> PublishedSpeedup:
    where, gpu, target = _SB_TABLES[table]
    kind, draft, k, tokens, depth, topk, engine, shape = _SB_METHODS[method]
    quoted = Cited({"#Mean Accepted Tokens": tau, "Overall": speedup}, "xia2024specbench",
                   f"Leaderboard.md, {where}, row '{method}', columns '#Mean Accepted Tokens' and 'Overall'",
                   "verified", _SB_CHECKED,
                   note="mean speedup over 3 runs against vanilla decoding on the same device; mean accepted tokens "
                        "per decoding step, 1.00 for vanilla decoding")
    return PublishedSpeedup(
        key=f"specbench-{table}-{method.lower()}", quoted=quoted, target=target, draft_kind=kind, draft_model=draft,
        k=k, tree_tokens=tokens, tree_depth=depth, tree_topk=topk, shape_from="code default", gpu=gpu, gpu_count=1,
        parallelism="none", batch=1, tau_batch=1, engine=engine, dataset="Spec-Bench (mean over its 6 tasks)",
        context=None, temperature=0.0, precision="fp16", tau_printed=tau, tau_convention="includes-target-token",
        tau=tau, speedup=speedup,
        baseline="Hugging Face autoregressive decoding (evaluation/inference_baseline.py), same GPU and software",
        metric="latency", also_cited_in=also, coverage=coverage,
        note=f"draft shape from {_SB_CODE}: {shape}")


_SB_CITED = ("specdec.drafts.drafters.SPEC_BENCH_A100",)

#: S5: four tables, at most 8 rows each and 12 from the source, round-robin over tables and, inside a table,
#: over its methods in the order they first appear (Hydra, Recycling, REST, SAMD skipped by S5a).
_SPEC_BENCH_ROWS = (
    _specbench("3090-vicuna7b", "EAGLE2", 4.35, 2.19),
    _specbench("a100-vicuna7b", "EAGLE2", 4.34, 2.36, also=_SB_CITED),
    _specbench("a100-vicuna13b", "EAGLE3", 5.71, 3.02, also=_SB_CITED),
    _specbench("a100-vicuna33b", "EAGLE2", 4.05, 2.59),
    _specbench("3090-vicuna7b", "EAGLE", 3.57, 2.03),
    _specbench("a100-vicuna7b", "EAGLE", 3.58, 2.10, also=_SB_CITED),
    _specbench("a100-vicuna13b", "EAGLE2", 4.43, 2.46, also=_SB_CITED),
    _specbench("a100-vicuna33b", "EAGLE", 3.39, 2.43),
    _specbench("3090-vicuna7b", "SpS", 2.28, 1.79),
    _specbench("a100-vicuna7b", "Medusa", 2.31, 1.71, also=_SB_CITED),
    _specbench("a100-vicuna13b", "EAGLE", 3.64, 2.16, also=_SB_CITED),
    _specbench("a100-vicuna33b", "Medusa", 2.33, 1.76),
    # S5b: prompt lookup and lookahead have no row after the caps; the first eligible row of each family
    _specbench("3090-vicuna7b", "PLD", 1.73, 1.64, coverage=True),
    _specbench("3090-vicuna7b", "Lookahead", 1.64, 1.13, coverage=True),
)

_EAGLE_HTML = "a transcription of the arXiv 2401.15077v3 HTML (search-tool index file id 58869229422)"
_EAGLE_TREE = ("the EAGLE repository's default tree mc_sim_7b_63 (eagle/model/choices.py, GitHub SafeAILab/EAGLE at "
               "commit cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b): 25 draft nodes plus the target's token, longest "
               "path 5")
#: Table 7 (MT-bench, temperature 0): target -> (HF name, GPU, count, parallelism, Table 2 tau, speedups at bs 1-4).
_EAGLE_TABLE7 = {
    "Vicuna 7B": ("vicuna-7b-v1.3", "RTX3090", 1, "none", 3.94, (2.90, 2.87, 2.65, 2.76),
                  "Section 4.4: Vicuna 7B runs on a single RTX 3090 (24G)"),
    "LLaMA2-Chat 70B": ("llama-2-70b-chat-hf", "A100-40GB", 4, "layer-split", 3.81, (3.01, 2.81, 2.50, 2.40),
                        "Section 4.4: LLaMA2-Chat 70B runs on 4 A100 (40G), 160G in all; the split over the cards "
                        "is not stated, so M2 gives a layer split (research code on Hugging Face)"),
}


def _eagle_table7(model: str, batch: int) -> PublishedSpeedup:
    target, gpu, count, par, tau, speedups, hardware = _EAGLE_TABLE7[model]
    speedup = speedups[batch - 1]
    quoted = Cited({"speedup": speedup, "tau": tau, "batch": batch}, "li2024eagle",
                   f"Table 7 (speedup ratios at batch sizes 1-4, MT-bench, temperature 0), row '{model}', column "
                   f"{batch}; tau from Table 2 (MT-bench, T=0, row '{model}'); hardware and FP16 from Section 4.4",
                   "verified", _EAGLE_HTML,
                   note=hardware + "; the Throughput column is not used (its two sides run at different batch "
                                   "sizes)")
    return PublishedSpeedup(
        key=f"eagle1-table7-{target}-bs{batch}", quoted=quoted, target=target, draft_kind="eagle", draft_model=None,
        k=None, tree_tokens=26, tree_depth=5, tree_topk=None, shape_from="code default", gpu=gpu, gpu_count=count,
        parallelism=par, batch=batch, tau_batch=1, engine="research", dataset="MT-bench", context=None,
        temperature=0.0, precision="fp16", tau_printed=tau, tau_convention="includes-target-token", tau=tau,
        speedup=speedup, baseline="vanilla autoregressive decoding (Hugging Face) at the same batch size and GPUs",
        metric="latency",
        note=f"draft shape: {_EAGLE_TREE}; tau measured at batch 1 (rule S2a); tau counts the target's token "
             "('tokens accepted per forward pass of the target LLM', vanilla decoding = 1)")


#: Table 7 has 8 cells (S5 cap 8); Table 2's tau is the batch-1 measurement of the same configuration.
_EAGLE1_ROWS = tuple(_eagle_table7(model, batch) for model in _EAGLE_TABLE7 for batch in (1, 2, 3, 4))

_SDB_CHECKED = ("GitHub SpecDecode-Bench/specdecode-bench.github.io index.md at commit "
                "fb0e24261927be497fe516526f569a3c89de786d (a fetched snapshot)")
_SDB_WHERE = ("index.md, 'Tree vs. Chain Verification' (text and Figure 2 caption: SGLang v0.5.9, Qwen3-8B, tree depth "
              "3, chain k=3, trees k=6 and k=21 with branching 4 for k=21; 'End-to-End Performance': NVIDIA H100 80GB, "
              "1 GPU for 8B models)")


def _sdb(shape: str, speedup: float, tau: float, **tree: Any) -> PublishedSpeedup:
    quoted = Cited({"speedup": speedup, "accepted_length": tau}, "specdecode-bench",
                          _SDB_WHERE + f", the {shape} sentence values", "verified", _SDB_CHECKED,
                          note="'1.65x -> 1.85x for EAGLE on Qwen3-8B/GSM8K going from chain k=3 to tree k=21'; "
                               "'accepted length (e.g., 2.25 -> 2.92 on Qwen3-8B/GSM8K)'; acceptance rate 0.415 -> "
                               "0.095. The accepted length counts the target's token: 1 + 3 x 0.415 = 2.245 for "
                               "the chain. Speedups are ratios of token throughput with and without speculation")
    return PublishedSpeedup(
        key=f"specdecode-bench-qwen3-8b-eagle-{shape}", quoted=quoted, target="qwen3-8b", draft_kind="eagle",
        draft_model=None, shape_from="source", gpu="H100", gpu_count=1, parallelism="none", batch=1, tau_batch=1,
        engine="sglang", dataset="GSM8K", context=None, temperature=None, precision=None, tau_printed=tau,
        tau_convention="includes-target-token", tau=tau, speedup=speedup, baseline="same-engine",
        metric="throughput",
        note="k in the source counts draft tokens verified in parallel, without the target's token; tree_tokens "
             "adds it. Temperature and precision are not stated on the page (its paper's Table 5 has the "
             "configuration; not read)", **tree)


_SPECDECODE_BENCH_ROWS = (
    _sdb("chain", 1.65, 2.25, k=3, tree_tokens=None, tree_depth=None, tree_topk=None),
    _sdb("tree", 1.85, 2.92, k=None, tree_tokens=22, tree_depth=3, tree_topk=4),
)

_MTP_CHECKED = ("GitHub lm-sys/lm-sys.github.io blog/2025-07-17-mtp.md at commit "
                "0947bdc01aea3a453e27f0e0e1c290404c0232ed (search-tool copy, file id 46323046939)")


def _mtp(window: int, tau: float, speedup: float, tps: float) -> PublishedSpeedup:
    quoted = Cited({"speedup": speedup, "tokens_per_s_per_rank": tps, "baseline_tokens_per_s_per_rank": 51.0,
                           "average_acceptance_length": tau}, "lmsys-mtp",
                          "'Case Study 1: Small-Scale Deployment' (text and table): two decoding nodes, 16 H200 in "
                          "all, 2 concurrent requests per rank, input 65,536 and output 4,096 tokens; "
                          f"{window}-token MTP window with topk=1", "verified", _MTP_CHECKED,
                          note="speedup as printed (+59.8% and +60.8% over 51.0 tokens/s per rank: no MTP and no "
                               "overlap scheduling, the MTP runs also without overlap scheduling); the blog's "
                               "acceptance length is SGLang's accept length, which counts the target's token")
    return PublishedSpeedup(
        key=f"lmsys-mtp-deepseek-v3-window{window}", quoted=quoted, target="deepseek-v3", draft_kind="mtp",
        draft_model=None, k=window - 1, tree_tokens=None, tree_depth=None, tree_topk=1, shape_from="source",
        gpu="H200", gpu_count=16, parallelism="tp16", batch=32, tau_batch=32, engine="sglang",
        dataset="unstated (input 65,536 tokens, output 4,096)", context=65_536 + 4_096 // 2, temperature=None,
        precision=None, tau_printed=tau, tau_convention="includes-target-token", tau=tau, speedup=speedup,
        baseline="same-engine, without MTP and without overlap scheduling", metric="throughput",
        note="batch: 2 concurrent requests per rank on 16 ranks (one per GPU). The split over the 16 GPUs (data "
             "parallel attention, expert parallelism) is not stated in the case study, so M2 gives tp16. "
             f"A {window}-token window is SGLang's num-draft-tokens, which with topk=1 is num-steps + 1, so "
             f"k = {window - 1} MTP passes. Precision not stated (DeepSeek-V3's released weights are fp8).")


_MTP_ROWS = (
    _mtp(3, 2.18, 1.598, 81.5),
    _mtp(4, 2.44, 1.608, 82.0),
)

_TRT_CHECKED = ("GitHub NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog1_Pushing_Latency_Boundaries_Optimizing_"
                "DeepSeek-R1_Performance_on_NVIDIA_B200_GPUs.md at commit 01c4ece911eb569e72cf4177f83238a0520641c2 "
                "(search-tool copy, file id 2829766764)")


def _trt_mtp(layers: int, tau: float, speedup: float, tps: int) -> PublishedSpeedup:
    quoted = Cited({"Acceptance Rate": tau, "TPS/User": tps, "TPS/User Speedup": speedup,
                           "TPS/User without MTP": 111}, "trtllm-blog-r1-b200",
                          f"'Key Optimizations' > 'MTP' > 'Autoregressive MTP Layers' table, row 'MTP {layers}'; "
                          "setup from 'Implementation Configuration' (ISL 1k, OSL 2k; 8x B200; attention TP8, MoE "
                          "experts TP4 x EP2; precision table)", "verified", _TRT_CHECKED,
                          note="the column named 'Acceptance Rate' is 1.00 without MTP, so it is tokens per step "
                               "including the target's token; min-latency scenario, single concurrency")
    return PublishedSpeedup(
        key=f"trtllm-deepseek-r1-b200-mtp{layers}", quoted=quoted, target="deepseek-r1", draft_kind="mtp",
        draft_model=None, k=layers, tree_tokens=None, tree_depth=None, tree_topk=1, shape_from="source", gpu="B200",
        gpu_count=8, parallelism="tp8", batch=1, tau_batch=1, engine="trtllm",
        dataset="unstated (input 1k tokens, output 2k)", context=1024 + 2048 // 2, temperature=None,
        precision="nvfp4", tau_printed=tau, tau_convention="includes-target-token", tau=tau, speedup=speedup,
        baseline="same-engine ('Without MTP', 111 TPS/user, same optimisations)", metric="latency",
        note="precision: nvfp4 dense FFN and MoE experts, bf16 attention, MTP layers and router GEMM. Parallelism: "
             "attention TP8, sparse experts TP4 with EP2, shared experts TP8. DeepSeek-R1 ships one MTP layer; "
             f"MTP {layers} runs {layers} MTP layers autoregressively (k = {layers}). Temperature not stated.")


#: The blog's one table of MTP depths (5 cells, S5 cap 8).
_TRT_ROWS = tuple(_trt_mtp(n, tau, su, tps) for n, tau, su, tps in (
    (1, 1.92, 1.78, 198), (2, 2.58, 2.25, 250), (3, 2.82, 2.28, 253), (4, 2.99, 2.21, 245), (5, 3.01, 2.15, 239)))

# --------------------------------------------------------------------------
# the second collection (A5): sources read after the first 31 rows' errors
# --------------------------------------------------------------------------

_SEQUOIA_HTML = "a transcription of the arXiv 2402.12374v3 HTML (search-tool index file id 55351650494)"
_SEQUOIA_CODE = "GitHub Infini-AI-Lab/Sequoia at commit 0ff3ff71475ca148f2dfb7545e0de5caf5c67b39"
_SEQUOIA_SETUP = ("Section 4.1: on-device runs on one 'A100(-PCIE 80GB)', drafts and targets in Transformers with "
                  "PyTorch CUDA graphs, prompt and generation 128 tokens each except MT Bench, batch 1 (one prompt "
                  f"at a time in tests/testbed_greedy.py, fp16 there; {_SEQUOIA_CODE})")


def _sequoia(table: int, target: str, draft: str, dataset: str, speedup: float, tau: float,
             shape: tuple[int, int] | None) -> PublishedSpeedup:
    """A Sequoia row; ``shape`` is the printed (size, depth) of a Sequoia tree, ``None`` for SpecInfer's 5x8 tree."""
    printed: dict[str, Any] = {"speedup": speedup, "generated tokens per step": tau}
    if shape is None:
        column, tokens, depth, tree = "SpecInfer 5x8", 41, 8, "SpecInfer's 5 x 8 tree (5 independent sequences of 8)"
    else:
        printed["tree config (size, depth)"] = f"({shape[0]},{shape[1]})"
        column, tokens, depth = "Speedup", shape[0], shape[1] - 1
        tree = f"a Sequoia tree of size {shape[0]} and depth {shape[1]}, both counting the root"
    quoted = Cited(printed, "chen2024sequoia",
                   f"Table {table} ('On-device results (A100)'), row '{target}, {draft}, T 0, {dataset}', column "
                   f"'{column}' (tokens per step in parentheses)", "verified", _SEQUOIA_HTML,
                   note="the parenthesis is 'the average number of generated tokens per decoding step' (the "
                        "target's token included); Table 1's caption: 'The speed of incremental decoding is "
                        "24.2ms/token with Huggingface'")
    names = {"Llama2-7B": "llama-2-7b-hf", "Llama2-13B": "llama-2-13b-hf", "Vicuna-33B": "vicuna-33b-v1.3"}
    drafts = {"JF68M": "llama-68m", "SL1.3B": "sheared-llama-1.3b"}
    slug = "specinfer5x8" if shape is None else f"sequoia{shape[0]}x{shape[1]}"
    return PublishedSpeedup(
        key=f"sequoia-t{table}-{names[target].split('-hf')[0].split('-v1')[0]}-{slug}", quoted=quoted, target=names[target],
        draft_kind="model", draft_model=drafts[draft], k=None, tree_tokens=tokens, tree_depth=depth, tree_topk=None,
        shape_from="source", gpu="A100-80GB", gpu_count=1, parallelism="none", batch=1, tau_batch=1,
        engine="other:sequoia", dataset=dataset, context=None if dataset == "MT Bench" else 128 + 128 // 2,
        temperature=0.0, precision="fp16", tau_printed=tau, tau_convention="includes-target-token", tau=tau,
        speedup=speedup, baseline="Hugging Face incremental decoding on the same A100 (Table 1's caption)",
        metric="latency", collection=2,
        note=f"{_SEQUOIA_SETUP}. Draft shape: {tree}, so tree_tokens is the size and the draft levels are the depth "
             "less one (tree_search.py, as read by the searcher). Engine: Sequoia's own code with CUDA graphs "
             "(decision D9 of specdec.predict.heldout).")


#: Sequoia's Table 1 caption: the plain step its speedups divide and the draft's time per pass (Llama2-7B, JF68M).
SEQUOIA_CAPTION = Cited({"incremental decoding ms/token": 24.2, "draft ms/token": 0.5}, "chen2024sequoia",
                        "Table 1 caption ('The speed of incremental decoding is 24.2ms/token with Huggingface. The "
                        "draft model speed is 0.5ms/token.')", "verified", _SEQUOIA_HTML)

#: S5 over Tables 1 and 3 at temperature 0: one row per (target, draft, tree) and table, MT Bench first, else the
#: first dataset printed. Table 3 re-prints Table 1's Llama2-7B rows, so those configurations come from Table 1.
_SEQUOIA_ROWS = (
    _sequoia(1, "Llama2-7B", "JF68M", "MT Bench", 4.03, 4.98, (128, 10)),
    _sequoia(1, "Llama2-7B", "JF68M", "MT Bench", 3.84, 4.01, None),
    _sequoia(1, "Llama2-7B", "JF68M", "OpenWebText", 3.22, 3.86, (128, 7)),
    _sequoia(3, "Llama2-13B", "JF68M", "C4", 3.73, 4.20, (64, 9)),
    _sequoia(3, "Llama2-13B", "JF68M", "C4", 3.30, 3.64, None),
    _sequoia(3, "Llama2-13B", "JF68M", "OpenWebText", 3.18, 3.49, (64, 7)),
    _sequoia(3, "Vicuna-33B", "SL1.3B", "C4", 2.27, 4.28, (64, 6)),
    _sequoia(3, "Vicuna-33B", "SL1.3B", "C4", 1.83, 3.86, None),
    _sequoia(3, "Vicuna-33B", "SL1.3B", "OpenWebText", 2.21, 3.93, (64, 5)),
)

_MAGICDEC_COPY = ("a transcription of the arXiv paper with its tables as text (search-tool index file id 62047635607; "
                  "the same numbers in id 62310664925)")


def _magicdec(batch: int, tau: float, speedup: float, t_ar: float, t_sd: float) -> PublishedSpeedup:
    quoted = Cited({"Bsz": batch, "gamma": 2, "Omega": tau, "TAR": t_ar, "TSD": t_sd, "x": speedup},
                   "chen2024magicdec",
                   f"Appendix A.5, Table 7 ('Results of Qwen and Mistral Models'), row 'Qwen-2.5-32B, Qwen-2.5-7B, "
                   f"PG-19, 8xH100, prefill 32000, Bsz {batch}'", "verified", _MAGICDEC_COPY,
                   note="Omega is 'the expected number of tokens generated in one verification step' (the target's "
                        "token included); x = TAR / TSD, the times per generated token without and with speculation "
                        "(ms)")
    return PublishedSpeedup(
        key=f"magicdec-qwen2.5-32b-qwen2.5-7b-bs{batch}", quoted=quoted, target="qwen2.5-32b", draft_kind="model",
        draft_model="qwen2.5-7b", k=2, tree_tokens=None, tree_depth=None, tree_topk=None, shape_from="source",
        gpu="H100", gpu_count=8, parallelism="tp8", batch=batch, tau_batch=batch, engine="gpt-fast",
        dataset="PG-19", context=32_000 + 96 // 2, temperature=0.0, precision="bf16", tau_printed=tau,
        tau_convention="includes-target-token", tau=tau, speedup=speedup,
        baseline="same-engine (the same backend's autoregressive decoding, same GPUs and batch)",
        metric="throughput", collection=2,
        note="Appendix A.1: the backend is built on GPT-Fast (FlashInfer attention, torch.compile, CUDA graphs), "
             "with 8-way tensor parallelism; Section 5.1: 96 tokens per sequence, greedy; bf16 is the backend's "
             "dtype (Engine/*/backend.py in GitHub Infini-AI-Lab/MagicDec at commit "
             "09cd671c01bc87f7570d3243c46200a96f0fc0b4). The draft keeps its full KV cache (the table's "
             "'(Streaming)' rows are drafts with a compressed cache, which S5a leaves out); its placement is not "
             "stated.")


#: Table 7's rows with a full-cache separate draft (the only ones S5a admits in the source's tables).
_MAGICDEC_ROWS = (
    _magicdec(8, 2.32, 1.19, 10.42, 8.74),
    _magicdec(16, 2.32, 1.18, 13.36, 11.31),
    _magicdec(32, 2.31, 1.19, 19.43, 16.27),
)

_OPT_TREE_COPY = "a transcription of the arXiv 2406.17276v4 HTML (search-tool index file id 55572534302)"
_OPT_TREE_SETUP = ("Section 4.1: '4 A100-PCIE-40GB GPUs for LLaMA-2-70B and Vicuna-33B', temperature 0, the EAGLE "
                   "draft tree 'with 25 nodes'; batch 1 and fp16 from the evaluation script (GitHub "
                   "Jikai0Wang/OPT-Tree at commit 4f87f54e8543f9038d10aac32f286d7f14b7407b, as read by the searcher)")


def _opt_tree(table: int, dataset: str, target: str, draft: str, tau: float, tokens_s: float, speedup: float,
              vanilla: float) -> PublishedSpeedup:
    quoted = Cited({"MAL": tau, "Tokens/s": tokens_s, "Speedup": speedup, "vanilla Tokens/s": vanilla},
                   "wang2024opttree",
                   f"Table {table} ({dataset}), row '{target}, {draft}, EAGLE' (the EAGLE draft tree); the "
                   "'None' row gives the vanilla tokens/s", "verified", _OPT_TREE_COPY,
                   note="'MAL indicates Mean Acceptance Length'; Algorithm 2: 'the total acceptance length is A', "
                        "the corrected token included")
    names = {"LLaMA-2-70B": "llama-2-70b-chat-hf", "Vicuna-33B": "vicuna-33b-v1.3"}
    drafts = {"L-7B": ("model", "llama-2-7b"), "V-7B": ("model", "vicuna-7b"), "EAGLE": ("eagle", None)}
    kind, model = drafts[draft]
    slug = "eagle-head" if kind == "eagle" else draft.lower()
    return PublishedSpeedup(
        key=f"opt-tree-t{table}-{names[target].split('-chat')[0].split('-v1')[0]}-{slug}-eagle-tree", quoted=quoted,
        target=names[target], draft_kind=kind, draft_model=model, k=None, tree_tokens=26, tree_depth=5,
        tree_topk=None, shape_from="source", gpu="A100-40GB", gpu_count=4, parallelism="layer-split", batch=1,
        tau_batch=1, engine="research", dataset=dataset, context=None, temperature=0.0, precision="fp16",
        tau_printed=tau, tau_convention="includes-target-token", tau=tau, speedup=speedup,
        baseline="vanilla autoregressive decoding in the same code ('M_d being None'), same GPUs",
        metric="latency", collection=2,
        note=f"{_OPT_TREE_SETUP}. The EAGLE tree is EAGLE's default static tree (25 draft nodes plus the target's "
             "token, longest path 5), whichever model drafts on it. The split over the 4 cards is not stated: "
             "M2 gives a layer split. The Binary and OPT-Tree rows of the same tables are left out: their node "
             "budgets ('chosen in [25,50,60]') are not printed per row (S3).")


#: S5 over Tables 1 and 2: the rows on eligible GPUs whose draft shape is printed (the EAGLE tree).
_OPT_TREE_ROWS = (
    _opt_tree(1, "MT-Bench", "LLaMA-2-70B", "L-7B", 4.97, 11.35, 1.80, 6.29),
    _opt_tree(1, "MT-Bench", "LLaMA-2-70B", "EAGLE", 3.67, 18.81, 2.99, 6.29),
    _opt_tree(1, "MT-Bench", "Vicuna-33B", "V-7B", 4.64, 12.99, 1.15, 11.25),
    _opt_tree(1, "MT-Bench", "Vicuna-33B", "EAGLE", 2.69, 24.92, 2.21, 11.25),
    _opt_tree(2, "GSM8K", "LLaMA-2-70B", "L-7B", 4.98, 11.51, 1.80, 6.38),
    _opt_tree(2, "GSM8K", "LLaMA-2-70B", "EAGLE", 3.91, 20.42, 3.20, 6.38),
    _opt_tree(2, "GSM8K", "Vicuna-33B", "V-7B", 4.81, 13.38, 1.25, 10.74),
    _opt_tree(2, "GSM8K", "Vicuna-33B", "EAGLE", 3.15, 28.37, 2.64, 10.74),
)

#: Every held-out row, in the order the sources were read: the first collection, then the second (A5).
VALIDATION_ROWS: tuple[PublishedSpeedup, ...] = (*_SPEC_BENCH_ROWS, *_EAGLE1_ROWS, *_SPECDECODE_BENCH_ROWS,
                                                 *_MTP_ROWS, *_TRT_ROWS,
                                                 *_SEQUOIA_ROWS, *_MAGICDEC_ROWS, *_OPT_TREE_ROWS)
