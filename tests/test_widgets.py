"""Every explorer of the book: builds, follows its controls, shows specdec's numbers, and its snapshot.

One entry of ``CASES`` per explorer cell of the book (called as its chapter
calls it). For each: the explorer builds; moving a control recomputes; its
``values`` equal what ``specdec`` itself computes (called here directly, not
through the explorer) at several settings; its image is an ``<img>`` with alt
text naming the current values, shown at its CSS size with twice the pixels;
its ``text/html`` snapshot is deterministic, has every control disabled at
its default, the read-out and the one-line note, and no image or model id;
the five headline explorers carry the ``specdec-live`` marker and a
configuration with every constant their JavaScript needs; and ``repr`` is a
sentence. Comparisons of numbers computed by the same specdec calls are
exact; by other routes, ``rel=1e-12``.
"""

from __future__ import annotations

import ast
import base64
import functools
import html
import io
import json
import math
import pathlib
import re
from dataclasses import asdict

import ipywidgets as widgets
import numpy as np
import pytest
from PIL import Image
from reprs import forbidden_in

import specdec as sd
from specdec.widgets._base import LIVE_NOTE, SNAPSHOT_NOTE, Explorer
from specdec.widgets._render import Blitter, encode_png

ROOT = pathlib.Path(__file__).resolve().parents[1]
H = sd.hardware
T70, D8, TP8 = H.LLAMA_70B, H.LLAMA_8B, H.H100.scaled(8)
LIVE = {"expected-tokens", "speedup", "checklist", "threshold", "serving-metrics"}


def _expected_tokens(s):
    el = sd.expected_tokens(s["alpha"], s["k"])
    return {"expected_tokens": el, "ceiling": s["k"] + 1, "fraction_of_ceiling": el / (s["k"] + 1),
            "p_all_accepted": s["alpha"] ** s["k"], "next_draft_gain": s["alpha"] ** (s["k"] + 1)}


def _speedup(s):
    a, k, t0, td, tv, to = (s[n] for n in ("alpha", "k", "t0", "t_draft", "t_verify", "t_overhead"))
    ks = np.arange(1, 17)
    tds, tvs = sd.round_times_vs_k(ks, k, td, tv, s["verify_slope"])
    tvs = np.maximum(tvs, t0)              # no verification pass is cheaper than a plain step (tv >= t0 here)
    curve = sd.speedup(a, ks, t0, tds, tvs, to)
    best = int(np.argmax(curve)) + 1
    return {"speedup": sd.speedup(a, k, t0, td, tv, to), "t_round": td + tv + to,
            "c_draft": td / (k * t0), "c_verify": (tv + to) / t0, "quick_estimate": sd.quick_estimate(a, k, t0, td, tv),
            "best_k": best, "best_speedup": float(curve[best - 1])}


def _checklist(s):
    a = sd.checklist.assess(sd.checklist.Workload(**s, name="chat assistant"))
    return {"verdict": a.verdict, "speedup": a.speedup, "request_speedup": a.request_speedup,
            "passed": {c.key: c.passed for c in a.checks}}


def _threshold(s):
    k, cd, cv, a = s["k"], s["c_draft"], s["c_verify"], s["alpha"]
    return {"break_even_alpha": sd.break_even_alpha(k, cd, cv), "round_cost": k * cd + cv,
            "speedup": sd.expected_tokens(a, k) / (k * cd + cv)}


def _serving(s):
    a, k = s["alpha"], s["k"]
    el = sd.expected_tokens(a, k)
    out = {"draft_acceptance_rate": (el - 1) / k, "length_with_bonus": el, "length_without_bonus": el - 1}
    out["length_with_bonus_as_without"] = (sd.acceptance.alpha_for_expected_tokens(el + 1, k) if el <= k else math.nan)
    return out


def _verify(s):
    return {"c_verify": H.verify_cost(T70, TP8, s["k"], batch=s["batch"], context=s["context"]),
            "t0": H.step_time(T70, TP8, s["batch"], s["context"])}


def _batch_context(s):
    cd = H.draft_cost(D8, T70, TP8, s["batch"], s["context"], kv_budget=s["kv_budget"])
    return {"speedup_full": sd.deployment.speculative_speedup(T70, D8, TP8, s["alpha"], s["k"], batch=s["batch"],
                                                              context=s["context"]),
            "speedup_capped": sd.deployment.speculative_speedup(T70, D8, TP8, s["alpha"], s["k"], batch=s["batch"],
                                                                context=s["context"], draft_cost_override=cd)}


def _latency(s):
    r = sd.deployment.speculative_costs(T70, D8, TP8, s["alpha"], s["k"], s["batch"], s["context"])
    return {"throughput_ratio": float(r.throughput_speculative / r.throughput_baseline)}


def _regime(s):
    d = sd.regimes.diagnose(T70, D8, TP8, s["alpha"], s["k"], s["batch"], s["context"], s["prefill_share"])
    return {"decode_speedup": d.decode_speedup, "verdict": d.verdict}


def _residual(s):
    q = sd.synthetic.interpolate_draft(sd.synthetic.EXAMPLE_TARGET, sd.synthetic.EXAMPLE_DRAFT, s["mismatch"])
    p = sd.synthetic.temper_distribution(sd.synthetic.EXAMPLE_TARGET, s["temperature"])
    return {"alpha": float(np.minimum(p, sd.synthetic.temper_distribution(q, s["temperature"])).sum())}


