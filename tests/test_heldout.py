"""Tests of specdec.predict.heldout: the mapping rules applied to the held-out rows, the median error and the tables.

Each mapping is checked against the row's own fields as the rules of specdec.predict.validation_rows state
them (tree_tokens counts the target's token, the lookahead triple in the note, the Hugging Face
baseline), and the summary statistic against a hand computation on synthetic checks.
"""

from __future__ import annotations

import dataclasses

import pytest

from specdec import catalogue, heldout, predict
from specdec.predict.validation_rows import VALIDATION_ROWS

ROWS = {row.key: row for row in VALIDATION_ROWS}


def test_every_row_is_priced_and_at_least_twenty():
    checks = heldout.check_rows()
    assert len(checks) == len(VALIDATION_ROWS) >= 20
    for c in checks:
        assert c.error == pytest.approx(c.prediction.speedup / c.row.speedup - 1.0, rel=1e-12)
        assert c.prediction.tau == c.row.tau and c.prediction.batch == c.row.batch
        assert c.prediction.interval[0] <= c.prediction.speedup <= c.prediction.interval[1]


def test_tree_rows_verify_tree_tokens_with_depth_passes():
    """EAGLE-2 in Spec-Bench: 60 tokens verified (the target's included), 6 draft passes, 10 per expansion."""
    row = ROWS["specbench-a100-vicuna7b-eagle2"]
    args = heldout.prediction_inputs(row)
    assert (args["n_nodes"], args["depth"], args["width"]) == (59, 6, 10)
    assert args["target"] == "vicuna-7b" and args["gpu"] == "a100-80gb" and args["engine"] == "research"
    assert args["baseline_engine"] == "hf-eager"                  # the speedup divides by Hugging Face decoding
    assert args["context"] == 512                                 # M4: Spec-Bench's mean over tasks
    plan = predict.round_plan("eagle2", n_nodes=59, depth=6, width=10, tau=row.tau)
    assert plan.verify_tokens == row.tree_tokens


def test_medusa_runs_one_head_per_level_and_lookahead_reads_its_note():
    medusa = heldout.prediction_inputs(ROWS["specbench-a100-vicuna7b-medusa"])
    assert medusa["head"].n_params == catalogue.medusa_heads("vicuna-7b", 4)["params"]
    look = heldout.prediction_inputs(ROWS["specbench-3090-vicuna7b-lookahead"])
    assert look["lookahead"] == (7, 5, 7) and "k" not in look and "n_nodes" not in look


def test_layer_split_mtp_qwen3_and_the_deepseek_r1_alias():
    split = heldout.prediction_inputs(ROWS["eagle1-table7-llama-2-70b-chat-hf-bs1"])
    assert split["parallelism"] == "layers" and split["n_gpus"] == 4 and split["target"] == "llama-2-70b"
    mtp = heldout.prediction_inputs(ROWS["lmsys-mtp-deepseek-v3-window3"])
    assert (mtp["k"], mtp["n_gpus"], mtp["parallelism"], mtp["batch"]) == (2, 16, "tp", 32)
    assert mtp["context"] == 65_536 + 2_048 and mtp["baseline_engine"] == "sglang"
    qwen = heldout.prediction_inputs(ROWS["specdecode-bench-qwen3-8b-eagle-tree"])
    spec = catalogue.model_spec("qwen3-8b")
    assert qwen["target"] == "qwen3-8b" and qwen["n_nodes"] == 21
    assert catalogue.model_spec("deepseek-r1") is catalogue.MODEL_SPECS["deepseek-v3"]
    r1 = heldout.prediction_inputs(ROWS["trtllm-deepseek-r1-b200-mtp3"])
    assert r1["target"] == "deepseek-v3" and r1["weights"] == "nvfp4" and r1["head"].bytes_per_param == 0.5625
    # Qwen3 8B from its config: 36 layers of attention (2 x 4096^2 + 2 x 4096 x 1024), MLP (3 x 4096 x 12288), two
    # norms and q/k norms, untied 151936 x 4096 embeddings and the final norm
    layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 12288 + 2 * 4096
    assert abs(spec.n_params - (36 * layer + 2 * 151936 * 4096 + 4096)) <= 36 * 256
    sps = heldout.prediction_inputs(ROWS["specbench-3090-vicuna7b-sps"])
    assert sps["draft"] == "vicuna-68m" and sps["k"] == 5 and sps["weights"] == "fp16"


