"""Explorers for Part IV, "Speculation as engines run it".

Presentation only: the numbers come from :mod:`specdec.calibration`,
:mod:`specdec.drafters`, :mod:`specdec.verification`, :mod:`specdec.trees`,
:mod:`specdec.dynamic` and :mod:`specdec.goodput`; the figures from
:mod:`specdec.plots.calibration` and :mod:`specdec.plots.engines`.

Every explorer is an ipywidgets ``VBox`` (controls, the figure as a PNG, a
read-out table) whose display bundle also carries a static ``text/html``
snapshot: its controls drawn disabled at their values, the read-out, and one
line on how to make it live. ``values`` holds the numbers of the last update.
"""

from __future__ import annotations

import html
from dataclasses import replace

import ipywidgets as widgets
import numpy as np

from .. import calibration as cal
from .. import drafters, dynamic, goodput, synthetic, trees, verification
from ..deployment import break_even_batch, speculative_speedup
from ..hardware import LLAMA_1B, LLAMA_8B, LLAMA_70B, draft_cost, step_time, verify_cost
from ..plots import calibration as calibration_plots
from ..plots import engines as engine_plots
from ..sampling import total_variation
from ._render import figure_png, table_html

__all__ = [
    "calibration_explorer",
    "prompt_lookup_explorer",
    "verification_explorer",
    "tree_explorer",
    "dynamic_k_explorer",
    "goodput_explorer",
    "prompt_lookup_run",
    "medusa_rank_accept",
]

_RUN_LINE = "Static snapshot at the values above: run the notebook (Jupyter) to move the controls."


def _control_html(name: str, control) -> str:
    label = html.escape(getattr(control, "description", "") or name)
    value = control.value
    if isinstance(control, widgets.Checkbox):
        field = f"<input type='checkbox' disabled{' checked' if value else ''}>"
    elif isinstance(control, (widgets.Dropdown, widgets.SelectionSlider, widgets.ToggleButtons)):
        options = [o if isinstance(o, str) else str(o) for o in control.options]
        label_of = dict(zip(control.options, options)) if not isinstance(control.options, dict) else {}
        shown = html.escape(label_of.get(value, str(value)))
        field = f"<select disabled><option selected>{shown}</option></select>"
    else:
        fmt = getattr(control, "readout_format", "d" if isinstance(value, (int, np.integer)) else ".2f")
        shown = format(value, fmt) if fmt else str(value)
        field = (f"<input type='range' disabled min='{control.min}' max='{control.max}' step='{control.step}' "
                 f"value='{value}'> <code>{html.escape(shown)}</code>")
    return f"<label style='margin-right:14px;white-space:nowrap'>{label} {field}</label>"


class _Explorer(widgets.VBox):
    """Controls, a figure and a read-out; subclasses define ``title``, ``_controls`` and ``_render``."""

    title = "Explorer"

    def __init__(self, controls: dict, dpi: int = 72):
        self.controls = controls
        self.dpi = int(dpi)
        self.image = widgets.Image(format="png")
        self.readout = widgets.HTML()
        self.values: dict = {}
        self._rows: list = []
        items = list(controls.values())
        rows = [widgets.HBox(items[i:i + 3]) for i in range(0, len(items), 3)]
        for control in items:
            control.observe(self._changed, names="value")
        super().__init__(children=[*rows, self.image, self.readout])
        self.update()

    def _changed(self, _change) -> None:
        self.update()

    def current(self) -> dict:
        """The control values by name."""
        return {name: control.value for name, control in self.controls.items()}

    def update(self) -> None:
        """Recompute the figure and the read-out from the controls."""
        fig, rows, values = self._render(**self.current())
        self.image.value = figure_png(fig, self.dpi)
        self._rows = rows
        self.readout.value = table_html(rows)
        self.values = {**values, **self.current()}

    def snapshot_html(self) -> str:
        """The static view stored in the notebook: disabled controls, the read-out, how to run it."""
        controls = "".join(_control_html(name, c) for name, c in self.controls.items())
        return (f"<div class='specdec-explorer' style='border:1px solid #ccc;padding:6px 10px;margin:4px 0'>"
                f"<p><strong>{html.escape(self.title)}</strong></p><p>{controls}</p>{table_html(self._rows)}"
                f"<p style='font-size:smaller;color:#555'>{html.escape(_RUN_LINE)}</p></div>")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = f"{self.title} (an explorer: run the notebook to use it)"
        bundle["text/html"] = self.snapshot_html()
        return bundle


