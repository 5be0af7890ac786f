"""The errata entries: every value evaluates and equals an independent computation (exact fractions,
polynomial roots, or the printed inputs themselves), and the page's tables and links follow the entries."""

import math
import pathlib
import re
from fractions import Fraction

import numpy as np
import pytest

import specdec as sd

ROOT = pathlib.Path(__file__).resolve().parents[1]
E = sd.errata.entry


def exact_tokens(alpha, k):
    """E[L] = sum_{i=0..k} alpha^i with exact rational arithmetic."""
    a = Fraction(str(alpha))
    return sum((a**i for i in range(k + 1)), Fraction(0))


def root_of_tokens(target, k):
    """The alpha in [0, 1] with 1 + alpha + ... + alpha^k = target, from numpy's polynomial roots."""
    coeffs = [1.0] * (k + 1)
    coeffs[-1] -= float(target)  # highest power first; constant term last
    roots = np.roots(coeffs)
    real = [r.real for r in roots if abs(r.imag) < 1e-12 and -1e-12 <= r.real <= 1 + 1e-12]
    assert len(real) == 1
    return real[0]


def test_every_entry_evaluates_and_links_an_existing_chapter():
    rows = sd.errata.table()
    assert len(rows) == len(sd.errata.ENTRIES) >= 20
    assert len({e.key for e in sd.errata.ENTRIES}) == len(sd.errata.ENTRIES)
    for row in rows:
        assert row["ours"] and row["summary"]
        assert (ROOT / (row["chapter"] + ".ipynb")).exists(), row["chapter"]
        assert row["kind"] in sd.errata.KINDS.values()


