"""The decision checklist, live (Part I, chapter 5). Presentation only."""

from __future__ import annotations

import ipywidgets as widgets

from .. import checklist as _wl

__all__ = ["checklist_explorer", "checklist_html"]


def checklist_html(**values) -> str:
    """HTML of :func:`specdec.checklist.assess` for the given Workload fields.

    The widget's update callback; exposed so the benchmark can time it.

    Defined in chapter "The decision checklist" (Part I, chapter 5).

    Parameters
    ----------
    **values
        Keyword arguments of :class:`specdec.checklist.Workload`.

    Returns
    -------
    str
        The assessment as an HTML fragment (an error message if the
        inputs are invalid).

    Examples
    --------
    >>> import specdec as sd
    >>> from dataclasses import asdict
    >>> "<table>" in sd.widgets.checklist_html(**asdict(sd.checklist.EXAMPLES["chat"]))
    True
    """
    try:
        return _wl.assess(_wl.Workload(**values)).to_html()
    except (ValueError, TypeError) as exc:
        return f"<p style='color:#D55E00'>{exc}</p>"


def checklist_explorer(workload=None):
    """Sliders for every field of a workload, showing the checklist assessment live.

    Defaults equal ``workload`` (the chapter's "chat assistant" example when
    omitted), so the first view matches the static table beside it.

    Defined in chapter "The decision checklist" (Part I, chapter 5).

    Parameters
    ----------
    workload : specdec.checklist.Workload, optional
        Starting values. Default ``specdec.checklist.EXAMPLES["chat"]``.

    Returns
    -------
    ipywidgets.VBox

    Examples
    --------
    >>> import specdec as sd
    >>> box = sd.widgets.checklist_explorer()
    >>> type(box).__name__
    'VBox'
    """
    w = _wl.EXAMPLES["chat"] if workload is None else workload
    if not isinstance(w, _wl.Workload):
        raise TypeError(f"workload must be a specdec.checklist.Workload, got {type(w).__name__}")
    u = w.time_unit
    style = {"description_width": "150px"}
    layout = widgets.Layout(width="420px")

    def fslider(value, lo, hi, step, text):
        hi = max(hi, value)
        return widgets.FloatSlider(value=value, min=lo, max=hi, step=step, description=text, style=style,
                                   layout=layout, continuous_update=False, readout_format=".3g")

    controls = {
        "ttft": fslider(w.ttft, 1.0, 5000.0, 1.0, f"TTFT ({u})"),
        "tpot": fslider(w.tpot, 0.5, 100.0, 0.1, f"TPOT ({u})"),
        "batch": widgets.IntSlider(value=w.batch, min=1, max=max(256, w.batch), description="batch", style=style,
                                   layout=layout, continuous_update=False),
        "alpha": fslider(w.alpha, 0.0, 1.0, 0.01, "alpha"),
        "k": widgets.IntSlider(value=w.k, min=1, max=max(16, w.k), description="k (drafts/round)", style=style,
                               layout=layout, continuous_update=False),
        "t0": fslider(w.t0, 0.5, 100.0, 0.1, f"T0 ({u})"),
        "t_draft": fslider(w.t_draft, 0.0, 100.0, 0.1, f"T_draft, round ({u})"),
        "t_verify": fslider(w.t_verify, 0.5, 200.0, 0.1, f"T_verify ({u})"),
        "t_overhead": fslider(w.t_overhead, 0.0, 20.0, 0.1, f"T_overhead ({u})"),
        "mean_output_tokens": fslider(w.mean_output_tokens, 1.0, 2000.0, 1.0, "mean output (tokens)"),
        "t_setup": fslider(w.t_setup, 0.0, 200.0, 0.5, f"setup ({u})"),
    }
    out = widgets.HTML()
    fixed = {"time_unit": w.time_unit, "name": w.name}

    def update(_change=None):
        out.value = checklist_html(**{key: c.value for key, c in controls.items()}, **fixed)

    for c in controls.values():
        c.observe(update, names="value")
    update()
    left = widgets.VBox(list(controls.values()))
    return widgets.VBox([widgets.HBox([left, out])])