def _slider(value, lo, hi, step, description, fmt=".2f"):
    kind = widgets.IntSlider if isinstance(value, int) and isinstance(step, int) else widgets.FloatSlider
    extra = {} if kind is widgets.IntSlider else {"readout_format": fmt}
    return kind(value=value, min=lo, max=hi, step=step, description=description, continuous_update=False, **extra)


def _choices(value, options, description):
    if value not in (options if not isinstance(options, dict) else options.values()):
        raise ValueError(f"{description} must be one of {list(options)}; got {value!r}")
    return widgets.Dropdown(options=options, value=value, description=description)


# --------------------------------------------------------------------------
# A calibrated roofline
# --------------------------------------------------------------------------

_MODELS = {"Llama 3.1 70B": LLAMA_70B, "Llama 3.1 8B": LLAMA_8B, "Llama 3.2 1B": LLAMA_1B}
_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
_CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768)


class CalibrationExplorer(_Explorer):
    """Target, draft, GPU, GPU count, roofline, fixed cost, batch, context, k and alpha: the round's costs.

    Defined in chapter "A calibrated roofline".
    """

    title = "A calibrated roofline: the round's passes and speculation's speedup"

    def __init__(self, target="Llama 3.1 70B", draft="Llama 3.1 8B", gpu="h100-sxm", n_gpus=8, calibrated=True,
                 step_overhead_ms=None, batch=1, context=0, k=5, alpha=0.8, dpi=72):
        base = cal.CALIBRATED_GPUS.get(gpu)
        if base is None:
            raise ValueError(f"gpu must be one of {list(cal.CALIBRATED_GPUS)}; got {gpu!r}")
        fixed = base.calibration.step_overhead * 1e3 if step_overhead_ms is None else float(step_overhead_ms)
        super().__init__({
            "target": _choices(target, list(_MODELS), "target"), "draft": _choices(draft, list(_MODELS), "draft"),
            "gpu": _choices(gpu, list(cal.CALIBRATED_GPUS), "GPU"), "n_gpus": _choices(n_gpus, [1, 2, 4, 8], "GPUs"),
            "calibrated": widgets.Checkbox(value=bool(calibrated), description="calibrated"),
            "step_overhead_ms": _slider(fixed, 0.0, 5.0, 0.05, "fixed (ms)"),
            "batch": widgets.SelectionSlider(options=_BATCHES, value=batch, description="batch",
                                             continuous_update=False),
            "context": widgets.SelectionSlider(options=_CONTEXTS, value=context, description="context",
                                               continuous_update=False),
            "k": _slider(int(k), 1, 10, 1, "k"), "alpha": _slider(float(alpha), 0.3, 0.95, 0.01, "alpha"),
        }, dpi)

    def _render(self, target, draft, gpu, n_gpus, calibrated, step_overhead_ms, batch, context, k, alpha):
        one = cal.CALIBRATED_GPUS[gpu]
        one = one.calibrated(one.calibration, step_overhead=step_overhead_ms * 1e-3) if calibrated else \
            replace(one.ideal(), name=one.name.replace(" (calibrated)", ""))
        hw = one.scaled(n_gpus) if n_gpus > 1 else one
        t, d = _MODELS[target], _MODELS[draft]
        fig = calibration_plots.calibration_overview(t, d, hw, alpha, k, batch, context)
        kv = not hw.is_ideal
        t0 = float(step_time(t, hw, batch, context))
        tv = float(step_time(t, hw, batch, context, k + 1))
        td = float(step_time(d, hw, batch, context))
        s = float(speculative_speedup(t, d, hw, alpha, k, batch, context, kv_write=kv))
        be = break_even_batch(t, d, hw, alpha, k, context, kv_write=kv)
        values = {"t0": t0, "t_verify": tv, "t_draft_step": td, "c_verify": tv / t0, "c_draft": td / t0,
                  "speedup": s, "break_even_batch": be}
        rows = [("T0 (plain step)", f"{t0 * 1e3:.2f} ms"), ("T_verify", f"{tv * 1e3:.2f} ms"),
                ("c_v = T_verify / T0", f"{tv / t0:.3f}"), ("draft step", f"{td * 1e3:.2f} ms"),
                ("c_d", f"{td / t0:.3f}"), ("speedup", f"{s:.2f}x"),
                ("first losing batch", "none up to 4096" if not np.isfinite(be) else f"{be:.0f}")]
        return fig, rows, values


