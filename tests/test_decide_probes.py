"""Bad-input probes of ``specdec decide`` and ``sd.decide`` (issue 25, item 6), with a count.

Each command-line probe runs ``specdec.cli.main`` in-process (files in a temporary folder, standard input
replaced) and must exit 2 with a message that names the flag (and, for a file, the file), with no traceback;
each Python probe must raise ValueError or TypeError naming the parameter. A few accepting probes check
values worked out by hand, so that a probe that "passes" by answering cannot hide a wrong answer.

``python tests/test_decide_probes.py`` prints the table: probes, clean errors, wrong answers, tracebacks.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import sys
import tempfile
import traceback

import pytest

import specdec as sd
from specdec import cli

BASE = ["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms"]
EX = [*BASE, "--k", "4", "--mean-acceptance-length", "3.1"]


def swap(flag, value, base=EX):
    out = list(base)
    out[out.index(flag) + 1] = value
    return out


PAGE = ("vllm:spec_decode_num_drafts_total{{model_name=\"{m}\"}} 100\n"
        "vllm:spec_decode_num_draft_tokens_total{{model_name=\"{m}\"}} 400\n"
        "vllm:spec_decode_num_accepted_tokens_total{{model_name=\"{m}\"}} 210\n")
TWO = (PAGE.format(m="a") + PAGE.format(m="b")).encode()
ONE = PAGE.format(m="a").encode()
V0_LINE = (b"INFO 12-16 16:46:04 metrics.py:482] Speculative metrics: Draft acceptance rate: 0.797, System "
           b"efficiency: 0.640, Number of speculative tokens: 5, Number of accepted tokens: 197711, Number of draft "
           b"tokens: 248165, Number of emitted tokens: 190541.")
V0_PAGE = b"vllm:spec_decode_efficiency 0.64\nvllm:spec_decode_num_emitted_tokens_total 10\n" \
          b"vllm:spec_decode_num_draft_tokens_total 10\n"
SG_PAGE = b"sglang:spec_accept_length{tp_rank=\"0\"} 3.1\n"
SG_LINE = b"[2025-01-01 10:00:00] Decode batch. #running-req: 3, #token: 900, token usage: 0.02, accept len: 3.30, "
V1_EARLY = b"INFO [loggers.py:80] SpecDecoding metrics: Draft acceptance rate: 52.5%, Accepted: 2100 tokens, " \
           b"Drafted: 4000 tokens"


def pos_page(*labels):
    text = ONE.decode() + "".join(f"vllm:spec_decode_num_accepted_tokens_per_pos_total{{model_name=\"a\","
                                  f"position=\"{p}\"}} 10\n" for p in labels)
    return text.encode()


def js(obj):
    return json.dumps(obj).encode()


def prom(result, status="success"):
    return js({"status": status, "data": {"resultType": "vector", "result": result}, "error": "bad query"})


C = "--counters"
# (name, argv, files {name: bytes}, stdin bytes or None, the flag the message must name, a fragment or None)
CLI_PROBES = [
    ("k huge", swap("--k", "1000000000"), {}, None, "--k", "[1, 64]"),
    ("k zero", swap("--k", "0"), {}, None, "--k", "[1, 64]"),
    ("k negative", swap("--k", "-3"), {}, None, "--k", None),
    ("k fraction", swap("--k", "2.5"), {}, None, "--k", "whole number"),
    ("k word", swap("--k", "four"), {}, None, "--k", "'four'"),
    ("k 65", swap("--k", "65"), {}, None, "--k", "[1, 64]"),
    ("k-max huge", [*EX, "--k-max", "100000"], {}, None, "--k-max", "[1, 64]"),
    ("k-max zero", [*EX, "--k-max", "0"], {}, None, "--k-max", None),
    ("t0 1e300s", swap("--t0", "1e300s"), {}, None, "--t0", "at most 60 s"),
    ("t0 -12ms", swap("--t0", "-12ms"), {}, None, "--t0", "> 0; got -12 ms"),
    ("t0=-12ms", ["--t0=-12ms", *EX[2:]], {}, None, "--t0", "> 0"),
    ("t0 zero", swap("--t0", "0ms"), {}, None, "--t0", "> 0"),
    ("t0 no unit", swap("--t0", "12"), {}, None, "--t0", "unit"),
    ("t0 bad unit", swap("--t0", "12xs"), {}, None, "--t0", "'xs'"),
    ("t0 nan", swap("--t0", "nanms"), {}, None, "--t0", None),
    ("t0 inf", swap("--t0", "infms"), {}, None, "--t0", None),
    ("t0 empty", swap("--t0", ""), {}, None, "--t0", None),
    ("t0 minutes", swap("--t0", "1min"), {}, None, "--t0", "unit"),
    ("t-verify 90s", swap("--t-verify", "90s"), {}, None, "--t-verify", "at most"),
    ("t-verify negative", swap("--t-verify", "-14ms"), {}, None, "--t-verify", None),
    ("t-verify bad k", swap("--t-verify", "x:14ms"), {}, None, "--t-verify", "K:TIME"),
    ("t-verify k 0", swap("--t-verify", "0:14ms"), {}, None, "--t-verify", None),
    ("t-verify k 100", swap("--t-verify", "100:14ms"), {}, None, "--t-verify", None),
    ("t-verify other k only", swap("--t-verify", "6:14ms"), {}, None, "--t-verify", "k = 6"),
    ("t-verify zero", swap("--t-verify", "4:0ms"), {}, None, "--t-verify", "> 0"),
    ("t-verify twice", [*EX, "--t-verify", "15ms"], {}, None, "--t-verify", "twice"),
    ("t-draft-step negative", swap("--t-draft-step", "-1ms"), {}, None, "--t-draft-step", ">= 0"),
    ("t-draft-step huge", swap("--t-draft-step", "1e9s"), {}, None, "--t-draft-step", "at most"),
    ("t-draft-round negative", [*EX[:2], "--t-draft-round", "-1ms", *EX[4:]], {}, None, "--t-draft-round", None),
    ("t-overhead huge", [*EX, "--t-overhead", "1e300s"], {}, None, "--t-overhead", "at most"),
    ("t-overhead negative", [*EX, "--t-overhead", "-1ms"], {}, None, "--t-overhead", None),
    ("tpot-off alone", [*EX, "--tpot-off", "12ms"], {}, None, "--tpot-on", "missing"),
    ("tpot-on minutes", [*EX, "--tpot-off", "12ms", "--tpot-on", "2min"], {}, None, "--tpot-on", "unit"),
    ("tpot-off negative", [*EX, "--tpot-off", "-5ms", "--tpot-on", "5ms"], {}, None, "--tpot-off", None),
    ("tpot-on huge", [*EX, "--tpot-off", "5ms", "--tpot-on", "1e9s"], {}, None, "--tpot-on", "at most"),
    ("length above k + 1", swap("--mean-acceptance-length", "5.3"), {}, None, "--mean-acceptance-length", "k + 1"),
    ("length below 1", swap("--mean-acceptance-length", "0.5"), {}, None, "--mean-acceptance-length", ">= 1"),
    ("length word", swap("--mean-acceptance-length", "lots"), {}, None, "--mean-acceptance-length", "'lots'"),
    ("length nan", swap("--mean-acceptance-length", "nan"), {}, None, "--mean-acceptance-length", None),
    ("length inf", swap("--mean-acceptance-length", "inf"), {}, None, "--mean-acceptance-length", None),
    ("rate 1.3", [*EX[:8], "--draft-acceptance-rate", "1.3"], {}, None, "--draft-acceptance-rate", "1.3%"),
    ("rate 1.5", [*EX, "--draft-acceptance-rate", "1.5"], {}, None, "--draft-acceptance-rate", "[0, 1]"),
    ("rate 130%", [*EX[:8], "--draft-acceptance-rate", "130%"], {}, None, "--draft-acceptance-rate", "'130%'"),
    ("rate negative", [*EX[:8], "--draft-acceptance-rate", "-0.2"], {}, None, "--draft-acceptance-rate", None),
    ("rate word", [*EX[:8], "--draft-acceptance-rate", "high"], {}, None, "--draft-acceptance-rate", "'high'"),
    ("rate nan", [*EX[:8], "--draft-acceptance-rate", "nan"], {}, None, "--draft-acceptance-rate", None),
    ("rate 62%% typo", [*EX[:8], "--draft-acceptance-rate", "62%%"], {}, None, "--draft-acceptance-rate", None),
    ("engine unknown", [*EX, "--engine", "tgi"], {}, None, "--engine", "vllm, vllm-v0"),
    ("engine trtllm rate", [*EX[:8], "--draft-acceptance-rate", "0.6", "--engine", "trtllm"], {}, None, "--engine",
     "--mean-acceptance-length"),
    ("confidence 1.5", [*EX, "--confidence", "1.5"], {}, None, "--confidence", "(0, 1)"),
    ("confidence 0", [*EX, "--confidence", "0"], {}, None, "--confidence", "(0, 1)"),
    ("worth-it 0.9", [*EX, "--worth-it", "0.9"], {}, None, "--worth-it", "> 1"),
    ("worth-it word", [*EX, "--worth-it", "abc"], {}, None, "--worth-it", None),
    ("digits 0", [*EX, "--digits", "0"], {}, None, "--digits", "[1, 17]"),
    ("digits 40", [*EX, "--digits", "40"], {}, None, "--digits", "[1, 17]"),
    ("json and markdown", [*EX, "--json", "--markdown"], {}, None, "--markdown", "not allowed"),
    ("label without =", [*BASE, C, "p.txt", "--label", "model_name"], {"p.txt": TWO}, None, "--label", "KEY=VALUE"),
    ("label empty key", [*BASE, C, "p.txt", "--label", "=a"], {"p.txt": TWO}, None, "--label", "KEY=VALUE"),
    ("no t0", EX[2:], {}, None, "--t0", "required"),
    ("no t-verify", [*EX[:4], *EX[6:]], {}, None, "--t-verify", "required"),
    ("no draft time", [*EX[:2], *EX[4:]], {}, None, "--t-draft-step", "required"),
    ("no acceptance", EX[:8], {}, None, "--mean-acceptance-length", "required"),
    ("counters missing file", [*BASE, C, "nope.txt"], {}, None, "--counters", "'nope.txt' cannot be read"),
    ("counters a folder", [*BASE, C, "."], {}, None, "--counters", "cannot be read"),
    ("counters latin-1", [*BASE, C, "l.txt"], {"l.txt": "caf\xe9 vllm:x 1\n".encode("latin-1")}, None,
     "--counters", "'l.txt' is not UTF-8"),
    ("counters broken gzip", [*BASE, C, "b.gz"], {"b.gz": b"\x1f\x8b\x08\x00garbage"}, None, "--counters",
     "'b.gz' is a gzip file that cannot be unpacked"),
    ("counters gzip of latin-1", [*BASE, C, "lg.gz"], {"lg.gz": gzip.compress("\xe9".encode("latin-1"))}, None,
     "--counters", "'lg.gz' is not UTF-8"),
    ("counters empty file", [*BASE, C, "e.txt"], {"e.txt": b""}, None, "--counters", "'e.txt': the text is empty"),
    ("counters BOM only", [*BASE, C, "bom.txt"], {"bom.txt": b"\xef\xbb\xbf"}, None, "--counters",
     "'bom.txt': the text is empty"),
    ("counters prose", [*BASE, C, "h.txt"], {"h.txt": b"hello world\n"}, None, "--counters",
     "'h.txt': no speculative decoding metrics found"),
    ("position zero", [*BASE, C, "pz.txt"], {"pz.txt": pos_page("zero")}, None, "--counters file 'pz.txt'",
     "got 'zero'"),
    ("position gap", [*BASE, C, "pg.txt"], {"pg.txt": pos_page(0, 2)}, None, "--counters", "without gaps"),
    ("position negative", [*BASE, C, "pn.txt"], {"pn.txt": pos_page(-1)}, None, "--counters file 'pn.txt'",
     "'position'"),
    ("page value word", [*BASE, C, "pv.txt"], {"pv.txt": b"vllm:spec_decode_num_drafts_total abc\n"}, None,
     "--counters", "'pv.txt'"),
    ("two models no label", [*BASE, C, "t.txt"], {"t.txt": TWO}, None, "--counters", "several models (a, b)"),
    ("label value absent", [*BASE, C, "t.txt", "--label", "model_name=c"], {"t.txt": TWO}, None,
     "--counters file 't.txt'", "model_name='c' (values of model_name there: a, b); check labels= (--label)"),
    ("label key absent", [*BASE, C, "t.txt", "--label", "pod=x"], {"t.txt": TWO}, None, "--counters file 't.txt'",
     "(--label)"),
    ("engine v0 on V1 page", [*BASE, C, "o.txt", "--engine", "vllm-v0"], {"o.txt": ONE}, None, "--engine",
     "vLLM V1"),
    ("engine vllm on V0 log", [*BASE, C, "v0.txt", "--engine", "vllm"], {"v0.txt": V0_LINE}, None, "--engine",
     "vLLM V0"),
    ("invalid JSON", [*BASE, C, "j.json"], {"j.json": b"{bad"}, None, "--counters", "'j.json' is not valid JSON"),
    ("prometheus error", [*BASE, C, "pe.json"], {"pe.json": prom([], status="error")}, None, "--counters",
     "status 'error'"),
    ("prometheus expression", [*BASE, C, "px.json"], {"px.json": prom([{"metric": {}, "value": [1, "2"]}])}, None,
     "--counters", "__name__"),
    ("prometheus value word", [*BASE, C, "pw.json"],
     {"pw.json": prom([{"metric": {"__name__": "vllm:spec_decode_num_drafts_total"}, "value": [1, "x"]}])}, None,
     "--counters", "not a number"),
    ("bench field a string", [*BASE, C, "bs.json"],
     {"bs.json": js({"spec_decode_num_drafts": "10", "spec_decode_draft_tokens": 40,
                     "spec_decode_accepted_tokens": 20})}, None, "--counters", "spec_decode_num_drafts"),
    ("bench without spec fields", [*BASE, C, "bt.json"], {"bt.json": js({"mean_tpot_ms": 7.0})}, None,
     "--counters", "speculating"),
    ("accepted above drafted", [*BASE, C, "ad.json"],
     {"ad.json": js({"num_drafts": 10, "num_draft_tokens": 40, "num_accepted_tokens": 41})}, None, "--counters",
     "<= num_draft_tokens"),
    ("window decreasing", [*BASE, C, "o.txt", "--counters-before", "t2.txt"],
     {"o.txt": ONE, "t2.txt": ONE.replace(b" 100\n", b" 200\n")}, None, "--counters-before", None),
    ("V0 page without k", [*BASE, C, "vp.txt"], {"vp.txt": V0_PAGE}, None, "--k", "does not say k"),
    ("SGLang gauge without k", [*BASE, C, "sg.txt"], {"sg.txt": SG_PAGE}, None, "--k", "does not say k"),
    ("SGLang line without k", [*BASE, C, "sl.txt"], {"sl.txt": SG_LINE}, None, "--k", "does not say k"),
    ("early V1 line without k", [*BASE, C, "ve.txt"], {"ve.txt": V1_EARLY}, None, "--k", "does not count rounds"),
    ("early V1 line, k not dividing", [*BASE, "--k", "3", C, "ve.txt"], {"ve.txt": V1_EARLY}, None, "--counters",
     "not a multiple of k = 3"),
    ("V0 line drafts not k-multiple", [*BASE, C, "v0b.txt"],
     {"v0b.txt": V0_LINE.replace(b"248165", b"248166")}, None, "--counters", "not a multiple of k = 5"),
    ("early V1 page without k", [*BASE, C, "ep.txt"],
     {"ep.txt": b"vllm:spec_decode_num_draft_tokens_total 4000\nvllm:spec_decode_num_accepted_tokens_total 2100\n"},
     None, "--k", "early vLLM V1 pages"),
    ("V1 line without fields", [*BASE, C, "v1b.txt"], {"v1b.txt": b"INFO SpecDecoding metrics: nothing here"},
     None, "--counters", "'v1b.txt'"),
    ("requests accepted above drafted", [*BASE, C, "rq.json"],
     {"rq.json": js([{"num_drafts": 5, "num_draft_tokens": 20, "num_accepted_tokens": 30}])}, None, "--counters",
     "per-request"),
    ("requests empty", [*BASE, C, "re.json"], {"re.json": js({"requests": []})}, None, "--counters", "no requests"),
    ("get_metrics value word", [*BASE, C, "gm.json"],
     {"gm.json": js([{"name": "vllm:spec_decode_num_drafts", "labels": {}, "value": "x"}])}, None,
     "--counters file 'gm.json'", "must be a number"),
    ("stdin empty", [*BASE, C, "-"], {}, b"", "--counters - (standard input)", "the text is empty"),
    ("stdin latin-1", [*BASE, C, "-"], {}, "\xe9".encode("latin-1"), "--counters", "standard input"),
    ("from missing file", ["--from", "nope.toml"], {}, None, "--from", "nope.toml"),
    ("from bad TOML", ["--from", "bad.toml"], {"bad.toml": b"t0 = = 1\n"}, None, "--from", "not valid TOML"),
    ("from unknown field", ["--from", "u.toml"], {"u.toml": b't0 = "12ms"\nspeed = 3\n'}, None, "--from",
     "'speed'"),
]

# (name, keyword arguments of sd.decide, the parameter the message must name)
T = dict(t0="12ms", t_draft_step="1.1ms", t_verify="14ms")
PY_PROBES = [
    ("k huge", dict(T, k=10**9, mean_acceptance_length=3.1), "k"),
    ("k bool", dict(T, k=True, mean_acceptance_length=1.5), "k"),
    ("t0 1e300", dict(T, t0=1e300, k=4, mean_acceptance_length=3.1), "t0"),
    ("t0 negative", dict(T, t0=-12, k=4, mean_acceptance_length=3.1), "t0"),
    ("t0 nan", dict(T, t0=float("nan"), k=4, mean_acceptance_length=3.1), "t0"),
    ("t_verify list", dict(T, t_verify=[14], k=4, mean_acceptance_length=3.1), "t_verify"),
    ("engine unknown", dict(T, k=4, draft_acceptance_rate=0.6, engine="tgi"), "engine"),
    ("engine number", dict(T, k=4, draft_acceptance_rate=0.6, engine=1), "engine"),
    ("labels a string", dict(T, counters=ONE, labels="model_name=a"), "labels"),
    ("labels absent", dict(T, counters=TWO, labels={"model_name": "c"}), "model_name"),
    ("rate 1.3", dict(T, k=4, draft_acceptance_rate=1.3), "draft_acceptance_rate"),
    ("rate string word", dict(T, k=4, draft_acceptance_rate="high"), "draft_acceptance_rate"),
    ("length string", dict(T, k=4, mean_acceptance_length="3.1x"), "mean_acceptance_length"),
    ("confidence 2", dict(T, k=4, mean_acceptance_length=3.1, confidence=2), "confidence"),
    ("k_max 0", dict(T, k=4, mean_acceptance_length=3.1, k_max=0), "k_max"),
    ("time_unit min", dict(T, k=4, mean_acceptance_length=3.1, time_unit="min"), "time_unit"),
    ("worth_it 1", dict(T, k=4, mean_acceptance_length=3.1, worth_it=1), "worth_it"),
    ("counters a number", dict(T, counters=3.5), "counters"),
    ("counters position zero", dict(T, counters=pos_page("zero")), "counters: the 'position' label"),
    ("counters gzip garbage", dict(T, counters=b"\x1f\x8b\x08\x00garbage"), "gzip"),
]

# accepting probes: (name, argv, files, stdin, {json key: value worked out by hand})
OK_PROBES = [
    # 1.3% is a rate of 0.013 at k = 4: E[L] = 1 + 0.013 x 4 = 1.052 (vLLM V1 reading, engine named)
    ("rate 1.3%", [*EX[:8], "--draft-acceptance-rate", "1.3%", "--engine", "vllm"], {}, None,
     {"expected_tokens": 1.052}),
    # the V0 line's counts: 248165 / 5 = 49633 rounds, E[L] = 190541 / 49633
    ("V0 line by stdin", [*BASE, C, "-"], {}, V0_LINE, {"expected_tokens": 190541 / 49633, "engine": "vllm-v0"}),
    # a gzip with a BOM and CRLF: the page of model a, E[L] = 1 + 210 / 100
    ("gzip BOM CRLF page", [*BASE, C, "g.gz"], {"g.gz": gzip.compress(b"\xef\xbb\xbf" + ONE.replace(b"\n", b"\r\n"))},
     None, {"expected_tokens": 3.1, "k": 4}),
    ("label picks b", [*BASE, C, "t.txt", "--label", "model_name=b"], {"t.txt": TWO}, None, {"expected_tokens": 3.1}),
    # early V1 line at k = 4: 4000 / 4 = 1000 rounds, E[L] = 1 + 2100 / 1000
    ("early V1 line with k", [*BASE, "--k", "4", C, "ve.txt"], {"ve.txt": V1_EARLY}, None,
     {"expected_tokens": 3.1, "engine": "vllm"}),
    # a negative-looking but valid value: --t-overhead 0ms
    ("t-overhead 0", [*EX, "--t-overhead", "0ms"], {}, None, {"expected_tokens": 3.1}),
]


def run_cli(argv, files, stdin):
    """(status, stdout, stderr, traceback or None) of one in-process run of the command in a fresh folder."""
    out, err = io.StringIO(), io.StringIO()
    old_cwd, old_stdin = os.getcwd(), sys.stdin
    with tempfile.TemporaryDirectory() as folder:
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
        os.chdir(folder)
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""))
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    status = cli.main(["decide", *argv])
                except SystemExit as exc:
                    status = exc.code if isinstance(exc.code, int) else 2
            return status, out.getvalue(), err.getvalue(), None
        except Exception:  # noqa: BLE001 - a traceback is what the probe counts
            return None, out.getvalue(), err.getvalue(), traceback.format_exc()
        finally:
            os.chdir(old_cwd)
            sys.stdin = old_stdin


def judge_cli(probe):
    """'clean', 'wrong' (exit 0, or a message not naming the flag or the fragment) or 'traceback'."""
    _, argv, files, stdin, flag, fragment = probe
    status, out, err, tb = run_cli(argv, files, stdin)
    text = " ".join(err.split()).split(" error: ", 1)[-1]  # the message, without argparse's usage lines
    if tb is not None or "Traceback" in err:
        return "traceback", tb or err
    if status == 2 and out == "" and flag in text and (fragment is None or fragment in text):
        return "clean", text
    return "wrong", f"status {status}: {text[-300:]} {out[:200]}"


def judge_py(probe):
    _, kwargs, name = probe
    try:
        sd.decide(**kwargs)
    except (ValueError, TypeError) as exc:
        return ("clean", str(exc)) if name in str(exc) else ("wrong", f"does not name {name}: {exc}")
    except Exception:  # noqa: BLE001
        return "traceback", traceback.format_exc()
    return "wrong", "no error"


def judge_ok(probe):
    _, argv, files, stdin, expected = probe
    status, out, err, tb = run_cli([*argv, "--json"], files, stdin)
    if tb is not None:
        return "traceback", tb
    if status != 0:
        return "wrong", f"refused: {err[-300:]}"
    data = json.loads(out)
    for key, value in expected.items():
        got = data[key]
        if isinstance(value, float) and abs(got - value) > 1e-9 * abs(value) or not isinstance(value, float) and \
                got != value:
            return "wrong", f"{key} = {got}, expected {value}"
    return "right", ""


@pytest.mark.parametrize("probe", CLI_PROBES, ids=[p[0] for p in CLI_PROBES])
def test_cli_probe_exits_2_naming_the_flag(probe):
    verdict, detail = judge_cli(probe)
    assert verdict == "clean", detail


@pytest.mark.parametrize("probe", PY_PROBES, ids=[p[0] for p in PY_PROBES])
def test_python_probe_raises_naming_the_parameter(probe):
    verdict, detail = judge_py(probe)
    assert verdict == "clean", detail


@pytest.mark.parametrize("probe", OK_PROBES, ids=[p[0] for p in OK_PROBES])
def test_accepting_probe_gives_the_hand_computed_value(probe):
    verdict, detail = judge_ok(probe)
    assert verdict == "right", detail


def test_enough_probes():
    """Issue 25 asks for a probe table; at least 80 bad inputs are probed here."""
    assert len(CLI_PROBES) + len(PY_PROBES) >= 80


def table(show=False):
    """{'probes', 'clean errors', 'wrong answers', 'tracebacks', 'accepting right'} over every probe."""
    counts = {"probes": 0, "clean errors": 0, "wrong answers": 0, "tracebacks": 0, "accepting right": 0}
    for kind, probes, judge in (("cli", CLI_PROBES, judge_cli), ("py", PY_PROBES, judge_py),
                                ("ok", OK_PROBES, judge_ok)):
        for probe in probes:
            verdict, detail = judge(probe)
            counts["probes"] += 1
            key = {"clean": "clean errors", "wrong": "wrong answers", "traceback": "tracebacks",
                   "right": "accepting right"}[verdict]
            counts[key] += 1
            if show:
                print(f"{kind:3} {verdict:9} {probe[0]:34} {detail[:150]}")
    return counts


if __name__ == "__main__":
    print(table(show="-v" in sys.argv))