def _temperature(s):
    out = {}
    for kind in ("peaked", "flat"):
        zt, zd = sd.synthetic.synthetic_logit_pair(kind, 200, 32, noise=s["noise"], sharpness=s["sharpness"], rng=0)
        out[kind] = sd.synthetic.acceptance_vs_temperature(zt, zd, [0.2, 1.0, 2.0])
    return out


def _log(s):
    counts = sd.estimation.simulate_accepted_counts(s["alpha"], s["k"], s["n_rounds"], np.random.default_rng(s["seed"]))
    rate = counts.sum() / (counts.size * s["k"])
    return {"draft_acceptance_rate": rate, "alpha_from_rate": sd.acceptance.alpha_from_draft_acceptance_rate(rate, s["k"])}


def _roofline(s):
    hw = H.GPUS[s["gpu"]].scaled(s["n_gpus"]) if s["n_gpus"] > 1 else H.GPUS[s["gpu"]]
    t, d = H.MODELS[s["target"]], H.MODELS[s["draft"]]
    return {"c_verify": H.verify_cost(t, hw, s["k"], s["batch"], s["context"]),
            "speedup": sd.deployment.speculative_speedup(t, d, hw, s["alpha"], s["k"], s["batch"], s["context"])}


def _bonus(s):
    r = sd.literature.bonus_token_error(s["alpha"], s["k"], s["c_draft"], 1.0)
    el = sd.expected_tokens(s["alpha"], s["k"])
    return {"correct": el / (s["k"] * s["c_draft"] + 1.0), "without_bonus": r["without_bonus"]}


CAL = sd.calibration
_PART4_MODELS = {"Llama 3.1 70B": H.LLAMA_70B, "Llama 3.1 8B": H.LLAMA_8B, "Llama 3.2 1B": H.LLAMA_1B}


def _calibration(s):
    one = H.GPUS[s["gpu"]]
    one = one.calibrated(one.calibration, step_overhead=s["step_overhead_ms"] * 1e-3) if s["calibrated"] else one.ideal()
    hw = one.scaled(s["n_gpus"]) if s["n_gpus"] > 1 else one
    t, d, b, c, k = _PART4_MODELS[s["target"]], _PART4_MODELS[s["draft"]], s["batch"], s["context"], s["k"]
    kv = s["calibrated"]
    return {"t0": H.step_time(t, hw, b, c), "c_verify": H.verify_cost(t, hw, k, b, c), "c_draft": H.draft_cost(d, t, hw, b, c),
            "speedup": sd.deployment.speculative_speedup(t, d, hw, s["alpha"], k, b, c, kv_write=kv),
            "break_even_batch": sd.deployment.break_even_batch(t, d, hw, s["alpha"], k, c, kv_write=kv)}


def _prompt_lookup(s):
    text = sd.drafters.synthetic_copy_text(8000, 32000, s["copy_prob"], s["mean_copy_length"], rng=0)
    run = sd.drafters.simulate_prompt_lookup(text, 1000, s["max_ngram"], s["num_pred"])
    cv = H.verify_cost(CAL.LLAMA2_7B, H.A100, np.arange(1, s["num_pred"] + 1), 1, 512)
    return {"tokens_per_round": run.tokens_per_round, "match_rate": run.match_rate, "n_rounds": run.n_rounds,
            "speedup": run.speedup(cv)}


def _rules(s):
    p = sd.synthetic.temper_distribution(sd.synthetic.EXAMPLE_TARGET, s["temperature"])
    q = sd.synthetic.temper_distribution(sd.synthetic.EXAMPLE_DRAFT, s["temperature"])
    onehot = np.eye(p.size)[int(np.argmax(q))]
    out = {}
    for rule in sd.verification.RULES:
        qq = onehot if rule == "one-hot" else q
        kw = {"epsilon": s["epsilon"], "delta": s["delta"]} if rule == "typical" else {}
        emitted = sd.verification.emitted_distribution(p, qq, rule, **kw)
        out[rule] = {"acceptance": float(sd.verification.acceptance_probability(p, qq, rule, **kw)),
                     "total_variation": float(sd.sampling.total_variation(p, emitted))}
    return out


def _tree(s):
    ra = sd.trees.rank_accept_from_topk(np.array(sd.drafters.MEDUSA_TOPK_VICUNA_7B.value))
    tree = sd.trees.best_tree(s["n_nodes"], ra, s["max_depth"])
    hw = H.A100 if s["calibrated"] else H.A100.ideal()
    cv = sd.trees.tree_verify_cost(CAL.LLAMA2_7B, hw, tree.n_nodes, 1, 512)
    return {"nodes_used": tree.n_nodes, "expected_tokens": tree.expected_tokens, "c_verify": cv,
            "speedup": tree.expected_tokens / cv}


def _dynamic(s):
    alphas = sd.dynamic.beta_alphas(400, s["mean"], s["concentration"], rng=3)
    runs = sd.dynamic.compare_schedules(alphas, 256, 5, k=s["k"], start=float(s["start"]), c_draft=0.02,
                                        c_verify=np.linspace(1.0, 1.5, 64))
    return {"speedup": {p: r.speedup for p, r in runs.items()}}


def _goodput(s):
    g = (H.H100 if s["calibrated"] else H.H100.ideal()).scaled(8)
    r = sd.goodput.compare_at_equal_latency(T70, D8, g, s["alpha"], s["k"], s["context"], s["tpot_ms"] * 1e-3,
                                            sd.goodput.output_lengths(2000, 256, rng=1))
    return {"goodput_baseline": r.baseline.throughput, "goodput_speculative": r.speculative.throughput,
            "goodput_ratio": r.goodput_ratio, "capacity_ratio": r.capacity_throughput_ratio}


