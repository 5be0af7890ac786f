"""Where the two source documents disagree with what specdec computes.

Each :class:`Erratum` records the source's statement (in our words, with the
number it prints as a quoted input), our numbers as a *callable* evaluated
through specdec when the errata page is built, the sentence that shows them,
the expression that computes them, and why the two differ. The book's errata
appendix renders :func:`markdown_table` and :func:`markdown_details`; the tests
evaluate every entry and check its numbers against an independent computation.

An entry is an *error* (a number or formula that does not follow from the
source's own inputs), a *rounding* note (right up to rounding; listed so that
a reader who finds the gap knows it does not matter) or an *empirical rule*
or *overstatement* (a claim that holds in some settings; the entry says which).
Published numbers used here are :class:`specdec.sources.Cited` inputs
with their citation.

Source names: ``"bounds"`` is ``acceptance-rate-and-speedup-bounds.txt``
(Part I), ``"threshold"`` is ``cost-accounting-acceptance-threshold.txt``
(Part II).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from specdec import acceptance, economics, literature
from specdec._validate import describe
from specdec.tables import records_table

__all__ = ["Erratum", "ENTRIES", "entry", "counts", "KIND_NOUNS", "table", "markdown_table", "markdown_details",
           "SOURCES", "KINDS"]

SOURCES = {
    "bounds": "Acceptance rate & speedup bounds (Part I)",
    "threshold": "Cost accounting: the acceptance-rate threshold (Part II)",
}

#: What kind of disagreement an entry records.
KINDS = {
    "error": "error",
    "code": "error in the source's code",
    "overstatement": "overstatement",
    "rule": "empirical rule",
    "rounding": "rounding only",
}


@dataclass(frozen=True)
class Erratum:
    """One disagreement between a source and the book.

    Defined in chapter "Errata of the sources".

    Parameters
    ----------
    key : str
        Short stable name (``"verify-rule"``), for :func:`entry` and the tests.
    source : str
        ``"bounds"`` or ``"threshold"``.
    section : str
        Section of the source.
    kind : str
        A key of :data:`KINDS`.
    statement : str
        What the source says, in our words.
    printed : str
        The value or formula the source prints (a quoted input).
    values : callable
        ``() -> dict``: our numbers, computed by specdec.
    template : str
        Format string filled with ``values()``: the sentence shown as "We compute".
    expression : str
        The specdec expression behind ``values``.
    why : str
        Why they differ (no computed number: those are in ``template``).
    chapter : str
        The book chapter (docname) that discusses it.
    summary : str, optional
        A shorter format string for the summary table; default ``template``.
    """

    key: str
    source: str
    section: str
    kind: str
    statement: str
    printed: str
    values: Callable[[], dict]
    template: str
    expression: str
    why: str
    chapter: str
    summary: str = ""

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {sorted(SOURCES)}; got {describe(self.source)}")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {sorted(KINDS)}; got {describe(self.kind)}")

    def _shown(self) -> dict:
        """The values as the text shows them: a missing value (``nan``) reads "none"."""
        return {key: "none" if isinstance(v, float) and math.isnan(v) else v for key, v in self.values().items()}

    def our_value(self) -> str:
        """The "We compute" sentence, with our numbers computed now (a missing value reads "none")."""
        return self.template.format(**self._shown())

    def our_summary(self) -> str:
        """The short form for the summary table."""
        return (self.summary or self.template).format(**self._shown())


# --------------------------------------------------------------------------
# the computations behind the entries
# --------------------------------------------------------------------------
def _example_speedup() -> float:
    w = economics.WORKED_EXAMPLE.value
    return float(economics.speedup(w["alpha"], w["k"], w["t0"], w["t_draft"], w["t_verify"], w["t_overhead"]))


def _hw() -> tuple[Any, ...]:
    """The chapters' model: the 70B target on eight calibrated H100s (so an entry states what its chapter shows)."""
    from specdec.roofline import hardware

    return hardware, hardware.LLAMA_70B, hardware.H100.scaled(8)


def _hw_ideal() -> tuple[Any, ...]:
    """The ideal roofline of the same GPUs, for the entries whose point is the bound itself (named in their text)."""
    from specdec.roofline import hardware

    return hardware, hardware.LLAMA_70B, hardware.H100_IDEAL.scaled(8)


def _gain_3_to_8() -> dict:
    return {"gain": float(acceptance.expected_tokens(0.8, 8) - acceptance.expected_tokens(0.8, 3))}


def _ceiling() -> dict:
    return {"el": float(acceptance.expected_tokens(0.8, 5))}


def _quick_estimate() -> dict:
    w = economics.WORKED_EXAMPLE.value
    return {"quick": float(economics.quick_estimate(w["alpha"], w["k"], w["t0"], w["t_draft"], w["t_verify"])),
            "exact": _example_speedup()}


def _poor_tokens() -> dict:
    return {"el": float(acceptance.expected_tokens(0.5, 5))}


def _short_output_setups() -> dict:
    from specdec.economics import request

    s = _example_speedup()
    t0 = economics.WORKED_EXAMPLE.value["t0"]
    return {"t10": float(request.setup_time_for_break_even(10, t0, s)),
            "t20": float(request.setup_time_for_break_even(20, t0, s))}


