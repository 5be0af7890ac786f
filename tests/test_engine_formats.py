"""Every form an engine prints, read right or refused clearly (issue 25).

Each input is built here in the shape its engine's source code writes it (file and commit cited at each
builder); values are checked against counts worked out by hand in the comments. The accepting checks at the
end read other files, under ``tests/data/engine_formats/`` (suffix ``_b``), made separately with different
numbers from the same format strings.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import specdec as sd
from specdec.acceptance.engine_metrics import read_engine_source
from specdec.acceptance.estimation import bootstrap_alpha, read_engine_counters

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "engine_formats"
TIMES = dict(t0="12ms", t_draft_step="1.1ms", t_verify="14ms")


def bisect_alpha(length, k):
    """alpha with 1 + a + ... + a^k = length, by bisection written out here."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if sum(mid ** i for i in range(k + 1)) < length else (lo, mid)
    return 0.5 * (lo + hi)


# -- vLLM V1 log line: vllm-project/vllm vllm/v1/spec_decode/metrics.py @ 016a8587edb04ae53c913a1da9355a07dc0ca4ae,
#    SpecDecodingLogging.log: "Mean acceptance length: %.2f, Accepted throughput: %.2f tokens/s, Drafted
#    throughput: %.2f tokens/s, Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate: %s (each
#    %.3f), Avg Draft acceptance rate: %.1f%%"; mean length = 1 + accepted / drafts, rates = per-pos / drafts.
def v1_line(drafts, k, per_pos):
    accepted, drafted = sum(per_pos), drafts * k
    rates = ", ".join(f"{p / drafts:.3f}" for p in per_pos)
    return ("(APIServer pid=7) INFO 08-04 20:51:08 [metrics.py:120] SpecDecoding metrics: "
            f"Mean acceptance length: {1 + accepted / drafts:.2f}, Accepted throughput: {accepted / 10:.2f} tokens/s, "
            f"Drafted throughput: {drafted / 10:.2f} tokens/s, Accepted: {accepted:d} tokens, "
            f"Drafted: {drafted:d} tokens, Per-position acceptance rate: {rates}, Avg Draft acceptance rate: "
            f"{100 * accepted / drafted:.1f}%")


def test_vllm_v1_log_line_one_and_many():
    """1000 rounds at k = 4 accepting 700, 450, 280, 150: 1580 of 4000, mean 2.58; two lines are summed."""
    s = read_engine_source(v1_line(1000, 4, [700, 450, 280, 150]))
    assert s.engine == "vllm" and s.counters == {"num_drafts": 1000.0, "num_draft_tokens": 4000.0,
                                                 "num_accepted_tokens": 1580.0,
                                                 "accepted_per_position": [700.0, 450.0, 280.0, 150.0]}
    text = "\n".join([v1_line(1000, 4, [700, 450, 280, 150]), "INFO other line", v1_line(500, 4, [400, 300, 200, 100])])
    s = read_engine_source(text)
    assert s.counters["num_drafts"] == 1500 and s.counters["num_accepted_tokens"] == 1580 + 1000
    assert s.counters["accepted_per_position"] == [1100.0, 750.0, 480.0, 250.0]
    assert "the sum of 2 lines" in s.notes[0]


def test_vllm_v1_log_rounds_that_drafted_fewer():
    """n-gram rounds drafting fewer: 1000 rounds, 3390 drafted, 1400 accepted (mean 2.40): the rounds come from the
    printed mean (1400 / 1.40 = 1000), with a note that the counts are approximate."""
    line = v1_line(1000, 4, [600, 400, 250, 150]).replace("Drafted: 4000 tokens", "Drafted: 3390 tokens")
    s = read_engine_source(line)
    assert s.counters["num_drafts"] == 1000 and s.counters["num_draft_tokens"] == 3390
    assert any("reconstructed" in n for n in s.notes)


# -- vLLM V0 log line: vllm-project/vllm vllm/engine/metrics.py @ 00c33e81b526a179a6afb86512d1e8198965ee2f,
#    _format_spec_decode_metrics_str; totals from vllm/spec_decode/metrics.py @ 027b4855494f178fa4745d3e84fed815b7b935a8
#    (AsyncMetricsCollector: aggregate counts since start, draft_tokens % k == 0, max emitted = rounds (k + 1)).
V0_LINE = ("INFO 12-16 16:46:04 metrics.py:482] Speculative metrics: Draft acceptance rate: 0.797, System efficiency: "
           "0.640, Number of speculative tokens: 5, Number of accepted tokens: 197711, Number of draft tokens: 248165, "
           "Number of emitted tokens: 190541.")