def notebook_heading(docname):
    """The first level-1 heading of a chapter notebook, as the book shows it (math delimiters dropped)."""
    import nbformat

    nb = nbformat.read(ROOT / f"{docname}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip().replace("$", "")
    raise AssertionError(f"{docname} has no level-1 heading")


def test_chapter_titles_are_the_chapters_headings():
    """Issue 27, item 3: the package keeps the titles as data (it never reads the book), so the data must be
    the headings the chapters show, and it lists exactly the chapters the entries link to."""
    assert set(sd.errata.CHAPTER_TITLES) == {e.chapter for e in sd.errata.ENTRIES}
    for docname, title in sd.errata.CHAPTER_TITLES.items():
        assert title == notebook_heading(docname), docname
    details = sd.errata.markdown_details("bounds") + sd.errata.markdown_details("threshold")
    for docname, title in sd.errata.CHAPTER_TITLES.items():
        assert f"[{title}](../{docname.removeprefix('book/')}.ipynb)" in details


def test_over_provision_is_not_an_erratum():
    """Issue 14.1: 'will over-provision the saving' means the plan overstates the saving, which the book computes."""
    text = " ".join(f"{e.statement} {e.printed} {e.why}" for e in sd.errata.ENTRIES).lower()
    assert "over-provision" not in text
    with pytest.raises(ValueError, match="key must be one of"):
        E("capacity-plan")


def test_part_one_numbers_against_exact_arithmetic():
    assert E("gain-3-to-8").values()["gain"] == pytest.approx(float(exact_tokens(0.8, 8) - exact_tokens(0.8, 3)), rel=1e-14)
    assert E("ceiling-4x").values()["el"] == pytest.approx(float(exact_tokens(0.8, 5)), rel=1e-15)
    assert E("poor-tokens").values()["el"] == pytest.approx(63 / 32, rel=1e-15)
    el5 = exact_tokens(0.8, 5)
    q = E("quick-estimate").values()
    assert q["quick"] == pytest.approx(float(el5 * Fraction("5.2") / (Fraction("5.2") + Fraction("2.5") + 6)), rel=1e-14)
    assert q["exact"] == pytest.approx(float(el5 * Fraction("5.2") / 9), rel=1e-14)
    p = E("poor-speedup").values()
    assert p["two_steps"] == pytest.approx(63 / 64, rel=1e-15)
    assert p["example"] == pytest.approx(float(exact_tokens(0.5, 5) * Fraction("5.2") / 9), rel=1e-14)
    # a draft step of 0.5 T0 = 2.6 ms: the round is 13 + 6 + 0.5 ms
    d = E("draft-per-step").values()
    assert d["step"] == pytest.approx(2.6, rel=1e-15)
    assert d["speedup"] == pytest.approx(float(el5 * Fraction("5.2") / Fraction("19.5")), rel=1e-14)
    assert d["speedup"] < 1


def test_short_output_setups_from_the_break_even_length():
    """T_setup = (N - 1) TPOT (1 - 1/S) makes N tokens the break-even length."""
    s = float(exact_tokens(0.8, 5) * Fraction("5.2") / 9)
    v = E("short-output").values()
    for n, key in ((10, "t10"), (20, "t20")):
        assert v[key] == pytest.approx((n - 1) * 5.2 * (1 - 1 / s), rel=1e-12)
        assert sd.request.break_even_output_length(v[key], 5.2, s) == pytest.approx(n, rel=1e-12)


def test_verify_rule_is_computed_from_the_printed_inputs():
    """Issue 14.2: the source's 6.0 / 5.2, the roofline's ideal 1 and the published whole-round costs."""
    v = E("verify-rule").values()
    assert v["example"] == pytest.approx(float(Fraction("6.0") / Fraction("5.2")), rel=1e-15)
    assert v["example_with_overhead"] == pytest.approx(float(Fraction("6.5") / Fraction("5.2")), rel=1e-15)
    assert v["roofline_min"] == pytest.approx(1.0, rel=1e-12) and v["roofline_max"] == pytest.approx(1.0, rel=1e-12)
    # Spec-Bench A100 / Vicuna-7B, tokens per step / speedup, as printed at b8baa2a0 and at fd2c1cd7
    for key, (tokens, speedup) in {"sps_then": ("2.28", "1.49"), "medusa_then": ("2.32", "1.78"),
                                   "eagle_then": ("3.61", "2.29"), "sps_now": ("2.28", "1.52"),
                                   "medusa_now": ("2.31", "1.71"), "eagle_now": ("3.58", "2.10")}.items():
        assert v[key] == pytest.approx(float(Fraction(tokens) / Fraction(speedup)), rel=1e-14), key
    assert (v["medusa_overhead_min"], v["medusa_overhead_max"]) == (1.18, 1.27)
    # DeepSeek-V3: depth-1 MTP accepted 85-90 % at 1.8x TPS: (1 + a) / 1.8
    assert v["mtp_min"] == pytest.approx(1.85 / 1.8, rel=1e-14) and v["mtp_max"] == pytest.approx(1.9 / 1.8, rel=1e-14)
    assert v["published_min"] == v["mtp_min"] and v["published_max"] == v["eagle_now"]
    text = E("verify-rule").our_value()
    assert "1.154" in text and "b8baa2a0" in text and "fd2c1cd7" in text


def test_utilization_and_long_context_against_the_roofline_by_hand():
    hw = sd.hardware
    gpus = hw.H100_IDEAL.scaled(8)
    u = E("utilization").values()
    # 2 FLOPs per parameter for one token, over 5.2 ms at the 8 GPUs' peak
    assert u["from_t0"] == pytest.approx(2 * hw.LLAMA_70B.n_params / (5.2e-3 * gpus.flops), rel=1e-12)
    assert u["sketch_over_t0"] == pytest.approx(0.03 / u["from_t0"], rel=1e-14)
    assert u["u1"] < u["u32"] < u["u128"] < 0.9


def test_long_context_at_batches_that_fit_in_memory():
    """Issue 24: the point fits (weights + KV of target and draft within 8 x 80 GB), and c_d sits beside c_v.
    The costs are the calibrated model's (the chapters' model), at those batches."""
    hw = sd.hardware
    gpus, t, d, k = hw.H100.scaled(8), hw.LLAMA_70B, hw.LLAMA_8B, 4
    c = E("long-context").values()
    assert c["memory_gb"] == pytest.approx(640.0, rel=1e-12)
    for name, ctx in (("8k", 8192), ("32k", 32768)):
        b = c[f"batch_{name}"]
        per_seq = (ctx + k) * (t.kv_bytes_per_token + d.kv_bytes_per_token)  # both caches, k candidate slots
        free = gpus.memory - t.weight_bytes - d.weight_bytes
        assert b == int(free // per_seq) and b * per_seq <= free < (b + 1) * per_seq
        assert c[f"gb_{name}"] * 1e9 == pytest.approx(t.weight_bytes + d.weight_bytes + b * per_seq, rel=1e-12)
        assert c[f"gb_{name}"] <= c["memory_gb"]
        for context, kind in ((0, "short"), (ctx, "long")):
            t0 = hw.step_time(t, gpus, b, context)
            assert c[f"cv_{kind}_{name}"] == pytest.approx(hw.step_time(t, gpus, b, context, k + 1) / t0, rel=1e-9)
            assert c[f"cd_{kind}_{name}"] == pytest.approx(hw.step_time(d, gpus, b, context) / t0, rel=1e-9)
    # what the entry says: c_v falls towards one plain step at long context while c_d grows
    assert c["cv_short_8k"] > 2 > c["cv_long_8k"] > 1 and c["cv_long_32k"] < c["cv_short_32k"]
    assert c["cd_long_8k"] > c["cd_short_8k"] and c["cd_long_32k"] > c["cd_short_32k"]


def _stored(docname: str) -> dict:
    """Every ``{eval}`` value a chapter notebook stores (what its page shows), by expression."""
    import json

    nb = json.loads((ROOT / f"{docname}.ipynb").read_text())
    found = {}
    for cell in nb["cells"]:
        for item in cell.get("metadata", {}).get("user_expressions", []):
            found[item["expression"]] = item["result"]["data"]["text/plain"].strip("'")
    return found


def test_entries_state_the_numbers_their_chapters_show():
    """Issue 23, item 1: an entry and the chapter that discusses it compute on the same (calibrated) model, so the
    errata never show a reader another value for the same quantity."""
    part1, part2 = "book/part1-speedup-bounds/", "book/part2-cost-accounting/"
    u, shown = E("utilization").values(), _stored(part1 + "04-when-it-does-not-help")
    assert [f"{u['u1']:.2%}", f"{u['u32']:.1%}", f"{u['u128']:.1%}"] == [
        shown['f"{float(util[0]):.2%}"'], shown['f"{float(util[1]):.1%}"'], shown['f"{float(util[2]):.1%}"']]
    assert u["i1"] > u["u1"] and u["i32"] > u["u32"] and u["i128"] > u["u128"]  # the ideal bound is above
    p, i, shown = E("positions-large-batch").values(), E("compute-bound").values(), _stored(part2 + "01-verification-pass")
    assert (f"{p['with_bonus']:.2f}", f"{p['without']:.2f}") == (
        shown['f"{float(cv_k_plus_1[-1]):.2f}"'], shown['f"{float(cv_k[-1]):.2f}"'])
    assert f"{i['ridge']:.0f}" == shown['f"{float(ridge):.0f}"']
    t, shown = E("three-tokens").values(), _stored(part2 + "05-latency-throughput-memory")
    assert (f"{t['alpha']:.3f}", f"{t['with_draft']:.2f}") == (
        shown['f"{float(alpha_three_tokens):.3f}"'], shown['f"{float(s_three_tokens):.2f}"'])
    f, shown = E("prefill-heavy").values(), _stored(part2 + "06-when-not-to-use")
    assert (f"{f['decode']:.2f}", f"{f['end_to_end']:.2f}") == (
        shown['f"{float(s1):.2f}"'], shown['f"{sd.request.end_to_end_speedup(s1, 0.9):.2f}"'])


def test_decode_bottleneck_on_the_chat_example():
    v = E("decode-bottleneck").values()
    assert v["tpot_over_ttft"] == pytest.approx(5.2 / 120, rel=1e-15)
    assert v["decode_over_ttft"] == pytest.approx(5.2 * 399 / 120, rel=1e-14)


def test_thresholds_against_polynomial_roots():
    # quick formula: round of 1 + 2.5/5.2 + 6/5.2 plain steps; exact: (2.5 + 6 + 0.5) / 5.2
    q = E("quick-threshold").values()
    assert q["quick"] == pytest.approx(root_of_tokens(1.3 * (1 + 8.5 / 5.2), 5), abs=1e-10)
    assert q["exact"] == pytest.approx(root_of_tokens(1.3 * 9.0 / 5.2, 5), abs=1e-10)
    s = E("self-speculation").values()
    assert s["half"] == pytest.approx(root_of_tokens(4 * 0.5 + 1, 4), abs=1e-10)
    assert s["head"] == pytest.approx(root_of_tokens(4 * 0.02 + 1, 4), abs=1e-10)
    t = E("three-tokens").values()
    assert t["alpha"] == pytest.approx(root_of_tokens(3.0, 5), abs=1e-10)
    assert t["free_draft"] == pytest.approx(3.0, rel=1e-12)
    assert 1.0 < t["with_draft"] < t["free_draft"]
    assert math.isnan(E("bisection-none").values()["alpha"])
    root = float(sd.symbolic.break_even_root(8, 0.2, 7.399, digits=20))
    assert E("bisection-cap").values()["alpha"] == pytest.approx(root, abs=1e-12)
    assert root > 0.9999


def test_part_two_numbers_by_hand():
    a = E("accepted-name").values()
    assert a["accepted"] == pytest.approx(float(exact_tokens(0.8, 4) - 1), rel=1e-14)
    hw = sd.hardware
    gpus = hw.H100_IDEAL.scaled(8)
    ridge = gpus.flops * hw.LLAMA_70B.bytes_per_param / (2 * gpus.bandwidth)
    i = E("compute-bound").values()
    assert i["intensity"] == pytest.approx(5.0, rel=1e-12)  # 2 FLOPs per parameter per token, 2 bytes per parameter
    assert i["ridge"] == pytest.approx(ridge, rel=1e-12)
    p = E("positions-large-batch").values()
    cal, t = hw.H100.scaled(8), hw.LLAMA_70B
    # calibrated: the pass over n tokens against a plain step, at batch 256 and no context
    assert p["with_bonus"] == pytest.approx(hw.step_time(t, cal, 256, 0, 5) / hw.step_time(t, cal, 256), rel=1e-9)
    assert p["without"] == pytest.approx(hw.step_time(t, cal, 256, 0, 4) / hw.step_time(t, cal, 256), rel=1e-9)
    # and on the ideal roofline, by hand: past the ridge the pass costs its tokens over the ridge
    assert float(hw.verify_cost(t, gpus, 4, batch=256)) == pytest.approx(256 * 5 / ridge, rel=1e-9)
    h = E("heads").values()
    assert h["medusa"] == pytest.approx(2.31 / 2.28, rel=1e-14)
    assert h["hydra"] == pytest.approx(3.26 / 2.28, rel=1e-14)
    assert h["eagle"] == pytest.approx(3.58 / 2.28, rel=1e-14)
    assert h["medusa2_over_1"] == pytest.approx(2.83 / 2.18, rel=1e-14)
    t = E("temperature").values()
    # Leviathan et al. Tables 2-4: (T = 0, T = 1) for the six T5 drafts, as printed
    printed = [(0.75, 0.62), (0.80, 0.68), (0.82, 0.71), (0.65, 0.53), (0.73, 0.55), (0.74, 0.56)]
    assert (t["t5_pairs"], t["t5_fall"]) == (6, sum(hot < cold for cold, hot in printed))
    assert t["low"] < 0.5 < t["high"]
    f = E("prefill-heavy").values()
    assert f["end_to_end"] == pytest.approx(1 / (0.9 + 0.1 / f["decode"]), rel=1e-14)


def test_markdown_table_rows_links_and_bad_source():
    for source in sd.errata.SOURCES:
        n = sum(e.source == source for e in sd.errata.ENTRIES)
        text = sd.errata.markdown_table(source)
        assert text.count("\n") == 1 + n
        details = sd.errata.markdown_details(source)
        assert details.count("- Why: ") == n and "{doc}" not in details
        links = re.findall(r"- Discussed in: \[([^\]]+)\]\(\.\./([^)]+\.ipynb)\)", details)
        assert len(links) == n
        for title, target in links:
            assert (ROOT / "book" / target).exists(), target
            assert "$" not in title
    with pytest.raises(ValueError, match="source must be one of"):
        sd.errata.markdown_details("nope")
    with pytest.raises(ValueError, match="source must be one of"):
        sd.errata.markdown_table("nope")
    with pytest.raises(ValueError, match="source must be one of"):
        sd.errata.table("nope")
    with pytest.raises(ValueError, match="kind must be one of"):
        sd.errata.Erratum("x", "bounds", "s", "typo", "s", "p", dict, "t", "e", "w", "c")
