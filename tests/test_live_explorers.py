"""The headline explorers, live in the built HTML book, compute what specdec computes.

``scripts/static/specdec-live.js`` ports the formulas the five headline
explorers need (E[L] and its distribution, the speedup and the best k, the
checklist's rules, the break-even alpha and its Newton solver, the serving
metrics and their inverse). Two implementations can drift apart, so for each
headline explorer, on its built page in Chromium (offline: every non-local
request is blocked and fails the test), the control settings below are set
through the DOM, as a reader's slider moves would set them (the first three with
Playwright's ``fill`` on each ``<input type="range">``, which sets the value and
fires ``input`` and ``change``; the rest the same way from one script, so a
setting costs no round trips): every control in turn at its minimum and at its
maximum (the others at their defaults), all of them at their minima, all at
their maxima, then 60 settings drawn with a seeded RNG (each control at a
random point of its slider grid, its minimum or its maximum). At each, every
read-out value (``data-value``, full precision) is compared with specdec called
in Python on the values the inputs then hold: numbers to ``rel_tol=1e-9`` (with
``abs_tol=1e-14`` for values that are a difference of O(1) numbers, such as
E[L](k + 1) - E[L](k), whose last bits depend on the libm), integers and
verdict strings exactly. Where the model forbids the setting (a verification
pass faster than a plain step, c_verify below 1, a T0 longer than its TPOT),
the page must show the kernel explorer's warnings instead of a read-out, and no
chart; no setting the controls reach may end in an API error. The read-out text
a reader sees is compared with the kernel explorer's read-out
(``Explorer.readout_rows``) at the same values, exactly, and neither it nor a
slider's value shows a Python repr, ``nan`` or an exponent (``tests/reprs.py``).
That every other explorer is a visibly disabled snapshot with its note is
checked on every page by ``tests/test_browser.py``.
"""

from __future__ import annotations

import decimal
import json
import math
import random
import re

import pytest
from conftest import is_local, source_of
from reprs import forbidden_in

import specdec as sd
from specdec.widgets._base import LIVE_NOTE
from specdec.widgets._domain import verify_floor_note

SETTINGS_PER_EXPLORER = 60
HEADLINE = {
    "expected-tokens": "book/part1-speedup-bounds/01-expected-tokens",
    "speedup": "book/part1-speedup-bounds/02-speedup-formula",
    "checklist": "book/part1-speedup-bounds/05-decision-checklist",
    "threshold": "book/part2-cost-accounting/03-break-even",
    "serving-metrics": "book/part3-beyond/03-serving-metrics",
}


# ------------------------------------------------------------------ specdec in Python, per explorer
def expected_tokens_values(s, config):
    a, k = s["alpha"], s["k"]
    el = sd.expected_tokens(a, k)
    return {"expected_tokens": el, "ceiling": k + 1, "fraction_of_ceiling": el / (k + 1),
            "p_all_accepted": float(sd.accepted_tokens_pmf(a, k)[-1]),
            "next_draft_gain": sd.expected_tokens(a, k + 1) - el}


def speedup_values(s, config):
    import numpy as np

    a, k, t0, td, tv, to = (s[n] for n in ("alpha", "k", "t0", "t_draft", "t_verify", "t_overhead"))
    k_max = config["constants"]["k_max"]
    ks = np.arange(1, k_max + 1)
    tds, tvs = sd.round_times_vs_k(ks, k, td, tv, s["verify_slope"], t_verify_floor=min(t0, tv))
    c_draft, c_verify = sd.costs_from_times(k, t0, td, tv, to)
    curve = sd.speedup(a, ks, t0, tds, tvs, to)
    best = int(sd.optimal_k(a, c_draft, sd.costs_from_times(ks, t0, tds, tvs, to)[1], k_max=k_max))
    here = sd.speedup(a, k, t0, td, tv, to)
    best_speedup = float(curve[best - 1])
    if best_speedup < here:
        best, best_speedup = k, here
    out = {"expected_tokens": sd.expected_tokens(a, k), "t_round": sd.round_time(td, tv, to),
           "speedup": here, "c_draft": c_draft, "c_verify": c_verify,
           "speedup_from_costs": sd.speedup_from_costs(a, k, c_draft, c_verify),
           "quick_estimate": sd.quick_estimate(a, k, t0, td, tv), "best_k": best, "best_speedup": best_speedup}
    note = verify_floor_note(tv, t0, k, s["verify_slope"])
    if note:
        out["floor_note"] = note
    return out