def test_vllm_v0_log_line_reads_the_counts_not_the_rate():
    """248165 / 5 = 49633 rounds; accepted = 190541 - 49633 = 140908; E[L] = 190541 / 49633 = 3.839: alpha 0.817,
    not the 0.925 that the printed 0.797 read as vLLM V1's rate gives."""
    s = read_engine_source(V0_LINE)
    assert s.engine == "vllm-v0" and s.k == 5
    assert s.counters == {"num_drafts": 49633.0, "num_draft_tokens": 248165.0, "num_accepted_tokens": 140908.0}
    d = sd.decide(**TIMES, counters=V0_LINE)
    assert d.engine == "vllm-v0" and d.k == 5
    assert d.alpha == pytest.approx(bisect_alpha(190541 / 49633, 5), abs=1e-9)
    assert round(d.alpha, 3) == 0.817 and d.expected_tokens == pytest.approx(190541 / 49633, rel=1e-12)
    # the last of several lines (totals since start)
    s2 = read_engine_source(V0_LINE.replace("248165", "100000").replace("190541", "70000") + "\n" + V0_LINE)
    assert s2.counters == s.counters and "the last of 2 lines" in s2.notes[0]


def test_bare_rate_warns_with_every_reading_and_engine_settles_it():
    """0.797 at k = 5: V1 reading alpha 0.925 (3.07x), V0 reading alpha 0.797; named engines give no such warning."""
    d = sd.decide(**TIMES, k=5, draft_acceptance_rate=0.797)
    w = [x for x in d.warnings if "no engine named" in x]
    assert len(w) == 1 and "alpha 0.925" in w[0] and "alpha 0.797" in w[0] and "vLLM V0" in w[0]
    # how far apart: alpha 0.797 (V0) to 0.925 (V1); speedups t0 E[L] / round = 12 E[L] / 19.5 at both ends
    low, high = 12 * sum(0.797 ** i for i in range(6)) / 19.5, 12 * (1 + 0.797 * 5) / 19.5
    v1_alpha = bisect_alpha(1 + 0.797 * 5, 5)
    assert f"{v1_alpha - 0.797:.3f} apart in alpha (0.797 to {v1_alpha:.3f})" in w[0]
    assert f"{high - low:.2f}x apart in speedup ({low:.2f}x to {high:.2f}x)" in w[0]
    v0 = sd.decide(**TIMES, k=5, draft_acceptance_rate=0.797, engine="vllm-v0")
    assert v0.alpha == 0.797 and not any("no engine named" in x for x in v0.warnings)
    assert v0.expected_tokens == pytest.approx(sum(0.797 ** i for i in range(6)), rel=1e-12)
    legacy = sd.decide(**TIMES, k=4, draft_acceptance_rate=0.62, engine="sglang-legacy")
    assert legacy.expected_tokens == pytest.approx(0.62 * 5, rel=1e-12)
    assert legacy.alpha == pytest.approx(bisect_alpha(3.1, 4), abs=1e-9)
    with pytest.raises(ValueError, match="engine must be one of vllm, vllm-v0"):
        sd.decide(**TIMES, k=4, draft_acceptance_rate=0.62, engine="tgi")
    with pytest.raises(ValueError, match="trtllm"):
        sd.decide(**TIMES, k=4, draft_acceptance_rate=0.62, engine="trtllm")
    with pytest.raises(ValueError, match="engine is 'vllm', but the counters are vLLM V0"):
        sd.decide(**TIMES, counters=V0_LINE, engine="vllm")


# -- SGLang decode log: sgl-project/sglang python/sglang/srt/managers/scheduler_metrics_mixin.py
#    @ 01bb3c807f7e62c19a31de7548837505488c2b64 (older: accept rate = accept len / num_draft_tokens) and
#    python/sglang/srt/managers/scheduler_components/metrics_reporter.py @ 00df707e8de4ab0110fb5527bf3c9dffc535671a
#    (newer: accept rate = (accept len - 1) / (num_draft_tokens - 1)); both print f"accept len: {x:.2f}, accept rate: {y:.2f}, ".
def sglang_line(length, rate):
    return (f"[2025-06-01 10:00:00] Decode batch, #running-req: 4, #token: 1200, token usage: 0.05, "
            f"accept len: {length:.2f}, accept rate: {rate:.2f}, cuda graph: True, gen throughput (token/s): 300.00, "
            f"#queue-req: 0, ")


def test_sglang_log_lines_mean_only_and_version():
    """Older form at num_draft_tokens 5 (k = 4): 3.30 / 5 = 0.66, so k = 3.30 / 0.66 - 1 = 4 is inferred."""
    s = read_engine_source(sglang_line(3.30, 0.66))
    assert (s.engine, s.k, s.mean_acceptance_length, s.counters) == ("sglang-legacy", 4, 3.30, None)
    d = sd.decide(**TIMES, counters=sglang_line(3.30, 0.66))
    assert d.alpha_interval is None and "mean only" in d.alpha_source
    assert d.alpha == pytest.approx(bisect_alpha(3.30, 4), abs=1e-9)
    s = read_engine_source(sglang_line(3.10, 2.10 / 4), k=4)  # newer form: (3.10 - 1) / 4
    assert s.engine == "sglang"
    with pytest.raises(ValueError, match="holds only a mean acceptance length"):
        read_engine_counters(sglang_line(3.30, 0.66))