def _verify_rule() -> dict:
    import numpy as np

    from specdec.drafts import drafters

    hardware, model, ideal = _hw_ideal()
    gpus = _hw()[2]
    w = economics.WORKED_EXAMPLE.value
    roofline = hardware.verify_cost(model, ideal, np.arange(1, 11), batch=1)
    calibrated = hardware.verify_cost(model, gpus, np.arange(1, 11), batch=1)
    earlier = literature.SPEC_BENCH_A100_EARLIER.value
    current = drafters.spec_bench_table("vicuna-7b")
    now = {m: float(c) for m, c in zip(current["method"], current["implied_round_cost"], strict=True) if m in ("SpS", "Medusa", "EAGLE")}
    then = {m: float(drafters.implied_round_cost(*earlier[m])) for m in ("SpS", "Medusa", "EAGLE")}
    overheads = [o for _, o in literature.MEDUSA_RATE_OVERHEAD.value.values()]
    lo, hi = drafters.DEEPSEEK_V3_MTP.value["second_token_acceptance"]
    tps = drafters.DEEPSEEK_V3_MTP.value["tps_factor"]
    mtp = [float(drafters.implied_round_cost(drafters.mtp_expected_tokens(a), tps)) for a in (lo, hi)]
    return {
        "example": w["t_verify"] / w["t0"],
        "example_with_overhead": (w["t_verify"] + w["t_overhead"]) / w["t0"],
        "roofline_min": float(roofline.min()), "roofline_max": float(roofline.max()),
        "calibrated_min": float(calibrated.min()), "calibrated_max": float(calibrated.max()),
        "sps_then": then["SpS"], "medusa_then": then["Medusa"], "eagle_then": then["EAGLE"],
        "sps_now": float(now["SpS"]), "medusa_now": float(now["Medusa"]), "eagle_now": float(now["EAGLE"]),
        "medusa_overhead_min": min(overheads), "medusa_overhead_max": max(overheads),
        "mtp_min": min(mtp), "mtp_max": max(mtp),
        "published_min": min([*then.values(), *now.values(), *overheads, *mtp]),
        "published_max": max([*then.values(), *now.values(), *overheads, *mtp]),
    }


def _utilization() -> dict:
    hardware, model, gpus = _hw()
    ideal = _hw_ideal()[2]
    u = hardware.utilization(model, gpus, [1, 32, 128])
    bound = hardware.utilization(model, ideal, [1, 32, 128])   # the shortest step: the most utilization
    from_t0 = float(hardware.step_flops(model, 1) / (economics.WORKED_EXAMPLE.value["t0"] * 1e-3 * ideal.flops))
    return {"u1": float(u[0]), "u32": float(u[1]), "u128": float(u[2]),
            "i1": float(bound[0]), "i32": float(bound[1]), "i128": float(bound[2]), "from_t0": from_t0,
            "sketch_over_t0": 0.03 / from_t0}


def _poor_speedup() -> dict:
    w = economics.WORKED_EXAMPLE.value
    return {"two_steps": float(acceptance.expected_tokens(0.5, 5) / 2.0),
            "example": float(economics.speedup(0.5, w["k"], w["t0"], w["t_draft"], w["t_verify"], w["t_overhead"]))}


def _long_context() -> dict:
    from specdec.roofline import memory

    hardware, model, gpus = _hw()
    draft, k, out = hardware.LLAMA_8B, 4, {"memory_gb": gpus.memory / 1e9}
    for name, context in (("8k", 8192), ("32k", 32768)):  # the largest batch that fits with the draft
        b = int(memory.max_concurrent_sequences(model, gpus, context, draft=draft, k=k))
        out.update({f"batch_{name}": b,
                    f"gb_{name}": memory.memory_footprint(model, b, context, draft=draft, k=k).total / 1e9,
                    f"cv_short_{name}": float(hardware.verify_cost(model, gpus, k, batch=b, context=0)),
                    f"cv_long_{name}": float(hardware.verify_cost(model, gpus, k, batch=b, context=context)),
                    f"cd_short_{name}": float(hardware.draft_cost(draft, model, gpus, b, 0)),
                    f"cd_long_{name}": float(hardware.draft_cost(draft, model, gpus, b, context))})
    return out


def _decode_bottleneck() -> dict:
    from specdec.decision import checklist
    from specdec.economics import request

    chat = checklist.EXAMPLES["chat"]
    decode = float(request.decode_time(chat.tpot, chat.mean_output_tokens))
    return {"tpot_over_ttft": chat.tpot / chat.ttft, "decode_over_ttft": decode / chat.ttft,
            "tpot": chat.tpot, "ttft": chat.ttft, "tokens": int(chat.mean_output_tokens)}


def _draft_per_step() -> dict:
    w = economics.WORKED_EXAMPLE.value
    step = 0.5 * w["t0"]  # a draft step just at the check's limit, read per step
    return {"step": step, "speedup": float(economics.speedup(w["alpha"], w["k"], w["t0"], w["k"] * step,
                                                             w["t_verify"], w["t_overhead"]))}


def _quick_vs_exact_alpha() -> dict:
    w = economics.WORKED_EXAMPLE.value
    args = (w["k"], w["t0"], w["t_draft"], w["t_verify"])
    quick = economics.required_alpha(1.3, w["k"], *economics.quick_estimate_costs(*args))
    exact = economics.required_alpha(1.3, w["k"], *economics.costs_from_times(*args, w["t_overhead"]))
    return {"quick": float(quick), "exact": float(exact)}


def _accepted_drafts() -> dict:
    return {"accepted": float(acceptance.expected_tokens(0.8, 4) - 1.0), "el": float(acceptance.expected_tokens(0.8, 4))}


def _intensity_vs_ridge() -> dict:
    hardware, model, gpus = _hw()
    return {"intensity": float(hardware.arithmetic_intensity(model, 1, 0, 5)),
            "ridge": float(hardware.ridge_batch(model, gpus))}


