"""The numbers each chapter states in its Summary, with their setup: one value per quantity and setup.

Issue 23, item 1: "A test collects the numbers each chapter states in its Summary, with their setup. It fails
when two chapters state different values for the same quantity and setup without naming the reason."

The convention: every ``{eval}`` role in a chapter's ``## Summary`` section is a
*claim*, and the Markdown cell holding that heading lists each claim in its metadata::

    "metadata": {"summary_claims": [
        {"expr": "f\\"{speedup_worked:.2f}\\"", "quantity": "speedup",
         "setup": "worked example: 70B target, 8B draft, H100 (calibrated), batch 1, k = 4, alpha = 0.8"}
    ]}

* ``expr`` is the exact text inside one ``{eval}`...``` role of the Summary section; every role there has an
  entry and every entry matches a role (roles of the Summary section must sit in the heading's cell);
* ``quantity`` is a name from :data:`QUANTITIES` (extend the vocabulary here when a chapter needs a new one);
* ``setup`` names everything the value depends on, in the book's words: model pair, hardware and whether it is
  calibrated or the ideal bound, batch, context, k, alpha. A different batch is a different setup, so the
  setup names it.

The stored value of a claim is what the HTML shows: the plain text of the role's stored result in the cell's
``metadata.user_expressions`` (written by ``scripts/execute_notebooks.py``). Claims are grouped by
``(quantity, setup)`` across the chapters; a group holding two different stored strings fails.

**Every chapter.** The checks of the real book run over every chapter of ``_toc.yml`` (the introduction and
the appendix excluded). The checker itself is also proved on small synthetic notebooks below: cases that must
fail and a case that must pass.
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
import sys

from conftest import ROOT, toc_docnames

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "scripts"))
import inline_values  # noqa: E402  (scripts/ is not a package)

#: The quantities a claim may name (lower case). Add a name here when a chapter states a new kind of number.
QUANTITIES = frozenset({
    "speedup", "expected tokens", "acceptance rate", "break-even alpha", "c_v", "c_d", "break-even batch",
    "best k", "max concurrent sequences", "goodput ratio", "throughput ratio", "latency ratio", "capacity ratio",
    "end-to-end speedup", "step time", "round time", "tpot", "ttft", "utilization", "ridge batch",
    "arithmetic intensity", "residual", "tokens per second", "memory", "prefill share", "word count",
})

NOT_CHAPTERS = ("book/intro", "book/appendix/")
METADATA_KEY = "summary_claims"
HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")


def chapters() -> list[str]:
    """Every chapter of ``_toc.yml`` (introduction and appendix excluded), in reading order."""
    return [d for d in toc_docnames() if (ROOT / f"{d}.ipynb").exists() and not d.startswith(NOT_CHAPTERS)]


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _headings(text: str):
    """(line index, level, title) of the Markdown headings of ``text``, outside code fences."""
    fenced = False
    for i, line in enumerate(text.splitlines()):
        if line.startswith(("```", ":::")):
            fenced = not fenced if line.strip() in ("```", ":::") or not fenced else fenced
            continue
        match = HEADING.match(line)
        if match and not fenced:
            yield i, len(match.group(1)), match.group(2)


def summary_sections(nb: dict) -> list[tuple[int, str, list[str]]]:
    """Every ``## Summary`` section: (index of its cell, its text in that cell, eval roles in later cells of it).

    The section runs from the heading to the next heading of level 1 or 2, in the same cell or a later one.
    """
    found = []
    cells = nb.get("cells", [])
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        lines = _source(cell).splitlines()
        heads = list(_headings(_source(cell)))
        for pos, (line, level, title) in enumerate(heads):
            if level != 2 or title != "Summary":
                continue
            end = next((h[0] for h in heads[pos + 1:] if h[1] <= 2), None)
            text = "\n".join(lines[line:end])
            stray = []
            if end is None:   # the section may continue in the next cells, up to the next heading
                for later in cells[index + 1:]:
                    if later.get("cell_type") != "markdown":
                        continue
                    src = _source(later)
                    first = next((h[0] for h in _headings(src) if h[1] <= 2), None)
                    part = "\n".join(src.splitlines()[:first]) if first is not None else src
                    stray += inline_values.expressions(part)
                    if first is not None:
                        break
            found.append((index, text, stray))
    return found


def claim_problems(nb: dict, name: str) -> list[str]:
    """What is wrong with the claims of one chapter's Summary (empty: nothing)."""
    sections = summary_sections(nb)
    if len(sections) != 1:
        return [f"{name}: {len(sections)} '## Summary' sections, expected one"]
    index, text, stray = sections[0]
    cell = nb["cells"][index]
    problems = [f"{name}: Summary role outside the heading's cell: {expr!r}" for expr in stray]
    roles = inline_values.expressions(text)
    entries = cell.get("metadata", {}).get(METADATA_KEY)
    if entries is None:
        return problems + [f"{name}: the Summary cell has no {METADATA_KEY!r} metadata ({len(roles)} eval roles)"] \
            if roles else problems
    if not isinstance(entries, list):
        return problems + [f"{name}: {METADATA_KEY!r} must be a list, got {type(entries).__name__}"]
    stored = inline_values.stored_results(cell)
    seen = set()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or set(entry) != {"expr", "quantity", "setup"}:
            problems.append(f"{name}: claim {i} must have exactly the keys expr, quantity, setup: {entry!r}")
            continue
        expr, quantity, setup = entry["expr"], entry["quantity"], entry["setup"]
        if expr in seen:
            problems.append(f"{name}: two claims for the role {expr!r}")
        seen.add(expr)
        if expr not in roles:
            problems.append(f"{name}: claim for a role that is not in the Summary: {expr!r}")
        if quantity not in QUANTITIES:
            problems.append(f"{name}: quantity {quantity!r} of {expr!r} is not in the vocabulary")
        if not isinstance(setup, str) or not setup.strip():
            problems.append(f"{name}: the claim {expr!r} names no setup")
        if expr in roles and (expr not in stored or stored[expr].get("status") != "ok"):
            problems.append(f"{name}: no stored value for {expr!r} (execute the notebook)")
    problems += [f"{name}: eval role in the Summary without a claim: {expr!r}" for expr in roles if expr not in seen]
    return problems