# -- SGLang gauges: sgl-project/sglang python/sglang/srt/metrics/collector.py @ 93d04878cfb9b08645fae7b11bd340ee33b34acf
#    (Gauge sglang:spec_accept_length, sglang:spec_accept_rate, sglang:spec_num_steps; labels model_name, tp_rank ...).
SGLANG_PAGE = """# HELP sglang:spec_accept_length Mean acceptance length of speculative decoding.
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{engine_type="unified",model_name="m",pp_rank="0",tp_rank="0"} 3.1
sglang:spec_accept_rate{engine_type="unified",model_name="m",pp_rank="0",tp_rank="0"} 0.525
sglang:spec_num_steps{engine_type="unified",model_name="m",pp_rank="0",tp_rank="0"} 4.0
"""


def test_sglang_gauges():
    """3.1 at 4 steps, rate (3.1 - 1) / 4 = 0.525: newer SGLang; a mean only, no interval."""
    s = read_engine_source(SGLANG_PAGE)
    assert (s.engine, s.k, s.mean_acceptance_length) == ("sglang", 4, 3.1)
    d = sd.decide(**TIMES, counters=SGLANG_PAGE)
    assert d.alpha == pytest.approx(bisect_alpha(3.1, 4), abs=1e-9) and d.alpha_interval is None


# -- vLLM V0 /metrics: vllm/engine/metrics.py (Metrics: gauges vllm:spec_decode_draft_acceptance_rate and
#    vllm:spec_decode_efficiency, counters ..._num_accepted/draft/emitted_tokens_total; PrometheusStatLogger.log adds
#    the cumulative totals at every interval, so only the efficiency gauge is read).
V0_PAGE = """vllm:spec_decode_draft_acceptance_rate{model_name="m"} 0.797
vllm:spec_decode_efficiency{model_name="m"} 0.64
vllm:spec_decode_num_accepted_tokens_total{model_name="m"} 1977110.0
vllm:spec_decode_num_draft_tokens_total{model_name="m"} 2481650.0
vllm:spec_decode_num_emitted_tokens_total{model_name="m"} 1905410.0
"""


def test_vllm_v0_page():
    """E[L] = efficiency x (k + 1) = 0.64 x 6 = 3.84; k must be given."""
    s = read_engine_source(V0_PAGE, k=5)
    assert s.engine == "vllm-v0" and s.mean_acceptance_length == pytest.approx(3.84, rel=1e-12)
    with pytest.raises(ValueError, match="does not say k"):
        read_engine_source(V0_PAGE)


# -- vllm bench serve --save-result: vllm-project/vllm vllm/benchmarks/serve.py @ 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1
#    (result["spec_decode_acceptance_rate"] in %, _acceptance_length, _num_drafts, _draft_tokens, _accepted_tokens,
#    _per_position_acceptance_rates as fractions of drafts; mean_tpot_ms).
BENCH = {"completed": 200, "mean_tpot_ms": 6.1, "spec_decode_acceptance_rate": 52.5,
         "spec_decode_acceptance_length": 3.1, "spec_decode_num_drafts": 1000, "spec_decode_draft_tokens": 4000,
         "spec_decode_accepted_tokens": 2100, "spec_decode_per_position_acceptance_rates": [0.75, 0.55, 0.45, 0.35]}


