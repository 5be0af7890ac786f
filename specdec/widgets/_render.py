"""Presentation helpers shared by the explorers in :mod:`specdec.widgets`.

One implementation each of what every explorer needs to show its state:
:func:`figure_png` (a full render to PNG bytes), :func:`freeze_layout`
(lay a figure out once, then keep its axes fixed), :func:`table_html` (the
two-column read-out) and :class:`Blitter` (repaint only the artists that
change, over a cached background). Private module: the explorers are the
public API; the names here carry no chapter.
"""

from __future__ import annotations

import html
import io

import numpy as np

__all__ = ["Blitter", "figure_png", "freeze_layout", "table_html"]


def figure_png(fig, dpi: int = 72) -> bytes:
    """Render a figure to PNG bytes with a full redraw.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; its layout engine (if any) runs as in any ``savefig``.
    dpi : int, optional
        Resolution in dots per inch. Default 72.

    Returns
    -------
    bytes
        A PNG image. The ``Software`` metadata is left out, so the bytes are
        the same for the same figure and matplotlib build.

    Examples
    --------
    >>> from specdec.plots import new_figure
    >>> from specdec.widgets._render import figure_png
    >>> fig, ax = new_figure(2.0, 1.5)
    >>> figure_png(fig)[:4] == b"\\x89PNG"
    True
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def freeze_layout(fig, dpi: float | None = None) -> None:
    """Lay a figure out once, then switch its layout engine off.

    Later redraws keep the axes where they are and skip the layout solver
    (constrained layout is the slowest part of a redraw, and a layout that
    moves with the data makes an explorer's image jump).

    The layout engine is run directly rather than through
    ``fig.canvas.draw()``: a figure closed in pyplot (as
    :func:`specdec.plots.new_figure` returns it) has a plain
    ``FigureCanvasBase`` whose ``draw`` does nothing, so the layout would
    never run and the figure would be frozen at matplotlib's default
    subplot positions.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, with its artists in place. Changed in place.
    dpi : float, optional
        The resolution the figure will be rendered at (dots per inch); set
        on the figure before the layout runs, because constrained layout
        places the axes slightly differently at different resolutions. With
        the dpi it is later rendered at, the frozen figure is pixel for
        pixel the figure a plain ``savefig`` at that dpi draws. Default: the
        figure's own dpi.

    Returns
    -------
    None

    Examples
    --------
    >>> from specdec.plots import new_figure
    >>> from specdec.widgets._render import figure_png, freeze_layout
    >>> fig, ax = new_figure(4.0, 3.0)
    >>> before = ax.get_position().bounds
    >>> freeze_layout(fig, dpi=72)
    >>> frozen = ax.get_position().bounds
    >>> frozen != before  # laid out (a closed figure's canvas.draw() would not)
    True
    >>> _ = ax.set_title("a much taller title", fontsize=30)
    >>> _ = figure_png(fig, 72)
    >>> ax.get_position().bounds == frozen  # the redraw left the axes in place
    True
    """
    if dpi is not None:
        fig.set_dpi(dpi)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
    fig.set_layout_engine("none")


def table_html(rows) -> str:
    """The explorers' read-out: an HTML table of ``(name, value)`` rows.

    Parameters
    ----------
    rows : iterable of (str, str)
        Row label and its already formatted value (right-aligned, monospace).
        Both are HTML-escaped.

    Returns
    -------
    str
        An HTML ``<table>`` fragment.

    Examples
    --------
    >>> from specdec.widgets._render import table_html
    >>> table_html([("a < b", "1.00")]).count("<tr>")
    1
    >>> "a &lt; b" in table_html([("a < b", "1.00")])
    True
    """
    cells = "".join(
        f"<tr><td style='padding:1px 10px 1px 0'>{html.escape(name)}</td>"
        f"<td style='text-align:right;font-family:monospace'>{html.escape(value)}</td></tr>"
        for name, value in rows
    )
    return f"<table>{cells}</table>"


class Blitter:
    """Render a figure to PNG, repainting only its dynamic artists over a cached background.

    Text (ticks, labels, legends) is the slowest part of drawing a
    matplotlib figure and an explorer's text rarely changes, so the figure
    without its dynamic artists is drawn once and cached; each render
    restores that background, draws the dynamic artists on it and encodes
    the canvas with a fast PNG setting. The background is redrawn whenever
    the ``key`` passed to :meth:`png` changes (for example a tuple of axis
    limits).

    Construction gives the figure an Agg canvas if it has none (a figure
    closed in pyplot has a plain ``FigureCanvasBase``), sets its dpi, draws
    it once (which runs the layout engine) and then switches the layout
    engine off, so the axes stay put. That first draw is the figure at its
    current values, available without a redraw as :meth:`initial_png`.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    dpi : int, optional
        Resolution in dots per inch. Default 72.
    dynamic : iterable of matplotlib.artist.Artist, optional
        The artists an update changes. Default: every line of every axes
        whose ``gid`` is set.

    Attributes
    ----------
    lines : dict
        The dynamic artists that have a ``gid``, by ``gid``.

    Examples
    --------
    >>> from specdec.plots import new_figure
    >>> from specdec.widgets._render import Blitter
    >>> fig, ax = new_figure(2.0, 1.5)
    >>> _ = ax.plot([0, 1], [0, 1], gid="curve")
    >>> blit = Blitter(fig, dpi=50)
    >>> list(blit.lines)
    ['curve']
    >>> blit.lines["curve"].set_ydata([1, 0])
    >>> blit.png()[:4] == b"\\x89PNG"
    True
    """

    def __init__(self, fig, dpi: int = 72, dynamic=None):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        fig.set_dpi(dpi)
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        self.fig = fig
        if dynamic is None:
            dynamic = [line for ax in fig.axes for line in ax.lines if line.get_gid()]
        self.dynamic = list(dynamic)
        self.lines = {artist.get_gid(): artist for artist in self.dynamic if artist.get_gid()}
        fig.canvas.draw()                 # lays out once (this draw is also the first image)...
        fig.set_layout_engine("none")     # ...then keeps the axes where they are
        self.key = None
        self.background = None            # made on the first png(), not at construction

    def _encode(self) -> bytes:
        from PIL import Image

        buffer = io.BytesIO()
        rgba = np.asarray(self.fig.canvas.buffer_rgba())
        Image.fromarray(rgba[..., :3]).save(buffer, format="png", compress_level=1)
        return buffer.getvalue()

    def initial_png(self) -> bytes:
        """PNG of the figure as drawn at construction (no redraw).

        Returns
        -------
        bytes
            A PNG image.
        """
        return self._encode()

    def png(self, key=None) -> bytes:
        """PNG of the cached background with the dynamic artists drawn on top.

        Parameters
        ----------
        key : hashable, optional
            Anything that changes when the background must change (e.g.
            axis limits); the background is redrawn when it differs from
            the previous call's. Default ``None`` (background drawn once).

        Returns
        -------
        bytes
            A PNG image.
        """
        self._restore_background(key)
        renderer = self.fig.canvas.get_renderer()
        for artist in self.dynamic:
            if artist.get_visible():
                artist.draw(renderer)
        return self._encode()

    def _restore_background(self, key) -> bool:
        """Put the background for ``key`` on the canvas; return True if it had to be redrawn."""
        canvas = self.fig.canvas
        if self.background is not None and key == self.key:
            canvas.restore_region(self.background)
            return False
        # Animated artists are left out of a full draw; unlike hiding them,
        # this keeps everything that depends on them (an axes title's
        # position) as it is.
        for artist in self.dynamic:
            artist.set_animated(True)
        try:
            canvas.draw()
        finally:
            for artist in self.dynamic:
                artist.set_animated(False)
        self.background = canvas.copy_from_bbox(self.fig.bbox)
        self.key = key
        return True

