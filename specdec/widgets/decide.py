"""The explorer of "Decide for your service" (the book's first chapter). Presentation only.

Sliders for the measurements :func:`specdec.decision.decide` reads; each change runs
``decide`` again and shows its verdict, key figures and figure
(:func:`specdec.plots.decision.decision_figure`). Outside a kernel the
output is a static snapshot (``text/html``): the controls, disabled, and
the read-out of the starting values.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from .. import decision as _decision
from .._validate import check_integer, check_positive
from ..plots.decision import decision_figure
from ._render import figure_png, table_html

__all__ = ["DecideExplorer", "decide_explorer"]


def _ms(value, name):
    """A time in ms from a number (ms) or a string with a unit."""
    return float(_decision.parse_time(value, name, "ms"))


class DecideExplorer(widgets.VBox):
    """Sliders for the measured acceptance and times; shows decide's verdict and figure live.

    ``decision`` holds the report of the last update, ``values`` the slider
    values it was computed from.

    Defined in chapter "Decide for your service".
    """

    def __init__(self, t0="12ms", t_draft_step="1.1ms", t_verify=None, k=4, mean_acceptance_length=3.3,
                 num_drafts=12_000, t_overhead="0ms", tpot_off=None, tpot_on=None, dpi=90):
        self.k = int(check_integer(k, "k", minimum=1, maximum=16))
        tv = {self.k: "14ms"} if t_verify is None else t_verify
        if not isinstance(tv, dict) or not tv:
            raise TypeError("t_verify must be a dict {k: time} with at least one measured k")
        self.num_drafts = None if num_drafts is None else float(check_positive(num_drafts, "num_drafts", "(rounds)"))
        self.tpot = None if tpot_off is None else (tpot_off, tpot_on)
        self.dpi = int(check_integer(dpi, "dpi", minimum=30, maximum=300))
        style = {"description_width": "170px"}
        layout = widgets.Layout(width="430px")

        def slider(value, lo, hi, step, text, fmt=".2f"):
            return widgets.FloatSlider(value=value, min=lo, max=max(hi, value), step=step, description=text,
                                       style=style, layout=layout, readout_format=fmt, continuous_update=False)

        self.controls = {
            "mean_acceptance_length": slider(float(mean_acceptance_length), 1.0, self.k + 1.0, 0.01,
                                             f"acceptance length (k = {self.k})"),
            "t0": slider(_ms(t0, "t0"), 1.0, 60.0, 0.1, "t0, target step (ms)"),
            "t_draft_step": slider(_ms(t_draft_step, "t_draft_step"), 0.0, 10.0, 0.05, "draft step (ms)"),
            "t_overhead": slider(_ms(t_overhead, "t_overhead"), 0.0, 10.0, 0.1, "overhead per round (ms)"),
        }
        for kk in sorted(tv):
            self.controls[f"t_verify_{kk}"] = slider(_ms(tv[kk], f"t_verify at k = {kk}"), 1.0, 120.0, 0.1,
                                                     f"verification at k = {kk} (ms)")
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{int(6.4 * self.dpi)}px"))
        self.decision = None
        self.values: dict = {}
        super().__init__([widgets.HBox([widgets.VBox(list(self.controls.values())), self.readout]), self.image])
        for c in self.controls.values():
            c.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, change) -> None:
        self.update()

    def _inputs(self) -> dict:
        v = {key: float(c.value) for key, c in self.controls.items()}
        tv = {int(key.rsplit("_", 1)[1]): t for key, t in v.items() if key.startswith("t_verify_")}
        inputs = dict(t0=v["t0"], t_draft_step=v["t_draft_step"], t_verify=tv, t_overhead=v["t_overhead"], k=self.k)
        length = v["mean_acceptance_length"]
        if self.num_drafts is None:
            inputs["mean_acceptance_length"] = length
        else:
            n = self.num_drafts
            inputs["counters"] = (n, n * self.k, (length - 1.0) * n)
        if self.tpot is not None:
            inputs.update(tpot_off=self.tpot[0], tpot_on=self.tpot[1])
        return inputs

    def compute(self):
        """The report for the current slider values (no drawing), or the error message of invalid values."""
        try:
            return _decision.decide(**self._inputs())
        except (ValueError, TypeError) as exc:
            return str(exc)

    def _rows(self, d) -> list:
        be = "none" if d.break_even_alpha != d.break_even_alpha else f"{d.break_even_alpha:.3f}"
        rows = [("verdict", d.verdict), ("alpha", f"{d.alpha:.3f}"),
                (f"speedup at k = {d.k}", f"{d.speedup:.2f}x"),
                ("best k", f"{d.best_k} ({d.best_speedup:.2f}x)"), (f"break-even alpha at k = {d.k}", be),
                ("margin", "" if be == "none" else f"{d.margin:+.3f}"), ("warnings", str(len(d.warnings)))]
        if d.alpha_interval is not None:
            rows.insert(2, (f"{d.confidence:.0%} interval", f"{d.alpha_interval[0]:.3f} .. {d.alpha_interval[1]:.3f}"))
        return rows

    def update(self, draw: bool = True):
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the report (or the error)."""
        d = self.compute()
        self.values = {key: float(c.value) for key, c in self.controls.items()}
        if isinstance(d, str):
            self.readout.value = f"<p style='color:#D55E00;max-width:420px'>{html.escape(d)}</p>"
            self.decision = None
            return d
        self.readout.value = table_html(self._rows(d)) + "".join(
            f"<p style='font-size:85%;max-width:420px'>warning: {html.escape(w)}</p>" for w in d.warnings)
        if draw:
            self.image.value = figure_png(decision_figure(d), dpi=self.dpi)
        self.decision = d
        return d

    def __repr__(self) -> str:
        d = self.decision
        state = "invalid inputs" if d is None else f"{d.verdict}, {d.speedup:.2f}x at k = {d.k}, best k = {d.best_k}"
        return f"DecideExplorer({state})"

    def snapshot_html(self) -> str:
        """The explorer without a kernel: its controls (disabled), the read-out, and how to make it live."""
        controls = "".join(
            f"<tr><td style='padding:1px 10px 1px 0'>{html.escape(c.description)}</td>"
            f"<td><input type='range' disabled min='{c.min:g}' max='{c.max:g}' step='{c.step:g}' "
            f"value='{c.value:g}'></td><td style='font-family:monospace'>{c.value:.2f}</td></tr>"
            for c in self.controls.values())
        return ("<div class='specdec-explorer-snapshot'>"
                "<p><em>Snapshot of the explorer at its starting values (the figure above shows the same state). "
                "Run this notebook in Jupyter to move the sliders.</em></p>"
                f"<div style='display:flex;gap:24px;flex-wrap:wrap'><table>{controls}</table>{self.readout.value}</div>"
                "</div>")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if isinstance(data, dict):
            data["text/html"] = self.snapshot_html()
        return bundle


