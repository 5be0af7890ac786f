"""Where the two source documents disagree with what specdec computes.

Each :class:`Erratum` records the source's statement (paraphrased, with the
number it prints as a quoted input), our value as a *callable* evaluated
through specdec when the errata page is built, the expression that computes
it, and why the two differ. The book's errata appendix renders
:func:`table`; the tests evaluate every entry.

Source names: ``"bounds"`` is ``acceptance-rate-and-speedup-bounds.txt``
(Part I), ``"threshold"`` is ``cost-accounting-acceptance-threshold.txt``
(Part II).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import acceptance, economics
from ._validate import describe

__all__ = ["Erratum", "ENTRIES", "table", "markdown_table", "markdown_details", "SOURCES"]

SOURCES = {
    "bounds": "Acceptance rate & speedup bounds (Part I)",
    "threshold": "Cost accounting: the acceptance-rate threshold (Part II)",
}


@dataclass(frozen=True)
class Erratum:
    """One disagreement between a source and the book.

    Defined in chapter "Errata of the sources".

    Parameters
    ----------
    source : str
        ``"bounds"`` or ``"threshold"``.
    section : str
        Section of the source.
    statement : str
        What the source says, in our words.
    printed : str
        The value or formula the source prints (a quoted input).
    ours : callable
        ``() -> float or str``: our value, computed by specdec.
    expression : str
        The specdec expression behind ``ours``.
    why : str
        Why they differ.
    chapter : str
        The book chapter (docname) that discusses it.
    fmt : str
        Format for a numeric ``ours``.
    """

    source: str
    section: str
    statement: str
    printed: str
    ours: Callable[[], object]
    expression: str
    why: str
    chapter: str
    fmt: str = ".3f"

    def our_value(self) -> str:
        """Our value, computed now and formatted."""
        value = self.ours()
        return format(value, self.fmt) if isinstance(value, float) else str(value)


def _worked_example_speedup() -> float:
    return economics.speedup(0.8, 5, 5.2, 2.5, 6.0, 0.5)


def _hw():
    from . import hardware

    return hardware, hardware.LLAMA_70B, hardware.H100.scaled(8)


def _verify_cost_batch1_range() -> str:
    import numpy as np

    hardware, model, gpus = _hw()
    costs = hardware.verify_cost(model, gpus, np.arange(1, 11), batch=1)
    return f"{costs.min():.3f} to {costs.max():.3f} for k = 1..10"


def _utilization_sketch() -> str:
    hardware, model, gpus = _hw()
    u = hardware.utilization(model, gpus, [1, 32, 128])
    return ", ".join(f"{100 * x:.1f}%" for x in u)


def _verify_positions_at_batch(batch: int, k: int) -> str:
    hardware, model, gpus = _hw()
    with_bonus = hardware.verify_cost(model, gpus, k, batch=batch)
    without = hardware.verify_cost(model, gpus, k - 1, batch=batch)
    return f"c_v = {with_bonus:.2f} (k + 1 positions) vs {without:.2f} (k positions)"


def _intensity_vs_ridge() -> str:
    hardware, model, gpus = _hw()
    intensity = hardware.arithmetic_intensity(model, 1, 0, 5)
    ridge = hardware.ridge_batch(model, gpus)
    return f"{intensity:.1f} FLOP/byte vs a ridge of {ridge:.0f}"


def _short_output_setups() -> str:
    from . import request

    s = _worked_example_speedup()
    t10 = request.setup_time_for_break_even(10, 5.2, s)
    t20 = request.setup_time_for_break_even(20, 5.2, s)
    return f"setup of {t10:.1f} ms vs {t20:.1f} ms"


def _quick_vs_exact_alpha() -> str:
    quick = economics.required_alpha(1.3, 5, *economics.quick_estimate_costs(5, 5.2, 2.5, 6.0))
    exact = economics.required_alpha(1.3, 5, *economics.costs_from_times(5, 5.2, 2.5, 6.0, 0.5))
    return f"alpha >= {quick:.3f} (quick) vs {exact:.3f} (exact)"


def _temperature_flat() -> str:
    from . import synthetic

    zt, zd = synthetic.synthetic_logit_pair("flat", vocab=200, n_contexts=32)
    low, high = synthetic.acceptance_vs_temperature(zt, zd, [0.1, 2.0])
    return f"flat workload: {low:.2f} at t = 0.1, {high:.2f} at t = 2"


def _three_tokens_speedup() -> str:
    from . import deployment

    hardware, model, gpus = _hw()
    alpha = acceptance.alpha_for_expected_tokens(3.0, 5)  # E[L] = 3 at k = 5
    s = deployment.speculative_speedup(model, hardware.LLAMA_8B, gpus, alpha, 5)
    return f"E[L] = 3 needs alpha = {alpha:.3f} at k = 5, which gives a speedup of {s:.2f} with the 8B draft"


def _capacity_plan() -> str:
    from . import regimes

    hardware, model, gpus = _hw()
    c = regimes.capacity_comparison(model, hardware.LLAMA_8B, gpus, 0.8, 5, 2048)
    from . import deployment

    latency = deployment.speculative_latency(model, hardware.LLAMA_8B, gpus, 0.8, 5, 1)
    plan = regimes.capacity_plan(1e6, c.throughput_baseline, c.throughput_speculative, 1 / latency.ratio)
    return (f"{plan.replicas_mistaken} replicas planned vs {plan.replicas_needed} needed "
            f"({plan.replicas_baseline} without speculation) for 1M tokens/s")


def _prefill_heavy() -> str:
    from . import regimes

    from . import deployment

    hardware, model, gpus = _hw()
    decode = deployment.speculative_speedup(model, hardware.LLAMA_8B, gpus, 0.8, 5)
    return f"{regimes.end_to_end_speedup(decode, 0.9):.3f} end to end at a prefill share of 0.9"


ENTRIES: list[Erratum] = [
    Erratum(
        "bounds", "1. Expected tokens per round",
        "Going from k = 3 to k = 8 drafts at alpha = 0.8 adds this many tokens per round.",
        "1.2 tokens",
        lambda: acceptance.expected_tokens(0.8, 8) - acceptance.expected_tokens(0.8, 3),
        "sd.expected_tokens(0.8, 8) - sd.expected_tokens(0.8, 3)",
        "Its own table gives 4.3 - 3.0 = 1.3; the unrounded gain is larger still.",
        "book/part1-speedup-bounds/01-expected-tokens",
    ),
    Erratum(
        "bounds", "2. The speedup formula (worked example)",
        "The speedup is 'not the theoretical 4x' because drafting and verifying cost time.",
        "4x",
        lambda: acceptance.expected_tokens(0.8, 5),
        "sd.expected_tokens(0.8, 5)",
        "The ceiling with free drafting and verification is E[L] itself (the value computed here), not 4x.",
        "book/part1-speedup-bounds/02-speedup-formula",
    ),
    Erratum(
        "bounds", "2. The speedup formula",
        "The round-time breakdown labels verification a target forward pass on k tokens, "
        "while the worked example's table says 5 + 1 = 6 tokens.",
        "k tokens (formula) vs k + 1 (table)",
        lambda: "k + 1 positions",
        "(the k drafts plus the position that yields the correction or bonus token)",
        "The target must score every draft and also produce the token after the last one, "
        "so the pass covers k + 1 positions; the table is right, the label is not.",
        "book/part1-speedup-bounds/03-verification-cost",
    ),
    Erratum(
        "bounds", "5. Quick estimation",
        "Estimated speedup = E[L] / (1 + T_draft/T0 + T_verify/T0); on the worked example's inputs:",
        "formula only (no value printed)",
        lambda: economics.quick_estimate(0.8, 5, 5.2, 2.5, 6.0),
        "sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0)",
        "The formula charges one extra plain step T0 per round and drops T_overhead, so it lands far "
        "below the exact speedup of the same inputs (the speedup chapter puts them side by side) and, "
        "with the source's own '< 1.3 is not worth it' rule, comes close to rejecting a configuration "
        "that is clearly worth it.",
        "book/part1-speedup-bounds/02-speedup-formula",
    ),
    Erratum(
        "bounds", "4. Poor acceptance rate",
        "At alpha = 0.5 and k = 5, a round yields about this many tokens.",
        "2.0",
        lambda: acceptance.expected_tokens(0.5, 5),
        "sd.expected_tokens(0.5, 5)",
        "Rounding only (1.97 rounds to 2.0); the statement stands.",
        "book/part1-speedup-bounds/04-when-it-does-not-help",
    ),
    Erratum(
        "bounds", "4. Short output vs 5. Checklist",
        "Short outputs lose below 10 tokens (section 4), yet the checklist asks for more than 20.",
        "< 10 tokens vs > 20 tokens",
        _short_output_setups,
        "sd.request.setup_time_for_break_even(10 or 20, 5.2, speedup of the worked example)",
        "The two thresholds contradict each other: on the worked example they imply different "
        "setup costs. The break-even output length follows from the setup time and the per-token "
        "saving (sd.request.break_even_output_length).",
        "book/part1-speedup-bounds/04-when-it-does-not-help",
    ),
    Erratum(
        "bounds", "3. Why verification isn't free",
        "Rule of thumb: verification takes 1.0 to 1.5 target steps for k <= 5 at batch 1, more at k = 10.",
        "1.0-1.5 x T0",
        _verify_cost_batch1_range,
        "sd.hardware.verify_cost(LLAMA_70B, H100.scaled(8), np.arange(1, 11), batch=1)",
        "At batch 1 the pass is bound by reading the weights, so the roofline puts it at one target "
        "step for every k up to 10; the excess in the source's own example (T_verify = 6.0 ms "
        "against T0 = 5.2 ms) is implementation overhead, not an effect of k.",
        "book/part1-speedup-bounds/03-verification-cost",
    ),
    Erratum(
        "bounds", "4. High batch size",
        "GPU utilization at batch 1, 32 and 128.",
        "3%, 30%, 90%",
        _utilization_sketch,
        "sd.hardware.utilization(LLAMA_70B, H100.scaled(8), [1, 32, 128])",
        "While a step is memory-bound, utilization grows in proportion to the batch, so the source's "
        "batch-1 figure would put batch 32 at 32 times as much, not 10 times: the sketch cannot be "
        "consistent with itself, and the roofline gives much lower figures.",
        "book/part1-speedup-bounds/04-when-it-does-not-help",
    ),
    Erratum(
        "bounds", "4. Poor acceptance rate",
        "At alpha = 0.5, k = 5 a round takes about two baseline steps, so the speedup is about 1.0; "
        "with the worked example's own times:",
        "~1.0",
        lambda: economics.speedup(0.5, 5, 5.2, 2.5, 6.0, 0.5),
        "sd.speedup(0.5, 5, 5.2, 2.5, 6.0, 0.5)",
        "A round of exactly two target steps does give slightly less than 1, but the worked "
        "example's round is shorter than two steps, so those times still win slightly at alpha = 0.5.",
        "book/part1-speedup-bounds/04-when-it-does-not-help",
    ),
    Erratum(
        "bounds", "5. Checklist: is the draft cheap enough?",
        "T_draft < 0.5 T0; read per draft step, it passes a draft that makes the worked example slower:",
        "T_draft < 0.5 x T0",
        lambda: economics.speedup(0.8, 5, 5.2, 13.0, 6.0, 0.5),
        "sd.speedup(0.8, 5, 5.2, 13.0, 6.0, 0.5)",
        "Everywhere else the source's T_draft covers all k steps of a round; the check only makes "
        "sense with that reading, and the book uses it.",
        "book/part1-speedup-bounds/05-decision-checklist",
    ),
    Erratum(
        "bounds", "5. Quick estimation and the 1.3 rule",
        "Acceptance rate needed for a speedup of 1.3 with the worked example's costs.",
        "(implied by the rule)",
        _quick_vs_exact_alpha,
        "sd.economics.required_alpha(1.3, 5, 2.5 / 26, c_verify)",
        "The quick formula's extra T0 makes the 1.3 screen demand a much better draft than the "
        "exact speedup does.",
        "book/part1-speedup-bounds/05-decision-checklist",
    ),
    Erratum(
        "threshold", "The acceptance rate, and the tokens per step it yields",
        "The formula (1 - alpha^(k+1)) / (1 - alpha) is called the expected number of accepted tokens.",
        "E[accepted]",
        lambda: acceptance.expected_tokens(0.8, 4) - 1.0,
        "sd.expected_tokens(0.8, 4) - 1  (accepted drafts at alpha = 0.8, k = 4)",
        "The formula counts the target's own token too: it is E[L], tokens emitted per round. "
        "Accepted drafts are one fewer on average (the number shown is for alpha = 0.8, k = 4, "
        "where the source's 3.36 is E[L]).",
        "book/part2-cost-accounting/02-acceptance-rate",
    ),
    Erratum(
        "threshold", "The verification pass and what it guarantees",
        "The target evaluates the k candidates in one pass, computing its distribution at k positions.",
        "k positions",
        lambda: "k + 1 positions",
        "(the first source's table: 5 + 1 = 6 for k = 5)",
        "Scoring k drafts and producing the bonus token needs the target's distribution at k + 1 "
        "positions; the difference matters for the verification cost at small k.",
        "book/part2-cost-accounting/01-verification-pass",
    ),
    Erratum(
        "threshold", "The verification pass and what it guarantees",
        "Verification is described as compute-bound work over the k positions.",
        "compute-bound",
        _intensity_vs_ridge,
        "sd.hardware.arithmetic_intensity(LLAMA_70B, 1, 0, 5), sd.hardware.ridge_batch(LLAMA_70B, H100.scaled(8))",
        "At small batch the pass does far fewer operations per byte than the ridge point, so it is "
        "memory-bound and costs about one decode step, as the source itself says later (c_v close to 1).",
        "book/part2-cost-accounting/01-verification-pass",
    ),
    Erratum(
        "threshold", "The verification pass and what it guarantees",
        "k versus k + 1 positions matters at large batch (70B on 8 x H100, batch 256, k = 4).",
        "k positions",
        lambda: _verify_positions_at_batch(256, 4),
        "sd.hardware.verify_cost(LLAMA_70B, H100.scaled(8), k, batch=256) for k = 4 and 3",
        "Once the pass is compute-bound, every extra position costs arithmetic: counting k instead "
        "of k + 1 understates the verification cost.",
        "book/part2-cost-accounting/01-verification-pass",
    ),
    Erratum(
        "threshold", "The acceptance rate, and the tokens per step it yields",
        "Acceptance falls as temperature rises (stated as a rule).",
        "falls with temperature",
        _temperature_flat,
        "sd.synthetic.acceptance_vs_temperature(*sd.synthetic.synthetic_logit_pair('flat', 200, 32), [0.1, 2.0])",
        "A tendency, not a law: it holds on a peaked (code-like) synthetic workload, but on a flat "
        "one with a noisy draft acceptance rises with temperature, because at low temperature each "
        "model commits to its own favourite among near-equal candidates. Measure it on your workload.",
        "book/part2-cost-accounting/02-acceptance-rate",
    ),
    Erratum(
        "threshold", "Latency and the throughput that is not saved",
        "At batch 1, producing three tokens per step cuts inter-token latency by roughly three.",
        "~3x",
        _three_tokens_speedup,
        "sd.deployment.speculative_speedup(LLAMA_70B, LLAMA_8B, H100.scaled(8), sd.alpha_for_expected_tokens(3, 5), 5)",
        "Three tokens per round give three times lower latency only if the round costs one target "
        "step; the draft's k steps are not free, so the same acceptance buys much less.",
        "book/part2-cost-accounting/05-latency-throughput-memory",
    ),
    Erratum(
        "threshold", "Latency and the throughput that is not saved",
        "Applying a latency speedup to a throughput plan will over-provision the saving.",
        "over-provision",
        _capacity_plan,
        "sd.regimes.capacity_plan(1e6, c.throughput_baseline, c.throughput_speculative, latency_speedup)",
        "The direction is reversed: the plan overstates the saving and so under-provisions replicas "
        "(70B/8B on 8 x H100, alpha 0.8, k 5, 2,048-token contexts, each replica full).",
        "book/part2-cost-accounting/05-latency-throughput-memory",
    ),
    Erratum(
        "threshold", "When not to use it",
        "A prompt-heavy service gains nothing from speculation.",
        "gains nothing",
        _prefill_heavy,
        "sd.regimes.end_to_end_speedup(decode_speedup, 0.9)",
        "Speculation speeds up only the decode share of the time (Amdahl's law): the gain shrinks "
        "towards 1 as prefill dominates but reaches 1 only when decode is absent. Prompt-heavy in "
        "tokens is also not prefill-heavy in time.",
        "book/part2-cost-accounting/06-when-not-to-use",
    ),
    Erratum(
        "threshold", "Draft cost (break-even code)",
        "The bisection for the break-even alpha when no alpha can win (k = 2, c_draft = 0.5, c_verify = 2.5).",
        "0.9999",
        lambda: economics.break_even_alpha(2, 0.5, 2.5),
        "sd.break_even_alpha(2, 0.5, 2.5)",
        "The bracket [0, 0.9999] never moves when the cost is at least k + 1 tokens, and the loop "
        "returns its upper end; the honest answer is 'no alpha', reported as nan.",
        "book/part2-cost-accounting/03-break-even",
    ),
    Erratum(
        "threshold", "Draft cost (break-even code)",
        "Thresholds between 0.9999 and 1 (for example k = 8, c_draft = 0.2, c_verify = 7.399).",
        "0.9999",
        lambda: economics.break_even_alpha(8, 0.2, 7.399),
        "sd.break_even_alpha(8, 0.2, 7.399)",
        "The bracket stops at 0.9999, so any true threshold above it is reported as 0.9999.",
        "book/part2-cost-accounting/03-break-even",
        fmt=".6f",
    ),
]


#: Order of the second source's sections (its headings carry no numbers).
_THRESHOLD_ORDER = ("The verification pass", "The acceptance rate", "The break-even", "Draft cost",
                    "Latency", "When not to use")


def _order(entry: Erratum):
    if entry.source == "threshold":
        rank = next((i for i, p in enumerate(_THRESHOLD_ORDER) if entry.section.startswith(p)), len(_THRESHOLD_ORDER))
        return (entry.source, rank, "")
    return (entry.source, 0, entry.section)


def table(source: str | None = None):
    """The errata as a list of row dicts, our values computed now.

    Defined in chapter "Errata of the sources" (Appendix).

    Parameters
    ----------
    source : {"bounds", "threshold"} or None
        Restrict to one source; ``None`` lists all.

    Returns
    -------
    list of dict
        Keys ``source``, ``section``, ``statement``, ``printed``, ``ours``,
        ``expression``, ``why``, ``chapter``.

    Examples
    --------
    >>> import specdec as sd
    >>> rows = sd.errata.table("bounds")
    >>> rows[0]["printed"], rows[0]["ours"]
    ('1.2 tokens', '1.377')
    """
    if source is not None and source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)} or None; got {describe(source)}")
    return [
        {
            "source": SOURCES[e.source],
            "section": e.section,
            "statement": e.statement,
            "printed": e.printed,
            "ours": e.our_value(),
            "expression": e.expression,
            "why": e.why,
            "chapter": e.chapter,
        }
        for e in sorted(ENTRIES, key=_order)
        if source is None or e.source == source
    ]


def markdown_table(source: str) -> str:
    """The errata of one source as a compact Markdown summary table.

    Columns: section, what the source prints, what we compute. The reasons
    are in :func:`markdown_details`.

    Defined in chapter "Errata of the sources" (Appendix).

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
    '| Section | Source prints | We compute |'
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)}; got {describe(source)}")
    lines = ["| Section | Source prints | We compute |", "|---|---|---|"]
    for row in table(source):
        cells = [row["section"], row["printed"], row["ours"]]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def markdown_details(source: str) -> str:
    """The errata of one source in full, one block per entry (Markdown).

    Each block gives the section, what the source says, what it prints, our
    value with the specdec expression that computes it, why they differ, and
    a link to the chapter that discusses it.

    Defined in chapter "Errata of the sources" (Appendix).

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
    '**1. Expected tokens per round.** Going from k = 3 to k = 8 drafts at alpha = 0.8 adds this many tokens per round.'
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)}; got {describe(source)}")
    blocks = []
    for row in table(source):
        blocks.append("\n".join([
            f"**{row['section']}.** {row['statement']}",
            "",
            f"- Source prints: {row['printed']}",
            f"- We compute: {row['ours']}, from `{row['expression']}`",
            f"- Why: {row['why']}",
            "- Discussed in: {doc}" + f"`/{row['chapter']}`",
        ]))
    return "\n\n".join(blocks)