def calibration_explorer(**kwargs):
    """The calibrated-roofline explorer (see :class:`CalibrationExplorer` for the arguments).

    Defined in chapter "A calibrated roofline".
    """
    return CalibrationExplorer(**kwargs)


# --------------------------------------------------------------------------
# Drafts in today's engines: prompt lookup
# --------------------------------------------------------------------------

def _vicuna_costs(num_pred):
    return verify_cost(cal.LLAMA2_7B, cal.A100_CALIBRATED, np.arange(1, num_pred + 1), 1, 512)


def prompt_lookup_run(copy_prob=0.1, mean_copy_length=20.0, num_pred=10, max_ngram=3, n_tokens=8000,
                      prompt_tokens=1000, vocab=32000, rng=0):
    """The prompt-lookup run an explorer shows: synthetic repeating text, then the lookup over it.

    Defined in chapter "Drafts in today's engines".
    """
    text = drafters.synthetic_copy_text(n_tokens, vocab, copy_prob, mean_copy_length, rng=rng)
    return drafters.simulate_prompt_lookup(text, prompt_tokens, max_ngram, num_pred)


class PromptLookupExplorer(_Explorer):
    """Copy rate and copy length of the text, proposal length and n-gram size: what prompt lookup gains.

    Defined in chapter "Drafts in today's engines".
    """

    title = "Prompt lookup on text that repeats itself (Vicuna 7B on a calibrated A100)"

    def __init__(self, copy_prob=0.1, mean_copy_length=20.0, num_pred=10, max_ngram=3, dpi=72):
        super().__init__({
            "copy_prob": _slider(float(copy_prob), 0.0, 0.5, 0.01, "copy prob."),
            "mean_copy_length": _slider(float(mean_copy_length), 1.0, 60.0, 1.0, "copy length", ".0f"),
            "num_pred": _slider(int(num_pred), 1, 20, 1, "proposed"),
            "max_ngram": _slider(int(max_ngram), 1, 6, 1, "n-gram"),
        }, dpi)

    def _render(self, copy_prob, mean_copy_length, num_pred, max_ngram):
        run = prompt_lookup_run(copy_prob, mean_copy_length, num_pred, max_ngram)
        fig = engine_plots.prompt_lookup_histogram(run)
        speedup = run.speedup(_vicuna_costs(num_pred))
        rows = [("rounds", f"{run.n_rounds}"), ("share with a match", f"{run.match_rate:.1%}"),
                ("tokens per round", f"{run.tokens_per_round:.3f}"), ("speedup (c_d = 0)", f"{speedup:.2f}x")]
        return fig, rows, {"tokens_per_round": run.tokens_per_round, "match_rate": run.match_rate,
                           "speedup": speedup}


def prompt_lookup_explorer(**kwargs):
    """The prompt-lookup explorer (see :class:`PromptLookupExplorer`).

    Defined in chapter "Drafts in today's engines".
    """
    return PromptLookupExplorer(**kwargs)


# --------------------------------------------------------------------------
# Verification rules
# --------------------------------------------------------------------------