_DECIDE_TV = {2: "13.1ms", 4: "14ms", 6: "15.1ms"}


def _decide(s):
    n = 12_000.0
    d = sd.decide(t0=s["t0"] * 1e-3, t_draft_step=s["t_draft_step"] * 1e-3, t_overhead=s["t_overhead"] * 1e-3, k=4,
                  t_verify={k: s[f"t_verify_{k}"] * 1e-3 for k in _DECIDE_TV},
                  counters=(n, 4 * n, (s["mean_acceptance_length"] - 1.0) * n))
    return {"verdict": d.verdict, "alpha": d.alpha, "speedup": d.speedup, "best_k": d.best_k,
            "best_speedup": d.best_speedup}


def _matmul(s):
    hw = H.Hardware(bandwidth=s["bandwidth_gbs"] * 1e9, flops=s["gflops"] * 1e9, memory=1e9)
    d, b = s["d"], s["bytes_per_elem"]
    return {"knee": sd.measure.matmul_knee(d, hw, b), "t1": sd.measure.predict_matmul_time(d, 1, hw, b),
            "growth": sd.measure.predict_matmul_time(d, 64, hw, b) / sd.measure.predict_matmul_time(d, 1, hw, b)}


@functools.cache
def _record_ratios(engine):
    """The held-out record of a profile, recomputed from its rows: measured / predicted of each."""
    rows = [r for r in sd.validation_rows.VALIDATION_ROWS if r.engine == engine]
    if len(rows) < sd.heldout.MIN_PROFILE_ROWS:
        rows = list(sd.validation_rows.VALIDATION_ROWS)
    return tuple(r.speedup / c.prediction.speedup for r, c in zip(rows, sd.heldout.check_rows(rows), strict=True))


def _predict(s):
    shape = {"k": s["k"]} if not s["nodes"] else {"n_nodes": s["nodes"], "depth": s["k"], "width": s["width"] or None}
    p = sd.predict_speedup(s["target"], s["draft"], tau=s["tau"], gpu=s["gpu"], n_gpus=s["n_gpus"], engine=s["engine"],
                           batch=s["batch"], context=s["context"], **shape)
    ratios = _record_ratios(s["engine"])
    return {"speedup": p.speedup, "low": p.interval[0], "high": p.interval[1], "t0": p.t0, "t_draft": p.t_draft,
            "t_verify": p.t_verify, "t_overhead": p.t_overhead,
            "band": (p.speedup * min(ratios), p.speedup * max(ratios))}


