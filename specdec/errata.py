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

__all__ = ["Erratum", "ENTRIES", "table", "markdown_table", "SOURCES"]

SOURCES = {
    "bounds": "Acceptance rate & speedup bounds (Part I)",
    "threshold": "Cost accounting: the acceptance-rate threshold (Part II)",
}


@dataclass(frozen=True)
class Erratum:
    """One disagreement between a source and the book.

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
        "The ceiling with free drafting and verification is E[L] itself, about 3.69x, not 4x.",
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
        "The formula charges one extra plain step T0 per round and drops T_overhead: on the same "
        "inputs the exact speedup is 2.13, so with the source's own '< 1.3 is not worth it' rule "
        "the quick screen sits close to rejecting a configuration that is clearly worth it.",
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
        lambda: "one threshold, from the setup cost",
        "sd.workload.break_even_output_length(...)",
        "The two thresholds contradict each other; the break-even output length follows from the "
        "setup time and the per-token saving, and chapter 4 computes it.",
        "book/part1-speedup-bounds/04-when-it-does-not-help",
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
        raise ValueError(f"source must be one of {sorted(SOURCES)} or None; got {source!r}")
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
        for e in ENTRIES
        if source is None or e.source == source
    ]


def markdown_table(source: str) -> str:
    """The errata of one source as a Markdown table (for the errata page).

    Defined in chapter "Errata of the sources" (Appendix).

    Parameters
    ----------
    source : {"bounds", "threshold"}
        Which source.

    Returns
    -------
    str
        A Markdown table with one row per erratum, linking the chapter.

    Examples
    --------
    >>> import specdec as sd
    >>> sd.errata.markdown_table("threshold").splitlines()[0]
    '| Section | What the source says | Source prints | We compute | Why | Chapter |'
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {sorted(SOURCES)}; got {source!r}")
    lines = [
        "| Section | What the source says | Source prints | We compute | Why | Chapter |",
        "|---|---|---|---|---|---|",
    ]
    for row in table(source):
        chapter = "{doc}" + f"`/{row['chapter']}`"
        cells = [row["section"], row["statement"], row["printed"],
                 f"{row['ours']} (`{row['expression']}`)", row["why"], chapter]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
