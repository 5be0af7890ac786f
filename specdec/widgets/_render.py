"""How an explorer's figure becomes an image: one redraw cache and a fast PNG encoder.

A full matplotlib redraw of a two-panel explorer figure takes 50 to 70 ms
here, most of it tick, legend and title text that a slider never changes
(``benchmarks/bench_widgets.py`` measures it). :class:`Blitter` draws the
figure without the artists an update moves (its *background*) once per
background key and keeps the last few backgrounds; each update restores one
and draws only the moving artists on it. :func:`encode_png` writes the
pixels as a PNG without PIL's per-row filter search (about twice as fast at
the same size). Private module: the explorers are the public API; the names
here carry no chapter.
"""

from __future__ import annotations

import struct
import zlib
from collections import OrderedDict

import numpy as np

__all__ = ["Blitter", "encode_png"]


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def encode_png(rgba) -> bytes:
    """Encode an RGBA pixel array as a PNG (8 bits per channel, filter "up", zlib level 1).

    Parameters
    ----------
    rgba : numpy.ndarray
        ``uint8`` array of shape ``(height, width, 4)``, e.g. a canvas's
        ``buffer_rgba()``.

    Returns
    -------
    bytes
        The PNG file; the same bytes for the same pixels.

    Examples
    --------
    >>> import io, numpy as np
    >>> from PIL import Image
    >>> from specdec.widgets._render import encode_png
    >>> pixels = np.random.default_rng(0).integers(0, 256, (3, 5, 4), dtype=np.uint8)
    >>> png = encode_png(pixels)
    >>> png[:4] == b"\\x89PNG" and np.array_equal(np.asarray(Image.open(io.BytesIO(png))), pixels)
    True
    """
    px = np.ascontiguousarray(rgba, dtype=np.uint8)
    if px.ndim != 3 or px.shape[2] != 4:
        raise ValueError(f"rgba must have shape (height, width, 4); got {px.shape}")
    height, width = px.shape[:2]
    rows = px.reshape(height, width * 4)
    raw = np.empty((height, width * 4 + 1), dtype=np.uint8)
    raw[:, 0] = 2                          # PNG filter "up": each row minus the row above (mostly zeros)
    raw[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=raw[1:, 1:])
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 1))
            + _chunk(b"IEND", b""))


class Blitter:
    """Render a figure to PNG, redrawing only its moving artists over a cached background.

    The *background* is the figure drawn without the moving artists
    (``dynamic``); it depends on the figure's state only through the
    ``key`` passed to :meth:`png` (for example the axis limits and any text
    that names a control's value). A key seen before restores its
    background; a new key draws one (the last ``max_backgrounds`` are kept).
    The first draw also runs the figure's layout engine, which is then
    switched off, so the axes stay where they are and the image does not
    jump while a slider moves.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure; given an Agg canvas if it has none.
    dpi : float
        Resolution of the image in dots per inch.
    dynamic : iterable of matplotlib.artist.Artist
        The artists an update moves (never a legend's own texts: a legend is
        drawn as a whole, so a label that changes belongs in the key).
    max_backgrounds : int, optional
        Backgrounds kept. Default 16.

    Examples
    --------
    >>> from specdec.plots import new_figure
    >>> from specdec.widgets._render import Blitter
    >>> fig, ax = new_figure(2.0, 1.5)
    >>> (line,) = ax.plot([0, 1], [0, 1])
    >>> blit = Blitter(fig, 50, [line])
    >>> first = blit.png(key=ax.get_ylim())
    >>> line.set_ydata([1, 0])
    >>> blit.png(key=ax.get_ylim()) != first, blit.redraws
    (True, 1)
    """

    def __init__(self, fig, dpi: float, dynamic, max_backgrounds: int = 16):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        fig.set_dpi(dpi)
        self.fig = fig
        # drawn in matplotlib's order: by zorder, ties in the given order
        self.dynamic = sorted(dynamic, key=lambda artist: artist.get_zorder())
        self.max_backgrounds = int(max_backgrounds)
        self.backgrounds: OrderedDict = OrderedDict()
        self.redraws = 0          # backgrounds drawn so far (what a benchmark counts)

    def png(self, key=None) -> bytes:
        """PNG of the background for ``key`` with the moving artists drawn on top.

        Parameters
        ----------
        key : hashable, optional
            Everything the background shows that can change.

        Returns
        -------
        bytes
            The image, from :func:`encode_png`.
        """
        canvas = self.fig.canvas
        background = self.backgrounds.get(key)
        if background is None:
            # Animated artists are left out of a full draw; unlike hiding them, this keeps everything
            # that depends on them (the layout, an axes title's position) as it is.
            for artist in self.dynamic:
                artist.set_animated(True)
            try:
                canvas.draw()
            finally:
                for artist in self.dynamic:
                    artist.set_animated(False)
            self.fig.set_layout_engine("none")     # laid out once; later backgrounds keep the axes in place
            self.redraws += 1
            self.backgrounds[key] = canvas.copy_from_bbox(self.fig.bbox)
            while len(self.backgrounds) > self.max_backgrounds:
                self.backgrounds.popitem(last=False)
        else:
            canvas.restore_region(background)
            self.backgrounds.move_to_end(key)
        renderer = canvas.get_renderer()
        for artist in self.dynamic:
            if artist.get_visible():
                artist.draw(renderer)
        return encode_png(np.asarray(canvas.buffer_rgba()))
