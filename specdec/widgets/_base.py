"""The base class of every explorer: controls, read-out, figure, and what it shows without a kernel.

An explorer is an ``ipywidgets.VBox``: its controls (sliders, drop-downs),
a read-out table of the numbers specdec computes for them, and (for most)
the chapter's figure redrawn for them. A subclass declares its controls,
computes its numbers by calling specdec (:meth:`Explorer.compute`),
lists its read-out (:meth:`Explorer.rows`), moves its figure's artists
(:meth:`Explorer.draw`) and describes the image (:meth:`Explorer.alt_text`).
This class does the rest: the layout, the observers, the image with its
alt text (rendered at the size it is shown and twice its pixel density,
through the one redraw cache, ``specdec.widgets._render.Blitter``),
``values`` (the numbers of the last update) and what the explorer shows
where no kernel runs: the ``text/html`` snapshot of its output bundle
(controls at their defaults, disabled, the read-out, and a line on how to
make it live), which the published book and an untrusted notebook show.
The five headline explorers (``live = True``) add the marker and the
configuration from which the book's own script ``specdec-live.js`` builds
them, live, in the HTML. The class is public as ``sd.widgets.Explorer``; the helpers here are private.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re

import ipywidgets as widgets

from ..plots import COLORS, SEQUENCE
from ..tables import html_table
from ._render import Blitter

__all__ = ["Explorer", "float_slider", "int_slider", "choice", "roofline_choice", "tagged_lines", "CONTEXT_STEPS",
           "table_html", "refusal_rows", "REFUSED_LABEL",
           "SNAPSHOT_NOTE", "LIVE_NOTE"]

#: The line under a snapshot: what the reader sees is fixed, and how to make it move.
SNAPSHOT_NOTE = ("Snapshot at the default values (controls disabled): run this cell in Jupyter, "
                 "e.g. the notebook in JupyterLab, to move the controls.")
#: The line under a live explorer of the HTML book (written by specdec-live.js, kept here as the one source).
LIVE_NOTE = ("Live in your browser: these numbers come from the book's JavaScript port of specdec, "
             "tested against it; run the notebook in JupyterLab for the kernel version.")

#: A read-out value that starts like a number ("3.69", "-0.5", "61.5%", "2.13x", "7"): right-aligned, monospace.
NUMERIC = re.compile(r"[-+]?[0-9.]")
LABEL_WIDTH = "10em"
CONTROL_WIDTH = "25em"


def _style(label_width):
    return {"description_width": label_width or LABEL_WIDTH}


def float_slider(value, low, high, step, label, fmt=".2f", *, width=CONTROL_WIDTH, label_width=None):
    """A float slider that updates on release (``continuous_update=False``), its range widened to hold ``value``."""
    return widgets.FloatSlider(value=float(value), min=float(min(low, value)), max=float(max(high, value)),
                               step=step, description=label, readout_format=fmt, continuous_update=False,
                               style=_style(label_width), layout=widgets.Layout(width=width))


def int_slider(value, low, high, label, step=1, *, width=CONTROL_WIDTH, label_width=None):
    """An integer slider that updates on release, its range widened to hold ``value``."""
    return widgets.IntSlider(value=int(value), min=int(min(low, value)), max=int(max(high, value)), step=int(step),
                             description=label, continuous_update=False, style=_style(label_width),
                             layout=widgets.Layout(width=width))


def choice(value, options, label, *, name=None, slider=False, width=CONTROL_WIDTH, label_width=None):
    """A drop-down (or a selection slider) over ``options``; ``name`` (default ``label``) is the error's subject.

    An option is a value or a ``(text, value)`` pair; ``value`` is one of the values.
    """
    allowed = [_option_value(o) for o in options]
    if isinstance(value, bool) != isinstance(allowed[0], bool) or value not in allowed:
        raise ValueError(f"{name or label} must be one of {allowed}; got {value!r}")
    if slider:
        return widgets.SelectionSlider(options=list(options), value=value, description=label,
                                       continuous_update=False, style=_style(label_width),
                                       layout=widgets.Layout(width=width))
    return widgets.Dropdown(options=list(options), value=value, description=label, style=_style(label_width),
                            layout=widgets.Layout(width=width))


_CALIBRATED = [("calibrated", True), ("ideal roofline (lower bound)", False)]

#: The context lengths a context slider steps through (tokens cached per sequence).
CONTEXT_STEPS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768)


def roofline_choice(value, **layout):
    """A drop-down between the calibrated roofline and the ideal one; ``value`` is True (calibrated) or False."""
    if not isinstance(value, bool):
        raise TypeError(f"calibrated must be True or False; got {value!r}")
    return choice(value, _CALIBRATED, "roofline", name="calibrated", **layout)


def tagged_lines(figure) -> dict:
    """The lines of ``figure`` that carry a ``gid`` tag, by tag (the curves an explorer moves)."""
    return {line.get_gid(): line for ax in figure.axes for line in ax.lines if line.get_gid()}


def table_html(rows) -> str:
    """The read-out: an HTML table of ``(key, label, text)`` rows, each value cell tagged ``data-key``.

    Numbers are right-aligned in a monospace font; words and sentences are left-aligned and wrap.

    Examples
    --------
    >>> from specdec.widgets._base import table_html
    >>> table_html([("x", "a < b", "1.00")])
    '<table class="specdec-readout" style="border-collapse:collapse;margin:0.3em 0"><tr><td style="padding:1px 12px 1px 0;text-align:left">a &lt; b</td><td data-key="x" style="text-align:right;font-family:monospace;white-space:nowrap">1.00</td></tr></table>'
    """
    def value_style(text):
        if NUMERIC.match(text) and len(text) <= 32:
            return "text-align:right;font-family:monospace;white-space:nowrap"
        return "text-align:left"

    cells = [[(label, {"style": "padding:1px 12px 1px 0;text-align:left"}),
              (text, {"data-key": key, "style": value_style(text)})] for key, label, text in rows]
    return html_table(cells, attributes={"class": "specdec-readout", "style": "border-collapse:collapse;margin:0.3em 0"},
                      sections=False)


#: The label of a read-out row that says why the explorer shows no numbers.
REFUSED_LABEL = "outside the model"


def refusal_rows(warnings) -> list:
    """The read-out of a setting the model forbids: one ``(refused-i, label, warning)`` row per warning."""
    return [(f"refused-{i}", REFUSED_LABEL, text) for i, text in enumerate(warnings, 1)]


def _tidy(x):
    """A number as the snapshot and the configuration store it: at most 12 significant digits."""
    if isinstance(x, bool) or not isinstance(x, float):
        return x
    return float(f"{x:.12g}") if math.isfinite(x) else x


def _option_label(option):
    return str(option[0]) if isinstance(option, tuple) else str(option)


def _option_value(option):
    return option[1] if isinstance(option, tuple) else option


class Explorer(widgets.VBox):
    """Base of every explorer: controls -> :meth:`compute` -> read-out, figure and image.

    A subclass sets the class attributes ``name`` (the ``data-explorer``
    of its snapshot), ``title`` (how a sentence names it) and, for the
    headline explorers of the HTML book, ``live = True``; it builds its
    controls and figure and passes them to ``__init__``, and implements

    * :meth:`compute` ``(state=None) -> dict``: the numbers for the control
      values (specdec calls only, no formula);
    * :meth:`rows` ``(values) -> [(key, label, text), ...]``: the read-out;
    * :meth:`draw` ``(values) -> key``: move the figure's artists to the
      values and return everything the rest of the figure shows that can
      change (the background key of the redraw cache, ``Blitter``);
    * :meth:`alt_text` ``(values) -> str``: what the image shows, in words;
    * for live explorers, :meth:`live_constants` ``() -> dict``: every
      constant the JavaScript version needs;
    * where the controls reach settings the model forbids,
      :meth:`domain` ``(state) -> [(parameter, warning), ...]``: there the
      explorer shows the warnings (:meth:`readout_rows`) instead of numbers
      and a verdict, and no figure (:meth:`evaluate`).

    Parameters
    ----------
    controls : dict
        Control name -> ipywidgets control (from ``float_slider``,
        ``int_slider``, ``choice`` of this module), in display order.
    columns : list of list of str, optional
        The controls' layout, one list per column. Default: one row when
        there are at most three controls, else two columns.
    figure : matplotlib.figure.Figure, optional
        The figure shown under the read-out (``None``: read-out only).
    dynamic : iterable of matplotlib.artist.Artist, optional
        The figure's artists that :meth:`draw` moves.

    Attributes
    ----------
    controls : dict
        The controls by name.
    values : dict
        The numbers of the last update (empty after an invalid setting; the
        state with ``refused``, the warnings, outside the model's domain).
    error : str or None
        The message of the last update if its setting was invalid.
    readout, image : ipywidgets.HTML
        The read-out table and the ``<img>`` (with alt text) of the figure.
    figure : matplotlib.figure.Figure or None
    dpi : int
        The image's resolution: ``css_dpi * pixel_ratio``.
    """

    name = "explorer"
    title = "Explorer"
    live = False
    #: CSS pixels per inch of figure: the static figures' 100 dpi, so both show text at the same size.
    css_dpi = 100
    #: Device pixels per CSS pixel of the image (sharp on high-density screens, not stretched).
    pixel_ratio = 2

    def __init__(self, controls, *, columns=None, figure=None, dynamic=()):
        self.controls = dict(controls)
        self.readout = widgets.HTML()
        self.figure = figure
        self.dpi = int(self.css_dpi * self.pixel_ratio)
        self.image = widgets.HTML() if figure is not None else None
        self._blit = Blitter(figure, self.dpi, dynamic) if figure is not None else None
        self.values: dict = {}
        self.error = None
        names = list(self.controls)
        if columns is None:
            columns = [[n] for n in names] if len(names) <= 3 else [names[: (len(names) + 1) // 2],
                                                                     names[(len(names) + 1) // 2:]]
        box = widgets.HBox([widgets.VBox([self.controls[n] for n in column], layout=widgets.Layout(margin="0 1.5em 0 0"))
                            for column in columns], layout=widgets.Layout(flex_flow="row wrap"))
        self.readout.layout.margin = "0.3em 0"
        super().__init__([box, self.readout] + ([self.image] if self.image is not None else []))
        self.defaults = self.state()
        refused = self.domain(self.defaults)
        if refused:                           # defaults the model forbids: an error naming the parameter
            raise ValueError("; ".join(f"{name}: {text}" for name, text in refused))
        self.update()                         # invalid defaults raise here, with specdec's message
        self._snapshot_rows = self.readout_rows(self.values)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")

    # ------------------------------------------------------------------ for subclasses
    def compute(self, state=None) -> dict:  # pragma: no cover - abstract
        """The numbers for ``state`` (default: the controls' values), from specdec; no drawing."""
        raise NotImplementedError

    def rows(self, values) -> list:  # pragma: no cover - abstract
        """The read-out for ``values``: a list of ``(key, label, text)``."""
        raise NotImplementedError

    def draw(self, values):
        """Move the figure's artists to ``values``; return the background key (default: nothing to move)."""
        return None

    def alt_text(self, values) -> str:
        """What the image shows at ``values``, in words (for the ``alt`` attribute)."""
        return f"{self.title} figure"

    def live_constants(self) -> dict:
        """Constants the live (JavaScript) version needs besides the controls (live explorers only)."""
        return {}

    def domain(self, state) -> list:
        """Settings the model forbids at ``state``: ``[(parameter, warning), ...]`` (default: none)."""
        return []

    # ------------------------------------------------------------------ inside and outside the model
    def evaluate(self, state=None) -> dict:
        """:meth:`compute` inside the model's domain; outside it the state with ``refused`` (the warnings)."""
        s = self.state(state)
        refused = self.domain(s)
        if refused:
            return {**s, "refused": tuple(text for _, text in refused)}
        return self.compute(s)

    def readout_rows(self, values) -> list:
        """The read-out of ``values``: :meth:`rows`, or one row per warning where the model refuses the setting."""
        if values.get("refused"):
            return refusal_rows(values["refused"])
        return self.rows(values)

    # ------------------------------------------------------------------ state and update
    def state(self, overrides=None) -> dict:
        """The controls' values by name (ints for integer sliders, floats for float sliders), with ``overrides``."""
        out = {}
        for name, control in self.controls.items():
            value = control.value
            if isinstance(control, widgets.IntSlider):
                value = int(value)
            elif isinstance(control, widgets.FloatSlider):
                value = float(value)
            out[name] = value
        if overrides:
            unknown = set(overrides) - set(out)
            if unknown:
                raise ValueError(f"state has no control {sorted(unknown)[0]!r}; the controls are {list(out)}")
            out.update(overrides)
        return out

    def _on_change(self, change) -> None:
        try:
            self.update()
        except (ValueError, TypeError) as exc:     # a setting the controls allow but specdec rejects
            self.error = str(exc)
            self.values = {}
            self.readout.value = (f'<p class="specdec-error" style="color:#D55E00">'
                                  f"{html.escape(self.error)}</p>")

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the image; return the values.

        Raises specdec's ``ValueError`` for a setting it rejects (a control
        change shows the message in the read-out instead).
        """
        values = self.evaluate()
        self.readout.value = table_html(self.readout_rows(values))
        if values.get("refused") and self.figure is not None:
            self.image.value = ""             # no figure for a setting the model forbids
        elif draw and self.figure is not None:
            png = self._blit.png(self.draw(values))
            self.image.value = self.image_html(png, self.alt_text(values))
        self.values = values
        self.error = None
        return values

    def image_html(self, png: bytes, alt: str) -> str:
        """The ``<img>`` of a PNG of the figure, shown at its CSS size (never stretched), with ``alt``."""
        width, height = self.figure.get_size_inches() * self.css_dpi
        return (f'<img src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}" '
                f'alt="{html.escape(alt)}" width="{round(width)}" height="{round(height)}" '
                'style="max-width:100%;height:auto;display:block">')

    # ------------------------------------------------------------------ without a kernel
    def control_specs(self) -> list:
        """Each control as plain data (kind, label, range, step, default, format), for the snapshot and the JS."""
        specs = []
        for name, control in self.controls.items():
            spec = {"name": name, "label": control.description, "value": _tidy(self.defaults[name])}
            if isinstance(control, (widgets.FloatSlider, widgets.IntSlider)):
                is_int = isinstance(control, widgets.IntSlider)
                spec.update(kind="int" if is_int else "float", min=_tidy(control.min), max=_tidy(control.max),
                            step=_tidy(control.step), format="d" if is_int else control.readout_format)
            else:
                spec.update(kind="select", options=[[_option_label(o), _tidy(_option_value(o))]
                                                    for o in control.options])
            specs.append(spec)
        return specs

    def live_config(self) -> dict:
        """The ``data-config`` of a live explorer: controls, constants, colours and note (deterministic JSON data)."""
        return {"explorer": self.name, "controls": self.control_specs(), "constants": self.live_constants(),
                "colors": {"named": dict(COLORS), "sequence": list(SEQUENCE)}, "note": LIVE_NOTE}

    def snapshot_html(self) -> str:
        """The explorer without a kernel: controls at their defaults (disabled), the read-out, the note.

        Deterministic (rounded numbers, no ids, no image), so a fresh run
        stores the same text. A live explorer's root also carries the
        ``specdec-live`` class and ``data-config``.
        """
        controls = []
        for spec in self.control_specs():
            label = html.escape(spec["label"])
            if spec["kind"] == "select":
                options = "".join(f"<option{' selected' if value == spec['value'] else ''}>"
                                  f"{html.escape(text)}</option>" for text, value in spec["options"])
                field = f'<select disabled aria-label="{label}">{options}</select>'
                shown = ""
            else:
                field = (f'<input type="range" min="{spec["min"]}" max="{spec["max"]}" step="{spec["step"]}" '
                         f'value="{spec["value"]}" disabled aria-label="{label}" style="flex:1 1 8em;min-width:6em">')
                shown = f'<span style="min-width:3.5em;font-family:monospace">{html.escape(format(spec["value"], spec["format"]))}</span>'
            controls.append(f'<label style="display:flex;align-items:center;gap:0.5em;flex:1 1 21em;max-width:30em;'
                            f'color:#555"><span style="flex:0 0 9.5em">{label}</span>{field}{shown}</label>')
        attrs = f'class="specdec-explorer{" specdec-live" if self.live else ""}" data-explorer="{self.name}"'
        if self.live:
            config = json.dumps(self.live_config(), sort_keys=True, separators=(",", ":"), allow_nan=False)
            attrs += f' data-config="{html.escape(config, quote=True)}"'
        return (f'<div {attrs} style="border:1px solid #ccc;border-radius:4px;padding:0.6em 0.8em;margin:0.5em 0">'
                f'<div class="specdec-controls" style="display:flex;flex-wrap:wrap;gap:0.3em 1.5em">'
                f'{"".join(controls)}</div>'
                f'<div style="margin-top:0.5em">{table_html(self._snapshot_rows)}</div>'
                f'<p class="specdec-note" style="margin:0.5em 0 0;font-style:italic;color:#555">'
                f"{html.escape(SNAPSHOT_NOTE)}</p></div>")

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = repr(self)
        bundle["text/html"] = self.snapshot_html()
        return bundle

    def __repr__(self) -> str:
        settings = ", ".join(f"{name} = {_tidy(value)}" for name, value in self.state().items())
        return f"{self.title} at {settings}: an ipywidgets explorer; run the cell in Jupyter to move its controls."