def _positions_at_batch() -> dict:
    hardware, model, gpus = _hw()
    return {"with_bonus": float(hardware.verify_cost(model, gpus, 4, batch=256)),
            "without": float(hardware.verify_cost(model, gpus, 3, batch=256))}


def _temperature() -> dict:
    import numpy as np

    from specdec.verification import synthetic

    zt, zd = synthetic.synthetic_logit_pair("flat", vocab=200, n_contexts=32)
    low, high = np.asarray(synthetic.acceptance_vs_temperature(zt, zd, [0.1, 2.0]))
    t5 = {key: np.asarray(literature.LEVIATHAN_T5[key].value) for key in ("task", "draft", "temperature", "alpha")}
    cold = {(t, d): a for t, d, T, a in zip(t5["task"], t5["draft"], t5["temperature"], t5["alpha"], strict=True) if T == 0}
    hot = {(t, d): a for t, d, T, a in zip(t5["task"], t5["draft"], t5["temperature"], t5["alpha"], strict=True) if T == 1}
    pairs = sorted(set(cold) & set(hot))
    fall = sum(hot[p] < cold[p] for p in pairs)
    share = f"all {fall}" if fall == len(pairs) else f"{fall} of {len(pairs)}"   # "all 6", not "6 of 6"
    return {"low": float(low), "high": float(high), "t5_pairs": len(pairs), "t5_fall": fall, "t5_share": share}


def _heads() -> dict:
    from specdec.drafts import drafters

    t = drafters.spec_bench_table("vicuna-7b")
    tokens = dict(zip(t["method"], t["mean_accepted_tokens"], strict=True))
    medusa = literature.MEDUSA_SECTION_3_1.value["Vicuna-7B"]
    return {"medusa": float(tokens["Medusa"] / tokens["SpS"]), "hydra": float(tokens["Hydra"] / tokens["SpS"]),
            "eagle": float(tokens["EAGLE"] / tokens["SpS"]), "medusa2_over_1": medusa["Medusa-2"] / medusa["Medusa-1"]}


def _self_speculation() -> dict:
    return {"half": float(economics.break_even_alpha(4, 0.5, 1.0)),
            "head": float(economics.break_even_alpha(4, 0.02, 1.0))}


def _three_tokens() -> dict:
    from specdec.serving import deployment

    hardware, model, gpus = _hw()
    alpha = float(acceptance.alpha_for_expected_tokens(3.0, 5))  # E[L] = 3 at k = 5
    return {"alpha": alpha, "with_draft": float(deployment.speculative_speedup(model, hardware.LLAMA_8B, gpus, alpha, 5)),
            "free_draft": float(economics.speedup_from_costs(alpha, 5, 0.0, 1.0))}


def _prefill_heavy() -> dict:
    from specdec.economics import request
    from specdec.serving import deployment

    hardware, model, gpus = _hw()
    decode = deployment.speculative_speedup(model, hardware.LLAMA_8B, gpus, 0.8, 5)
    return {"decode": float(decode), "end_to_end": float(request.end_to_end_speedup(decode, 0.9))}


_TEXT = "book/part1-speedup-bounds/"
_COST = "book/part2-cost-accounting/"

