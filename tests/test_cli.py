"""Tests of the command line: the output and the exit status (0 with a verdict, 2 on invalid input, naming the
flag).

Most tests call :func:`run`, the command's ``main`` in this process with its streams captured: it is all that
``python -m specdec`` runs (``specdec/__main__.py`` is ``raise SystemExit(main())``), and it shares the imports
and the calibration's caches with the test, so the suite does not start 50 interpreters. The tests of what only a
new interpreter shows use :func:`cli`, a subprocess run as a user runs it: the worked example, the console script,
a run from inside the package's folder, no subcommand, and the modules a run imports.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import warnings
from fractions import Fraction

import pytest

from specdec.cli import main
from specdec.decision import decide

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4",
           "--mean-acceptance-length", "3.1"]
HEAVY = ("matplotlib", "sympy", "ipywidgets")


def cli(*args, cwd=None, module=True):
    """Run the command line; return (exit status, stdout, stderr)."""
    env = {key: v for key, v in os.environ.items() if key != "PYTHONPATH"}
    command = [sys.executable, "-m", "specdec", *args] if module else [*args]
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd or ROOT, env=env, timeout=120)
    return done.returncode, done.stdout, done.stderr


@contextlib.contextmanager
def _columns_as_in_a_pipe():
    """The help's width as a subprocess with captured output sees it: ``COLUMNS`` if set, else 80 columns."""
    if "COLUMNS" in os.environ:
        yield
        return
    os.environ["COLUMNS"] = "80"
    try:
        yield
    finally:
        del os.environ["COLUMNS"]


def run(*args):
    """The command in this process, ``main(args)`` with stdout and stderr captured; return (exit status, stdout,
    stderr), as :func:`cli` does. An ``argparse`` error or ``--help`` ends in ``SystemExit``, read as the status."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _columns_as_in_a_pipe(), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")            # the interpreter's filters: each warning once, on stderr
        try:
            status = main(list(args))
        except SystemExit as stop:
            if stop.code is None or isinstance(stop.code, int):
                status = stop.code or 0
            else:                                   # as the interpreter does: the message on stderr, status 1
                print(stop.code, file=sys.stderr)
                status = 1
    for w in caught:
        err.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line))
    return status, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------- the worked example


def test_worked_example_text():
    """The issue's command: exit 0; alpha 0.758, 2.02x, the verdict, the contradiction warning."""
    rc, out, err = cli("decide", *EXAMPLE, "--draft-acceptance-rate", "0.62")
    assert rc == 0, err
    assert out.startswith("Verdict: speculate (2.02x at k = 4)")
    assert "alpha = 0.758" in out and "E[L] = 3.10" in out
    assert "imply 3.39 draft tokens per draft, not k = 4" in out
    assert err == ""


def test_worked_example_json_and_warnings_on_stderr():
    """--json: the required keys, numbers equal to the API's, warnings listed and echoed on stderr."""
    rc, out, err = run("decide", *EXAMPLE, "--draft-acceptance-rate", "0.62", "--json")
    assert rc == 0, err
    data = json.loads(out)
    for key in ("alpha", "expected_tokens", "speedup", "best_k", "break_even_alpha", "verdict", "warnings"):
        assert key in data
    assert data["speedup"] == pytest.approx(float(Fraction(372, 184)), rel=1e-11)
    assert data["expected_tokens"] == pytest.approx(3.1, rel=1e-11)
    assert isinstance(data["warnings"], list) and len(data["warnings"]) == 1
    assert err.startswith("warning: a mean acceptance length of 3.1")
    api = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, mean_acceptance_length=3.1,
                 draft_acceptance_rate=0.62)
    assert data["alpha"] == pytest.approx(api.alpha, rel=1e-11) and data["best_k"] == api.best_k


def test_markdown_output():
    """--markdown prints the Markdown report."""
    rc, out, _ = run("decide", *EXAMPLE, "--markdown")
    assert rc == 0
    assert out.startswith("**Verdict: speculate**") and "| alpha | 0.758 |" in out


