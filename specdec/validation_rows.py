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
    ``specdec.drafters``) are allowed and flagged in ``also_cited_in``.
S5. **Which cells of a table.** From each table, one row per (target,
    draft method, batch, GPU, temperature) is taken, in this order of
    preference for the dataset: the table's overall/mean column if it has
    one, else MT-bench, else the table's first dataset column. Temperature
    0 (greedy) is preferred; a temperature-1 row is taken only when the
    source prints no greedy row for that configuration. At most 8 rows are
    taken from one table and at most 12 from one source. When a table has
    more eligible rows than that, they are taken round-robin over the
    table's draft methods: the first eligible row (top to bottom) of each
    method in the order the methods first appear, then the second of each,
    and so on, so that no single source or method dominates.
S5a. **Draft kinds.** Only the draft kinds the predictor is specified to
    take are eligible: a separate draft model, EAGLE-1/2/3 heads, Medusa-1
    and Medusa-2 heads, MTP modules, n-gram / prompt lookup, lookahead and
    suffix decoding. Rows of other methods (Hydra, HASS, REST, Recycling,
    SAMD, ...) are skipped and do not count towards the caps of S5.
    (S5's caps and S5a were amended from "at most 6 per table, 10 per
    source, in table order" before any row was entered and before any
    prediction was made, because the first table read would otherwise
    have filled its cap with one target's older methods.)
S5b. **Coverage.** If, after the caps, a draft family that S6 requires
    (separate draft model, EAGLE heads, Medusa, n-gram / prompt lookup,
    lookahead, MTP) has no row, the first eligible row of that family,
    in the order the sources are listed in this module, is added beyond
    the caps and flagged ``coverage=True``.
    (S2a and S5b were added before any prediction was made, when the
    sources read so far printed batch > 1 speedups only with batch-1
    acceptance lengths, and the per-source cap left prompt lookup and
    lookahead without a row.)
S6. **Mix.** Sources are searched so that the set spans separate draft
    models, EAGLE-1/2/3 heads, Medusa-1/2, n-gram / prompt lookup,
    lookahead and MTP, at batch 1 and at batch > 1. The search order of
    sources is fixed by the method family, not by any result; a source that
    could not be read is listed in the report, not replaced by a guess.

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
M6. **Acceptance length.** ``tau`` is always normalised to *tokens per
    round including the target's own token* (the bonus or corrected token),
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
    precision of the target (``"fp16"``, ``"bf16"``, ``"fp8"``), from the
    source's setup section when a row does not repeat it.

Defined in chapter "A calibrated roofline".
"""
