"""Tests of specdec.tables: rendering computed grids and checking printed (rounded) values."""

import numpy as np
import pytest

import specdec as sd
from specdec import tables


def test_grid_table_markdown_layout():
    """A grid renders as a pipe table: corner + column labels, one row per row label, cells formatted."""
    t = tables.grid_table([[1.0, 2.5], [3.25, 4.0]], ["a", "b"], [3, 5], corner="x", fmt="{:.2f}", col_fmt="k = {}")
    assert t.to_markdown().splitlines() == [
        "| x | k = 3 | k = 5 |",
        "|:--|--:|--:|",
        "| a | 1.00 | 2.50 |",
        "| b | 3.25 | 4.00 |",
    ]
    assert t._repr_markdown_() == t.to_markdown() == repr(t) == str(t)


def test_grid_table_emphasis_and_strings():
    """Emphasized cells are bold; string cells are shown as given."""
    t = tables.grid_table([["x", 2.0]], ["r"], ["c1", "c2"], emphasize=[[False, True]], fmt="{:.1f}")
    assert t.rows == (("r", "x", "**2.0**"),)


def test_markdown_escapes_pipes_and_html_escapes_markup():
    """A '|' inside a cell cannot break the Markdown table; HTML cells are escaped."""
    t = tables.records_table(["a|b", "v"], [["<x>", 1.0]], fmt="{:.1f}")
    assert r"a\|b" in t.to_markdown()
    assert "&lt;x&gt;" in t.to_html() and "<x>" not in t.to_html()


def test_records_table_per_column_formats():
    """Each column can have its own format; numbers are formatted, strings kept."""
    t = tables.records_table(["n", "x", "y"], [["a", 1, 2.0]], fmt=["{}", "{:d}", "{:.3f}"])
    assert t.rows == (("a", "1", "2.000"),)


def test_rounding_check_half_unit_rule():
    """A printed value agrees iff within half a unit of its last decimal (ties accepted both ways)."""
    computed = np.array([1.875, 1.377, 0.25, 0.25, 2.96])
    printed = np.array([1.9, 1.2, 0.2, 0.3, 3.0])
    assert tables.rounding_check(computed, printed, 1).tolist() == [True, False, True, True, True]
    assert tables.rounding_check(2.96, 2.9, 1) == np.False_


def test_source_table_of_expected_tokens_all_cells_agree():
    """The first source's E[L] table (alpha x k) is a correct 1-decimal rounding in every cell.

    The source prints: 0.5 -> 1.9 2.0 2.0; 0.7 -> 2.5 2.9 3.2; 0.8 -> 3.0 3.7 4.3;
    0.9 -> 3.4 4.7 6.1; 0.95 -> 3.7 5.3 7.4. Reference values are hand sums 1 + a + ... + a^k.
    """
    alphas, ks = [0.5, 0.7, 0.8, 0.9, 0.95], [3, 5, 8]
    printed = np.array([[1.9, 2.0, 2.0], [2.5, 2.9, 3.2], [3.0, 3.7, 4.3], [3.4, 4.7, 6.1], [3.7, 5.3, 7.4]])
    hand = np.array([[sum(a**i for i in range(k + 1)) for k in ks] for a in alphas])
    assert tables.rounding_check(hand, printed, 1).all()
    t = tables.source_check_table(sd.expected_tokens(np.array(alphas)[:, None], ks), printed, 1, alphas, ks)
    assert "DIFFERS" not in t.to_markdown()


def test_source_sentence_gain_is_flagged():
    """The source's '1.2 tokens' (k = 3 -> 8 at alpha = 0.8) is not a rounding of the true 1.377."""
    gain = (1 + 0.8 + 0.8**2 + 0.8**3 + 0.8**4 + 0.8**5 + 0.8**6 + 0.8**7 + 0.8**8) - (1 + 0.8 + 0.8**2 + 0.8**3)
    assert not tables.rounding_check(gain, 1.2, 1)
    assert tables.rounding_check(gain, 1.4, 1)
    t = tables.source_check_table([[gain]], [[1.2]], 1, ["g"], ["c"])
    assert t.rows[0][1].startswith("**1.377 (source 1.2) DIFFERS")


