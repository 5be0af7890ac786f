"""Tests of specdec.acceptance.engine_metrics: the one front end of the counters reader (names, forms, files) and the
figures each engine prints for one alpha (against sums written out here, not specdec's formulas)."""

from __future__ import annotations

import json

import pytest

import specdec as sd
from specdec.acceptance.engine_metrics import VLLM_METRICS, counter_difference, parse_vllm_metrics, printed_figures


def test_printed_figures_against_sums_written_out():
    """alpha 0.7, k = 3: E[L] = 1 + .7 + .49 + .343; vLLM's rate (E[L] - 1) / 3; older SGLang's E[L] / 4."""
    rows = {(engine, name): value for engine, name, _, value in printed_figures(0.7, 3)}
    length = 1 + 0.7 + 0.49 + 0.343
    assert rows[("vLLM V1", "Mean acceptance length")] == pytest.approx(length, rel=1e-15)
    assert rows[("SGLang", "accept len")] == pytest.approx(length, rel=1e-15)
    assert rows[("vLLM V1", "Avg Draft acceptance rate")] == pytest.approx((length - 1) / 3, rel=1e-14)
    assert rows[("SGLang 0.5.23", "accept rate")] == rows[("vLLM V1", "Avg Draft acceptance rate")]
    assert rows[("vLLM V1", "Per-position acceptance rate")] == pytest.approx((0.7, 0.49, 0.343), rel=1e-14)
    assert rows[("vLLM V0 (up to 0.9)", "Draft acceptance rate")] == 0.7
    assert rows[("vLLM V0 (up to 0.9)", "System efficiency")] == pytest.approx(length / 4, rel=1e-14)
    assert rows[("SGLang, older (commit 78ac30c2)", "accept rate")] == pytest.approx(length / 4, rel=1e-14)
    with pytest.raises(ValueError, match="alpha must be in"):
        printed_figures(1.2, 3)
    with pytest.raises(ValueError, match="k must be a whole number >= 1; got 0"):
        printed_figures(0.5, 0)


def test_mapping_forms_agree():
    """Plain names, vLLM names with and without _total, per-position as list or {position: count}: one result."""
    ref = {"num_drafts": 100.0, "num_draft_tokens": 300.0, "num_accepted_tokens": 150.0,
           "accepted_per_position": [80.0, 45.0, 25.0]}
    forms = [
        {"num_drafts": 100, "num_draft_tokens": 300, "num_accepted_tokens": 150, "accepted_per_position": [80, 45, 25]},
        {VLLM_METRICS["num_drafts"]: 100, VLLM_METRICS["num_draft_tokens"] + "_total": 300,
         VLLM_METRICS["num_accepted_tokens"]: 150, VLLM_METRICS["accepted_per_position"]: {"0": 80, "1": 45, "2": 25},
         "vllm:num_requests_running": 3, "sglang:spec_accept_length": 2.5},
        (100, 300, 150, [80, 45, 25]),
    ]
    for form in forms:
        assert parse_vllm_metrics(form) == ref


def test_files_and_text(tmp_path):
    """A JSON file, a TOML file and a saved /metrics page read the same; a path with spaces is a file."""
    (tmp_path / "c.json").write_text(json.dumps({"num_drafts": 10, "num_draft_tokens": 40, "num_accepted_tokens": 20}))
    (tmp_path / "c.toml").write_text("num_drafts = 10\nnum_draft_tokens = 40\nnum_accepted_tokens = 20\n")
    (tmp_path / "my page.txt").write_text("vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total"
                                          " 40\nvllm:spec_decode_num_accepted_tokens_total 20\n")
    want = {"num_drafts": 10.0, "num_draft_tokens": 40.0, "num_accepted_tokens": 20.0}
    for source in (tmp_path / "c.json", str(tmp_path / "c.toml"), str(tmp_path / "my page.txt")):
        assert parse_vllm_metrics(source) == want
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(ValueError, match="empty.txt': no vLLM speculative decoding counters"):
        parse_vllm_metrics(tmp_path / "empty.txt")


@pytest.mark.parametrize("source, exc, match", [
    ({"num_drafts": 1, "num_draft_tokens": 4}, ValueError,
     r"counters: missing the counter\(s\) num_accepted_tokens \(vllm:spec_decode_num_accepted_tokens\)"),
    ({"num_drafts": 1, "num_draft_tokens": 4, "num_accepted_tokens": 2, "accepted": 2}, ValueError,
     "unknown field 'accepted'"),
    ({"num_drafts": 1, "num_draft_tokens": 4, "num_accepted_tokens": 2, "accepted_per_position": []}, ValueError,
     "one count per draft position"),
    ({"num_drafts": 1, "num_draft_tokens": 4, "num_accepted_tokens": 2, "accepted_per_position": {1: 1, 2: 1}},
     ValueError, "positions 0, 1, ..., k - 1 without gaps"),
    ({"num_drafts": True, "num_draft_tokens": 4, "num_accepted_tokens": 2}, TypeError, "num_drafts must be a real"),
    ("vllm:spec_decode_num_drafts_total 1\nthis is not a metric line\n", ValueError, "not a Prometheus sample line"),
    ("vllm:other_total 1\n# no counters here\n", ValueError, "no vLLM speculative decoding counters"),
    (3.5, TypeError, "source must be a dict of vLLM counters"),
    ({"num_drafts": 1, "num_draft_tokens": 4, "num_accepted_tokens": 2}, ValueError, "labels applies to"),
])
def test_front_end_errors(source, exc, match):
    """Each malformed input names the counter or the form; plain numbers only."""
    labels = {"model_name": "m"} if match == "labels applies to" else None
    with pytest.raises(exc, match=match) as info:
        parse_vllm_metrics(source, labels)
    assert "np.float64" not in str(info.value)


def test_counter_difference_refuses_a_restart():
    """A counter that decreased between snapshots (an engine restart) is refused, naming it."""
    after = {"num_drafts": 5.0, "num_draft_tokens": 20.0, "num_accepted_tokens": 9.0}
    before = {"num_drafts": 7.0, "num_draft_tokens": 20.0, "num_accepted_tokens": 9.0}
    with pytest.raises(ValueError, match="vllm:spec_decode_num_drafts decreased"):
        counter_difference(after, before)
    assert sd.engine_metrics.source_label(("x",)) == "counters (numbers)"