def checklist_values(s, config):
    c = config["constants"]
    w = sd.checklist.Workload(**s, time_unit=c["time_unit"], name=c["name"])
    a = sd.checklist.assess(w, **c["thresholds"], worth_it=c["worth_it"])
    out = {f"check-{ch.key}": f"{'pass' if ch.passed else 'FAIL'}: {ch.reason}" for ch in a.checks}
    out.update(expected_tokens=a.expected_tokens, speedup=a.speedup, quick_estimate=a.quick_estimate,
               request_speedup=a.request_speedup, break_even_output_length=a.break_even_output_length,
               verdict=a.verdict)
    return out


def threshold_values(s, config):
    k, cd, cv, a = s["k"], s["c_draft"], s["c_verify"], s["alpha"]
    speed = sd.speedup_from_costs(a, k, cd, cv)
    return {"round_cost": sd.round_cost(k, cd, cv), "break_even_alpha": sd.break_even_alpha(k, cd, cv),
            "speedup": speed, "verdict": "net saving" if speed > 1 else ("break-even" if speed == 1 else "net loss")}


def serving_values(s, config):
    a, k = s["alpha"], s["k"]
    m = sd.literature.metric_readings(a, k)
    length = m["length_with_bonus"]
    misread = (sd.acceptance.alpha_from_mean_acceptance_length(length, k, include_bonus=False) if length <= k
               else math.nan)
    return {"draft_acceptance_rate": m["draft_acceptance_rate"], "length_with_bonus": length,
            "length_without_bonus": m["length_without_bonus"], "rate_as_alpha": m["draft_acceptance_rate"],
            "length_with_bonus_as_without": misread}


PYTHON = {"expected-tokens": expected_tokens_values, "speedup": speedup_values, "checklist": checklist_values,
          "threshold": threshold_values, "serving-metrics": serving_values}
INTEGERS = {"ceiling", "best_k"}
#: The explorers whose controls reach settings the model forbids.
REFUSING = {"speedup", "checklist", "threshold"}


def kernel_explorer(name, config):
    """The kernel explorer with the live one's defaults, to compare the read-out text."""
    d = {c["name"]: c["value"] for c in config["controls"]}
    c = config["constants"]
    if name == "expected-tokens":
        return sd.widgets.expected_tokens_explorer(k_max=c["k_max"], **d)
    if name == "speedup":
        return sd.widgets.speedup_explorer(k_max=c["k_max"], **d)
    if name == "checklist":
        return sd.widgets.checklist_explorer(sd.checklist.Workload(**d, time_unit=c["time_unit"], name=c["name"]))
    if name == "threshold":
        return sd.widgets.threshold_explorer(k_max=c["k_max"], **d)
    return sd.widgets.serving_metrics_explorer(**d)


# ------------------------------------------------------------------ the browser side
def as_page_value(value) -> str:
    """A number as Chromium serializes a range input's value (shortest, no trailing zeros)."""
    text = format(decimal.Decimal(repr(value)).normalize(), "f")
    return text if "." not in text else text.rstrip("0").rstrip(".")


def grid_value(spec, rng) -> str:
    """A value on the control's slider grid, as Chromium serializes a range input's value."""
    lo, hi, step = (decimal.Decimal(repr(spec[n])) for n in ("min", "max", "step"))
    n_steps = int((hi - lo) / step)
    u = rng.random()
    n = 0 if u < 0.12 else n_steps if u < 0.24 else rng.randint(0, n_steps)
    return as_page_value(float(min(lo + n * step, hi)))


def extreme_settings(config, held) -> list:
    """Each control at its minimum, then at its maximum (the others as the page opened, ``held``); all at
    their minima; all at their maxima.

    A slider's maximum is the last point of its grid (min + n step), which is what the page's input holds.
    """
    specs = config["controls"]
    default = dict(held)

    def top(spec):
        lo, hi, step = (decimal.Decimal(repr(spec[n])) for n in ("min", "max", "step"))
        return as_page_value(float(lo + int((hi - lo) / step) * step))

    ends = {spec["name"]: (as_page_value(spec["min"]), top(spec)) for spec in specs}
    out = [{**default, name: end} for name in ends for end in ends[name]]
    out += [{name: lo for name, (lo, _) in ends.items()}, {name: hi for name, (_, hi) in ends.items()}]
    return out


def open_page(browser, book_server, docname):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, service_workers="block")
    external, errors = [], []
    page = context.new_page()
    # a request to another host fails (conftest.py's browser reaches other hosts only through a proxy that
    # refuses them) and is recorded here
    page.on("request", lambda request: None if is_local(request.url) else external.append(request.url))
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # the browser asks every site for /favicon.ico, which the book does not have
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error"
            and "favicon.ico" not in msg.text + msg.location.get("url", "") else None)
    page.goto(f"{book_server}/{docname}.html", wait_until="load")
    return context, page, external, errors


