"""The break-even threshold explorer (Part II, chapter 3). Presentation only."""

from __future__ import annotations

import ipywidgets as widgets

from .. import economics
from ..plots import new_figure
from ..plots.threshold import ThresholdPanel
from ._render import Blitter

__all__ = ["threshold_explorer", "threshold_verdict_html", "threshold_render_png"]


def threshold_verdict_html(k, c_draft, c_verify, alpha) -> str:
    """One line of HTML: the break-even alpha, the speedup at ``alpha`` and the verdict.

    The text half of :func:`threshold_explorer`'s update; exposed so the
    benchmark can time it.

    Defined in chapter "The break-even condition" (Part II, chapter 3).

    Parameters
    ----------
    k : int
        Drafts per round, >= 1.
    c_draft, c_verify : float
        Costs as fractions of a target step (>= 0 and > 0).
    alpha : float
        Measured acceptance rate in [0, 1].

    Returns
    -------
    str
        HTML fragment (an error message if an input is invalid).

    Examples
    --------
    >>> import specdec as sd
    >>> "net saving" in sd.widgets.threshold_verdict_html(4, 0.05, 1.1, 0.8)
    True
    """
    try:
        threshold = economics.break_even_alpha(k, c_draft, c_verify)
        s = economics.speedup_from_costs(alpha, k, c_draft, c_verify)
        cost = economics.round_cost(k, c_draft, c_verify)
    except (ValueError, TypeError) as exc:
        return f"<p style='color:#D55E00'>{exc}</p>"
    if threshold != threshold:  # nan
        need = f"no alpha can win: a round costs {cost:.3g} target steps, at least k + 1 = {k + 1}"
    else:
        need = f"break-even alpha = <b>{threshold:.4f}</b> (round cost {cost:.3g} target steps)"
    verdict = "net saving" if s > 1 else ("break-even" if s == 1 else "net loss")
    color = "#009E73" if s > 1 else "#D55E00"
    return (f"<p>{need}; measured alpha = {alpha:.3f} gives speedup {s:.3f}: "
            f"<b style='color:{color}'>{verdict}</b></p>")


def threshold_render_png(fig, panel, k, c_draft, c_verify, alpha) -> bytes:
    """Update the explorer's figure for new values and return it as PNG bytes.

    The figure half of :func:`threshold_explorer`'s update (the benchmark
    times it). The first call for a panel draws the whole figure at 72 dpi
    (laying it out once, then switching its layout engine off) and keeps it;
    later calls move the panel's artists and repaint only those over the
    cached rest of the figure, which is redrawn only when the right panel's
    y limit has to change (it is kept while the curve fits in it, see
    :meth:`specdec.plots.ThresholdPanel.update`).

    Defined in chapter "The break-even condition" (Part II, chapter 3).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    panel : specdec.plots.ThresholdPanel
        Drawn on ``fig``'s axes.
    k, c_draft, c_verify, alpha
        As in :func:`threshold_verdict_html`.

    Returns
    -------
    bytes
        PNG image.

    Examples
    --------
    >>> import specdec as sd
    >>> fig, axes = sd.plots.new_figure(10, 3.8, ncols=2)
    >>> panel = sd.plots.ThresholdPanel(axes)
    >>> sd.widgets.threshold_render_png(fig, panel, 4, 0.05, 1.1, 0.8)[:4] == b"\\x89PNG"
    True
    """
    blit = getattr(panel, "_blitter", None)
    if blit is None or blit.fig is not fig:
        panel.update(k, c_draft, c_verify, alpha)     # the first view is the static figure's
        blit = panel._blitter = Blitter(fig, 72, dynamic=panel.dynamic_artists())
        return blit.initial_png()
    panel.update(k, c_draft, c_verify, alpha, keep_ylim=True)
    return blit.png(key=panel.right.get_ylim())


def threshold_explorer(k=5, c_draft=0.1, c_verify=1.25, alpha=0.8, k_max=16):
    """Sliders for k, c_draft, c_verify and a measured alpha, showing the threshold live.

    Left panel: the break-even alpha against ``k`` with the measured alpha
    as a line (above the curve: net saving). Right panel: speedup against
    alpha at the chosen ``k``. Defaults reproduce
    :func:`specdec.plots.threshold_panel` called with the same arguments.

    Defined in chapter "The break-even condition" (Part II, chapter 3).

    Parameters
    ----------
    k : int, optional
        Drafts per round. Default 5.
    c_draft, c_verify : float, optional
        Costs as fractions of a target step.
    alpha : float, optional
        Measured acceptance rate.
    k_max : int, optional
        Largest ``k`` on the sliders and the left panel.

    Returns
    -------
    ipywidgets.VBox

    Examples
    --------
    >>> import specdec as sd
    >>> type(sd.widgets.threshold_explorer()).__name__
    'VBox'
    """
    economics.break_even_alpha(k, c_draft, c_verify)  # validates the defaults
    economics.speedup_from_costs(alpha, k, c_draft, c_verify)
    style = {"description_width": "110px"}
    layout = widgets.Layout(width="360px")
    controls = {
        "k": widgets.IntSlider(value=int(k), min=1, max=max(int(k_max), int(k)), description="k (drafts)",
                               style=style, layout=layout, continuous_update=False),
        "c_draft": widgets.FloatSlider(value=float(c_draft), min=0.0, max=max(1.0, float(c_draft)), step=0.005,
                                       description="c_draft", readout_format=".3f", style=style, layout=layout,
                                       continuous_update=False),
        "c_verify": widgets.FloatSlider(value=float(c_verify), min=0.5, max=max(4.0, float(c_verify)), step=0.01,
                                        description="c_verify", readout_format=".3f", style=style, layout=layout,
                                        continuous_update=False),
        "alpha": widgets.FloatSlider(value=float(alpha), min=0.0, max=1.0, step=0.01, description="measured alpha",
                                     readout_format=".2f", style=style, layout=layout, continuous_update=False),
    }
    fig, axes = new_figure(10.0, 3.8, ncols=2)
    panel = ThresholdPanel(axes, k_max=controls["k"].max)
    image = widgets.Image(format="png")
    text = widgets.HTML()

    def update(_change=None):
        values = {name: c.value for name, c in controls.items()}
        text.value = threshold_verdict_html(**values)
        image.value = threshold_render_png(fig, panel, **values)

    for c in controls.values():
        c.observe(update, names="value")
    update()  # the first render lays the figure out once; later ones repaint only the moving artists
    return widgets.VBox([widgets.HBox(list(controls.values())[:2]), widgets.HBox(list(controls.values())[2:]),
                         text, image])
