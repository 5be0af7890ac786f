"""The held-out published speedups: well formed, cited, mixed, and disjoint from the calibration's fit."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import pytest

from specdec import calibration, drafters
from specdec import validation_rows as vr
from specdec.sources import SOURCES, Cited

ROWS = vr.VALIDATION_ROWS


def table_of(quoted) -> str:
    """The table (or section) a record was read in: its ``where`` up to the row or the parenthesis."""
    return quoted.where.split(", row")[0].split(" (")[0].strip()


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.key)
def test_row_is_well_formed(row):
    assert isinstance(row, vr.PublishedSpeedup)
    assert row.draft_kind in vr.DRAFT_KINDS
    assert row.engine in vr.ENGINES or row.engine.startswith("other:")
    assert row.gpu in vr.GPUS
    assert row.precision is None or row.precision in vr.PRECISIONS
    assert row.tau_convention in vr.TAU_CONVENTIONS
    assert row.shape_from in vr.SHAPE_FROM
    assert row.metric in vr.METRICS
    assert row.tau >= 1 and row.speedup > 0
    assert row.batch >= 1 and row.gpu_count >= 1 and row.tau_batch >= 1
    # re-running the checks on a copy raises nothing
    dataclasses.replace(row)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.key)
def test_citation_is_complete(row):
    q = row.quoted
    assert q.source in SOURCES
    assert q.where.strip() and q.checked_in.strip()
    assert q.status in ("verified", "secondary")
    source = SOURCES[q.source]
    assert source.arxiv or source.repository or source.venue
    # the printed numbers are in the record itself
    printed = set(q.value.values()) if isinstance(q.value, dict) else set()
    assert row.tau_printed in printed
    assert any(math.isclose(row.speedup, v) for v in printed if isinstance(v, float))


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.key)
def test_tau_is_normalised_to_tokens_per_round_with_the_targets_token(row):
    expected = {"includes-target-token": row.tau_printed, "draft-tokens-only": row.tau_printed + 1,
                "acceptance-rate-mtp1": 1 + row.tau_printed}.get(row.tau_convention)
    assert expected is not None and math.isclose(row.tau, expected)
    longest = row.tree_tokens if row.tree_tokens is not None else (None if row.k is None else row.k + 1)
    if longest is not None:
        assert row.tau <= longest


def test_keys_are_unique():
    counts = Counter(r.key for r in ROWS)
    assert not [k for k, n in counts.items() if n > 1]


def test_the_set_is_large_and_mixed():
    assert len(ROWS) >= 20
    families = {"model": "draft model", "eagle": "eagle", "eagle2": "eagle", "eagle3": "eagle", "medusa": "medusa",
                "medusa2": "medusa", "mtp": "mtp", "ngram": "n-gram", "pld": "n-gram", "lookahead": "lookahead",
                "suffix": "suffix"}
    seen = {families[r.draft_kind] for r in ROWS}
    assert len(seen) >= 4
    assert {"draft model", "eagle", "medusa", "n-gram", "mtp"} <= seen
    assert sum(r.batch > 1 for r in ROWS) >= 3
    assert {r.draft_kind for r in ROWS} >= {"eagle", "eagle2", "eagle3"}


def fit_measurements():
    """Every timing the calibration is fitted to: calibration.MEASUREMENTS and, once it exists, specdec.calibration.profiles."""
    import importlib

    fitted = [m for m in calibration.MEASUREMENTS if m.role == "fit"]
    try:
        profiles = importlib.import_module("specdec.calibration.profiles")
    except ModuleNotFoundError:
        return fitted
    return fitted + [m for m in getattr(profiles, "FITTED", ()) if m.role == "fit"]


def test_no_row_duplicates_a_fit_measurement():
    """S4: no row comes from a table (or section) of a source whose numbers the calibration is fitted to."""
    fitted = {(m.quoted.source, table_of(m.quoted)) for m in fit_measurements()}
    assert fitted, "the calibration lists fit measurements"
    clashes = [r.key for r in ROWS if (r.quoted.source, table_of(r.quoted)) in fitted]
    assert not clashes
    # and, concretely, the SGLang batch-1 baseline of EAGLE-3's Table 4 (a fit measurement) is not a row's baseline
    assert not any(r.quoted.source == "li2025eagle3" and "Table 4" in r.quoted.where for r in ROWS)


def test_caps_of_rule_s5():
    regular = [r for r in ROWS if not r.coverage]
    per_source = Counter(r.quoted.source for r in regular)
    per_table = Counter((r.quoted.source, table_of(r.quoted)) for r in regular)
    assert max(per_source.values()) <= 12
    assert max(per_table.values()) <= 8


def test_coverage_rows_fill_families_the_caps_left_empty():
    regular_kinds = {r.draft_kind for r in ROWS if not r.coverage}
    for row in (r for r in ROWS if r.coverage):
        assert row.draft_kind not in regular_kinds


def test_batch_rows_follow_rule_s2a():
    """A batch > 1 row either measured tau at its own batch or is greedy (where tau does not depend on the batch)."""
    for r in ROWS:
        assert r.tau_batch == r.batch or (r.temperature == 0 and r.tau_batch == 1)


def test_spec_bench_rows_agree_with_the_drafters_transcription():
    """Rows flagged as cited elsewhere match specdec.drafts.drafters.SPEC_BENCH_A100, transcribed independently."""
    checked = 0
    for r in ROWS:
        if "specdec.drafts.drafters.SPEC_BENCH_A100" not in r.also_cited_in:
            continue
        model = "vicuna-7b" if r.target == "vicuna-7b-v1.3" else "vicuna-13b"
        table = drafters.SPEC_BENCH_A100[model].value
        name = {"eagle2": "EAGLE2", "eagle3": "EAGLE3", "eagle": "EAGLE", "medusa": "Medusa"}[r.key.rsplit("-", 1)[1]]
        _, tokens, overall = table[name]
        assert (r.tau, r.speedup) == (tokens, overall)
        checked += 1
    assert checked == 6


def test_printed_throughputs_give_the_printed_mtp_speedups():
    """The speedups printed next to throughputs are those throughputs' ratios, to the printed rounding."""
    checked = 0
    for r in (r for r in ROWS if r.draft_kind == "mtp"):
        v = r.quoted.value
        if "tokens_per_s_per_rank" in v:       # LMSYS: +59.8% printed to 0.1 %
            assert abs(v["tokens_per_s_per_rank"] / v["baseline_tokens_per_s_per_rank"] - r.speedup) < 5e-4
        else:                                  # TensorRT-LLM: two decimals
            assert abs(v["TPS/User"] / v["TPS/User without MTP"] - r.speedup) < 5e-3
        checked += 1
    assert checked == 7