@pytest.mark.parametrize("call, exc, word", [
    (lambda: tables.grid_table([1.0, 2.0], ["a"], ["b", "c"]), ValueError, "2-D"),
    (lambda: tables.grid_table([[1.0, 2.0]], ["a", "b"], ["c", "d"]), ValueError, "row labels"),
    (lambda: tables.grid_table([[1.0]], ["a"], ["b"], fmt=3), TypeError, "fmt"),
    (lambda: tables.grid_table([[1.0]], ["a"], ["b"], fmt="{:.2q}"), ValueError, "fmt"),
    (lambda: tables.grid_table([[1.0]], ["a"], ["b"], emphasize=[[True, False]]), ValueError, "emphasize"),
    (lambda: tables.records_table(["a", "b"], [[1.0]]), ValueError, "cells"),
    (lambda: tables.records_table(["a", "b"], [[1.0, 2.0]], fmt=["{}"]), ValueError, "fmt"),
    (lambda: tables.Table((), ()), ValueError, "header"),
    (lambda: tables.Table(("a",), (), ("x",)), ValueError, "align"),
    (lambda: tables.rounding_check([1.0], [1.0], -1), ValueError, "decimals"),
    (lambda: tables.rounding_check([1.0], [1.0], 1.5), ValueError, "decimals"),
    (lambda: tables.rounding_check("1", [1.0], 1), TypeError, "computed"),
    (lambda: tables.rounding_check([1.0, 2.0], [1.0, 2.0, 3.0], 1), ValueError, "broadcast"),
    (lambda: tables.source_check_table([[1.0]], [[1.0, 2.0]], 1, ["a"], ["b"]), ValueError, "same shape"),
    (lambda: tables.count_phrase([True], "cells"), ValueError, "at least two"),
    (lambda: tables.count_phrase([1, 0], "cells"), TypeError, "flags"),
    (lambda: tables.count_phrase([True, False], ""), TypeError, "noun"),
])
def test_bad_inputs_raise_naming_the_parameter(call, exc, word):
    """Bad arguments raise with a message that names what is wrong."""
    with pytest.raises(exc, match=word):
        call()


@pytest.mark.parametrize("flags, phrase", [
    ([True] * 15, "all 15 printed cells"),
    ([True] * 14 + [False], "14 of the 15 printed cells"),
    ([False] * 15, "none of the 15 printed cells"),
    (np.array([[True, False], [True, True]]), "3 of the 4 printed cells"),
])
def test_count_phrase_reads_like_a_person(flags, phrase):
    """Counted phrases never read "all 15 of the 15": all, none, or m of the n."""
    assert tables.count_phrase(flags, "printed cells") == phrase


def test_count_phrase_on_a_rounding_check():
    """The phrase counts the flags of rounding_check (the source's E[L] table: every cell agrees)."""
    computed = np.array([1.875, 1.969, 1.377])
    assert tables.count_phrase(tables.rounding_check(computed, [1.9, 2.0, 1.2], 1), "cells") == "2 of the 3 cells"


def test_a_missing_value_reads_a_dash_with_a_footnote_never_nan():
    """Issue 23, item 7: an infeasible cell (nan) reads "—" and the table says why under it."""
    nan = float("nan")
    t = tables.records_table(["k", "alpha"], [[1, nan], [4, 0.9321]], fmt=["{:d}", "{:.3f}"],
                             missing="no alpha reaches 3x at this k")
    assert t.rows == (("1", "—"), ("4", "0.932"))
    assert t.notes == ("— no alpha reaches 3x at this k",)
    assert "nan" not in t.to_markdown() and t.to_markdown().endswith("\n\n— no alpha reaches 3x at this k")
    assert t.to_html().endswith("</table><p>— no alpha reaches 3x at this k</p>")
    g = tables.grid_table([[np.float64(nan), 2.0]], ["a"], ["x", "y"])
    assert g.rows == (("a", "—", "2.00"),) and g.notes == (f"— {tables.MISSING_NOTE}",)
    # no missing value: no footnote; strings are kept as given, even "nan"
    assert tables.records_table(["x"], [[1.0]]).notes == () and tables.grid_table([["nan"]], ["a"], ["x"]).notes == ()
    with pytest.raises(TypeError, match="missing"):
        tables.records_table(["x"], [[nan]], missing="")


