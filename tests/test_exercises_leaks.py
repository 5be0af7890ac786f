"""No exercise's answer is on the page before the exercise (issue 15, item 2).

For every numeric exercise, the chapter as a reader sees it before the
exercise box (its prose with the stored ``{eval}`` values filled in by
``scripts/inline_values.py``, and the text of its stored outputs: printed
text, tables, HTML snapshots; earlier exercises and their solutions
included) must not contain a number that the checker would accept as the
answer, written with the digits the answer is asked to. A tuple's answer is
on the page when all its (non-trivial) values are.

What is not searched: whole numbers below 20 (a best k, a count of flags:
they appear everywhere in any text), values that are exact integers in a
float answer (1.0), yes/no values, letters and functions. An exercise that
asks the reader to reproduce a value the chapter shows is marked
``shows_value=True`` in the registry and skipped.

``python tests/test_exercises_leaks.py`` prints every finding with where it
is (cell, section, prose or output).
"""

from __future__ import annotations

import html
import json
import pathlib
import re
import sys

import pytest

from specdec_course import REGISTRY
from specdec_course._forms import Flag, Float, Integer

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import inline_values  # noqa: E402  (scripts/ is not a package)

SMALLEST_COUNT = 20

_NUMBER = re.compile(r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|\.\d+)(?:[eE](?P<exp>[-+]?\d+))?"
                     r"(?P<pct>\s?%)?(?!\.?\d)")


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _output_texts(cell) -> list[str]:
    out = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            out.append(_source({"source": output.get("text", "")}))
            continue
        data = output.get("data", {})
        for mime in ("text/plain", "text/markdown", "text/latex", "text/html"):
            if mime in data:
                text = _source({"source": data[mime]})
                if mime == "text/html":
                    text = html.unescape(re.sub(r"<(script|style)\b.*?</\1>|<[^>]+>", " ", text, flags=re.S | re.I))
                out.append(text)
    return out


def numbers_in(text: str) -> list[tuple[float, str]]:
    """(value, as written) of every number in a text; percentages are divided by 100."""
    found = []
    for m in _NUMBER.finditer(text):
        written = m.group("num")
        try:
            value = float(written.replace(",", ""))
        except ValueError:
            continue
        if m.group("exp"):
            value *= 10.0 ** int(m.group("exp"))
        if m.group("pct"):
            value /= 100.0
            written += "%"
        found.append((value, written))
    return found


def _significant(written: str) -> int:
    digits = written.rstrip("%").replace(",", "").replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) or 1


def _searchable(exercise):
    """(name, value, form) of the answer's values this test searches for."""
    params = exercise.inputs()
    values = []
    for path, value, form in exercise.form(params).values(exercise.reference(params)):
        if isinstance(form, Flag):
            continue
        if isinstance(form, Integer) and abs(int(value)) < SMALLEST_COUNT:
            continue
        if isinstance(form, Float) and float(value).is_integer():
            continue
        values.append((path or "the answer", value, form))
    return values


def _reveals(form, value, number: float, written: str) -> bool:
    """The number, as written, is accepted as the answer and carries the answer's stated digits."""
    if not form.accepts(number, value):
        return False
    stated = form.format(value).split(" ")[0]
    return _significant(written) >= min(_significant(stated), 3)


def chapter_before(path: pathlib.Path, label: str) -> list[dict]:
    """What a reader sees of the chapter before the box of ``label``: [{cell, section, where, text}]."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    seen, section = [], "(top)"
    for index, cell in enumerate(cells):
        source = _source(cell)
        if cell.get("cell_type") == "markdown":
            if re.search(r":label:[ \t]*" + re.escape(label) + r"\s", source + "\n") and "{exercise" in source:
                return seen
            headings = re.findall(r"^#{1,3} (.+)$", source, re.M)
            if headings and source.lstrip().startswith("#"):
                section = headings[0].strip()
            text, _problems = inline_values.substitute(source, inline_values.stored_results(cell))
            seen.append({"cell": index, "section": section, "where": "prose", "text": text})
            if headings:
                section = headings[-1].strip()
        elif cell.get("cell_type") == "code":
            for text in _output_texts(cell):
                seen.append({"cell": index, "section": section, "where": "output", "text": text})
    raise LookupError(f"{path.name} has no exercise box labelled {label!r}")


def findings(label: str) -> list[dict]:
    """Where the answer of ``label`` appears before its box (empty when it does not)."""
    exercise = REGISTRY[label]
    path = ROOT / f"{exercise.chapter.docname}.ipynb"
    parts = chapter_before(path, label)
    wanted = _searchable(exercise)
    hits: dict[str, list[dict]] = {}
    for name, value, form in wanted:
        seen = set()
        for part in parts:
            for number, written in numbers_in(part["text"]):
                if _reveals(form, value, number, written) and (part["cell"], part["where"], written) not in seen:
                    seen.add((part["cell"], part["where"], written))
                    snippet = " ".join(part["text"].split())
                    at = snippet.find(written.rstrip("%"))
                    hits.setdefault(name, []).append(dict(part, value=name, written=written,
                                                          context=snippet[max(0, at - 60): at + 60]))
    if not wanted or len(hits) < len(wanted):
        return []  # a tuple is on the page only when all its searchable values are
    return [hit for name in hits for hit in hits[name]]


NUMERIC = sorted(label for label, e in REGISTRY.items() if e.kind == "numeric" and not e.shows_value)


def test_the_detector_finds_a_shown_answer():
    """The detector finds a rounded answer in prose or output, a percentage, and ignores other numbers."""
    found = numbers_in("speedup 2.60x, 74 batches, 0.34 %, 400,000 tokens, T0 5.2")
    assert [w for _v, w in found] == ["2.60", "74", "0.34%", "400,000", "5.2"]
    assert [v for v, _w in found] == pytest.approx([2.6, 74.0, 0.0034, 400000.0, 5.2], rel=1e-12)
    form = Float(decimals=2)
    assert _reveals(form, 2.601, 2.6, "2.60") and _reveals(form, 2.601, 2.601, "2.601")
    assert not _reveals(form, 2.601, 2.7, "2.7")
    assert _reveals(Float(sig=2), 0.0033873, 0.0034, "0.34%")
    assert not _reveals(Float(decimals=3), 0.2770096, 0.28, "0.28")  # fewer digits than the answer is asked to


@pytest.mark.parametrize("label", NUMERIC)
def test_answer_is_not_on_the_page_before_the_exercise(label):
    """The reference, at its stated precision, does not occur in the chapter before the exercise."""
    found = findings(label)
    assert not found, f"{label}: the answer is on the page before the exercise: " + "; ".join(
        f"cell {h['cell']} ({h['section']}, {h['where']}): {h['written']} in '...{h['context']}...'" for h in found[:6])


if __name__ == "__main__":  # a report for the chapter authors
    for label in NUMERIC:
        for hit in findings(label):
            print(f"{REGISTRY[label].number:>5} {label:<24} cell {hit['cell']:>3} [{hit['section'][:40]}] "
                  f"{hit['where']}: {hit['value']} = {hit['written']}  ...{hit['context']}...")