def test_mtp_acceptance_grows_with_depth_but_not_past_one_token_per_layer():
    """TensorRT-LLM's table: tau rises with the MTP depth, each extra layer adds less than one token."""
    rows = sorted((r for r in ROWS if r.engine == "trtllm"), key=lambda r: r.k)
    taus = [r.tau for r in rows]
    assert [r.k for r in rows] == [1, 2, 3, 4, 5]
    assert all(0 < b - a < 1 for a, b in zip(taus, taus[1:], strict=False))


def test_specdecode_bench_chain_length_matches_its_acceptance_rate():
    """1 + k * (acceptance rate) = accepted length: 1 + 3 x 0.415 = 2.245, printed 2.25 (so it counts the target's
    token)."""
    chain = next(r for r in ROWS if r.key == "specdecode-bench-qwen3-8b-eagle-chain")
    assert abs(1 + chain.k * 0.415 - chain.tau) < 0.01


def _good(**changes):
    return dataclasses.replace(ROWS[0], **changes)


@pytest.mark.parametrize("changes, word", [
    ({"draft_kind": "hydra"}, "draft_kind"),
    ({"engine": "tgi"}, "engine"),
    ({"gpu": "A6000"}, "gpu"),
    ({"precision": "int4"}, "precision"),
    ({"tau": 0.9, "tau_printed": 0.9}, "tau"),
    ({"tau": 4.0}, "tau"),
    ({"speedup": 0.0}, "speedup"),
    ({"batch": 0}, "batch"),
    ({"parallelism": "tp2"}, "parallelism"),
    ({"parallelism": "pp2"}, "parallelism"),
    ({"draft_kind": "model", "draft_model": None}, "draft_model"),
    ({"temperature": -1.0}, "temperature"),
    ({"tau_convention": "draft-tokens-only"}, "tau"),
    ({"tree_tokens": 4}, "tau"),
    ({"metric": "goodput"}, "metric"),
])
def test_bad_rows_are_refused_naming_the_field(changes, word):
    with pytest.raises((ValueError, TypeError), match=word):
        _good(**changes)


