"""The errata entries: every 'ours' value evaluates and equals an independent computation."""

from fractions import Fraction

import math

import pytest

import specdec as sd


def exact_tokens(alpha, k):
    a = Fraction(alpha)
    return float(sum((a**i for i in range(k + 1)), Fraction(0)))


def test_every_entry_evaluates_and_links_an_existing_chapter():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    rows = sd.errata.table()
    assert len(rows) == len(sd.errata.ENTRIES) >= 8
    for row in rows:
        assert row["ours"]
        assert (root / (row["chapter"] + ".ipynb")).exists() or (root / (row["chapter"] + ".md")).exists(), row["chapter"]


def test_numeric_entries_against_exact_arithmetic():
    values = {e.expression: e.ours() for e in sd.errata.ENTRIES}
    assert values["sd.expected_tokens(0.8, 8) - sd.expected_tokens(0.8, 3)"] == pytest.approx(exact_tokens(0.8, 8) - exact_tokens(0.8, 3), rel=1e-14)
    assert values["sd.expected_tokens(0.8, 5)"] == pytest.approx(exact_tokens(0.8, 5), rel=1e-15)
    assert values["sd.expected_tokens(0.5, 5)"] == pytest.approx(63 / 32, rel=1e-15)
    assert math.isnan(values["sd.break_even_alpha(2, 0.5, 2.5)"])
    # threshold beyond the source's bracket: root of 1 + a + ... + a^8 = 8.999
    root = float(sd.symbolic.break_even_root(8, 0.2, 7.399, digits=20))
    assert values["sd.break_even_alpha(8, 0.2, 7.399)"] == pytest.approx(root, abs=1e-12)
    assert root > 0.9999
    quick = values["sd.quick_estimate(0.8, 5, 5.2, 2.5, 6.0)"]
    assert quick == pytest.approx(exact_tokens(0.8, 5) * 5.2 / (5.2 + 2.5 + 6.0), rel=1e-14)


def test_markdown_table_rows_and_bad_source():
    n_bounds = sum(e.source == "bounds" for e in sd.errata.ENTRIES)
    text = sd.errata.markdown_table("bounds")
    assert text.count("\n") == 1 + n_bounds
    details = sd.errata.markdown_details("bounds")
    assert details.count("- Why: ") == n_bounds and details.count("{doc}") == n_bounds
    with pytest.raises(ValueError, match="source must be one of"):
        sd.errata.markdown_details("nope")
    with pytest.raises(ValueError, match="source must be one of"):
        sd.errata.markdown_table("nope")
    with pytest.raises(ValueError, match="source must be one of"):
        sd.errata.table("nope")