ENTRIES: list[Erratum] = [
    Erratum(
        "gain-3-to-8", "bounds", "1. Expected tokens per round", "error",
        "Going from k = 3 to k = 8 drafts at alpha = 0.8 'only adds 1.2 tokens' per round.",
        "1.2 tokens", _gain_3_to_8, "{gain:.3f} tokens ({gain:.1f} to one decimal)",
        "sd.expected_tokens(0.8, 8) - sd.expected_tokens(0.8, 3)",
        "The source's own table gives 4.3 - 3.0 = 1.3, and the unrounded gain is larger still. The point it makes "
        "(diminishing returns) holds either way.",
        _TEXT + "01-expected-tokens", summary="{gain:.3f}",
    ),
    Erratum(
        "ceiling-4x", "bounds", "2. The speedup formula (worked example)", "error",
        "The 2.1x speedup is 'not the theoretical 4x' because drafting and verifying cost time.",
        "4x", _ceiling, "E[L] = {el:.3f}, the speedup with free drafting and verification",
        "sd.expected_tokens(0.8, 5)",
        "With free drafting and verification the speedup is E[L] itself; 4x rounds it up by more than rounding allows.",
        _TEXT + "02-speedup-formula", summary="{el:.3f}",
    ),
    Erratum(
        "positions-label", "bounds", "2. The speedup formula", "error",
        "The round-time breakdown labels verification a target forward pass on k tokens, while the worked "
        "example's table says 5 + 1 = 6 tokens.",
        "k tokens (formula) vs k + 1 (table)", dict, "k + 1 positions",
        "(the k drafts and the position after them, which yields the correction or bonus token)",
        "The target must score every draft and also produce the token after the last one, so the pass covers "
        "k + 1 positions; the table is right, the label is not.",
        _TEXT + "03-verification-cost",
    ),
    Erratum(
        "quick-estimate", "bounds", "5. Quick estimation", "error",
        "Estimated speedup = E[L] / (1 + T_draft/T0 + T_verify/T0); on the worked example's inputs:",
        "formula only (no value printed)", _quick_estimate,
        "{quick:.3f}, against {exact:.3f} from the source's own speedup formula",
        "sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0) and sd.speedup(0.8, 5, 5.2, 2.5, 6.0, 0.5)",
        "The formula charges one extra plain step T0 per round (the verification pass is already T_verify) and "
        "drops T_overhead, so it lands far below the exact speedup of the same inputs and, with the source's own "
        "'< 1.3 is not worth it' rule, comes close to rejecting a configuration that is clearly worth it.",
        _TEXT + "02-speedup-formula", summary="{quick:.3f} (exact {exact:.3f})",
    ),
    Erratum(
        "poor-tokens", "bounds", "4. Poor acceptance rate", "rounding",
        "At alpha = 0.5 and k = 5 a round yields 'only 2.0 tokens'.",
        "2.0", _poor_tokens, "{el:.3f}", "sd.expected_tokens(0.5, 5)",
        "Rounding only: the statement stands.",
        _TEXT + "04-when-it-does-not-help",
    ),
    Erratum(
        "short-output", "bounds", "4. Short output vs 5. Checklist", "rule",
        "Section 4 says outputs shorter than 10 tokens may not pay back the setup; the checklist asks for more "
        "than 20.",
        "< 10 tokens vs > 20 tokens", _short_output_setups,
        "with the worked example's speedup, 10 tokens is the break-even for a setup of {t10:.1f} ms and 20 tokens "
        "for {t20:.1f} ms", "sd.request.setup_time_for_break_even(10 or 20, 5.2, speedup of the worked example)",
        "Two rules of thumb, neither derived: the break-even output length follows from the setup time and the "
        "per-token saving (sd.request.break_even_output_length), so each threshold is a claim about the setup "
        "cost. Measure the setup and compute the length.",
        _TEXT + "04-when-it-does-not-help", summary="setups of {t10:.1f} ms vs {t20:.1f} ms",
    ),
    Erratum(
        "verify-rule", "bounds", "3. Why verification isn't free", "rule",
        "Rule of thumb: verification takes 1.0 to 1.5 target steps for k <= 5 on a single request, and more at "
        "k = 10 or with large batches.",
        "1.0-1.5 x T0", _verify_rule,
        "the source's own example measures T_verify / T0 = {example:.3f} ({example_with_overhead:.3f} with the "
        "overhead); the ideal roofline (a lower bound) gives at most {roofline_max:.3f} for k = 1..10 at batch 1, "
        "the calibrated model {calibrated_min:.3f} to {calibrated_max:.3f}; "
        "whole rounds implied by Spec-Bench on an A100 with Vicuna-7B (tokens per step / speedup, drafting and "
        "tree verification included) are {sps_then:.2f} (SpS), {medusa_then:.2f} (Medusa) and {eagle_then:.2f} "
        "(EAGLE) at commit b8baa2a0 and {sps_now:.2f}, {medusa_now:.2f} and {eagle_now:.2f} at fd2c1cd7; Medusa-2's "
        "printed overheads are {medusa_overhead_min:.2f} to {medusa_overhead_max:.2f}; DeepSeek-V3's multi-token "
        "prediction implies {mtp_min:.2f} to {mtp_max:.2f}",
        "sd.hardware.verify_cost(LLAMA_70B, H100_IDEAL.scaled(8) or H100.scaled(8), np.arange(1, 11), batch=1); "
        "sd.drafters.implied_round_cost(tokens per step, speedup) on sd.literature.SPEC_BENCH_A100_EARLIER, "
        "sd.drafters.SPEC_BENCH_A100 and sd.drafters.DEEPSEEK_V3_MTP",
        "Not an error: an empirical rule, and a reasonable one. The ideal roofline's 1.000 is the idealization Leviathan "
        "et al. state in their Section 3.3 (they 'assume that we can run gamma + 1 concurrent evaluations of M_p in "
        "parallel without increasing the walltime'). It leaves out what a real pass adds to a decode step: kernel "
        "launches, attention over the context for k + 1 positions, writing the candidates' KV entries, sampling and "
        "the acceptance test, and tensor-parallel communication. The published whole-round costs include drafting "
        "and, for Medusa and EAGLE, a tree of candidates, so they bound c_v from above; they sit inside or near the "
        "rule's range. Spec-Bench's speedups are means of per-sample ratios with prefill included, so the ratios "
        "are approximate. The chapters price verification on the calibrated roofline, which adds launches, "
        "partial overlap and communication; what a measurement shows beyond it is "
        "overhead that belongs in c_v.",
        _TEXT + "03-verification-cost",
        summary="{example:.3f} in the source's example; ideal roofline {roofline_max:.3f}, calibrated "
                "{calibrated_min:.3f} to {calibrated_max:.3f}; published rounds "
                "{published_min:.2f} to {published_max:.2f}",
    ),
    Erratum(
        "utilization", "bounds", "4. High batch size", "error",
        "GPU utilization at batch 1, 32 and 128 is 3%, 30% and 90%.",
        "3%, 30%, 90%", _utilization,
        "{u1:.2%}, {u32:.1%}, {u128:.1%} on the calibrated model (70B on 8 x H100, no context), and at most "
        "{i1:.2%}, {i32:.1%}, {i128:.1%} on the ideal roofline (its lower bound on the step time is an upper "
        "bound on utilization); the worked example's "
        "measured T0 = 5.2 ms itself implies {from_t0:.2%} at batch 1, {sketch_over_t0:.1f} times below the sketch's "
        "3%",
        "sd.hardware.utilization(LLAMA_70B, H100.scaled(8), [1, 32, 128]), and on H100_IDEAL.scaled(8); "
        "sd.hardware.step_flops(LLAMA_70B, 1) / (5.2 ms x peak FLOP/s)",
        "The source's own T0 puts batch-1 utilization far below its sketch. While a step stays memory-bound, "
        "utilization grows in proportion to the batch (more slowly once each sequence's KV reads add up), so no "
        "single machine gives 3%, 30% and 90%. The sketch's point stands: utilization rises with the batch and "
        "leaves speculation less idle arithmetic.",
        _TEXT + "04-when-it-does-not-help", summary="{u1:.2%}, {u32:.1%}, {u128:.1%}",
    ),
    Erratum(
        "poor-speedup", "bounds", "4. Poor acceptance rate", "error",
        "At alpha = 0.5 and k = 5 a round takes about two baseline steps, so the speedup is about 1.0.",
        "~1.0", _poor_speedup,
        "{two_steps:.3f} for a round of exactly two steps; {example:.3f} with the worked example's own times",
        "sd.expected_tokens(0.5, 5) / 2 and sd.speedup(0.5, 5, 5.2, 2.5, 6.0, 0.5)",
        "The worked example's round is shorter than two target steps, so its times still win at alpha = 0.5; "
        "'about two steps' describes a costlier draft.",
        _TEXT + "04-when-it-does-not-help", summary="{example:.3f}",
    ),
    Erratum(
        "long-context", "bounds", "4. Long context", "overstatement",
        "Long sequences increase both the draft's and the verification's cost, listed as a reason speculation "
        "does not help.",
        "long context -> less help", _long_context,
        "At the largest batch that fits with the 8B draft and k = 4 (70B target on 8 x H100, calibrated), c_v for k = 4 is {cv_short_8k:.2f} plain steps without context and {cv_long_8k:.2f} at 8,192 "
        "tokens (batch {batch_8k}, weights and KV cache {gb_8k:.0f} of {memory_gb:.0f} GB), {cv_short_32k:.2f} and "
        "{cv_long_32k:.2f} at 32,768 tokens (batch {batch_32k}, {gb_32k:.0f} GB); c_d rises from {cd_short_8k:.3f} "
        "without context to {cd_long_8k:.3f} at 8,192 tokens and {cd_long_32k:.3f} at 32,768",
        "B = sd.memory.max_concurrent_sequences(LLAMA_70B, H100.scaled(8), C, draft=LLAMA_8B, k=4), then "
        "sd.hardware.verify_cost(LLAMA_70B, H100.scaled(8), 4, batch=B, context=0 or C) and "
        "sd.hardware.draft_cost(LLAMA_8B, LLAMA_70B, H100.scaled(8), B, 0 or C), for C = 8192 and 32768",
        "Both costs grow in milliseconds, but a plain step grows too: once reading the KV cache dominates, "
        "checking k + 1 positions costs fewer plain steps than at short context, even at a batch where a "
        "short-context pass is compute-bound (on the ideal roofline, a lower bound, exactly one). "
        "What long context does raise is c_d, the draft's step against the target's, because the "
        "draft's KV traffic grows with the context while its weight read stays small; a draft that keeps a small "
        "cache avoids it (MagicDec's self-speculation, Chen et al. 2024, arXiv 2408.11049v4). The batches are the "
        "largest that fit in memory: a long context also caps the batch.",
        _TEXT + "04-when-it-does-not-help",
        summary="c_v {cv_short_8k:.2f} -> {cv_long_8k:.2f} at 8k tokens (batch {batch_8k}); c_d {cd_short_8k:.3f} -> "
                "{cd_long_32k:.3f} at 32k",
    ),
    Erratum(
        "decode-bottleneck", "bounds", "5. Checklist: is decode the bottleneck?", "error",
        "Check 'TPOT >> TTFT'; if not, optimize prefill instead.",
        "TPOT >> TTFT", _decode_bottleneck,
        "for a chat assistant with TPOT = {tpot:g} ms, TTFT = {ttft:g} ms and {tokens} output tokens, "
        "TPOT / TTFT = {tpot_over_ttft:.3f} (the check fails) while decode takes {decode_over_ttft:.1f} times the TTFT",
        "sd.request.decode_time(5.2, 400) / 120 (sd.checklist.EXAMPLES['chat'])",
        "The check compares the time of one output token with a whole prefill, so it fails for almost every "
        "service, including the one speculation suits best. The comparison that answers the question is the "
        "request's decode time, TPOT x (output tokens - 1), against the TTFT.",
        _TEXT + "05-decision-checklist", summary="TPOT / TTFT = {tpot_over_ttft:.3f}; decode / TTFT = "
                                                 "{decode_over_ttft:.1f}",
    ),
    Erratum(
        "draft-per-step", "bounds", "5. Checklist: is the draft cheap enough?", "error",
        "T_draft < 0.5 T0; read per draft step, it passes a draft that makes the worked example slower.",
        "T_draft < 0.5 x T0", _draft_per_step, "speedup {speedup:.3f} with {step:.1f} ms per draft step",
        "sd.speedup(0.8, 5, 5.2, 5 * 0.5 * 5.2, 6.0, 0.5)",
        "The check does not say whether T_draft is one step or the round. Everywhere else the source's T_draft "
        "covers all k steps of a round; the check only makes sense with that reading, and the book uses it.",
        _TEXT + "05-decision-checklist", summary="{speedup:.3f}",
    ),
    Erratum(
        "quick-threshold", "bounds", "5. Quick estimation and the 1.3 rule", "error",
        "Acceptance rate needed for a speedup of 1.3 with the worked example's costs.",
        "(implied by the rule)", _quick_vs_exact_alpha,
        "alpha >= {quick:.3f} with the quick formula, {exact:.3f} with the exact speedup",
        "sd.economics.required_alpha(1.3, 5, costs of the quick formula or of sd.costs_from_times)",
        "The quick formula's extra T0 makes the 1.3 screen demand a much better draft than the exact speedup does.",
        _TEXT + "05-decision-checklist", summary="{quick:.3f} (quick) vs {exact:.3f} (exact)",
    ),
    Erratum(
        "accepted-name", "threshold", "The acceptance rate, and the tokens per step it yields", "error",
        "The formula (1 - alpha^(k+1)) / (1 - alpha) is called the expected number of accepted tokens.",
        "E[accepted]", _accepted_drafts,
        "{accepted:.3f} accepted drafts at alpha = 0.8, k = 4, where the formula gives E[L] = {el:.3f}",
        "sd.expected_tokens(0.8, 4) - 1",
        "The formula counts the target's own token too: it is E[L], tokens emitted per round. Accepted drafts are "
        "one fewer on average. The source's own examples (3.36 tokens at k = 4) are E[L] values, so only the name "
        "is wrong.",
        _COST + "02-acceptance-rate", summary="{accepted:.3f} (E[L] = {el:.3f})",
    ),
    Erratum(
        "positions-k", "threshold", "The verification pass and what it guarantees", "error",
        "The target evaluates the k candidates in one pass, computing its distribution at k positions.",
        "k positions", dict, "k + 1 positions", "(the first source's table: 5 + 1 = 6 for k = 5)",
        "Scoring k drafts and producing the bonus token needs the target's distribution at k + 1 positions.",
        _COST + "01-verification-pass",
    ),
    Erratum(
        "compute-bound", "threshold", "The verification pass and what it guarantees", "error",
        "Verification is described as compute-bound work over the k positions.",
        "compute-bound", _intensity_vs_ridge,
        "{intensity:.1f} FLOP per byte at batch 1, against a ridge of {ridge:.0f}",
        "sd.hardware.arithmetic_intensity(LLAMA_70B, 1, 0, 5), "
        "sd.hardware.ridge_batch(LLAMA_70B, H100.scaled(8))",
        "At small batch the pass does far fewer operations per byte than the ridge point, so it is memory-bound "
        "and costs about one decode step, as the source itself says later (c_v close to 1).",
        _COST + "01-verification-pass", summary="{intensity:.1f} FLOP/byte vs a ridge of {ridge:.0f}",
    ),
    Erratum(
        "positions-large-batch", "threshold", "The verification pass and what it guarantees", "error",
        "Counting k instead of k + 1 positions matters at large batch (70B on 8 x H100, batch 256, k = 4).",
        "k positions", _positions_at_batch,
        "c_v = {with_bonus:.2f} plain steps with k + 1 positions, {without:.2f} with k (calibrated)",
        "sd.hardware.verify_cost(LLAMA_70B, H100.scaled(8), k, batch=256) for k = 4 and 3",
        "Once the pass is compute-bound, every extra position costs arithmetic: counting k instead of k + 1 "
        "understates the verification cost.",
        _COST + "01-verification-pass", summary="{with_bonus:.2f} vs {without:.2f}",
    ),
    Erratum(
        "temperature", "threshold", "The acceptance rate, and the tokens per step it yields", "overstatement",
        "Acceptance falls as temperature rises (stated as a rule).",
        "falls with temperature", _temperature,
        "a flat synthetic workload gives {low:.2f} at t = 0.1 and {high:.2f} at t = 2; in Leviathan et al.'s "
        "T5-XXL rows it falls from T = 0 to T = 1 for {t5_share} drafts",
        "sd.synthetic.acceptance_vs_temperature(*sd.synthetic.synthetic_logit_pair('flat', 200, 32), [0.1, 2.0]); "
        "sd.literature.LEVIATHAN_T5",
        "A tendency, not a law. It holds for the published T5 drafts and on a peaked (code-like) synthetic "
        "workload, but on a flat one acceptance rises with temperature, because at low temperature each model "
        "commits to its own favourite among near-equal candidates. The same paper's Table 3 also has pairs whose "
        "acceptance does not fall (a 6M draft for a 97M GPT-like model, LaMDA 2B for LaMDA 137B). Measure it on "
        "your workload.",
        _COST + "02-acceptance-rate", summary="flat workload: {low:.2f} -> {high:.2f}; T5: falls for {t5_share}",
    ),
    Erratum(
        "heads", "threshold", "Draft cost in the three common arrangements", "overstatement",
        "Heads on the target accept less often than a dedicated draft model 'in many settings', and every "
        "arrangement is presented with the same exactness guarantee.",
        "lower acceptance; exact", _heads,
        "on Spec-Bench (A100, Vicuna-7B, greedy, commit fd2c1cd7) tokens per step relative to SpS's small draft: "
        "Medusa {medusa:.2f}x, Hydra {hydra:.2f}x, EAGLE {eagle:.2f}x; Medusa-2 is {medusa2_over_1:.2f} times as fast "
        "as Medusa-1 on Vicuna-7B",
        "tokens per step ratios from sd.drafters.spec_bench_table('vicuna-7b'); "
        "sd.literature.MEDUSA_SECTION_3_1",
        "On the one benchmark that runs every arrangement on the same setup, heads accept at least as often as the "
        "separate 68M draft (which is small, so this compares methods, not a law). Exactness depends on the "
        "variant: Medusa-1 heads with standard verification are exact; Medusa-2 fine-tunes the target itself, so "
        "its speedup is measured against a changed model, and Medusa's typical acceptance (its sampling mode) does "
        "not preserve the target's distribution.",
        _COST + "04-draft-arrangements", summary="Medusa {medusa:.2f}x, EAGLE {eagle:.2f}x SpS's tokens per step",
    ),
    Erratum(
        "self-speculation", "threshold", "Draft cost in the three common arrangements", "overstatement",
        "Self-speculation's accounting is like the heads': the marginal cost of drafting is small.",
        "small marginal cost", _self_speculation,
        "a draft that runs half the target's layers (c_d = 0.5) needs alpha >= {half:.3f} to break even at k = 4, "
        "a head with c_d = 0.02 only {head:.3f}",
        "sd.break_even_alpha(4, 0.5, 1.0) and sd.break_even_alpha(4, 0.02, 1.0)",
        "In a memory-bound decode a draft step costs about the fraction of the target's weights it reads, so "
        "self-speculation is cheap only when it runs few layers, and shallow drafts accept less.",
        _COST + "04-draft-arrangements", summary="alpha >= {half:.3f} (half the layers) vs {head:.3f} (a head)",
    ),
    Erratum(
        "three-tokens", "threshold", "Latency and the throughput that is not saved", "overstatement",
        "At batch 1, producing three tokens per step cuts inter-token latency by roughly three.",
        "~3x", _three_tokens,
        "E[L] = 3 needs alpha = {alpha:.3f} at k = 5, which gives {with_draft:.2f}x with the 8B draft and "
        "{free_draft:.2f}x with a free draft and a round of one target step (calibrated model)",
        "sd.deployment.speculative_speedup(LLAMA_70B, LLAMA_8B, H100.scaled(8), sd.alpha_for_expected_tokens(3, "
        "5), 5)",
        "Three tokens per round give three times lower latency only if the round costs one target step: true for "
        "nearly free drafts (heads, n-gram lookup), not for a separate draft model whose k steps are paid every "
        "round.",
        _COST + "05-latency-throughput-memory", summary="{with_draft:.2f}x (8B draft), {free_draft:.2f}x (free draft)",
    ),
    Erratum(
        "prefill-heavy", "threshold", "When not to use it", "overstatement",
        "A prompt-heavy service gains nothing from speculation.",
        "gains nothing", _prefill_heavy,
        "{end_to_end:.3f} end to end at a prefill share of 0.9, from the calibrated batch-1 decode speedup of "
        "{decode:.2f}",
        "sd.request.end_to_end_speedup(decode_speedup, 0.9)",
        "Speculation speeds up only the decode share of the time (Amdahl's law): the gain shrinks towards 1 as "
        "prefill dominates but reaches 1 only when decode is absent. Prompt-heavy in tokens is also not "
        "prefill-heavy in time.",
        _COST + "06-when-not-to-use", summary="{end_to_end:.3f} at a prefill share of 0.9",
    ),
    Erratum(
        "bisection-none", "threshold", "Draft cost (break-even code)", "code",
        "The bisection for the break-even alpha when no alpha can win (k = 2, c_draft = 0.5, c_verify = 2.5).",
        "0.9999", lambda: {"alpha": float(economics.break_even_alpha(2, 0.5, 2.5))}, "{alpha}: no alpha can win",
        "sd.break_even_alpha(2, 0.5, 2.5)",
        "The bracket [0, 0.9999] never moves when the cost is at least k + 1 tokens, and the loop returns its upper "
        "end; the honest answer is 'no alpha', which specdec reports as a missing value (``nan``).",
        _COST + "03-break-even",
    ),
    Erratum(
        "bisection-cap", "threshold", "Draft cost (break-even code)", "code",
        "Thresholds between 0.9999 and 1 (for example k = 8, c_draft = 0.2, c_verify = 7.399).",
        "0.9999", lambda: {"alpha": float(economics.break_even_alpha(8, 0.2, 7.399))}, "{alpha:.6f}",
        "sd.break_even_alpha(8, 0.2, 7.399)",
        "The bracket stops at 0.9999, so any true threshold above it is reported as 0.9999.",
        _COST + "03-break-even",
    ),
]