def test_cited_checks_its_source():
    assert Cited(1.0, "lmsys-mtp", "somewhere", "verified").source == "lmsys-mtp"
    assert Cited(1.0, "li2024eagle", "somewhere", "verified").source == "li2024eagle"
    with pytest.raises(ValueError, match="source"):
        Cited(1.0, "no-such-source", "somewhere", "verified")
    with pytest.raises(ValueError, match="status"):
        Cited(1.0, "lmsys-mtp", "somewhere", "checked")


def test_references_page_lists_every_new_source_at_its_commit():
    import pathlib

    page = (pathlib.Path(__file__).resolve().parents[1] / "book" / "appendix" / "references.md").read_text()
    for key in ("specdecode-bench", "lmsys-mtp", "trtllm-blog-r1-b200"):
        s = SOURCES[key]
        assert s.repository in page and s.commit[:8] in page, s.key
    for key in {r.quoted.source for r in ROWS}:
        source = SOURCES[key]
        assert (source.arxiv and source.arxiv in page) or (source.repository and source.repository in page), key


def test_second_collection_comes_from_sources_the_first_did_not_use():
    """A5: the second collection's rows are new sources, read after the first collection, and at least twenty."""
    first = {r.quoted.source for r in ROWS if r.collection == 1}
    second = [r for r in ROWS if r.collection == 2]
    assert len(second) >= 20
    assert not first & {r.quoted.source for r in second}
    # the second collection follows the first in the tuple (the order the sources were read)
    assert [r.collection for r in ROWS] == sorted(r.collection for r in ROWS)
    with pytest.raises(ValueError, match="collection must be 1 or 2"):
        dataclasses.replace(ROWS[0], collection=3)
    with pytest.raises(TypeError, match="collection"):
        dataclasses.replace(ROWS[0], collection="2")


def _ratio_fits(numerator: float, denominator: float, printed: float, step: float = 0.005) -> bool:
    """Some values within the rounding (half a unit of the last printed digit, 0.005 here) of the two printed
    numbers give a ratio that rounds to the printed one."""
    low = (numerator - step) / (denominator + step)
    high = (numerator + step) / (denominator - step)
    return low <= printed + step and printed - step <= high


def test_second_collection_speedups_agree_with_the_times_printed_beside_them():
    """OPT-Tree prints tokens/s with and without speculation, MagicDec the times per token, Sequoia the time between
    tokens and Hugging Face's 24.2 ms: each printed speedup is their ratio, within the printed rounding."""
    second = [r for r in ROWS if r.collection == 2]
    opt = [r for r in second if r.quoted.source == "wang2024opttree"]
    magic = [r for r in second if r.quoted.source == "chen2024magicdec"]
    assert len(opt) == 8 and len(magic) == 3
    for r in opt:
        assert _ratio_fits(r.quoted.value["Tokens/s"], r.quoted.value["vanilla Tokens/s"], r.speedup), r.key
    for r in magic:
        assert _ratio_fits(r.quoted.value["TAR"], r.quoted.value["TSD"], r.speedup), r.key
    seq = next(r for r in second if r.key == "sequoia-t1-llama-2-7b-sequoia128x10")
    hf_step = vr.SEQUOIA_CAPTION.value["incremental decoding ms/token"]    # the caption's plain step
    assert vr.SEQUOIA_CAPTION.source == seq.quoted.source
    assert _ratio_fits(hf_step, 6.0, seq.speedup, step=0.05)   # Table 1: TBT 6.0 ms/token, one decimal
    # the check can fail: a speedup off by a hundredth beyond the rounding is caught
    assert not _ratio_fits(11.35, 6.29, 1.82)