def test_median_absolute_error_on_synthetic_checks():
    """Errors -0.3, 0.1, 0.2, -0.05: the median of 0.3, 0.1, 0.2, 0.05 is 0.15."""
    base = heldout.check_rows(VALIDATION_ROWS[:1])[0]
    checks = [dataclasses.replace(base, error=e) for e in (-0.3, 0.1, 0.2, -0.05)]
    assert heldout.median_absolute_error(checks) == pytest.approx(0.15, abs=1e-15)
    with pytest.raises(ValueError, match="at least one"):
        heldout.median_absolute_error([])
    with pytest.raises(TypeError, match="checks must be"):
        heldout.median_absolute_error([1.0])


def test_tables_show_every_row_and_every_fitted_timing():
    from specdec import profiles

    checks = heldout.check_rows()
    text = heldout.heldout_table(checks).to_markdown()
    assert len(text.splitlines()) == 2 + len(checks)
    first = checks[0]
    assert f"{first.error:+.0%}" in text.splitlines()[2] and f"{first.row.speedup:.2f}" in text.splitlines()[2]
    fit = heldout.fit_table()
    assert len(fit.rows) == len(profiles.FITTED)
    with pytest.raises(TypeError, match="row must be"):
        heldout.prediction_inputs("specbench")


def test_track_record_recomputes_measured_over_predicted_from_the_public_calls():
    """The research profile's record: each row predicted again with predict_speedup, divided into its speedup."""
    rows = [row for row in VALIDATION_ROWS if row.engine == "research"]
    ratios = []
    for row in rows:
        args = heldout.prediction_inputs(row)
        p = predict.predict_speedup(args.pop("target"), args.pop("draft"), **args)
        ratios.append(row.speedup / p.speedup)
    record = heldout.track_record("research")
    assert record.profile == record.requested == "research" and record.rows == len(rows) >= heldout.MIN_PROFILE_ROWS
    assert record.ratios == pytest.approx(sorted(ratios), rel=1e-12)
    assert set(record.keys) == {row.key for row in rows}
    assert record.too_high == sum(r < 1 for r in ratios)
    ordered = sorted(ratios)
    middle = (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2
    assert record.median == pytest.approx(middle, rel=1e-12)
    assert record.coverage == pytest.approx((len(rows) - 1) / (len(rows) + 1), rel=1e-15)
    assert record.band(2.0) == pytest.approx((2.0 * ordered[0], 2.0 * ordered[-1]), rel=1e-12)


def test_track_record_pools_every_row_below_the_minimum_and_on_synthetic_checks():
    """hf-eager has one held-out row: its record is every row's. Synthetic errors give exact ratios."""
    record = heldout.track_record("hf-eager")
    assert sum(row.engine == "hf-eager" for row in VALIDATION_ROWS) < heldout.MIN_PROFILE_ROWS
    assert record.profile is None and record.requested == "hf-eager" and record.rows == len(VALIDATION_ROWS)
    assert "fewer than" in record.sentence() and "'hf-eager'" in record.sentence()
    base = heldout.check_rows(VALIDATION_ROWS[:1])[0]
    checks = []
    for measured, predicted in ((2.0, 2.5), (3.0, 2.0), (1.5, 1.5)):   # ratios 0.8, 1.5, 1.0
        prediction = dataclasses.replace(base.prediction, speedup=predicted)
        checks.append(dataclasses.replace(base, row=dataclasses.replace(base.row, speedup=measured),
                                          prediction=prediction))
    pooled = heldout.track_record(None, checks)
    assert pooled.ratios == pytest.approx((0.8, 1.0, 1.5), rel=1e-15)
    assert (pooled.low, pooled.median, pooled.high, pooled.too_high) == pytest.approx((0.8, 1.0, 1.5, 1))
    assert pooled.coverage == pytest.approx(0.5, rel=1e-15)
    assert pooled.sentence(2.0).endswith("1.60x to 3.00x.")


def test_track_record_rejects_bad_arguments():
    with pytest.raises(ValueError, match="engine must be one of"):
        heldout.track_record("tgi")
    with pytest.raises(TypeError, match="checks must be a sequence"):
        heldout.track_record(None, "checks")
    with pytest.raises(ValueError, match="at least one"):
        heldout.track_record(None, [])
    with pytest.raises(TypeError, match="checks must be"):
        heldout.track_record(None, [0.5])
    with pytest.raises(ValueError, match="speedup"):
        heldout.track_record("research").band(-1.0)


def test_fixed_cost_once_reprices_the_draft_passes_without_their_fixed_cost():
    """SGLang's Qwen3 8B EAGLE chain: the head passes priced again on the profile's H100 with no fixed cost."""
    from specdec import hardware, profiles

    check = next(c for c in heldout.check_rows() if c.row.key == "specdecode-bench-qwen3-8b-eagle-chain")
    args = heldout.prediction_inputs(check.row)
    p = check.prediction
    assert args["gpu"] == "h100-sxm" and args["n_gpus"] == 1 and len(p.plan.draft_tokens) >= 2
    one = profiles.profile("sglang").on("h100-sxm")
    free = one.calibrated(one.calibration, step_overhead=0.0)
    head = predict.head_model("qwen3-8b", "eagle")
    t_draft = sum(hardware.step_time(head, free, args["batch"], args["context"], n) for n in p.plan.draft_tokens)
    # the same head passes with the fixed cost: the prediction's own draft time
    assert sum(hardware.step_time(head, one, args["batch"], args["context"], n)
               for n in p.plan.draft_tokens) == pytest.approx(p.t_draft, rel=1e-12)
    want = p.tau * p.t0 / (t_draft + p.t_verify + p.t_overhead) / check.row.speedup - 1
    assert heldout.fixed_cost_once(check) == pytest.approx(want, rel=1e-12)
    assert heldout.fixed_cost_once(check) > check.error               # cheaper rounds, higher prediction
    with pytest.raises(TypeError, match="check must be"):
        heldout.fixed_cost_once(check.row)


def test_second_collection_separate_draft_trees_and_d9():
    """Sequoia: a separate draft on a 128-token tree, priced with gpt-fast's profile (D9) over Hugging Face's T0."""
    row = ROWS["sequoia-t1-llama-2-7b-sequoia128x10"]
    args = heldout.prediction_inputs(row)
    assert row.engine == "other:sequoia" and args["engine"] == "gpt-fast" and args["baseline_engine"] == "hf-eager"
    assert (args["draft"], args["n_nodes"], args["depth"], args["width"]) == ("llama-68m", 127, 9, None)
    # the same prediction from the public call, written out by hand from the row's printed fields
    p = predict.predict_speedup("llama-2-7b", "llama-68m", tau=4.98, n_nodes=128 - 1, depth=10 - 1, gpu="a100-80gb",
                                engine="gpt-fast", baseline_engine="hf-eager", context=512, weights="fp16")
    check = next(c for c in heldout.check_rows() if c.row.key == row.key)
    assert check.prediction.speedup == pytest.approx(p.speedup, rel=1e-12)
    magic = heldout.prediction_inputs(ROWS["magicdec-qwen2.5-32b-qwen2.5-7b-bs16"])
    assert (magic["target"], magic["draft"], magic["k"], magic["n_gpus"], magic["batch"], magic["context"]) == \
        ("qwen2.5-32b", "qwen2.5-7b", 2, 8, 16, 32_048)
    assert magic["engine"] == magic["baseline_engine"] == "gpt-fast"
    opt = heldout.prediction_inputs(ROWS["opt-tree-t1-llama-2-70b-l-7b-eagle-tree"])
    assert (opt["draft"], opt["n_nodes"], opt["depth"], opt["parallelism"], opt["gpu"]) == \
        ("llama-2-7b", 25, 5, "layers", "a100-40gb")
    assert opt["baseline_engine"] == "research"                   # the same code's vanilla decoding


def test_track_record_holds_the_rows_run_on_its_engine():
    """gpt-fast's record: MagicDec's rows (a GPT-Fast backend). Sequoia's rows, priced with gpt-fast's profile by
    D9, ran on Sequoia's own code and stay out of it."""
    record = heldout.track_record("gpt-fast")
    ran = {row.key for row in VALIDATION_ROWS if row.engine == "gpt-fast"}
    assert record.profile == "gpt-fast" and set(record.keys) == ran and len(ran) == 3
    assert not {key for key in record.keys if key.startswith("sequoia")}
    assert all(heldout.prediction_inputs(ROWS[k])["engine"] == "gpt-fast" for k in ROWS if k.startswith("sequoia"))


def test_the_table_names_the_profile_that_priced_an_outside_engine():
    checks = [c for c in heldout.check_rows() if c.row.collection == 2]
    table = heldout.heldout_table(checks)
    assert len(table.rows) == len(checks) and table.header[-1] == "error"
    sequoia = [row for row, c in zip(table.rows, checks, strict=True) if c.row.engine == "other:sequoia"]
    assert sequoia and all(row[1].endswith("sequoia (as gpt-fast)") for row in sequoia)