def claims(nb: dict, name: str) -> list[dict]:
    """The claims of a chapter with their stored values (as the HTML shows them)."""
    sections = summary_sections(nb)
    if len(sections) != 1:
        return []
    cell = nb["cells"][sections[0][0]]
    stored = inline_values.stored_results(cell)
    out = []
    for entry in cell.get("metadata", {}).get(METADATA_KEY) or []:
        if isinstance(entry, dict) and entry.get("expr") in stored:
            out.append({"chapter": name, "expr": entry["expr"], "quantity": entry.get("quantity"),
                        "setup": " ".join(str(entry.get("setup", "")).split()),
                        "value": inline_values.plain_text(stored[entry["expr"]])})
    return out


def conflicts(all_claims: list[dict]) -> list[str]:
    """Every (quantity, setup) that holds two different stored values, with where each is stated."""
    groups: dict[tuple, dict[str, list[str]]] = {}
    for c in all_claims:
        groups.setdefault((c["quantity"], c["setup"]), {}).setdefault(c["value"], []).append(c["chapter"])
    return [f"{quantity!r} with setup {setup!r}: " + "; ".join(f"{v!r} in {', '.join(w)}" for v, w in values.items())
            for (quantity, setup), values in sorted(groups.items()) if len(values) > 1]


def read(docname: str) -> dict:
    return json.loads((ROOT / f"{docname}.ipynb").read_text())


# --------------------------------------------------------------------------
# the checker, proved on synthetic notebooks
# --------------------------------------------------------------------------

def _role(expr: str) -> str:
    return "{eval}`" + expr + "`"


def _stored(*pairs) -> list[dict]:
    return [{"expression": e, "result": {"data": {"text/plain": repr(v)}, "metadata": {}, "status": "ok"}}
            for e, v in pairs]