def test_help_shows_a_worked_example_with_computed_numbers():
    """--help: exit 0, the example command, and the example's results equal to decide's."""
    rc, out, _ = run("decide", "--help")
    assert rc == 0
    assert "worked example" in out and "--t-draft-step 1.1ms" in out and "--t-verify 4:14ms --t-verify 6:15.5ms" in out
    api = decide(t0="12ms", t_draft_step="1.1ms", t_verify="14ms", k=4, mean_acceptance_length=3.1,
                 draft_acceptance_rate=0.62)
    flat = " ".join(out.split())
    assert f"alpha = {api.alpha:.3f}" in flat and f"speedup of {api.speedup:.2f}x" in flat
    assert f"best k = {api.best_k}" in flat and "{example_result}" not in out


# ---------------------------------------------------------------- the other inputs


def test_other_numbers_round_time_overhead_and_units():
    """--t-draft-round and --t-overhead in us and s: 15 x 3.4 / (6 + 16 + 0.5) on other numbers."""
    rc, out, err = run("decide", "--t0", "0.015s", "--t-draft-round", "6000us", "--t-verify", "16ms",
                       "--t-overhead", "500\u00b5s", "--k", "5", "--mean-acceptance-length", "3.4", "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["speedup"] == pytest.approx(15 * 3.4 / 22.5, rel=1e-11)
    # --json is in milliseconds whatever unit the times were typed in (issue 25)
    assert data["time_unit"] == "ms" and data["times"]["t_round"] == pytest.approx(22.5, rel=1e-11)


def test_several_k_fit():
    """--t-verify 4:14ms --t-verify 6:15.5ms: the line 11 + 0.75 k; a bare time plus keyed ones uses --k."""
    rc, out, err = run("decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "4:14ms",
                       "--t-verify", "6:15.5ms", "--k", "4", "--mean-acceptance-length", "3.3", "--json")
    assert rc == 0, err
    model = json.loads(out)["verify_model"]
    assert model["slope"] == pytest.approx(0.75, rel=1e-11) and model["intercept"] == pytest.approx(11, rel=1e-11)
    rc2, out2, _ = run("decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms",
                       "--t-verify", "6:15.5ms", "--k", "4", "--mean-acceptance-length", "3.3", "--json")
    assert rc2 == 0 and json.loads(out2)["verify_model"] == model


def test_rate_as_percentage():
    """--draft-acceptance-rate 52.5% is 0.525: consistent with length 3.1 at k = 4, no warning."""
    rc, out, _ = run("decide", *EXAMPLE, "--draft-acceptance-rate", "52.5%", "--json")
    assert rc == 0 and json.loads(out)["warnings"] == []


def test_counters_file_json_and_prometheus(tmp_path):
    """--counters with a JSON file of vLLM names and with a saved /metrics page."""
    (tmp_path / "c.json").write_text(json.dumps({
        "vllm:spec_decode_num_drafts": 2000, "vllm:spec_decode_num_draft_tokens": 8000,
        "vllm:spec_decode_num_accepted_tokens": 4600}))
    rc, out, err = run("decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms",
                       "--counters", str(tmp_path / "c.json"), "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["k"] == 4 and data["expected_tokens"] == pytest.approx(3.3, rel=1e-11)
    assert data["alpha_interval"][0] < data["alpha"] < data["alpha_interval"][1]
    (tmp_path / "metrics.txt").write_text(
        'vllm:spec_decode_num_drafts_total{engine="0"} 2000\n'
        'vllm:spec_decode_num_draft_tokens_total{engine="0"} 8000\n'
        'vllm:spec_decode_num_accepted_tokens_total{engine="0"} 4600\n')
    rc, out2, err = run("decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms",
                        "--counters", str(tmp_path / "metrics.txt"), "--json")
    assert rc == 0, err
    assert json.loads(out2)["alpha"] == data["alpha"]


def test_counters_before_and_digits(tmp_path):
    """--counters-before opens the window between two saved /metrics pages (also from a --from file, relative to
    it); --digits sets the JSON's significant digits; a path with a space works."""
    def page(drafts, tokens, accepted):
        return (f'vllm:spec_decode_num_drafts_total{{engine="0"}} {drafts}\n'
                f'vllm:spec_decode_num_draft_tokens_total{{engine="0"}} {tokens}\n'
                f'vllm:spec_decode_num_accepted_tokens_total{{engine="0"}} {accepted}\n')
    (tmp_path / "before page.txt").write_text(page(1000, 4000, 2000))
    (tmp_path / "after.txt").write_text(page(3000, 12000, 6600))
    rc, out, err = run("decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms",
                       "--counters", str(tmp_path / "after.txt"), "--counters-before", str(tmp_path / "before page.txt"),
                       "--json", "--digits", "5")
    assert rc == 0, err
    data = json.loads(out)
    assert data["counters"]["num_drafts"] == 2000 and data["expected_tokens"] == pytest.approx(3.3, rel=1e-5)
    assert data["alpha"] == float(f"{data['alpha']:.5g}")
    (tmp_path / "m.toml").write_text('t0 = "12ms"\nt_draft_step = "1.1ms"\nt_verify = "14ms"\n'
                                     'counters = "after.txt"\ncounters_before = "before page.txt"\n')
    rc, out2, err = cli("decide", "--from", str(tmp_path / "m.toml"), "--json", cwd=ROOT / "specdec")
    assert rc == 0, err
    assert json.loads(out2)["counters"]["num_drafts"] == 2000
    rc, _, err = run("decide", *EXAMPLE, "--json", "--digits", "0")
    assert rc == 2 and "--digits must be a whole number in [1, 17]; got 0" in err
    rc, out, err = run("decide", "--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms",
                       "--counters", str(tmp_path / "before page.txt"), "--counters-before", str(tmp_path / "after.txt"))
    assert rc == 2 and out == ""
    assert "--counters-before: vllm:spec_decode_num_drafts decreased between the snapshots" in " ".join(err.split())
    rc, _, err = run("decide", *EXAMPLE, "--counters-before", str(tmp_path / "after.txt"))
    assert rc == 2 and "--counters-before needs --counters" in err


def test_from_toml_and_json_and_flags_override(tmp_path):
    """--from reads the same fields (TOML and JSON); flags override; a counters path is relative to the file."""
    (tmp_path / "counters.json").write_text(json.dumps({"num_drafts": 1000, "num_draft_tokens": 4000,
                                                         "num_accepted_tokens": 2300}))
    (tmp_path / "m.toml").write_text('t0 = "12ms"\nt-draft-step = "1.1ms"\nt_verify = {4 = "14ms", 6 = "15.5ms"}\n'
                                     'k = 4\ncounters = "counters.json"\n')
    rc, out, err = run("decide", "--from", str(tmp_path / "m.toml"), "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["expected_tokens"] == pytest.approx(3.3, rel=1e-11)
    assert data["verify_model"]["slope"] == pytest.approx(0.75, rel=1e-11)
    (tmp_path / "m.json").write_text(json.dumps({"t0": "12ms", "t_draft_step": "1.1ms", "t_verify": "14ms", "k": 4,
                                                 "mean_acceptance_length": 3.1}))
    rc, out, err = run("decide", "--from", str(tmp_path / "m.json"), "--t0", "10ms", "--json")
    assert rc == 0, err
    assert json.loads(out)["speedup"] == pytest.approx(10 * 3.1 / 18.4, rel=1e-11)


def test_console_script_is_installed():
    """The 'specdec' console script sits next to this interpreter and runs the same command."""
    script = pathlib.Path(sys.executable).parent / "specdec"
    assert script.exists()
    rc, out, _ = cli(str(script), "decide", *EXAMPLE, module=False)
    assert rc == 0 and out.startswith("Verdict: speculate (2.02x at k = 4)")


# ---------------------------------------------------------------- invalid input: exit 2, naming the flag


@pytest.mark.parametrize("args, fragment", [
    (["--t0=-12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t0 must be a time > 0; got -12 ms"),
    (["--t0", "-12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t0 must be a time > 0; got -12 ms"),  # a negative value is refused for its sign (issue 25)
    (["--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t0 is required"),
    (["--t0", "12ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t-draft-step or --t-draft-round is required"),
    (["--t0", "12ms", "--t-draft-step", "1.1ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t-verify is required"),
    (["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4"], "the acceptance is required"),
    (["--t0", "12xs", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t0 has an unknown unit 'xs'"),
    (["--t0", "12", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t0 needs a unit"),
    ([*EXAMPLE[:-1], "5.3"], "--mean-acceptance-length must be <= k + 1 = 5"),
    ([*EXAMPLE[:-1], "0.5"], "--mean-acceptance-length must be >= 1"),
    ([*EXAMPLE[:-1], "lots"], "--mean-acceptance-length must be a number; got 'lots'"),
    ([*EXAMPLE, "--draft-acceptance-rate", "1.5"], "--draft-acceptance-rate must be a fraction in [0, 1]"),
    ([*EXAMPLE, "--draft-acceptance-rate", "high"], "--draft-acceptance-rate must be a number such as 0.62 or 62%"),
    (["--t0", "12ms", "--t-draft-step=-1ms", "--t-verify", "14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t-draft-step must be a time >= 0"),
    (["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "x:14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t-verify must be TIME or K:TIME"),
    (["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "14ms", "--t-verify", "15ms", "--k", "4",
      "--mean-acceptance-length", "3.1"], "--t-verify is given twice without K"),
    (["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "6:14ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t-verify was measured at k = 6 only, but acceptance at k = 4"),
    (["--t0", "12ms", "--t-draft-step", "1.1ms", "--t-verify", "4:0ms", "--k", "4", "--mean-acceptance-length", "3.1"],
     "--t-verify at k = 4 must be a time > 0"),
    ([*EXAMPLE[:7], "0", *EXAMPLE[8:]], "--k must be a whole number in [1, 64]; got 0"),
    ([*EXAMPLE[:7], "2.5", *EXAMPLE[8:]], "--k must be a whole number; got '2.5'"),
    ([*EXAMPLE, "--counters", "/nonexistent/counters.json"], "cannot be read"),
    ([*EXAMPLE, "--tpot-off", "12ms"], "--tpot-on is missing"),
    ([*EXAMPLE, "--confidence", "1.5"], "--confidence must be in (0, 1)"),
    ([*EXAMPLE, "--json", "--markdown"], "not allowed with argument"),
])
def test_invalid_input_exits_2_naming_the_flag(args, fragment):
    """Each invalid input: exit status 2, nothing on stdout, the message names the flag."""
    rc, out, err = run("decide", *args)
    assert rc == 2
    assert out == ""
    assert fragment in " ".join(err.split())
    assert "Traceback" not in err and "np.float64" not in err


def test_counter_errors_name_the_counters_flag(tmp_path):
    """Impossible counters (more accepted than drafted): exit 2, the message names --counters."""
    (tmp_path / "c.json").write_text(json.dumps({"num_drafts": 10, "num_draft_tokens": 40, "num_accepted_tokens": 41}))
    rc, _, err = run("decide", "--t0", "12ms", "--t-draft-step", "1ms", "--t-verify", "14ms",
                     "--counters", str(tmp_path / "c.json"))
    assert rc == 2 and "--counters: num_accepted_tokens must be <= num_draft_tokens = 40" in err


@pytest.mark.parametrize("content, fragment", [
    ('t0 = "12ms"\nspeed = 3\n', "unknown field 'speed'"),
    ('t0 = 12\nt_draft_step = "1ms"\nt_verify = "14ms"\nk = 4\nmean_acceptance_length = 3.1\n',
     "'t0' in", ),
    ('t0 = "12ms"\nt_draft_step = "1ms"\nt_verify = "14ms"\nk = 4\nmean_acceptance_length = 6.0\n',
     "'mean_acceptance_length' in"),
    ("t0 = = 1\n", "is not valid TOML"),
])
def test_from_file_errors_exit_2_naming_the_field(tmp_path, content, fragment):
    """--from FILE: an unknown field, a time without a unit, an impossible value, bad TOML: exit 2."""
    path = tmp_path / "m.toml"
    path.write_text(content)
    rc, out, err = run("decide", "--from", str(path))
    assert rc == 2 and out == ""
    assert fragment in err


def test_no_subcommand_exits_2():
    """``python -m specdec`` with no command: usage and exit 2."""
    rc, _, err = cli()
    assert rc == 2 and "required" in err


# ---------------------------------------------------------------- light imports


def imported_modules(*python_args):
    """Top-level module names a Python run imports, from its -X importtime report."""
    env = {key: v for key, v in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-X", "importtime", *python_args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=120)
    names = set()
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+\s*\|\s*\d+\s*\|\s*(\S+)", line)
        if match:
            names.add(match.group(1).split(".")[0])
    return done.returncode, names


def test_import_and_command_do_not_load_matplotlib_or_sympy():
    """``import specdec`` and ``python -m specdec decide ...`` import neither matplotlib, sympy nor ipywidgets."""
    rc, names = imported_modules("-c", "import specdec")
    assert rc == 0 and "specdec" in names and "numpy" in names
    assert not names & set(HEAVY)
    rc, names = imported_modules("-m", "specdec", "decide", *EXAMPLE, "--json")
    assert rc == 0 and "specdec" in names
    assert not names & set(HEAVY)
    code = ("import sys; from specdec.cli import main; main(['decide', " + ", ".join(map(repr, EXAMPLE)) + "]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in " + repr(HEAVY) + "))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "[]"


# ---------------------------------------------------------------- to_argv and format_command


def test_to_argv_round_trips_through_the_command():
    """The flags written by to_argv, run as a command, give the call's figures (JSON at 12 digits)."""
    from specdec.cli import format_command, to_argv

    values = dict(t0="20ms", t_draft_step="0.8ms", t_verify={3: "23ms", 5: "25ms"}, t_overhead="0.4ms", k=3,
                  mean_acceptance_length=2.6, draft_acceptance_rate=0.53)
    argv = ["decide", *to_argv(**values), "--json"]
    rc, out, err = run(*argv)
    assert rc == 0, err
    api = decide(**values)
    data = json.loads(out)
    assert data["speedup"] == pytest.approx(api.speedup, rel=1e-11) and data["warnings"] == list(api.warnings)
    text = format_command(argv, width=40)
    assert all(len(line) <= 40 for line in text.splitlines()) and text.count("\\\n") == len(text.splitlines()) - 1
    assert "--t-verify 3:23ms" in text and "--t-verify 5:25ms" in text
    with pytest.raises(TypeError, match="unknown field 'speed'"):
        to_argv(speed=3)
    with pytest.raises(TypeError, match="t0 must be a time with its unit"):
        to_argv(t0=12.0)
    with pytest.raises(ValueError, match="width must be a whole number >= 20"):
        format_command(argv, width=5)


# ---------------------------------------------------------------- predict


PREDICT = ["predict", "--target", "llama-3.1-70b", "--draft", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8",
           "--k", "5", "--tau", "3.5"]


def _hand_round(gpus=8):
    """tau T0 / (5 T_draft + T_verify(6)) on the calibrated H100 group, from hardware.step_time."""
    from specdec import hardware as h

    hw = h.H100.scaled(gpus)
    t0 = h.step_time(h.LLAMA_70B, hw)
    t_draft = 5 * h.step_time(h.LLAMA_8B, hw)
    t_verify = h.step_time(h.LLAMA_70B, hw, new_tokens=6)
    return 3.5 * t0 / (t_draft + t_verify), t0, t_draft, t_verify


def test_predict_prints_speedup_interval_parts_and_profile():
    """The worked example: the speedup, its interval, the round's parts in ms and the engine profile."""
    rc, out, err = run(*PREDICT)
    assert rc == 0, err
    speedup, t0, t_draft, t_verify = _hand_round()
    assert out.startswith(f"Predicted speedup: {speedup:.2f}x")
    assert "interval" in out and "engine profile:" in out
    assert f"T0 = {t0 * 1e3:.3f} ms" in out and f"draft {t_draft * 1e3:.3f} ms" in out
    assert f"verify {t_verify * 1e3:.3f} ms (6 tokens)" in out
    # no --engine: the last line is the record of every held-out row, and the band it gives this prediction
    from specdec import heldout

    record = heldout.track_record(None)
    lo, hi = record.band(speedup)
    last = out.strip().splitlines()[-1]
    assert last.startswith("Held-out record, every profile:") and f"on {record.rows} published speedups" in last
    assert last.endswith(f"{lo:.2f}x to {hi:.2f}x.")


def test_predict_json_matches_the_hand_computed_round():
    rc, out, err = run(*PREDICT, "--json")
    assert rc == 0, err
    data = json.loads(out)
    speedup, t0, t_draft, t_verify = _hand_round()
    assert data["speedup"] == pytest.approx(speedup, rel=1e-12)
    assert data["parts_ms"]["t0"] == pytest.approx(t0 * 1e3, rel=1e-12)
    assert data["parts_ms"]["t_round"] == pytest.approx((t_draft + t_verify) * 1e3, rel=1e-12)
    assert data["interval"][0] <= data["speedup"] <= data["interval"][1]
    assert data["draft_passes"] == [1] * 5 and data["verify_tokens"] == 6
    record = data["track_record"]
    ratios = record["measured_over_predicted"]
    assert record["profile"] is None and record["rows"] >= 20
    assert record["band"] == pytest.approx([speedup * ratios["low"], speedup * ratios["high"]], rel=1e-12)


def test_predict_tree_and_lookup_flags():
    """--tree parents and a prompt lookup with --lookup-time: the round is priced as the API prices it."""
    from specdec import hardware as h
    from specdec.predict import predict_speedup

    rc, out, err = run("predict", "--target", "llama-3.1-8b", "--draft", "pld", "--tree", "-1,0,0,1",
                       "--tau", "2.2", "--lookup-time", "40us", "--json")
    assert rc == 0, err
    data = json.loads(out)
    hw = h.H100
    t0, t_verify = h.step_time(h.LLAMA_8B, hw), h.step_time(h.LLAMA_8B, hw, new_tokens=5)
    assert data["speedup"] == pytest.approx(2.2 * t0 / (40e-6 + t_verify), rel=1e-12)
    api = predict_speedup(h.LLAMA_8B, "pld", tree=[-1, 0, 0, 1], tau=2.2, lookup_time=40e-6)
    assert data["speedup"] == pytest.approx(api.speedup, rel=1e-12)


@pytest.mark.parametrize("args, flag", [
    (["--tau", "9"], "--tau must be in"),
    (["--gpus", "0"], "--gpus must be"),
    (["--parallelism", "pp"], "--parallelism must be one of"),
    (["--target", "gpt-9"], "--target must be one of"),
    (["--tree", "a,b"], "--tree must be comma-separated whole numbers"),
    (["--lookup-time", "5parsecs"], "--lookup-time"),
    (["--batch", "0"], "--batch must be"),
])
def test_predict_invalid_input_exits_2_naming_the_flag(args, flag):
    base = list(PREDICT)
    for i in range(0, len(args), 2):
        if args[i] in base:
            base[base.index(args[i]) + 1] = args[i + 1]
        else:
            base += args[i:i + 2]
    rc, out, err = run(*base)
    assert rc == 2 and out == ""
    assert flag in err


def test_predict_help_shows_the_worked_example():
    rc, out, _ = run("predict", "--help")
    assert rc == 0
    assert "worked example" in out and "--gpus 8 --k 5 --tau 3.5" in out and "--parallelism" in out


def test_predict_engine_profile_and_layer_split():
    """--engine and --parallelism layers reach the API: the same speedup, interval and profile name."""
    from specdec.predict import predict_speedup

    rc, out, err = run("predict", "--target", "llama-2-70b", "--draft", "eagle", "--nodes", "25", "--depth", "5",
                       "--tau", "3.8", "--gpu", "a100-40gb", "--gpus", "4", "--parallelism", "layers",
                       "--engine", "research", "--json")
    assert rc == 0, err
    data = json.loads(out)
    api = predict_speedup("llama-2-70b", "eagle", n_nodes=25, depth=5, tau=3.8, gpu="a100-40gb", n_gpus=4,
                          parallelism="layers", engine="research")
    assert data["speedup"] == pytest.approx(api.speedup, rel=1e-12)
    assert data["interval"] == pytest.approx(list(api.interval), rel=1e-12)
    assert data["engine"].startswith("research") and "layer split" in data["hardware"]
    from specdec import heldout

    record = heldout.track_record("research")
    assert data["track_record"]["profile"] == "research" and data["track_record"]["rows"] == record.rows
    assert data["track_record"]["band"] == pytest.approx(list(record.band(api.speedup)), rel=1e-12)
    rc, _, err = run("predict", "--target", "llama-2-70b", "--draft", "eagle", "--k", "4", "--tau", "3",
                     "--engine", "tgi")
    assert rc == 2 and "--engine must be one of" in err