w = sd.widgets
#: name -> (factory as the chapter calls it, reference computing values from specdec directly, settings to try)
CASES = {
    "expected-tokens": (lambda: w.expected_tokens_explorer(alpha=0.8, k=5, k_max=12), _expected_tokens,
                        [{"alpha": 0.9, "k": 7}, {"alpha": 0.0, "k": 1}, {"alpha": 1.0, "k": 12}, {"alpha": 0.37, "k": 3}]),
    "speedup": (lambda: w.speedup_explorer(alpha=0.8, k=5, t0=5.2, t_draft=2.5, t_verify=6.0, t_overhead=0.5,
                                           verify_slope=0.0, k_max=16), _speedup,
                [{"t_verify": 7.0, "verify_slope": 0.4}, {"alpha": 0.55, "k": 9, "t_draft": 12.3},
                 {"alpha": 1.0, "t_draft": 0.0, "t_overhead": 0.0}]),
    "verify-cost": (lambda: w.verify_cost_explorer(T70, TP8, batch=64, context=0, k=5), _verify,
                    [{"batch": 256}, {"context": 32768, "k": 8}, {"batch": 1, "k": 1}]),
    "batch-context": (lambda: w.batch_context_explorer(T70, D8, TP8, alpha=0.8, k=5, contexts=(1024, 8192, 32768),
                                                       kv_budget=512), _batch_context,
                      [{"alpha": 0.6}, {"batch": 128, "context": 65536}, {"kv_budget": 4096, "k": 3}]),
    "checklist": (lambda: w.checklist_explorer(sd.checklist.EXAMPLES["chat"]), _checklist,
                  [{"batch": 64}, {"alpha": 0.5, "t_setup": 150.0}, {"mean_output_tokens": 5.0, "t_draft": 9.5}]),
    "residual": (lambda: w.sampling_residual_explorer(mismatch=1.0, temperature=1.0), _residual,
                 [{"mismatch": 0.0}, {"mismatch": 0.35, "temperature": 2.5}, {"temperature": 0.2}]),
    "temperature": (lambda: w.sampling_temperature_explorer(noise=1.0, sharpness=1.0), _temperature,
                    [{"noise": 2.0}, {"sharpness": 0.5, "noise": 0.0}]),
    "alpha-from-log": (lambda: w.sampling_log_explorer(alpha=0.8, k=4, n_rounds=300, seed=7), _log,
                       [{"k": 9}, {"alpha": 0.35, "n_rounds": 2000, "seed": 3}, {"k": 1}]),
    "threshold": (lambda: w.threshold_explorer(k=5, c_draft=0.1, c_verify=1.25, alpha=0.8), _threshold,
                  [{"k": 12, "c_draft": 0.3}, {"c_verify": 1.0, "c_draft": 0.0}, {"k": 1, "c_verify": 2.5}]),
    "latency-throughput": (lambda: w.latency_throughput_explorer(T70, D8, TP8, alpha=0.8, k=5, context=2048, batch=256),
                           _latency, [{"alpha": 0.6}, {"batch": 1, "context": 16384}]),
    "regime": (lambda: w.regime_explorer(T70, D8, TP8, alpha=0.8, k=5, batch=1, context=0, prefill_share=0.0), _regime,
               [{"batch": 512, "context": 1024}, {"prefill_share": 0.9}, {"alpha": 0.2}]),
    "roofline": (lambda: w.roofline_explorer(), _roofline,
                 [{"batch": 256}, {"gpu": "a100-80gb", "n_gpus": 4, "context": 8192}, {"target": "llama-3.1-8b", "k": 9}]),
    "bonus-token": (lambda: w.bonus_token_explorer(alpha=0.8, k=5, c_draft=0.05, c_verify=1.0), _bonus,
                    [{"alpha": 0.3}, {"k": 12, "c_draft": 0.2}]),
    "serving-metrics": (lambda: w.serving_metrics_explorer(alpha=0.8, k=4), _serving,
                        [{"alpha": 0.99, "k": 2}, {"alpha": 0.0, "k": 16}, {"alpha": 1.0, "k": 1}, {"alpha": 0.65, "k": 8}]),
    "calibration": (lambda: w.calibration_explorer(target="Llama 3.1 70B", draft="Llama 3.1 8B", gpu="h100-sxm",
                                                   n_gpus=8, calibrated=True, batch=1, context=0, k=5, alpha=0.8),
                    _calibration, [{"batch": 64, "k": 3}, {"calibrated": False, "context": 8192},
                                   {"gpu": "a100-80gb", "n_gpus": 2, "step_overhead_ms": 1.0}]),
    "prompt-lookup": (lambda: w.prompt_lookup_explorer(copy_prob=0.1, mean_copy_length=20.0, num_pred=10, max_ngram=3),
                      _prompt_lookup, [{"copy_prob": 0.3}, {"num_pred": 4, "max_ngram": 1}, {"mean_copy_length": 45.0}]),
    "verification-rules": (lambda: w.verification_explorer(temperature=1.0, epsilon=0.09, delta=0.3), _rules,
                           [{"temperature": 0.4}, {"epsilon": 0.3, "delta": 0.8}, {"temperature": 2.0}]),
    "token-tree": (lambda: w.tree_explorer(n_nodes=14, max_depth=3, calibrated=True), _tree,
                   [{"n_nodes": 40}, {"max_depth": 5, "calibrated": False}, {"n_nodes": 1}]),
    "dynamic-k": (lambda: w.dynamic_k_explorer(mean=0.7, concentration=2.0, k=5, start=20, c_draft=0.02,
                                               c_verify=np.linspace(1.0, 1.5, 64)), _dynamic,
                  [{"mean": 0.85}, {"concentration": 40.0, "k": 2}, {"start": 4}]),
    "goodput": (lambda: w.goodput_explorer(tpot_ms=12.0, alpha=0.8, k=5, context=2048, calibrated=True), _goodput,
                [{"tpot_ms": 30.0}, {"alpha": 0.5, "k": 8}, {"context": 16384, "calibrated": False}]),
    "decide": (lambda: w.decide_explorer(t_verify=_DECIDE_TV), _decide,
               [{"t_verify_4": 40.0}, {"mean_acceptance_length": 1.8, "t0": 13.0}, {"t_draft_step": 6.0}]),
    "matmul-roofline": (lambda: w.matmul_roofline_explorer(bandwidth_gbs=80, gflops=2000, d=4096), _matmul,
                        [{"d": 1024}, {"bandwidth_gbs": 1000.0, "bytes_per_elem": 2}, {"gflops": 100000.0}]),
    "predict": (lambda: w.predict_explorer(), _predict,
                [{"draft": "medusa", "nodes": 20, "k": 4, "tau": 3.2}, {"width": 6}, {"width": 0, "engine": "vllm", "batch": 16, "context": 4096},
                 {"nodes": 0, "target": "llama-3.1-70b", "draft": "llama-3.2-1b", "n_gpus": 8, "k": 5}]),
}


class _Built(dict):
    """Each explorer built once per worker, when a test first asks for it (pytest-xdist spreads the tests)."""

    def __missing__(self, name):
        self[name] = CASES[name][0]()
        return self[name]


@pytest.fixture(scope="module")
def built():
    return _Built()


def assert_matches(values, expected, where):
    for key, want in expected.items():
        got = values[key]
        if isinstance(want, dict):
            assert got == want, f"{where}: {key}"
        elif isinstance(want, str) or isinstance(want, (bool, int)) and not isinstance(want, float):
            assert got == want, f"{where}: {key} = {got!r}, specdec gives {want!r}"
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, equal_nan=True, err_msg=f"{where}: {key}")


_NOT_UPDATED: dict = {}


def _set_quietly(explorer, values):
    """Controls set without an update (and a drawing) per control: only the state after the move that follows
    (through the observer) is read out and checked; ``explorer.values`` is ``_NOT_UPDATED`` until then."""
    for control in explorer.controls.values():
        control.unobserve(explorer._on_change, names="value")
    try:
        for control, value in values.items():
            explorer.controls[control].value = value
    finally:
        for control in explorer.controls.values():
            control.observe(explorer._on_change, names="value")
    explorer.values = _NOT_UPDATED