class VerificationExplorer(_Explorer):
    """Temperature and typical acceptance's thresholds: what each rule emits and accepts.

    Defined in chapter "Verification rules".
    """

    title = "Verification rules on one position (the book's example pair)"

    def __init__(self, temperature=1.0, epsilon=verification.MEDUSA_EPSILON, delta=verification.MEDUSA_DELTA, dpi=72):
        super().__init__({
            "temperature": _slider(float(temperature), 0.1, 2.0, 0.05, "temperature"),
            "epsilon": _slider(float(epsilon), 0.0, 0.5, 0.01, "epsilon"),
            "delta": _slider(float(delta), 0.0, 1.0, 0.01, "delta"),
        }, dpi)

    def _render(self, temperature, epsilon, delta):
        p = synthetic.temper_distribution(synthetic.EXAMPLE_TARGET, temperature)
        q = synthetic.temper_distribution(synthetic.EXAMPLE_DRAFT, temperature)
        fig = engine_plots.verification_rules_bars(p, q, epsilon=epsilon, delta=delta)
        onehot = np.eye(p.size)[int(np.argmax(q))]
        rows, values = [], {}
        for rule in verification.RULES:
            qq = onehot if rule == "one-hot" else q
            kw = {"epsilon": epsilon, "delta": delta} if rule == "typical" else {}
            acc = float(verification.acceptance_probability(p, qq, rule, **kw))
            tv = float(total_variation(p, verification.emitted_distribution(p, qq, rule, **kw)))
            rows.append((rule, f"accepts {acc:.3f}, distance to p {tv:.3f}"))
            values[rule] = {"acceptance": acc, "total_variation": tv}
        return fig, rows, values


def verification_explorer(**kwargs):
    """The verification-rules explorer (see :class:`VerificationExplorer`).

    Defined in chapter "Verification rules".
    """
    return VerificationExplorer(**kwargs)


# --------------------------------------------------------------------------
# Token trees
# --------------------------------------------------------------------------

def medusa_rank_accept():
    """Per-depth, per-rank acceptance of the Medusa heads of Vicuna 7B (their published top-k accuracies).

    Defined in chapter "Token trees".
    """
    return trees.rank_accept_from_topk(np.array(drafters.MEDUSA_TOPK_VICUNA_7B.value))


class TreeExplorer(_Explorer):
    """Node budget, depth and roofline: the best tree for Vicuna 7B's Medusa heads and what it gains.

    Defined in chapter "Token trees".
    """

    title = "The best draft tree for a node budget (Medusa heads of Vicuna 7B, A100)"

    def __init__(self, n_nodes=14, max_depth=3, calibrated=True, dpi=72):
        super().__init__({
            "n_nodes": _slider(int(n_nodes), 1, 64, 1, "nodes"),
            "max_depth": _slider(int(max_depth), 1, 5, 1, "depth"),
            "calibrated": widgets.Checkbox(value=bool(calibrated), description="calibrated"),
        }, dpi)

    def _render(self, n_nodes, max_depth, calibrated):
        tree = trees.best_tree(n_nodes, medusa_rank_accept(), max_depth)
        fig = engine_plots.draw_tree(tree)
        hw = cal.A100_CALIBRATED if calibrated else cal.A100_CALIBRATED.ideal()
        cv = float(trees.tree_verify_cost(cal.LLAMA2_7B, hw, max(tree.n_nodes, 1), 1, 512))
        s = tree.expected_tokens / cv
        rows = [("nodes used", f"{tree.n_nodes}"), ("E[L]", f"{tree.expected_tokens:.3f}"),
                ("c_verify", f"{cv:.3f}"), ("speedup (heads in the pass)", f"{s:.3f}x")]
        return fig, rows, {"expected_tokens": tree.expected_tokens, "c_verify": cv, "speedup": s,
                           "nodes_used": tree.n_nodes}


def tree_explorer(**kwargs):
    """The token-tree explorer (see :class:`TreeExplorer`).

    Defined in chapter "Token trees".
    """
    return TreeExplorer(**kwargs)


# --------------------------------------------------------------------------
# Dynamic speculation length
# --------------------------------------------------------------------------