# ------------------------------------------------ the one HTML writer, the one phrase helper (issue 27)
def test_html_table_writes_escaped_cells_and_attributes_exactly():
    """Cells and attribute values are escaped; a cell's own attributes come in the order given."""
    assert tables.html_table([["a < b", ("1.00", {"data-key": "x\"", "style": "text-align:right"})]],
                             ["what", "value"]) == (
        '<table><thead><tr><th>what</th><th>value</th></tr></thead><tbody><tr><td>a &lt; b</td>'
        '<td data-key="x&quot;" style="text-align:right">1.00</td></tr></tbody></table>')
    assert tables.html_table([["1"], ["&"]], attributes={"class": "r"}, sections=False) == (
        '<table class="r"><tr><td>1</td></tr><tr><td>&amp;</td></tr></table>')
    assert tables.html_table([], ["h"]) == "<table><thead><tr><th>h</th></tr></thead><tbody></tbody></table>"


def test_table_to_html_aligns_every_cell_and_keeps_its_notes():
    t = tables.Table(("x", "y"), (("1", "<2>"),), ("l", "r"), ("note",))
    assert t.to_html() == (
        '<table><thead><tr><th style="text-align:left">x</th><th style="text-align:right">y</th></tr></thead>'
        '<tbody><tr><td style="text-align:left">1</td><td style="text-align:right">&lt;2&gt;</td></tr></tbody>'
        '</table><p>note</p>')
    assert t.to_html({"class": "c"}).startswith('<table class="c"><thead>')


def test_reports_are_written_by_the_one_writer():
    """The decide report and the errata summary: exact strings, written through tables.Table."""
    report = sd.decide(t0=5.2, t_draft_round=2.5, t_verify=6.0, t_overhead=0.5, k=5,
                       mean_acceptance_length=3.68928).to_markdown().splitlines()
    assert report[2:4] == ["|  | value | how |", "|:--|:--|:--|"]
    assert "| k | E[L] | t_verify model (ms) | speedup |" in report
    assert report[report.index("| k | E[L] | t_verify model (ms) | speedup |") + 1] == "|--:|--:|--:|--:|"
    assert sd.errata.markdown_table("bounds").splitlines()[:2] == [
        "| Section | Kind | Source prints | We compute |", "|:--|:--|:--|:--|"]


@pytest.mark.parametrize("counts, phrase", [
    ({"a": 1}, "1 apple"),
    ({"a": 2, "b": 0, "c": 1}, "2 apples; and 1 cherry"),
    ({"c": 3, "a": 1, "b": 1}, "3 cherries; 1 apple; and 1 banana"),
])
def test_count_phrase_counts_each_kind_in_order(counts, phrase):
    nouns = {"a": ("apple", "apples"), "b": ("banana", "bananas"), "c": ("cherry", "cherries")}
    assert tables.count_phrase(counts, nouns) == phrase


def test_count_phrase_reads_the_errata_counts():
    """The errata page's sentence: the counts of sd.errata.counts() in KIND_NOUNS's words, summed by hand."""
    phrase = tables.count_phrase(sd.errata.counts(), sd.errata.KIND_NOUNS)
    by_kind = {kind: sum(e.kind == kind for e in sd.errata.ENTRIES) for kind in sd.errata.KINDS}
    assert phrase.startswith(f"{by_kind['error']} errors in a number, formula or label; ")
    assert phrase.count(";") == sum(n > 0 for n in by_kind.values()) - 1


@pytest.mark.parametrize("counts, nouns, exc, word", [
    ({"a": -1}, {"a": ("x", "xs")}, ValueError, "count"),
    ({"a": 1.5}, {"a": ("x", "xs")}, ValueError, "count"),
    ({"a": 1}, {}, TypeError, "singular, plural"),
    ({"a": 1}, "xs", TypeError, "noun must be a dict"),
    ({"a": 0}, {"a": ("x", "xs")}, ValueError, "at least one"),
])
def test_count_phrase_refuses_bad_counts(counts, nouns, exc, word):
    with pytest.raises(exc, match=word):
        tables.count_phrase(counts, nouns)


@pytest.mark.parametrize("call, exc, word", [
    (lambda: tables.html_table([[1]]), TypeError, "cell"),
    (lambda: tables.html_table([[("x", {"a": 1})]]), TypeError, "attributes"),
    (lambda: tables.html_table([["x"]], attributes="c"), TypeError, "attributes"),
    (lambda: tables.html_table([["x"]], sections=1), TypeError, "sections"),
])
def test_html_table_refuses_bad_cells(call, exc, word):
    with pytest.raises(exc, match=word):
        call()