def _notebook(summary_source: str, metadata: dict) -> dict:
    return {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# A chapter\n\nIntro."},
        {"cell_type": "code", "metadata": {}, "source": "s = 1.62", "outputs": [], "execution_count": 1},
        {"cell_type": "markdown", "metadata": metadata, "source": summary_source},
        {"cell_type": "markdown", "metadata": {}, "source": "## Exercises\n\nNone."},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


S, K = 'f"{s:.2f}"', 'f"{k}"'
SETUP = "worked example: 70B target, 8B draft, 8 H100 (calibrated), batch 1, k = 5, alpha = 0.8"
SUMMARY = f"## Where the source differs\n\nSee {_role('x')}.\n\n## Summary\n\nThe speedup is {_role(S)}x at k = {_role(K)}."


def _good(value="1.62", setup=SETUP) -> dict:
    return _notebook(SUMMARY, {
        "user_expressions": _stored(("x", "ignored"), (S, value), (K, "5")),
        METADATA_KEY: [{"expr": S, "quantity": "speedup", "setup": setup},
                       {"expr": K, "quantity": "best k", "setup": setup}]})


def test_a_summary_with_claims_for_every_role_passes():
    nb = _good()
    assert claim_problems(nb, "good") == []
    found = claims(nb, "good")
    assert [(c["quantity"], c["value"]) for c in found] == [("speedup", "1.62"), ("best k", "5")]
    # roles outside the Summary section (here "Where the source differs") need no claim
    assert all(c["expr"] != "x" for c in found)
    # the same value stated by two chapters is consistent
    assert conflicts(claims(nb, "a") + claims(_good(), "b")) == []


def test_a_summary_without_claims_metadata_fails():
    nb = _notebook(SUMMARY, {"user_expressions": _stored((S, "1.62"), (K, "5"))})
    problems = claim_problems(nb, "bare")
    assert problems == ["bare: the Summary cell has no 'summary_claims' metadata (2 eval roles)"]


def test_each_broken_claim_is_named():
    nb = _good()
    entries = nb["cells"][2]["metadata"][METADATA_KEY]
    entries[1] = {"expr": K, "quantity": "best draft length", "setup": SETUP}      # not in the vocabulary
    entries.append({"expr": 'f"{t:.1f}"', "quantity": "speedup", "setup": SETUP})  # no such role
    problems = claim_problems(nb, "broken")
    assert any("'best draft length'" in p and "vocabulary" in p for p in problems), problems
    assert any("not in the Summary" in p for p in problems), problems
    missing = _good()
    del missing["cells"][2]["metadata"][METADATA_KEY][1]
    assert claim_problems(missing, "missing") == [f"missing: eval role in the Summary without a claim: {K!r}"]
    no_setup = _good(setup="  ")
    assert any("names no setup" in p for p in claim_problems(no_setup, "no-setup"))
    unexecuted = _good()
    unexecuted["cells"][2]["metadata"]["user_expressions"] = []
    assert any("no stored value" in p for p in claim_problems(unexecuted, "unexecuted"))
    wrong_keys = _good()
    wrong_keys["cells"][2]["metadata"][METADATA_KEY][0]["unit"] = "x"
    assert any("exactly the keys" in p for p in claim_problems(wrong_keys, "keys"))


def test_summary_roles_must_sit_in_the_headings_cell():
    nb = _notebook("## Summary\n\nFirst part.", {})
    nb["cells"].insert(3, {"cell_type": "markdown", "metadata": {}, "source": f"More: {_role(S)}."})
    assert claim_problems(nb, "split") == [f"split: Summary role outside the heading's cell: {S!r}"]
    none = _notebook("## Setup\n\nNo summary here.", {})
    assert claim_problems(none, "none") == ["none: 0 '## Summary' sections, expected one"]


def test_two_chapters_with_different_values_for_one_setup_conflict():
    a, b = _good("1.62"), _good("2.13")
    found = conflicts(claims(a, "ch-a") + claims(b, "ch-b"))
    assert found == [f"'speedup' with setup {SETUP!r}: '1.62' in ch-a; '2.13' in ch-b"]
    # naming the reason (a different hardware model) makes them two setups: no conflict
    ideal = _good("2.13", setup=SETUP.replace("(calibrated)", "(ideal roofline, lower bound)"))
    assert conflicts(claims(a, "ch-a") + claims(ideal, "ch-b")) == []
    # whitespace in a setup does not make a new setup
    spaced = _good("2.13", setup=SETUP.replace(", ", ",   "))
    assert len(conflicts(claims(a, "ch-a") + claims(spaced, "ch-b"))) == 1


def test_the_checker_does_not_change_the_notebook():
    nb = _good()
    before = copy.deepcopy(nb)
    claim_problems(nb, "x"), claims(nb, "x")
    assert nb == before


# --------------------------------------------------------------------------
# the real book
# --------------------------------------------------------------------------

def test_every_chapter_has_one_summary_the_checker_reads():
    """Ready for the gate: each chapter has exactly one '## Summary' section, found by this checker."""
    names = chapters()
    assert len(names) >= 20
    bad = [f"{name}: {len(summary_sections(read(name)))} Summary sections" for name in names
           if len(summary_sections(read(name))) != 1]
    assert not bad, "\n".join(bad)


def test_the_book_states_some_quantity_in_more_than_one_chapter():
    """The cross-chapter check has something to compare: the worked example's headline numbers (its speedup, step
    time and c_v on the calibrated model) are each stated in at least two chapters' Summaries, with one setup."""
    groups = {}
    for claim in (c for name in chapters() for c in claims(read(name), name)):
        groups.setdefault((claim["quantity"], claim["setup"]), set()).add(claim["chapter"])
    shared = {key for key, where in groups.items() if len(where) >= 2}
    quantities = {quantity for quantity, setup in shared if setup.startswith("worked example: 70B target")}
    assert {"speedup", "step time", "c_v"} <= quantities, sorted(shared)


def test_listed_chapters_state_every_summary_number_with_its_setup():
    problems = [p for name in chapters() for p in claim_problems(read(name), name)]
    assert not problems, "\n".join(problems)
    # a listed chapter's Summary that states numbers carries claims (an empty list is not enough)
    for name in chapters():
        nb = read(name)
        index, text, _ = summary_sections(nb)[0]
        assert len(claims(nb, name)) == len(inline_values.expressions(text)), name


def test_no_two_listed_chapters_state_different_values_for_one_quantity_and_setup():
    found = conflicts([c for name in chapters() for c in claims(read(name), name)])
    assert not found, "\n".join(found)


def _normal(setup: str) -> str:
    """A setup without case, punctuation, articles or the word 'x' of '8 x H100': how a reader compares two."""
    words = re.sub(r"[^\w.]+", " ", setup.lower()).split()
    return " ".join(w for w in words if w not in {"the", "a", "an", "x", "on", "with", "and"})


def test_a_setup_written_two_ways_is_caught():
    """A typo in a setup must not hide a conflict: two spellings of one setup are named."""
    assert _normal("worked example: 70B target, 8B draft, 8 x H100 (calibrated)") == \
        _normal("Worked example - 70B target, 8B draft, 8 H100, calibrated")
    assert _normal(SETUP) != _normal(SETUP.replace("batch 1", "batch 32"))


def test_no_setup_is_written_two_ways():
    """Two setups of one quantity that differ only in case, punctuation or articles are one setup spelled twice:
    write them the same, so that the conflict check compares their values."""
    spelled: dict[tuple[str, str], set[str]] = {}
    for claim in (c for name in chapters() for c in claims(read(name), name)):
        spelled.setdefault((claim["quantity"], _normal(claim["setup"])), set()).add(claim["setup"])
    twice = [f"{quantity!r}: {sorted(ways)}" for (quantity, _), ways in sorted(spelled.items()) if len(ways) > 1]
    assert not twice, "\n".join(twice)