# What one observation reads: the values the inputs hold, the explorer's error (or null), its read-out,
# whether it draws a chart, and the values the sliders show.
READ = """root => [
    Object.fromEntries(Array.from(root.querySelectorAll('input[data-control]'), i => [i.dataset.control, i.value])),
    root.getAttribute('data-error'),
    Array.from(root.querySelectorAll('[data-key]'), e => [e.dataset.key, e.getAttribute('data-value'), e.textContent]),
    root.querySelector('svg') !== null,
    Array.from(root.querySelectorAll('output'), o => o.textContent)]"""
# Every setting in one call: for each, what Playwright's fill does to a range input, control by control.
SET_AND_READ = ("""(root, settings) => { const read = """ + READ + """; return settings.map(setting => {
    for (const [name, value] of Object.entries(setting)) {
        const input = root.querySelector(`input[data-control="${name}"]`);
        input.focus();
        input.value = value;
        input.dispatchEvent(new Event('input', {bubbles: true}));
        input.dispatchEvent(new Event('change', {bubbles: true}));
    }
    return read(root); }); }""")
FILLED = 3


def as_state(values, config):
    """The explorer's state for input values as the page holds them (strings)."""
    return {spec["name"]: (int(float(values[spec["name"]])) if spec["kind"] == "int" else float(values[spec["name"]]))
            for spec in config["controls"]}


def expected_at(name, state, config, kernel):
    """What specdec computes for this state: ``("values", dict)``, or ``("refused", warnings)`` outside the model."""
    values = kernel.evaluate(state)
    if values.get("refused"):
        return "refused", list(values["refused"])
    return "values", PYTHON[name](state, config)


def observe(root):
    return root.evaluate(READ)


def same(js: str, py, key: str) -> bool:
    if isinstance(py, str):
        return js == py
    if key in INTEGERS:
        return re.fullmatch(r"-?\d+", js) is not None and int(js) == py
    x = float(js)                   # JavaScript's String(): shortest round trip, "NaN", "Infinity"
    if math.isnan(py) or math.isnan(x):
        return math.isnan(py) and math.isnan(x)
    return math.isclose(x, py, rel_tol=1e-9, abs_tol=1e-14)


@pytest.mark.parametrize("name", sorted(HEADLINE))
def test_live_explorer_matches_specdec_at_random_settings(browser, book_server, built_html, name):
    context, page, external, errors = open_page(browser, book_server, HEADLINE[name])
    try:
        root = page.locator(f'.specdec-explorer.specdec-live[data-explorer="{name}"]').first
        root.wait_for(state="attached", timeout=30_000)
        page.wait_for_function(f"""() => {{ const r = document.querySelector('[data-explorer="{name}"].specdec-live');
                                       return r && r.getAttribute('data-live') === 'ready'; }}""", timeout=30_000)
        config = json.loads(root.get_attribute("data-config"))
        kernel = kernel_explorer(name, config)
        # accessible: every control labelled, the chart an image with a description, the note visible
        inputs = root.locator("input[type=range]")
        assert inputs.count() == len(config["controls"])
        assert all(inputs.nth(i).get_attribute("aria-label") for i in range(inputs.count()))
        assert root.locator(".specdec-note").inner_text() == LIVE_NOTE
        if name != "checklist":
            svg = root.locator("svg[role=img]")
            assert svg.count() == 1 and len(svg.get_attribute("aria-label")) > 60
        rng = random.Random(f"specdec-live {name}")
        # Setting 0 is the defaults, as the page opens; then every control at its ends, then random settings.
        # Settings 1 to FILLED are set with Playwright's fill (one round trip per control); the rest in one
        # page.evaluate that does what fill does to a range input: assign the value, then fire input and change.
        observed = [observe(root)]
        candidates = extreme_settings(config, observed[0][0]) + [
            {spec["name"]: grid_value(spec, rng) for spec in config["controls"]} for _ in range(SETTINGS_PER_EXPLORER)]
        for setting in candidates[:FILLED]:
            for spec in config["controls"]:
                root.locator(f'input[data-control="{spec["name"]}"]').fill(setting[spec["name"]])
            observed.append(observe(root))
        observed += root.evaluate(SET_AND_READ, candidates[FILLED:])
        compared = refused_seen = 0
        for number, (shown, js_error, cells, chart, outputs) in enumerate(observed):
            if number:
                assert shown == candidates[number - 1], f"{name}: the inputs hold {shown}, set {candidates[number - 1]}"
                state = as_state(shown, config)
            else:
                state = {spec["name"]: spec["value"] for spec in config["controls"]}
            assert js_error is None, f"{name} at {state}: the page shows an error: {js_error}"
            texts = {key: text for key, _, text in cells}
            shown_text = " ".join(list(texts.values()) + outputs)
            assert not forbidden_in(shown_text), f"{name} at {state}: {forbidden_in(shown_text)[:3]}"
            rows = {key: text for key, _, text in kernel.readout_rows(kernel.evaluate(state))}
            assert texts == rows, f"{name} at {state}: the page's read-out text differs from the kernel explorer's"
            kind, expected = expected_at(name, state, config, kernel)
            if kind == "refused":
                got = [value for _, value, _ in cells]
                assert got == expected, f"{name} at {state}: page warns {got}, specdec {expected}"
                assert not chart or name == "checklist", f"{name} at {state}: a chart for a refused setting"
                refused_seen += 1
                continue
            got = {key: value for key, value, _ in cells}
            assert set(got) == set(expected), f"{name}: read-out keys {sorted(got)} vs {sorted(expected)}"
            bad = [f"{key}: page {got[key]!r}, specdec {expected[key]!r}" for key in expected
                   if not same(got[key], expected[key], key)]
            assert not bad, f"{name} at {state}:\n  " + "\n  ".join(bad)
            compared += 1
        assert compared >= SETTINGS_PER_EXPLORER // 2, f"{name}: only {compared} settings inside the model"
        if name in REFUSING:
            assert refused_seen, f"{name}: no setting outside the model was tried"
        print(f"{name}: {compared} settings match specdec; {refused_seen} more refused with the same warnings")
    finally:
        context.close()
    assert not external, f"{name}: requests to other hosts: {sorted(set(external))}"
    assert not errors, f"{name}: errors in the page: {errors[:3]}"