def _move(explorer, setting):
    """A reader's move to ``setting``: its last control moved through the observer (which updates), the
    others set quietly before it."""
    *first, (control, value) = setting.items()
    _set_quietly(explorer, dict(first))
    explorer.controls[control].value = value
    if explorer.values is _NOT_UPDATED:          # the last control was already there: nothing moved
        explorer.update()


@pytest.mark.parametrize("name", list(CASES))
def test_explorer_builds_and_its_values_match_specdec_at_several_settings(name):
    factory, reference, settings = CASES[name]
    explorer = factory()
    assert isinstance(explorer, Explorer) and isinstance(explorer, widgets.VBox)
    assert explorer.name == name
    assert_matches(explorer.values, reference(explorer.state()), f"{name} at its defaults")
    for setting in settings:
        _move(explorer, setting)                              # a reader's move: the observer updates
        state = explorer.state()
        assert {k: state[k] for k in setting} == setting
        assert explorer.error is None, f"{name} at {setting}: {explorer.error}"
        assert_matches(explorer.values, reference(state), f"{name} at {state}")
        # compute() for a state equals the update's values, without touching the controls
        again = explorer.compute(state)
        assert_matches(again, reference(state), f"{name}.compute({state})")


@pytest.mark.parametrize("name", list(CASES))
def test_snapshot_is_deterministic_disabled_and_says_how_to_run_it(name, built):
    explorer = built[name]
    bundle = explorer._repr_mimebundle_()
    snapshot = bundle["text/html"]
    assert snapshot == CASES[name][0]()._repr_mimebundle_()["text/html"], f"{name}: snapshot differs between two builds"
    # moving a control changes the live explorer, not its snapshot (controls at their defaults)
    control = next(iter(explorer.controls.values()))
    assert snapshot == explorer.snapshot_html()
    assert f'data-explorer="{name}"' in snapshot and 'class="specdec-explorer' in snapshot
    fields = re.findall(r"<(input|select)\b[^>]*>", snapshot)
    assert len(fields) == len(explorer.controls), f"{name}: {len(fields)} fields for {len(explorer.controls)} controls"
    assert all(" disabled" in f for f in re.findall(r"<(?:input|select)\b[^>]*>", snapshot))
    assert html.escape(SNAPSHOT_NOTE) in snapshot
    assert "data:image" not in snapshot and explorer.model_id not in snapshot
    for key, _label, text in explorer.readout_rows(explorer.evaluate(explorer.defaults)):
        assert f'data-key="{key}"' in snapshot and html.escape(text) in snapshot
    assert control.description in snapshot
    # the widget view stays in the bundle for a kernel; the plain text is a sentence
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"] == repr(explorer)


@pytest.mark.parametrize("name", list(CASES))
def test_repr_is_a_sentence(name, built):
    text = repr(built[name])
    assert re.fullmatch(r"[A-Z][^\n]{20,400}\.", text), text
    assert "children=" not in text and "Box(" not in text


@pytest.mark.parametrize("name", sorted(LIVE))
def test_headline_explorers_carry_the_live_marker_and_their_constants(name, built):
    explorer = built[name]
    assert explorer.live
    snapshot = explorer.snapshot_html()
    assert 'class="specdec-explorer specdec-live"' in snapshot
    config = json.loads(html.unescape(re.search(r'data-config="([^"]*)"', snapshot).group(1)))
    assert config["explorer"] == name and config["note"] == LIVE_NOTE
    assert [c["name"] for c in config["controls"]] == list(explorer.controls)
    for spec in config["controls"]:
        control = explorer.controls[spec["name"]]
        assert spec["value"] == explorer.defaults[spec["name"]]
        assert (spec["min"], spec["max"], spec["step"]) == (control.min, control.max, control.step)
    if name == "checklist":
        assert config["constants"]["thresholds"] == sd.policy.CHECKLIST_THRESHOLDS
        assert config["constants"]["worth_it"] == sd.policy.WORTH_IT_SPEEDUP
    assert config["colors"]["named"] == sd.plots.COLORS


def test_other_explorers_are_snapshots_without_a_configuration(built):
    for name in CASES:
        explorer = built[name]
        if name not in LIVE:
            assert not explorer.live and "specdec-live" not in explorer.snapshot_html() \
                and "data-config" not in explorer.snapshot_html(), name


@pytest.mark.parametrize("name", [n for n in CASES if n not in ("checklist", "regime")])
def test_image_has_alt_text_and_is_shown_at_its_size_with_twice_the_pixels(name, built):
    explorer = built[name]
    tag = explorer.image.value
    match = re.fullmatch(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)" width="(\d+)" height="(\d+)" '
                         r'style="max-width:100%;height:auto;display:block">', tag)
    assert match, tag[:200]
    png = base64.b64decode(match.group(1))
    image = Image.open(io.BytesIO(png))
    width, height = (float(x) for x in explorer.figure.get_size_inches())
    assert (int(match.group(3)), int(match.group(4))) == (round(width * 100), round(height * 100))
    assert image.size == (round(width * 200), round(height * 200))       # device pixels = 2 x CSS pixels
    assert width <= sd.plots.CONTENT_WIDTH
    alt = html.unescape(match.group(2))
    assert len(alt) > 60 and alt == explorer.alt_text(explorer.values)