def decide_explorer(t0="12ms", t_draft_step="1.1ms", t_verify=None, k=4, mean_acceptance_length=3.3,
                    num_drafts=12_000, t_overhead="0ms", tpot_off=None, tpot_on=None) -> DecideExplorer:
    """Interactive :func:`specdec.decision.decide`: sliders for the measurements, the verdict and figure live.

    Its defaults are the chapter's worked example, so the first view equals
    the figure beside it. With ``num_drafts`` the acceptance is passed as
    counters of that many rounds (so the report has an interval); with
    ``num_drafts=None`` as a mean acceptance length.

    Defined in chapter "Decide for your service".

    Parameters
    ----------
    t0, t_draft_step, t_overhead : float or str, optional
        Target step, one draft step and per-round overhead (ms, or strings with a unit).
    t_verify : dict, optional
        ``{k: time}`` of measured verification passes (one slider each). Default ``{k: "14ms"}``.
    k : int, optional
        Draft length at which acceptance was measured, 1 to 16. Default 4.
    mean_acceptance_length : float, optional
        Starting mean acceptance length, in [1, k + 1]. Default 3.3.
    num_drafts : float or None, optional
        Rounds behind the acceptance (for the interval). Default 12,000.
    tpot_off, tpot_on : str, optional
        Measured TPOTs without and with speculation (fixed; checked by decide).

    Returns
    -------
    DecideExplorer

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.decide_explorer(t_verify={2: "13.1ms", 4: "14ms", 6: "15.1ms"})
    >>> w.decision.verdict, w.decision.k
    ('speculate', 4)
    """
    return DecideExplorer(t0, t_draft_step, t_verify, k, mean_acceptance_length, num_drafts, t_overhead, tpot_off,
                          tpot_on)