def entry(key: str) -> Erratum:
    """The erratum with this key.

    Defined in chapter "Errata of the sources".

    Parameters
    ----------
    key : str
        One of the entries' ``key`` (for example ``"verify-rule"``).

    Returns
    -------
    Erratum

    Examples
    --------
    >>> import specdec as sd
    >>> sd.errata.entry("poor-tokens").our_value()
    '1.969'
    """
    for e in ENTRIES:
        if e.key == key:
            return e
    raise ValueError(f"key must be one of {sorted(e.key for e in ENTRIES)}; got {describe(key)}")


def counts(source: str | None = None) -> dict:
    """How many entries of each kind (keys of :data:`KINDS`, in that order; kinds with no entry left out).

    Defined in chapter "Errata of the sources".

    Parameters
    ----------
    source : {"bounds", "threshold"} or None
        Restrict to one source; ``None`` counts all.

    Returns
    -------
    dict
        ``{kind: count}``.

    Examples
    --------
    >>> import specdec as sd
    >>> sum(sd.errata.counts().values()) == len(sd.errata.ENTRIES)
    True
    """
    if source is not None and source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)} or None; got {describe(source)}")
    found = {kind: sum(e.kind == kind and (source is None or e.source == source) for e in ENTRIES) for kind in KINDS}
    return {kind: n for kind, n in found.items() if n}