def test_alt_text_follows_the_controls():
    explorer = sd.widgets.expected_tokens_explorer()
    explorer.controls["alpha"].value = 0.55
    alt = html.unescape(re.search(r'alt="([^"]+)"', explorer.image.value).group(1))
    assert "alpha 0.55" in alt and f"{sd.expected_tokens(0.55, 5):.2f}" in alt


def test_a_setting_outside_the_model_shows_a_warning_not_numbers_and_recovers():
    """T_verify below T0: the read-out is the warning (no verdict, no figure, no API error); a valid setting recovers."""
    explorer = sd.widgets.speedup_explorer()
    explorer.sliders["t_verify"].value = 3.0
    assert explorer.error is None and explorer.values["refused"] and "speedup" not in explorer.values
    assert "specdec-error" not in explorer.readout.value and "outside the model" in explorer.readout.value
    assert "T_verify (3 ms) is below T0 (5.2 ms)" in html.unescape(explorer.readout.value)
    assert explorer.image.value == ""
    explorer.sliders["t_verify"].value = 6.5
    assert explorer.error is None and explorer.values["speedup"] == sd.speedup(0.8, 5, 5.2, 2.5, 6.5, 0.5)
    assert explorer.image.value.startswith("<img")


# The cases of issue 23, each at the chapter's defaults with the reported change: the model forbids them.
REPORTED = {
    "speedup (T_verify at k = 1 would be 1.2 ms)": (lambda: w.speedup_explorer(), {"alpha": 0.3, "verify_slope": 1.2}),
    "checklist (T0 40 ms against a TPOT of 5.2 ms)": (lambda: w.checklist_explorer(sd.checklist.EXAMPLES["chat"]),
                                                      {"alpha": 0.25, "t0": 40.0}),
    "threshold (c_verify 0.5)": (lambda: w.threshold_explorer(k=5, c_draft=0.1, c_verify=1.25, alpha=0.8),
                                 {"c_verify": 0.5, "alpha": 0.0}),
}


def test_the_reported_speedup_case_holds_verification_at_t0():
    """Chapter 2: alpha 0.3 with a 1.2 ms slope reported 3.07x at 'best k = 1' (T_verify(1) = 1.2 ms < T0)."""
    explorer = sd.widgets.speedup_explorer()
    v = explorer.evaluate({"alpha": 0.3, "verify_slope": 1.2})
    # at k = 1 the pass costs T0 = 5.2 ms, not 1.2: round 0.5 + 5.2 + 0.5 ms for E[L] = 1.3 tokens
    assert v["best_k"] == 1 and v["best_speedup"] == pytest.approx(5.2 * 1.3 / 6.2, rel=1e-12)
    assert "k = 1 to 4" in v["floor_note"]
    rows = dict((key, text) for key, _, text in explorer.readout_rows(v))
    assert rows["best_speedup"] == "1.090x" and "cheaper than a plain step" in rows["floor_note"]


@pytest.mark.parametrize("case", sorted(set(REPORTED) - {"speedup (T_verify at k = 1 would be 1.2 ms)"}))
def test_the_reported_cases_are_refused_with_a_plain_warning(case):
    factory, change = REPORTED[case]
    explorer = factory()
    for control, value in change.items():
        explorer.controls[control].value = value
    assert explorer.error is None and explorer.values["refused"]
    rows = explorer.readout_rows(explorer.values)
    assert rows and all(key.startswith("refused-") and label == "outside the model" for key, label, _ in rows)
    text = html.unescape(explorer.readout.value)
    for number in ("5.92", "2.000", "verdict", "speculate", "net saving"):
        assert number not in text, f"{case}: {number} still shown"


def test_decide_best_k_is_never_below_the_measured_k():
    """Start here: '2.01x at k = 4' beside 'best k: 5 (2.00x)'. The best k now includes the measured k."""
    explorer = sd.widgets.decide_explorer(t0="12ms", t_draft_step="1.1ms", t_verify=_DECIDE_TV, t_overhead="0.9ms",
                                          k=4, mean_acceptance_length=3.3, num_drafts=12_000)
    worse = []
    for length in np.round(np.arange(1.0, 5.0, 0.05), 2):
        v = explorer.evaluate({"mean_acceptance_length": float(length)})
        rows = dict((key, text) for key, _, text in explorer.readout_rows(v))
        shown_best = float(rows["best_k"].split("(")[1].rstrip("x)"))
        if v["best_speedup"] < v["speedup"] or shown_best < float(rows["speedup"].rstrip("x")):
            worse.append(length)
    assert not worse, f"best k below the measured k at acceptance lengths {worse}"
    # and decide itself: at 2.75 the model's k = 4 (14.07 ms) is slower than the measured 14 ms
    d = sd.decide(t0="12ms", t_draft_step="1.1ms", t_verify=_DECIDE_TV, t_overhead="0.9ms", k=4,
                  mean_acceptance_length=2.75)
    assert d.best_speedup >= d.speedup and (d.best_k == 4) == (d.best_speedup == d.speedup)