def test_bench_serve_json_with_its_tpot(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(json.dumps(BENCH))
    s = read_engine_source(path)
    assert s.counters["accepted_per_position"] == [750.0, 550.0, 450.0, 350.0] and s.tpot_on_ms == 6.1
    d = sd.decide(**TIMES, counters=path, tpot_off="12.3ms")
    assert d.measured_speedup == pytest.approx(12.3 / 6.1, rel=1e-12)
    assert d.expected_tokens == pytest.approx(3.1, rel=1e-12)


# -- Prometheus HTTP API (/api/v1/query): {"status": "success", "data": {"resultType": "vector", "result":
#    [{"metric": {"__name__": ..., labels}, "value": [time, "value"]}]}}, as Prometheus documents its answers.
def prom_answer(model, drafts, drafted, accepted):
    def series(name, value):
        return {"metric": {"__name__": name, "model_name": model, "engine": "0"}, "value": [1.7e9, str(value)]}
    return [series("vllm:spec_decode_num_drafts_total", drafts), series("vllm:spec_decode_num_draft_tokens_total",
            drafted), series("vllm:spec_decode_num_accepted_tokens_total", accepted)]


def test_prometheus_api_answer_and_labels():
    answer = {"status": "success", "data": {"resultType": "vector",
                                            "result": prom_answer("a", 100, 400, 210) + prom_answer("b", 50, 150, 60)}}
    with pytest.raises(ValueError, match="several models"):
        read_engine_source(answer)
    s = read_engine_source(answer, labels={"model_name": "b"})
    assert s.counters == {"num_drafts": 50.0, "num_draft_tokens": 150.0, "num_accepted_tokens": 60.0}
    with pytest.raises(ValueError, match="model_name='c'.*values of model_name there: a, b"):
        read_engine_source(answer, labels={"model_name": "c"})
    d = sd.decide(**TIMES, counters=json.dumps(answer), labels={"model_name": "a"})
    assert d.expected_tokens == pytest.approx(1 + 210 / 100, rel=1e-12) and d.k == 4


# -- LLM.get_metrics(): vllm-project/vllm vllm/v1/metrics/reader.py @ 08b782b3bbf9bb27c2a1f7098d752dda9d6a6463
#    (Counter(name, labels, value), Vector(name, labels, values) for ..._per_pos, Gauge, Histogram; names without _total).
@dataclasses.dataclass
class Counter:
    name: str
    labels: dict
    value: int


@dataclasses.dataclass
class Vector:
    name: str
    labels: dict
    values: list


def test_get_metrics_objects_and_dicts():
    lab = {"engine": "0", "model_name": "m"}
    objects = [Counter("vllm:spec_decode_num_drafts", lab, 1000), Counter("vllm:spec_decode_num_draft_tokens", lab, 4000),
               Counter("vllm:spec_decode_num_accepted_tokens", lab, 1580),
               Vector("vllm:spec_decode_num_accepted_tokens_per_pos", lab, [700, 450, 280, 150])]
    as_dicts = [dataclasses.asdict(o) for o in objects] + [{"name": "vllm:e2e_request_latency_seconds", "labels": lab,
                                                            "count": 3, "sum": 1.2, "buckets": {"+Inf": 3}}]
    for form in (objects, as_dicts):
        s = read_engine_source(form)
        assert s.counters["accepted_per_position"] == [700.0, 450.0, 280.0, 150.0]
        assert s.counters["num_accepted_tokens"] == 1580


def test_gzip_and_bom(tmp_path):
    """A gzip of a /metrics page that starts with a UTF-8 byte-order mark reads like the page."""
    page = ("\ufeffvllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 40\n"
            "vllm:spec_decode_num_accepted_tokens_total 20\n")
    (tmp_path / "m.txt.gz").write_bytes(gzip.compress(page.encode("utf-8")))
    s = read_engine_source(tmp_path / "m.txt.gz")
    assert s.counters == {"num_drafts": 10.0, "num_draft_tokens": 40.0, "num_accepted_tokens": 20.0}


# -- per-request counts and the bootstrap over requests -------------------------------------------------
def simulated_requests(alphas, rounds, k, rng):
    rows = []
    for a in alphas:
        c = sd.estimation.simulate_accepted_counts(a, k, rounds, rng)
        rows.append([rounds, rounds * k, int(c.sum())])
    return np.array(rows, dtype=float)


def test_bootstrap_over_requests():
    """Same seed, same interval; homogeneous requests: about the delta-method width (seeded Monte Carlo, 40%);
    a mix of good and bad requests: much wider, as resampling whole requests should be."""
    rng = np.random.default_rng(2025)
    same = simulated_requests([0.75] * 60, 50, 4, rng)
    mixed = simulated_requests([0.9, 0.55] * 30, 50, 4, rng)
    assert bootstrap_alpha(same, rng=7) == bootstrap_alpha(same, rng=7)
    for table, low_ratio, high_ratio in ((same, 0.6, 1.4), (mixed, 2.0, 20.0)):
        boot = bootstrap_alpha(table)
        totals = table.sum(axis=0)
        delta = sd.estimation.moment_alpha_interval(1 + totals[2] / totals[0], 4, totals[0])
        ratio = (boot.high - boot.low) / (delta[1] - delta[0])
        assert low_ratio < ratio < high_ratio, ratio
        assert boot.alpha == pytest.approx(bisect_alpha(1 + totals[2] / totals[0], 4), abs=1e-9)
    requests = [{"num_drafts": int(n), "num_draft_tokens": int(d), "num_accepted_tokens": int(a)} for n, d, a in mixed]
    d = sd.decide(**TIMES, counters={"requests": requests})
    assert "bootstrap over 60 requests" in d.alpha_estimator
    assert d.alpha_interval == pytest.approx((bootstrap_alpha(mixed).low, bootstrap_alpha(mixed).high), abs=1e-12)
    with pytest.raises(ValueError, match="n_boot must be a whole number >= 100"):
        bootstrap_alpha(mixed, n_boot=10)


# -- item 4: best k from what was measured ------------------------------------------------------------------
def test_measured_length_curve_up_to_k_and_extrapolation_said():
    """n-gram counts at k = 5 falling by position (900, 600, 380, 240, 150 of 1000 rounds, 2270 accepted): E[L] at
    k = 3 is 1 + (900 + 600 + 380) / 1000 = 2.88, at k = 5 the measured 3.27; beyond k = 5 a note calls it assumed."""
    counters = (1000, 5000, 2270, [900, 600, 380, 240, 150])
    d = sd.decide(t0="12ms", t_draft_step="0.05ms", t_verify={2: "13ms", 5: "14.5ms"}, counters=counters)
    rows = {r["k"]: r for r in d.speedup_by_k}
    assert rows[3]["expected_tokens"] == pytest.approx(2.88, rel=1e-12)
    assert rows[5]["expected_tokens"] == pytest.approx(3.27, rel=1e-12) == pytest.approx(d.expected_tokens)
    last = 150 / 240
    assert rows[6]["expected_tokens"] == pytest.approx(3.27 + 0.150 * last, rel=1e-12)
    assert any("beyond k = 5" in n and "assumption" in n for n in d.notes)
    brute = max(range(1, 17), key=lambda k: (rows[k]["speedup"], -k))
    assert d.best_k == brute


# -- item 6: probes of the command line, each a subprocess ------------------------------------------------
EXAMPLE = ["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length",
           "3.1"]


def run(*args, stdin=None, cwd=None):
    done = subprocess.run([sys.executable, "-m", "specdec", "decide", *args], capture_output=True, text=True,
                          input=stdin, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def replace_flag(flag, value, base=EXAMPLE):
    out = list(base)
    out[out.index(flag) + 1] = value
    return out


PROBES = [
    (replace_flag("--k", "1000000000"), "--k must be a whole number in [1, 64]"),
    (replace_flag("--t0", "1e300s"), "--t0 must be at most 60 s"),
    (replace_flag("--t-verify", "90s"), "--t-verify must be at most"),
    ([*EXAMPLE, "--t-overhead", "1e300s"], "--t-overhead must be at most"),
    ([*EXAMPLE, "--tpot-off", "12ms", "--tpot-on", "2min"], "--tpot-on has an unknown unit"),
    (replace_flag("--t0", "-12ms"), "--t0 must be a time > 0; got -12 ms"),
    (replace_flag("--t-draft-step", "-1ms"), "--t-draft-step must be a time >= 0"),
    ([*EXAMPLE, "--k-max", "100000"], "--k-max must be a whole number in [1, 64]"),
    (replace_flag("--k", "four"), "--k must be a whole number; got 'four'"),
    ([*EXAMPLE[:8], "--draft-acceptance-rate", "1.3"], "write it with its sign (1.3%, i.e. 0.013)"),
    ([*EXAMPLE, "--engine", "tgi"], "--engine must be one of vllm, vllm-v0"),
    ([*EXAMPLE[:8], "--draft-acceptance-rate", "0.6", "--engine", "trtllm"], "trtllm"),
]


@pytest.mark.parametrize("args, message", PROBES)
def test_probe_exits_2_naming_the_flag(args, message):
    rc, out, err = run(*args)
    assert rc == 2 and out == "" and message in err and "Traceback" not in err


def test_file_probes(tmp_path):
    """Encoding, gzip, label and format errors name the file and the flag."""
    (tmp_path / "latin.txt").write_bytes("vllm:spec_decode_num_drafts_total{model_name=\"caf\xe9\"} 1\n".encode("latin-1"))
    (tmp_path / "broken.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    (tmp_path / "pos.txt").write_text('vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 40\n'
                                      'vllm:spec_decode_num_accepted_tokens_total 20\n'
                                      'vllm:spec_decode_num_accepted_tokens_per_pos_total{position="zero"} 20\n')
    (tmp_path / "two.txt").write_text("\n".join(f'vllm:spec_decode_{n}_total{{model_name="{m}"}} {v}' for m in "ab"
                                                for n, v in (("num_drafts", 10), ("num_draft_tokens", 40),
                                                             ("num_accepted_tokens", 20))))
    base = EXAMPLE[:8]
    cases = [
        ("latin.txt", [], "--counters file 'latin.txt' is not UTF-8 text (byte 0xe9"),
        ("broken.gz", [], "--counters file 'broken.gz' is a gzip file that cannot be unpacked"),
        ("pos.txt", [], "the 'position' label must be a whole number >= 0 (vLLM's 0-based draft position); got 'zero'"),
        ("two.txt", [], "several models (a, b)"),
        ("two.txt", ["--label", "model_name=c"], "no speculative decoding sample has the label model_name='c'"),
        ("two.txt", ["--label", "model_name"], "--label must be KEY=VALUE"),
        ("two.txt", ["--label", "model_name=a", "--engine", "vllm-v0"], "--engine is 'vllm-v0', but the --counters are vLLM V1"),
    ]
    for name, extra, message in cases:
        rc, out, err = run(*base, "--counters", name, *extra, cwd=tmp_path)
        assert rc == 2 and message in err and "Traceback" not in err, (name, err)
    rc, out, err = run(*base, "--counters", "two.txt", "--label", "model_name=b", "--json", cwd=tmp_path)
    assert rc == 0 and json.loads(out)["expected_tokens"] == pytest.approx(1 + 20 / 10)


def test_stdin_json_units_schema_and_csv():
    """--counters - reads standard input; JSON does not depend on how t0 was typed; schema_version; one CSV row."""
    rc, out, _ = run(*EXAMPLE[:8], "--counters", "-", "--json", stdin=v1_line(1000, 4, [700, 450, 280, 150]))
    assert rc == 0 and json.loads(out)["expected_tokens"] == pytest.approx(2.58)
    outs = [run(*replace_flag("--t0", t), "--json")[1] for t in ("12ms", "0.012s", "12000us")]
    assert outs[0] == outs[1] == outs[2]
    data = json.loads(outs[0])
    assert data["schema_version"] == sd.decision.SCHEMA_VERSION == 2 and data["time_unit"] == "ms"
    assert data["times_ms"]["t0"] == 12.0
    rc, out, _ = run(*EXAMPLE, "--csv")
    header, row = out.strip().splitlines()
    cells = dict(zip(header.split(","), row.split(","), strict=True))
    assert rc == 0 and cells["verdict"] == "speculate" and float(cells["t_round_ms"]) == pytest.approx(18.4)


def test_closed_pipe_is_quiet():
    """The reader closes the pipe at once (| head -0): no traceback, status 141."""
    proc = subprocess.Popen([sys.executable, "-m", "specdec", "decide", *EXAMPLE, "--markdown"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait()
    assert "Traceback" not in err and "BrokenPipe" not in err and proc.returncode in (0, 141)


# -- accepting checks on files made separately (tests/data/engine_formats/*_b.*) -----------------------------
def test_independent_files():
    """Second fixtures, other numbers: V1 log (400 + 600 rounds at k = 3: 620 + 840 accepted); V0 log (last line:
    12000 / 4 = 3000 rounds, 9600 emitted: accepted 6600); newer SGLang (2.80, rate 0.60: k = 1.80 / 0.60 = 3);
    bench result (2000 rounds, 6000 drafted, 2600 accepted; 1300, 850, 450; TPOT 7.25 ms); a gzip Prometheus
    answer with a BOM (500, 2000, 900)."""
    s = read_engine_source(DATA / "vllm_v1_log_b.txt")
    assert s.counters == {"num_drafts": 1000.0, "num_draft_tokens": 3000.0, "num_accepted_tokens": 1460.0,
                          "accepted_per_position": [720.0, 470.0, 270.0]}
    s = read_engine_source(DATA / "vllm_v0_log_b.txt")
    assert s.counters == {"num_drafts": 3000.0, "num_draft_tokens": 12000.0, "num_accepted_tokens": 6600.0}
    s = read_engine_source(DATA / "sglang_log_b.txt")
    assert (s.engine, s.k, s.mean_acceptance_length) == ("sglang", 3, 2.80)
    s = read_engine_source(DATA / "bench_serve_b.json")
    assert s.counters["accepted_per_position"] == [1300.0, 850.0, 450.0] and s.tpot_on_ms == 7.25
    s = read_engine_source(DATA / "prom_api_b.json.gz")
    assert s.counters == {"num_drafts": 500.0, "num_draft_tokens": 2000.0, "num_accepted_tokens": 900.0}
    d = sd.decide(**TIMES, counters=DATA / "vllm_v0_log_b.txt")
    assert d.alpha == pytest.approx(bisect_alpha(3.2, 4), abs=1e-9)


# -- early vLLM V1 log lines (issue 25 audit). vLLM 0.8's SpecDecodingLogging.log in vllm/v1/spec_decode/metrics.py
#    printed "SpecDecoding metrics: Draft acceptance rate: %.1f%%, Accepted: %d tokens, Drafted: %d tokens" (no
#    round count), then "Draft acceptance rate: %.1f%%, Mean acceptance length: %.2f, Accepted: %d tokens, Drafted:
#    %d tokens, Per-position acceptance rate: %s"; both texts found with find_string in the source index, whose
#    stored copy of vllm-project/vllm (016a8587) holds only the later form, so no commit of the early ones is pinned.
def v1_early_line(accepted, drafted):
    return (f"INFO 03-20 09:00:05 [loggers.py:80] SpecDecoding metrics: Draft acceptance rate: "
            f"{100 * accepted / drafted:.1f}%, Accepted: {accepted:d} tokens, Drafted: {drafted:d} tokens")


def v1_middle_line(drafts, per_pos, drafted):
    accepted = sum(per_pos)
    rates = ", ".join(f"{p / drafts:.3f}" for p in per_pos)
    return (f"INFO 04-01 12:00:00 [metrics.py:80] SpecDecoding metrics: Draft acceptance rate: "
            f"{100 * accepted / drafted:.1f}%, Mean acceptance length: {1 + accepted / drafts:.2f}, Accepted: "
            f"{accepted:d} tokens, Drafted: {drafted:d} tokens, Per-position acceptance rate: {rates}")


def test_vllm_v1_early_and_middle_log_forms():
    """Early form at k = 4: 2100 of 4000 drafted, rounds 4000 / 4 = 1000, E[L] = 3.1; without k it asks for --k.
    Middle form: 500 rounds at k = 3 accepting 400, 260, 140: 800 of 1500, E[L] = 2.6, per-position kept."""
    with pytest.raises(ValueError, match=r"does not count rounds; pass k \(--k\)"):
        read_engine_source(v1_early_line(2100, 4000))
    s = read_engine_source(v1_early_line(2100, 4000), k=4)
    assert s.counters == {"num_drafts": 1000.0, "num_draft_tokens": 4000.0, "num_accepted_tokens": 2100.0}
    assert any("drafted / k = 4" in n for n in s.notes)
    d = sd.decide(**TIMES, k=4, counters=v1_early_line(2100, 4000))
    assert d.expected_tokens == pytest.approx(3.1, rel=1e-12) and d.alpha == pytest.approx(bisect_alpha(3.1, 4))
    s = read_engine_source(v1_middle_line(500, [400, 260, 140], 1500))
    assert s.counters == {"num_drafts": 500.0, "num_draft_tokens": 1500.0, "num_accepted_tokens": 800.0,
                          "accepted_per_position": [400.0, 260.0, 140.0]}


def test_sglang_oldest_line_without_rate():
    """'Decode batch.' (with a period) and accept len only: a mean whose version cannot be told; k must be given."""
    line = ("[2024-12-01 08:00:00 TP0] Decode batch. #running-req: 2, #token: 500, token usage: 0.01, "
            "accept len: 2.90, gen throughput (token/s): 150.00, #queue-req: 0")
    with pytest.raises(ValueError, match="does not say k"):
        read_engine_source(line)
    s = read_engine_source(line, k=3)
    assert (s.engine, s.k, s.mean_acceptance_length, s.counters) == ("sglang?", 3, 2.90, None)


def test_best_k_within_the_measured_k():
    """n-gram counts falling by position at k = 5 (600, 400, 230, 110, 60 of 1000 rounds): E[L] 1.6, 2.0, 2.23, 2.34,
    2.40 measured; speedup 12 E[L] / (0.05 k + 14) is largest at k = 5 within the measured k (28.8 / 14.25)."""
    d = sd.decide(t0="12ms", t_draft_step="0.05ms", t_verify="14ms", counters=(1000, 5000, 1400, [600, 400, 230, 110, 60]))
    lengths = [r["expected_tokens"] for r in d.speedup_by_k[:5]]
    assert lengths == pytest.approx([1.6, 2.0, 2.23, 2.34, 2.40], rel=1e-12)
    assert d.expected_tokens == pytest.approx(2.40, rel=1e-12)
    assert d.best_within_measured == (5, pytest.approx(12 * 2.4 / 14.25, rel=1e-12))
    assert d.best_k > 5  # the extrapolated tail still grows a little: the report must call it an assumption
    text = str(d)
    assert "beyond the measured k = 5, so its E[L] is extrapolated: an assumption" in text
    assert "within the measured k: best k = 5" in text
    data = json.loads(d.to_json())
    assert data["best_k"] == d.best_k and any("beyond k = 5" in n and "assumption" in n for n in data["notes"])
    header, line = d.to_csv().splitlines()
    row = dict(zip(header.split(","), line.split(","), strict=True))
    assert row["best_k_within_measured"] == "5"
    inside = sd.decide(t0="12ms", t_draft_step="2ms", t_verify="14ms", counters=(1000, 5000, 1400, [600, 400, 230, 110, 60]))
    # a dearer draft step (2 ms): 12 E[L] / (2 k + 14) is 1.20, 1.33, 1.34, 1.28, 1.20 at k = 1..5: best k = 3, measured
    assert inside.best_k == 3 and inside.best_within_measured[0] == 3 and "extrapolated: an assumption" not in \
        inside._best_line()


def test_stdin_gzip_and_formats_by_pipe():
    """--counters - reads gzip bytes with a BOM from standard input like a file (the V1 page fixture: E[L] 2.36)."""
    data = gzip.compress(b"\xef\xbb\xbf" + (DATA / "vllm_v1_page_b.txt").read_bytes())
    done = subprocess.run([sys.executable, "-m", "specdec", "decide", *EXAMPLE[:6], "--counters", "-", "--json"],
                          input=data, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["expected_tokens"] == pytest.approx(1 + 680 / 500, rel=1e-12)


def test_independent_files_more_forms():
    """Second fixtures written by hand from the engines' format strings, other numbers:
    V1 page, two data-parallel engines, labels in any order, _created series: 300 + 200 rounds, 900 + 600 drafted,
    420 + 260 accepted, per position 200 + 130, 140 + 85, 80 + 45;
    V0 page: efficiency 0.58 at k = 3, E[L] = 0.58 x 4 = 2.32 (= 139200 emitted / (180000 / 3) rounds);
    SGLang gauges on two TP ranks: 2.6 at 3 steps with rate 0.5333 = (2.6 - 1) / 3 (newer SGLang);
    LLM.get_metrics() as dicts (with a histogram entry): 800, 2400, 1000, per position 520, 310, 170;
    per-request counts: 10 + 20 + 5 rounds (an idle request dropped), 30 + 60 + 15 drafted, 18 + 25 + 12 accepted;
    early V1 lines at k = 3: 1200 / 3 + 600 / 3 = 600 rounds, 540 + 300 = 840 accepted; oldest SGLang lines: the
    last accept len, 2.75."""
    s = read_engine_source(DATA / "vllm_v1_page_b.txt")
    assert s.counters == {"num_drafts": 500.0, "num_draft_tokens": 1500.0, "num_accepted_tokens": 680.0,
                          "accepted_per_position": [330.0, 225.0, 125.0]}
    s = read_engine_source(DATA / "vllm_v0_page_b.txt", k=3)
    assert s.engine == "vllm-v0" and s.mean_acceptance_length == pytest.approx(2.32, rel=1e-12)
    assert s.mean_acceptance_length == pytest.approx(139200 / (180000 / 3), rel=1e-12)
    s = read_engine_source(DATA / "sglang_gauges_b.txt")
    assert (s.engine, s.k, s.mean_acceptance_length) == ("sglang", 3, 2.6)
    d = sd.decide(**TIMES, counters=DATA / "sglang_gauges_b.txt")
    assert d.alpha_interval is None and d.alpha == pytest.approx(bisect_alpha(2.6, 3), abs=1e-9)
    s = read_engine_source(DATA / "get_metrics_b.json")
    assert s.counters == {"num_drafts": 800.0, "num_draft_tokens": 2400.0, "num_accepted_tokens": 1000.0,
                          "accepted_per_position": [520.0, 310.0, 170.0]}
    s = read_engine_source(DATA / "requests_b.json")
    assert s.requests.tolist() == [[10, 30, 18], [20, 60, 25], [5, 15, 12]]
    d = sd.decide(**TIMES, counters=DATA / "requests_b.json")
    assert d.expected_tokens == pytest.approx(1 + 55 / 35, rel=1e-12) and "bootstrap over 3 requests" in \
        d.alpha_estimator
    assert d.alpha_interval == sd.decide(**TIMES, counters=DATA / "requests_b.json").alpha_interval  # seeded
    s = read_engine_source(DATA / "vllm_v1_log_early_b.txt", k=3)
    assert s.counters == {"num_drafts": 600.0, "num_draft_tokens": 1800.0, "num_accepted_tokens": 840.0}
    assert "the sum of 2 lines" in s.notes[0]
    s = read_engine_source(DATA / "sglang_log_oldest_b.txt", k=3)
    assert s.mean_acceptance_length == 2.75 and "the last of 2" in s.notes[0]


def test_label_flag_repeated_and_labels_in_python():
    """--label engine=0 --label model_name=qwen-7b keeps engine 0 of the fixture page: 1 + 420 / 300 = 2.4;
    labels={'engine': '1'} in sd.decide keeps engine 1: 1 + 260 / 200 = 2.3."""
    rc, out, err = run(*EXAMPLE[:6], "--counters", str(DATA / "vllm_v1_page_b.txt"), "--label", "engine=0",
                       "--label", "model_name=qwen-7b", "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["expected_tokens"] == pytest.approx(2.4, rel=1e-12)
    assert data["inputs"]["labels"] == {"engine": "0", "model_name": "qwen-7b"}
    d = sd.decide(**TIMES, counters=DATA / "vllm_v1_page_b.txt", labels={"engine": "1"})
    assert d.expected_tokens == pytest.approx(2.3, rel=1e-12) and list(d.counters.accepted_per_position) == \
        [130.0, 85.0, 45.0]


# -- early vLLM V1 /metrics: SpecDecodingProm of vLLM 0.8 registered only vllm:spec_decode_num_draft_tokens and
#    vllm:spec_decode_num_accepted_tokens (no num_drafts; text found with find_string, commit not pinned, as above).
def test_early_vllm_v1_page_without_num_drafts():
    """4000 draft tokens at k = 4: 1000 rounds, 2100 accepted, E[L] = 3.1; without k it says to pass --k."""
    page = ('vllm:spec_decode_num_draft_tokens_total{model_name="m"} 4000.0\n'
            'vllm:spec_decode_num_accepted_tokens_total{model_name="m"} 2100.0\n')
    with pytest.raises(ValueError, match=r"missing the counter\(s\) num_drafts .*pass k \(--k\)"):
        read_engine_source(page)
    s = read_engine_source(page, k=4)
    assert s.counters == {"num_drafts": 1000.0, "num_draft_tokens": 4000.0, "num_accepted_tokens": 2100.0}
    d = sd.decide(**TIMES, k=4, counters=page)
    assert d.expected_tokens == pytest.approx(3.1, rel=1e-12) and d.engine == "vllm"
    with pytest.raises(ValueError, match="not a multiple of k = 3"):
        read_engine_source(page, k=3)


def test_prometheus_range_answer_reads_the_last_value_and_says_so():
    """/api/v1/query_range (matrix): values [[t, "50"], [t', "100"]] -> 100 rounds, 400 drafted, 250 accepted."""
    def series(name, first, last):
        return {"metric": {"__name__": name, "model_name": "m"}, "values": [[1.7e9, str(first)], [1.7e9 + 60, str(last)]]}
    answer = {"status": "success", "data": {"resultType": "matrix", "result": [
        series("vllm:spec_decode_num_drafts_total", 50, 100), series("vllm:spec_decode_num_draft_tokens_total", 200, 400),
        series("vllm:spec_decode_num_accepted_tokens_total", 110, 250)]}}
    s = read_engine_source(answer)
    assert s.counters == {"num_drafts": 100.0, "num_draft_tokens": 400.0, "num_accepted_tokens": 250.0}
    assert any("the last value of each series" in n for n in s.notes)


def test_vllm_v1_line_with_a_field_after_the_rates():
    """A variant seen in the source index (repository not named there) prints 'Draft length histogram: ...' between
    the per-position rates and the average rate: the rates still end at the next field (700, 450, 280, 150)."""
    line = v1_line(1000, 4, [700, 450, 280, 150]).replace(", Avg Draft", ", Draft length histogram: 4:1000, Avg Draft")
    assert read_engine_source(line).counters["accepted_per_position"] == [700.0, 450.0, 280.0, 150.0]