#: The words for a count of each kind, ``(singular, plural)``: ``sd.tables.count_phrase(counts(), KIND_NOUNS)``
#: says how many entries there are of each.
KIND_NOUNS = {"error": ("error in a number, formula or label", "errors in a number, formula or label"),
              "code": ("error in the source's code", "errors in the source's code"),
              "rule": ("empirical rule", "empirical rules"),
              "overstatement": ("overstatement", "overstatements"),
              "rounding": ("difference of rounding only", "differences of rounding only")}


#: Order of the second source's sections (its headings carry no numbers).
_THRESHOLD_ORDER = ("The verification pass", "The acceptance rate", "The break-even", "Draft cost",
                    "Latency", "When not to use")


def _order(e: Erratum) -> tuple[str, int, str]:
    if e.source == "threshold":
        rank = next((i for i, p in enumerate(_THRESHOLD_ORDER) if e.section.startswith(p)), len(_THRESHOLD_ORDER))
        return (e.source, rank, "")
    return (e.source, 0, e.section)


#: The title of every chapter an erratum is discussed in, by document name: data, so that the package
#: never reads the book's files (a test checks each title against the chapter's heading).
CHAPTER_TITLES = {
    "book/part1-speedup-bounds/01-expected-tokens": "Expected tokens per round",
    "book/part1-speedup-bounds/02-speedup-formula": "The speedup formula",
    "book/part1-speedup-bounds/03-verification-cost": "Why verification is not free",
    "book/part1-speedup-bounds/04-when-it-does-not-help": "When speculation does not help",
    "book/part1-speedup-bounds/05-decision-checklist": "The decision checklist",
    "book/part2-cost-accounting/01-verification-pass":
        "Why a decode step wastes arithmetic, and the verification pass",
    "book/part2-cost-accounting/02-acceptance-rate": "The acceptance rate and the tokens it yields",
    "book/part2-cost-accounting/03-break-even": "The break-even condition",
    "book/part2-cost-accounting/04-draft-arrangements": "Draft cost in three arrangements",
    "book/part2-cost-accounting/05-latency-throughput-memory": "Latency, throughput and memory",
    "book/part2-cost-accounting/06-when-not-to-use": "When not to use it",
}


