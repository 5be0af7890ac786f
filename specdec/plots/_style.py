"""Shared look of the book's figures: size, colours, and labelling helpers.

Figures are sized for the page they are shown on. A notebook shows a figure
at 100 dpi (``figure.dpi``) in CSS pixels; the HTML book's text column is
about 770 CSS pixels wide, so a figure at most ``CONTENT_WIDTH`` inches wide
is shown at its own size there and in JupyterLab, never scaled down, and its
smallest text (7 pt, legends and annotations) is about 9.7 px tall. Wider
requests are narrowed to ``CONTENT_WIDTH`` by :func:`new_figure`.

In a Jupyter kernel, importing this module sets the inline backend's
figure format to ``"retina"``: the stored PNG has twice the pixels in each
direction (200 dpi), and its output metadata give the width and height in
CSS pixels at 100 dpi, which JupyterLab and the book's HTML (MyST-NB writes
them on the ``<img>``) honour. So a figure is as large on the page as
before and sharp on a high-density screen, like the explorers' images.
"""

from __future__ import annotations

import matplotlib

matplotlib.rcParams.update({"svg.hashsalt": "specdec", "figure.dpi": 100})

import matplotlib.pyplot as plt  # noqa: E402  (importing pyplot wires up inline display in Jupyter)
import numpy as np  # noqa: E402

from ._legibility import RecordingCanvas  # noqa: E402

#: Device pixels per CSS pixel of a figure a notebook shows (the inline backend's "retina" format).
PIXEL_RATIO = 2


def use_sharp_inline_figures() -> bool:
    """In a Jupyter kernel, show figures as PNGs with ``PIXEL_RATIO`` x the pixels at the same CSS size.

    Sets ``InlineBackend.figure_formats = {"retina"}`` (its bounding box
    stays ``"tight"``). Outside a kernel (a script, the tests) it does
    nothing and returns False.

    Examples
    --------
    >>> from specdec.plots._style import use_sharp_inline_figures
    >>> use_sharp_inline_figures()      # not in a kernel here
    False
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return False
    from matplotlib_inline.backend_inline import InlineBackend

    InlineBackend.instance(parent=shell).figure_formats = {"retina"}
    return True


use_sharp_inline_figures()

#: Colours used consistently across chapters (colour-blind safe, Okabe-Ito).
COLORS = {
    "target": "#0072B2",
    "draft": "#E69F00",
    "verify": "#009E73",
    "overhead": "#CC79A7",
    "baseline": "#555555",
    "accent": "#D55E00",
    "neutral": "#56B4E9",
}
SEQUENCE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]


#: Widest figure (inches at 100 dpi) the book's text column shows at its own size.
CONTENT_WIDTH = 7.0
#: Smallest font size (points) a figure of the book uses: 9.7 CSS px at 100 dpi.
MIN_FONT_SIZE = 7.0


def new_figure(width: float = 6.4, height: float = 4.0, ncols: int = 1, nrows: int = 1, **kwargs):
    """Return ``(fig, axes)`` with constrained layout, already closed in pyplot's registry.

    ``width`` is in inches, at most ``CONTENT_WIDTH`` (a wider request
    is narrowed to it, the height kept, so the figure is never shown scaled
    down). Closing means the figure is shown only where a notebook displays
    it (never twice), and no figure leaks when an explorer redraws.

    Examples
    --------
    >>> import specdec as sd
    >>> fig, axes = sd.plots.new_figure(11.0, 3.8, ncols=2)
    >>> [float(x) for x in fig.get_size_inches()]
    [7.0, 3.8]
    """
    width = min(float(width), CONTENT_WIDTH)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", squeeze=True, **kwargs)
    plt.close(fig)
    RecordingCanvas(fig)      # its PNGs carry the legibility record tests/test_plots_legible.py checks
    return fig, axes


def nice_ceiling(value: float) -> float:
    """Smallest number of the form {1, 1.5, 2, 3, 4, 5, 6, 8} x 10^n that is >= ``value`` (> 0).

    The axis limits of an explorer's figure snap to these, so a small move
    of a control keeps the limits (and the redraw cache's background).

    Examples
    --------
    >>> from specdec.plots._style import nice_ceiling
    >>> nice_ceiling(2.13), nice_ceiling(0.0071), nice_ceiling(800.0)
    (3.0, 0.008, 800.0)
    """
    exponent = np.floor(np.log10(value))
    for mantissa in (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        if mantissa * 10**exponent >= value * (1 - 1e-12):
            return float(mantissa * 10**exponent)
    return float(10 ** (exponent + 1))  # pragma: no cover


def figure_axes(axes, width=6.4, height=4.0, ncols=1):
    """A new figure of this size, or the figure of ``axes`` with the axes cleared: ``(figure, axes)``.

    ``axes`` is returned as given (an explorer passes the axes it redraws into).
    """
    if axes is None:
        return new_figure(width, height, ncols=ncols)
    for ax in np.atleast_1d(axes):
        ax.clear()
    return np.atleast_1d(axes)[0].figure, axes


def figure_axes_array(axes, ncols, width, height):
    """As :func:`figure_axes`, with the axes always a 1-D array (one per panel)."""
    if axes is None:
        fig, axes = new_figure(width, height, ncols=ncols)
        return fig, np.atleast_1d(axes)
    axes = np.atleast_1d(axes)
    for ax in axes:
        ax.clear()
    return axes[0].figure, axes


def batch_axis(ax, batch_max) -> None:
    """Log-2 batch axis with plain-number labels (fast to draw: no mathtext, no minor labels)."""
    from matplotlib.ticker import NullLocator

    ax.set_xscale("log", base=2)
    top = int(np.log2(batch_max))
    ticks = [2**i for i in range(0, top + 1, 1 if top <= 6 else 2)]    # every power of 4 on a wide axis
    ax.set_xticks(ticks, labels=[str(t) for t in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(1, batch_max)
