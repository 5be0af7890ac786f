"""A record of what a figure's reader sees, stored in the PNG the figure is saved as.

Every figure :func:`specdec.plots.new_figure` makes draws on a
:class:`RecordingCanvas`. When the figure is saved as a PNG (a notebook's
inline backend does this to show it), the canvas measures the drawn figure:
its size before the "tight" crop, and every visible text (its font size and
its box in pixels at 100 dpi, whether it is drawn, whether it is a tick
label of an axis, which legend holds it) and every legend's frame. The
measurement goes into a compressed text chunk of the PNG under
:data:`RECORD_KEY`, so a test can check the figures a notebook stores for
legibility without drawing them again (``tests/test_plots_legible.py``).
The pixels are those of an ordinary Agg canvas.
"""

from __future__ import annotations

import json

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.legend import Legend
from matplotlib.text import Text

#: The PNG text chunk holding the record (JSON).
RECORD_KEY = "specdec:legibility"
#: Pixels per inch of the record's boxes: those of the page (``figure.dpi``), whatever the PNG's dpi.
RECORD_DPI = 100.0


def _hidden_tick_labels(fig) -> tuple[set, dict]:
    """Ids of tick labels matplotlib keeps but does not draw, and each tick label's (axes, axis)."""
    hidden, corner = set(), {}
    for index, ax in enumerate(fig.axes):
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            span = hi - lo
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                corner[id(tick.label1)] = corner[id(tick.label2)] = (index, axis.axis_name)
                loc = tick.get_loc()
                if loc is None or not (lo - 1e-9 * span <= loc <= hi + 1e-9 * span):
                    hidden.update({id(tick.label1), id(tick.label2)})
                for label in (tick.label1, tick.label2):
                    if not label.get_visible():
                        hidden.add(id(label))
    return hidden, corner


def measure(fig, renderer, size_inches=None) -> dict:
    """The record of a figure just drawn with ``renderer``.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, drawn.
    renderer : matplotlib.backend_bases.RendererBase
        The renderer it was drawn with.
    size_inches : tuple of float, optional
        The figure's size before a "tight" crop (default: its size now).

    Returns
    -------
    dict
        ``size_in`` (width, height), ``dpi`` (the figure's now), ``texts`` (one list per visible text:
        its first 40 characters, font size in points, box ``x0, y0, x1, y1``
        in pixels at :data:`RECORD_DPI`, drawn or not, its ``[axes, axis]``
        if a tick label else None, the index of the legend holding it or
        None) and ``legends`` (frame boxes, in the same pixels).

    Examples
    --------
    >>> import specdec as sd
    >>> from specdec.plots._legibility import measure
    >>> fig, ax = sd.plots.new_figure(4, 3)
    >>> _ = ax.set_title("hello")
    >>> fig.canvas.draw()
    >>> record = measure(fig, fig.canvas.get_renderer())
    >>> record["size_in"], [t[:2] for t in record["texts"] if t[0] == "hello"]
    ([4.0, 3.0], [['hello', 12.0]])
    """
    scale = RECORD_DPI / fig.dpi
    hidden, corner = _hidden_tick_labels(fig)
    legends = [legend for legend in fig.findobj(Legend) if legend.get_visible()]
    owner = {id(t): i for i, legend in enumerate(legends) for t in legend.findobj(Text)}
    texts = []
    for t in fig.findobj(Text):
        if not (t.get_visible() and t.get_text().strip()):
            continue
        box = t.get_window_extent(renderer)
        drawn = t.get_alpha() != 0 and id(t) not in hidden
        where = corner.get(id(t))
        texts.append([t.get_text().replace("\n", " ")[:40], float(t.get_fontsize()),
                      *(round(float(v) * scale, 2) for v in (box.x0, box.y0, box.x1, box.y1)),
                      bool(drawn), list(where) if where else None, owner.get(id(t))])
    frames = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        frames.append([round(float(v) * scale, 2) for v in (box.x0, box.y0, box.x1, box.y1)])
    size = fig.get_size_inches() if size_inches is None else size_inches
    return {"size_in": [round(float(v), 4) for v in size], "dpi": float(fig.dpi), "texts": texts, "legends": frames}


class RecordingCanvas(FigureCanvasAgg):
    """An Agg canvas whose PNGs carry the figure's legibility record (see the module docstring)."""

    def print_figure(self, *args, **kwargs):
        # a "tight" bounding box changes the figure's size while it prints: keep the size it is shown at
        self._size_before_print = tuple(float(v) for v in self.figure.get_size_inches())
        try:
            return super().print_figure(*args, **kwargs)
        finally:
            del self._size_before_print

    def print_png(self, filename_or_obj, *, metadata=None, pil_kwargs=None, **ignored):
        """Draw, measure, and save as PNG with the record (as Agg's ``print_png``, plus the record).

        ``ignored``: the options matplotlib passes only to print methods outside matplotlib that take them
        (``dpi``, ``facecolor``, ``edgecolor``, ``orientation``, ``bbox_inches_restore``); it drops them for
        Agg's own ``print_png``, which has them set on the figure already.
        """
        from PIL.PngImagePlugin import PngInfo

        FigureCanvasAgg.draw(self)
        record = measure(self.figure, self.get_renderer(), getattr(self, "_size_before_print", None))
        pil_kwargs = dict(pil_kwargs or {})
        if "pnginfo" not in pil_kwargs:
            info = PngInfo()
            chunks = {"Software": f"Matplotlib version{mpl.__version__}, https://matplotlib.org/", **(metadata or {})}
            for key, value in chunks.items():
                if value is not None:
                    info.add_text(key, value)
            info.add_text(RECORD_KEY, json.dumps(record, separators=(",", ":")), zip=True)
            pil_kwargs["pnginfo"] = info
        mpl.image.imsave(filename_or_obj, self.buffer_rgba(), format="png", origin="upper",
                         dpi=self.figure.dpi, pil_kwargs=pil_kwargs)