def _chapter_link(docname: str) -> str:
    """A Markdown link from the errata page (book/appendix/) to a chapter, titled as the chapter is."""
    return f"[{CHAPTER_TITLES[docname]}](../{docname.removeprefix('book/')}.ipynb)"


def table(source: str | None = None) -> list[dict[str, Any]]:
    """The errata as a list of row dicts, our values computed now.

    Defined in chapter "Errata of the sources".

    Parameters
    ----------
    source : {"bounds", "threshold"} or None
        Restrict to one source; ``None`` lists all.

    Returns
    -------
    list of dict
        Keys ``key``, ``source``, ``section``, ``kind``, ``statement``,
        ``printed``, ``ours``, ``summary``, ``expression``, ``why``, ``chapter``.

    Examples
    --------
    >>> import specdec as sd
    >>> rows = sd.errata.table("bounds")
    >>> rows[0]["printed"], rows[0]["summary"]
    ('1.2 tokens', '1.377')
    """
    if source is not None and source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)} or None; got {describe(source)}")
    return [
        {
            "key": e.key,
            "source": SOURCES[e.source],
            "section": e.section,
            "kind": KINDS[e.kind],
            "statement": e.statement,
            "printed": e.printed,
            "ours": e.our_value(),
            "summary": e.our_summary(),
            "expression": e.expression,
            "why": e.why,
            "chapter": e.chapter,
        }
        for e in sorted(ENTRIES, key=_order)
        if source is None or e.source == source
    ]