def test_headline_pages_are_those_of_the_explorers():
    """The pages tested above are where the chapters put the headline explorers."""
    for name, docname in HEADLINE.items():
        text = source_of(docname).read_text()
        assert f'data-explorer=\\"{name}\\"' in text and "specdec-live" in text, f"{name} is not on {docname}"


def test_the_port_of_python_format_rounds_as_python_does(browser, book_server, built_html):
    """specdec-live.js's pyFormat gives format(x, spec) for the specs the read-outs use, ties included.

    Python rounds the exact binary value half to even; JavaScript's toFixed rounds ties away from zero
    (1.125 -> "1.13"), so the port does its own rounding. Checked on 3,000 seeded random values of several
    magnitudes, on exact ties (k / 8 and k / 16) and on the edge cases (0, -0.0, nan, inf, 999.5, 1e-5).
    """
    rng = random.Random("pyFormat")
    specs = [".4f", ".3f", ".2f", ".1f", ".1%", ".2%", ".3g", ".4g", "g", ",.0f", ".0f"]
    values = [rng.uniform(-3, 3) * 10 ** rng.randint(-6, 5) for _ in range(3000)]
    values += [k / 8 for k in range(-40, 41)] + [k / 16 for k in range(0, 60)] + [k / 1000 for k in range(0, 60)]
    values += [0.0, -0.0, 999.5, 1000.5, 2.5, 0.5, 1e-5, 0.00012345, 123456.5, 1e21 / 1e10, 7.0, 100.0]
    cases = [[x, spec] for x in values for spec in specs] + [[float("nan"), ".3f"], [float("inf"), ".2f"]]
    context, page, external, errors = open_page(browser, book_server, HEADLINE["expected-tokens"])
    try:
        page.wait_for_function("() => window.specdecLive !== undefined")
        got = page.evaluate("cases => cases.map(([x, spec]) => specdecLive.pyFormat(x, spec))",
                            [[x if math.isfinite(x) else None, s] for x, s in cases])
        got_special = page.evaluate("() => [specdecLive.pyFormat(NaN, '.3f'), specdecLive.pyFormat(Infinity, '.2f')]")
    finally:
        context.close()
    bad = [(x, spec, js, format(x, spec)) for (x, spec), js in zip(cases[:-2], got[:-2], strict=True) if js != format(x, spec)]
    assert not bad, f"{len(bad)} of {len(cases) - 2} differ from Python's format, e.g. {bad[:5]}"
    assert got_special == ["nan", "inf"]
