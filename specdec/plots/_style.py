"""Shared look of the book's figures: size, colours, and labelling helpers."""

from __future__ import annotations

import matplotlib

matplotlib.rcParams.update({"svg.hashsalt": "specdec", "figure.dpi": 100})

import matplotlib.pyplot as plt  # noqa: E402  (importing pyplot wires up inline display in Jupyter)

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


def new_figure(width: float = 6.4, height: float = 4.0, ncols: int = 1, nrows: int = 1, **kwargs):
    """Return ``(fig, axes)``, already closed in pyplot's registry.

    Closing means the figure is shown only where a notebook displays or
    passes it to ``glue`` (never twice), and no figure leaks when a widget redraws.
    """
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), layout="constrained", squeeze=True, **kwargs)
    plt.close(fig)
    return fig, axes
