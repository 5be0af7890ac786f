"""Leviathan et al.'s Table 3 (alpha at T = 0 and T = 1 for every pair): pinned inputs and the direction counts.

The chapter "The acceptance rate and the tokens it yields" presents acceptance against temperature as a tendency
with exceptions from these rows; the counts below are recomputed by hand from the printed cells.
"""

from __future__ import annotations

import numpy as np
import pytest

import specdec as sd

L = sd.literature

# the printed cells of Table 3 (arXiv 2211.17192v2), typed again here from the paper's table, independently of
# the module's tuple: (target, draft, alpha T=0, alpha T=1)
PRINTED = [
    ("GPT-like (97M)", "Unigram", "0.03", "0.03"), ("GPT-like (97M)", "Bigram", "0.05", "0.05"),
    ("GPT-like (97M)", "GPT-like (6M)", "0.88", "0.89"),
    ("T5-XXL (EnDe)", "Unigram", "0.08", "0.07"), ("T5-XXL (EnDe)", "Bigram", "0.20", "0.19"),
    ("T5-XXL (EnDe)", "T5-small", "0.75", "0.62"), ("T5-XXL (EnDe)", "T5-base", "0.80", "0.68"),
    ("T5-XXL (EnDe)", "T5-large", "0.82", "0.71"),
    ("T5-XXL (CNNDM)", "Unigram", "0.13", "0.08"), ("T5-XXL (CNNDM)", "Bigram", "0.23", "0.16"),
    ("T5-XXL (CNNDM)", "T5-small", "0.65", "0.53"), ("T5-XXL (CNNDM)", "T5-base", "0.73", "0.55"),
    ("T5-XXL (CNNDM)", "T5-large", "0.74", "0.56"),
    ("LaMDA (137B)", "LaMDA (100M)", "0.61", "0.57"), ("LaMDA (137B)", "LaMDA (2B)", "0.71", "0.71"),
    ("LaMDA (137B)", "LaMDA (8B)", "0.75", "0.74"),
]


def test_table3_inputs_are_the_printed_cells_and_cited_as_verified():
    t = L.leviathan_table3()
    assert list(zip(t["target"], t["draft"], strict=True)) == [(r[0], r[1]) for r in PRINTED]
    assert t["alpha_t0"].tolist() == [float(r[2]) for r in PRINTED]
    assert t["alpha_t1"].tolist() == [float(r[3]) for r in PRINTED]
    for q in L.LEVIATHAN_TABLE3.values():
        assert q.source == "leviathan2023" and q.status == "verified" and "Table 3" in q.where
        assert "2211.17192v2" in q.checked_in
    assert "top-40" in L.LEVIATHAN_TABLE3["alpha_t1"].note


def test_table3_t5_rows_agree_with_the_t5_inputs_of_tables_2_and_4():
    """The six T5 model drafts of Table 3 carry the same alpha as LEVIATHAN_T5 (Tables 2 and 4)."""
    t = L.leviathan_table3()
    t5 = {(task, d, temp): a for task, d, temp, a in zip(*(L.LEVIATHAN_T5[c].value for c in ("task", "draft", "temperature", "alpha")), strict=True)}
    for target, draft, a0, a1 in zip(t["target"], t["draft"], t["alpha_t0"], t["alpha_t1"], strict=True):
        if draft.startswith("T5-"):
            task = target.split("(")[1].rstrip(")")
            assert t5[(task, draft, 0)] == a0 and t5[(task, draft, 1)] == a1


def test_table3_directions_counted_by_hand():
    """As printed: 12 fall, 3 flat, 1 rises (GPT-like 6M); 9 change by more than the two-decimal rounding."""
    t = L.leviathan_table3()
    # by hand from PRINTED, in hundredths (integers, no float comparison)
    diffs = [round(float(r[3]) * 100) - round(float(r[2]) * 100) for r in PRINTED]
    assert sum(d < 0 for d in diffs) == 12 and sum(d == 0 for d in diffs) == 3 and sum(d > 0 for d in diffs) == 1
    assert t["direction"].count("falls") == 12 and t["direction"].count("flat") == 3
    assert t["direction"].count("rises") == 1 and t["direction"][2] == "rises"
    assert t["beyond_rounding"].tolist() == [abs(d) > 1 for d in diffs]
    assert int(t["beyond_rounding"].sum()) == 9
    assert np.array_equal(np.round(t["change"] * 100).astype(int), diffs)
    # no pair rises by more than the rounding; both LaMDA rows the issue called counterexamples fall
    assert max(diffs) <= 1 and diffs[13] < 0 and diffs[15] < 0


def test_table3_tolerance_parameter():
    t = L.leviathan_table3(tolerance=0.0)
    assert int(t["beyond_rounding"].sum()) == 13                  # every nonzero change
    assert int(L.leviathan_table3(tolerance=0.2)["beyond_rounding"].sum()) == 0
    with pytest.raises(ValueError, match="tolerance"):
        L.leviathan_table3(tolerance=1.5)
    with pytest.raises(TypeError, match="tolerance"):
        L.leviathan_table3(tolerance=[0.01, 0.02])