def markdown_table(source: str) -> str:
    """The errata of one source as a compact Markdown summary table.

    Columns: section, kind, what the source prints, what we compute (short
    form). The reasons are in :func:`markdown_details`.

    Defined in chapter "Errata of the sources".

    Parameters
    ----------
    source : {"bounds", "threshold"}
        Which source.

    Returns
    -------
    str
        A Markdown table with one row per erratum.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.errata.markdown_table("threshold").splitlines()[0]
    '| Section | Kind | Source prints | We compute |'
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)}; got {describe(source)}")
    rows = [(row["section"], row["kind"], row["printed"], row["summary"]) for row in table(source)]
    return records_table(("Section", "Kind", "Source prints", "We compute"), rows, align=("l",) * 4).to_markdown()


def markdown_details(source: str) -> str:
    """The errata of one source in full, one block per entry (Markdown).

    Each block gives the section, what the source says, what it prints, our
    values with the specdec expression that computes them, why they differ,
    and a Markdown link to the chapter that discusses it (relative to the
    errata page, ``book/appendix/``).

    Defined in chapter "Errata of the sources".

    Parameters
    ----------
    source : {"bounds", "threshold"}
        Which source.

    Returns
    -------
    str
        Markdown text.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.errata.markdown_details("bounds").splitlines()[0]
    "**1. Expected tokens per round** (error). Going from k = 3 to k = 8 drafts at alpha = 0.8 'only adds 1.2 tokens' per round."
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)}; got {describe(source)}")
    blocks = []
    for row in table(source):
        blocks.append("\n".join([
            f"**{row['section']}** ({row['kind']}). {row['statement']}",
            "",
            f"- Source prints: {row['printed']}",
            f"- We compute: {row['ours']}, from `{row['expression']}`",
            f"- Why: {row['why']}",
            f"- Discussed in: {_chapter_link(row['chapter'])}",
        ]))
    return "\n\n".join(blocks)