def test_decide_explorer_refuses_verification_below_t0_and_t0_above_tpot():
    explorer = sd.widgets.decide_explorer(t0="12ms", t_draft_step="1.1ms", t_verify=_DECIDE_TV, k=4,
                                          mean_acceptance_length=3.3, tpot_off="12.3ms", tpot_on="5.9ms")
    v = explorer.evaluate({"t0": 13.5})
    assert v["refused"] == ("t0 (13.5 ms) is longer than tpot_off (12.3 ms) by more than 5%: a plain decode step "
                            "cannot take longer than the token it produces (tpot_off, measured without speculation, "
                            "is where t0 comes from). Set t0 no higher than tpot_off.",
                            "verification at k = 2 (13.1 ms) is below t0 (13.5 ms): verification is one target "
                            "pass over k + 1 = 3 positions, and no pass is faster than a plain step over one. Set "
                            "verification at k = 2 to at least t0.")
    assert "verdict" not in v and explorer.evaluate({"t0": 12.9})["verdict"]
    with pytest.raises(ValueError, match="t_verify"):
        sd.widgets.decide_explorer(t0="12ms", t_verify={4: "11ms"}, k=4, mean_acceptance_length=3.0)


def _ends(control):
    """The smallest and largest value a control can take (first and last option of a choice)."""
    if isinstance(control, (widgets.FloatSlider, widgets.IntSlider)):
        return [control.min, control.max]
    options = list(control.options)
    value = (lambda o: o[1] if isinstance(o, tuple) else o)
    return [value(options[0]), value(options[-1])]


@pytest.mark.parametrize("name", list(CASES))
def test_every_control_at_its_minimum_and_maximum_shows_numbers_or_a_warning(name):
    """Each control to its ends (the others at their defaults), then all at their minima, all at their maxima.

    No setting a control reaches ends in an API error: the read-out shows numbers, or, outside the model's
    domain, its warning; and no read-out text (or slider value as the live explorers print it) holds a Python
    repr, ``nan`` or an exponent.
    """
    explorer = CASES[name][0]()
    settings = [{c: end} for c, control in explorer.controls.items() for end in _ends(control)]
    settings += [{c: _ends(control)[i] for c, control in explorer.controls.items()} for i in (0, 1)]
    seen = []
    for setting in settings:
        others = {c: v for c, v in explorer.defaults.items() if c not in setting}
        _move(explorer, {**others, **setting})      # the others back at their defaults, then the setting
        assert explorer.error is None, f"{name} at {setting}: an error instead of a warning: {explorer.error}"
        rows = explorer.readout_rows(explorer.values)
        assert rows, f"{name} at {setting}: an empty read-out"
        text = " ".join(t for _, _, t in rows)
        assert not forbidden_in(text), f"{name} at {setting}: {forbidden_in(text)[:3]}"
        seen.append(bool(explorer.values.get("refused")))
    for spec in explorer.control_specs():
        if spec["kind"] != "select":
            shown = " ".join(format(x, spec["format"]) for x in (spec["min"], spec["max"], spec["value"]))
            assert not forbidden_in(shown), f"{name}: slider {spec['name']} shows {shown}"
    if name in ("speedup", "checklist", "threshold", "decide"):
        assert any(seen), f"{name}: no end of a control is outside the model: is the domain checked?"


def test_moving_and_fresh_explorers_draw_the_same_pixels():
    """The redraw cache leaves no stale pixels: moved to a state, an explorer draws what a fresh one draws there.

    (For explorers whose tick labels keep their width; elsewhere the layout made at the first draw stays, on
    purpose, so the image does not jump while a slider moves.)
    """
    for factory, moves in ((sd.widgets.expected_tokens_explorer, {"alpha": 0.9, "k": 7}),
                           (sd.widgets.speedup_explorer, {"k": 3, "t_verify": 7.0}),
                           (sd.widgets.serving_metrics_explorer, {"k": 8, "alpha": 0.55})):
        moved = factory()
        for name, value in moves.items():
            moved.controls[name].value = value
        fresh = factory(**moves)
        assert moved.image.value == fresh.image.value, factory.__name__


def test_one_redraw_cache_restores_backgrounds_and_redraws_only_on_a_new_key():
    explorer = sd.widgets.expected_tokens_explorer()
    blit = explorer._blit
    before = blit.redraws
    for alpha in (0.81, 0.82, 0.81):                    # same axis limits: no new background
        explorer.controls["alpha"].value = alpha
    assert blit.redraws == before
    explorer.controls["k"].value = 12                   # new x axis: one background more
    assert blit.redraws == before + 1
    explorer.controls["k"].value = 5
    explorer.controls["alpha"].value = 0.8              # back to the first limits: restored, not redrawn
    assert blit.redraws == before + 1


def test_encode_png_round_trips_and_blitter_image_is_the_canvas():
    pixels = np.random.default_rng(1).integers(0, 256, (7, 11, 4), dtype=np.uint8)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(encode_png(pixels)))), pixels)
    with pytest.raises(ValueError, match="rgba"):
        encode_png(pixels[..., :3])
    fig, ax = sd.plots.new_figure(2.0, 1.5)
    (line,) = ax.plot([0, 1], [0, 1])
    png = Blitter(fig, 40, [line]).png()
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), np.asarray(fig.canvas.buffer_rgba()))


def test_checklist_layout_puts_the_read_out_under_the_controls():
    """The read-out spans the explorer's width under the sliders (it was beside them, hidden under the table)."""
    explorer = sd.widgets.checklist_explorer()
    assert explorer.children[1] is explorer.readout
    assert all(c.layout.width == "31em" for c in explorer.controls.values())


def test_checklist_html_is_the_explorer_read_out_and_reports_bad_input():
    chat = sd.checklist.EXAMPLES["chat"]
    explorer = sd.widgets.checklist_explorer(chat)
    assert sd.widgets.checklist_html(**asdict(chat)) == explorer.readout.value
    bad = sd.widgets.checklist_html(**{**asdict(chat), "alpha": 2.0})
    assert "alpha" in bad and "<table" not in bad