class DynamicKExplorer(_Explorer):
    """Mean and spread of the requests' acceptance, the fixed k and the heuristic's start: four policies.

    Defined in chapter "Dynamic speculation length".
    """

    title = "Draft-length policies on requests of varying acceptance (68M draft, Vicuna 7B, calibrated A100)"

    def __init__(self, mean=0.7, concentration=2.0, k=5, start=20, c_draft=None, c_verify=None, dpi=72):
        self._costs = (c_draft, c_verify)
        super().__init__({
            "mean": _slider(float(mean), 0.3, 0.95, 0.01, "mean alpha"),
            "concentration": _slider(float(concentration), 0.3, 100.0, 0.1, "concentration", ".1f"),
            "k": _slider(int(k), 1, 16, 1, "fixed k"),
            "start": _slider(int(start), 1, 30, 1, "HF start"),
        }, dpi)

    def _render(self, mean, concentration, k, start):
        cd, cv = self._costs
        a100 = cal.A100_CALIBRATED
        cd = float(draft_cost(cal.VICUNA_68M, cal.LLAMA2_7B, a100, 1, 512)) if cd is None else cd
        cv = verify_cost(cal.LLAMA2_7B, a100, np.arange(1, 65), 1, 512) if cv is None else cv
        alphas = dynamic.beta_alphas(400, mean, concentration, rng=3)
        fig = engine_plots.schedule_speedups({f"mean {mean:.2f}, concentration {concentration:g}": alphas}, 256,
                                             k=k, start=float(start), c_draft=cd, c_verify=cv, rng=5)
        runs = dynamic.compare_schedules(alphas, 256, 5, k=k, start=float(start), c_draft=cd, c_verify=cv)
        rows = [(p, f"{r.speedup:.3f}x, {r.mean_draft_length:.1f} drafts per round") for p, r in runs.items()]
        return fig, rows, {p: r.speedup for p, r in runs.items()}


def dynamic_k_explorer(**kwargs):
    """The draft-length explorer (see :class:`DynamicKExplorer`).

    Defined in chapter "Dynamic speculation length".
    """
    return DynamicKExplorer(**kwargs)


# --------------------------------------------------------------------------
# Throughput at a latency target
# --------------------------------------------------------------------------

class GoodputExplorer(_Explorer):
    """TPOT target, alpha, k and context: goodput with and without speculation (70B/8B on 8 H100).

    Defined in chapter "Throughput at a latency target".
    """

    title = "Goodput at a TPOT target (Llama 3.1 70B + 8B draft, 8 H100)"

    def __init__(self, tpot_ms=12.0, alpha=0.8, k=5, context=2048, calibrated=True, lengths=None, dpi=72):
        self._lengths = goodput.output_lengths(2000, 256, rng=1) if lengths is None else lengths
        super().__init__({
            "tpot_ms": _slider(float(tpot_ms), 6.0, 60.0, 0.5, "TPOT (ms)", ".1f"),
            "alpha": _slider(float(alpha), 0.3, 0.95, 0.01, "alpha"),
            "k": _slider(int(k), 1, 10, 1, "k"),
            "context": widgets.SelectionSlider(options=_CONTEXTS[1:], value=context, description="context",
                                               continuous_update=False),
            "calibrated": widgets.Checkbox(value=bool(calibrated), description="calibrated"),
        }, dpi)

    def _render(self, tpot_ms, alpha, k, context, calibrated):
        g = (cal.H100_CALIBRATED if calibrated else cal.H100_CALIBRATED.ideal()).scaled(8)
        r = goodput.compare_at_equal_latency(LLAMA_70B, LLAMA_8B, g, alpha, k, context, tpot_ms * 1e-3, self._lengths)
        fig = engine_plots.goodput_curves(r, np.linspace(0.006, 0.06, 109), tpot_ms * 1e-3)
        ratio = r.goodput_ratio
        rows = [("plain decoding", f"{r.baseline.throughput:.0f} tokens/s at batch {r.baseline.batch}"),
                ("speculative", f"{r.speculative.throughput:.0f} tokens/s at batch {r.speculative.batch}"),
                ("goodput ratio", "only speculation meets it" if np.isinf(ratio) else
                 ("neither meets it" if np.isnan(ratio) else f"{ratio:.2f}")),
                ("at the largest batch that fits", f"{r.capacity_throughput_ratio:.2f}")]
        return fig, rows, {"goodput_baseline": r.baseline.throughput, "goodput_speculative": r.speculative.throughput,
                           "goodput_ratio": ratio, "capacity_ratio": r.capacity_throughput_ratio}


def goodput_explorer(**kwargs):
    """The goodput explorer (see :class:`GoodputExplorer`).

    Defined in chapter "Throughput at a latency target".
    """
    return GoodputExplorer(**kwargs)