@pytest.mark.parametrize("call, exc, word", [
    (lambda: sd.widgets.expected_tokens_explorer(alpha=1.2), ValueError, "alpha"),
    (lambda: sd.widgets.expected_tokens_explorer(k=20, k_max=12), ValueError, "k"),
    (lambda: sd.widgets.speedup_explorer(t0=-1.0), ValueError, "t0"),
    (lambda: sd.widgets.speedup_explorer(verify_slope=2.0, t_verify=1.0), ValueError, "t_verify"),
    (lambda: sd.widgets.threshold_explorer(c_verify=0.8), ValueError, "c_verify"),
    (lambda: sd.widgets.checklist_explorer(sd.checklist.EXAMPLES["chat"].replace(t0=9.0)), ValueError, "t0"),
    (lambda: sd.widgets.threshold_explorer(c_verify=0.0), ValueError, "c_verify"),
    (lambda: sd.widgets.serving_metrics_explorer(k=0), ValueError, "k"),
    (lambda: sd.widgets.roofline_explorer(gpu="tpu"), ValueError, "gpu"),
    (lambda: sd.widgets.checklist_explorer("chat"), TypeError, "workload"),
    (lambda: sd.widgets.sampling_log_explorer(n_rounds=5), ValueError, "n_rounds"),
])
def test_explorers_validate_their_defaults(call, exc, word):
    with pytest.raises(exc, match=word):
        call()


def test_state_overrides_are_checked():
    explorer = sd.widgets.threshold_explorer()
    assert explorer.compute({"k": 3})["k"] == 3
    with pytest.raises(ValueError, match="no control 'beta'"):
        explorer.compute({"beta": 1})


# --------------------------------------------------------------------------- the code itself
WIDGETS = sorted((ROOT / "specdec" / "widgets").glob("*.py"))
MATH = {"exp", "expm1", "log", "log1p", "log2", "log10", "power", "sqrt", "cumsum", "cumprod", "prod", "sum", "minimum",
        "maximum"}


@pytest.mark.parametrize("path", WIDGETS, ids=[p.name for p in WIDGETS])
def test_no_formula_in_the_explorers(path):
    """No power of a variable and no numpy/math function of the model in specdec.widgets: specdec computes."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) \
                and not (isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant)):
            bad.append(f"line {node.lineno}: power {ast.unparse(node)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MATH \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "math", "numpy"):
            bad.append(f"line {node.lineno}: {ast.unparse(node)}")
    assert not bad, f"{path.name}: formulas belong in specdec:\n" + "\n".join(bad)


def test_widgets_list_their_exports_explicitly():
    import importlib

    source = (ROOT / "specdec" / "widgets" / "__init__.py").read_text()
    assert "pkgutil" not in source and "import_module" not in source
    expected = {"Explorer"}                                   # the base class, from the private _base module
    assert sd.widgets.Explorer is Explorer
    subs = sorted(p.stem for p in (ROOT / "specdec" / "widgets").glob("*.py") if not p.name.startswith("_"))
    figures = sorted(p.stem for p in (ROOT / "specdec" / "plots").glob("*.py") if not p.name.startswith("_"))
    assert subs == figures          # an explorer's module is named as the module of the figures it moves
    for sub in subs:
        mod = importlib.import_module(f"specdec.widgets.{sub}")
        expected |= set(mod.__all__) | {sub}
        for export in mod.__all__:
            assert getattr(sd.widgets, export) is getattr(mod, export)
    assert set(sd.widgets.__all__) == expected


def test_every_explorer_class_derives_from_the_one_base():
    classes = [getattr(sd.widgets, n) for n in sd.widgets.__all__ if n.endswith("Explorer") and n != "Explorer"]
    assert len(classes) == 23 and all(issubclass(c, Explorer) for c in classes)
    for c in classes:     # each declares only its own parts; the plumbing is the base's
        own = set(vars(c))
        assert not own & {"update", "_repr_mimebundle_", "snapshot_html", "image_html", "__repr__", "_on_change"}, c


def test_dead_rendering_code_is_gone():
    render = (ROOT / "specdec" / "widgets" / "_render.py").read_text()
    for name in ("figure_png", "freeze_layout", "_CachingBlitter", "_TextCachingBlitter", "_LegendText"):
        for path in WIDGETS:
            assert name not in path.read_text(), f"{name} in {path.name}"
    assert render.count("class ") == 1


def test_the_readout_is_written_by_the_one_html_writer():
    """Issue 27: the explorers' read-out goes through specdec.tables.html_table; the exact string it writes."""
    from specdec.widgets._base import table_html

    assert table_html([("x", "a < b", "1.00"), ("y", "why", "no number")]) == (
        '<table class="specdec-readout" style="border-collapse:collapse;margin:0.3em 0"><tr>'
        '<td style="padding:1px 12px 1px 0;text-align:left">a &lt; b</td>'
        '<td data-key="x" style="text-align:right;font-family:monospace;white-space:nowrap">1.00</td></tr><tr>'
        '<td style="padding:1px 12px 1px 0;text-align:left">why</td>'
        '<td data-key="y" style="text-align:left">no number</td></tr></table>')
    source = pathlib.Path(sd.widgets.__file__).with_name("_base.py").read_text()
    called = {n.func.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert "html_table" in called
