"""Explorer for "The roofline model" (Part III, chapter 1).

Presentation only: the numbers come from :mod:`specdec.hardware` and the
figure from :func:`specdec.plots.roofline_overview`.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from .._validate import check_integer, check_probability
from ..deployment import break_even_batch, speculative_costs
from ..hardware import GPUS, MODELS, ridge_batch, utilization
from ..memory import max_concurrent_sequences
from ..plots.hardware import roofline_overview_artists, roofline_overview_update
from ._render import Blitter, table_html

__all__ = ["RooflineExplorer", "roofline_explorer", "ROOFLINE_BATCHES", "ROOFLINE_CONTEXTS"]

#: Batch choices on the explorer's slider.
ROOFLINE_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
#: Context choices on the explorer's slider (tokens already cached per sequence).
ROOFLINE_CONTEXTS = (0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
_N_GPUS = (1, 2, 4, 8)
#: Controls whose change rebuilds the figure (they change the right panel's title and the ridge point).
_SETUP = ("target", "draft", "gpu", "n_gpus")


class _TextCachingBlitter(Blitter):
    """A :class:`Blitter` that keeps the pixels of its text artists (titles, legends) between renders.

    Drawing text is most of a blitted render's cost, and a slider changes at
    most one of the explorer's texts. A text artist whose text is unchanged
    since it was last drawn is pasted back from a pixel copy instead of
    drawn again, provided no other dynamic artist reaches into its box (the
    copy would then hold stale pixels of that artist), so the image is the
    one a plain :class:`Blitter` draws.
    """

    def __init__(self, fig, dpi, dynamic, texts):
        self.plain = list(dynamic)
        self.texts = list(texts)
        self._copies = {}
        super().__init__(fig, dpi, dynamic=self.plain + self.texts)

    @staticmethod
    def _signature(artist):
        if hasattr(artist, "get_texts"):                      # a legend
            return tuple(t.get_text() for t in artist.get_texts())
        return (artist.get_text(), artist.get_position())

    def _reaches(self, line, bbox) -> bool:
        from matplotlib.path import Path

        if not hasattr(line, "get_xydata"):                   # not a line (a filled region): its bounding box
            return bool(line.get_window_extent(self.fig.canvas.get_renderer()).padded(2).overlaps(bbox))
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not len(xy):
            return False
        pad = (line.get_markersize() / 2 + line.get_linewidth() + line.get_markeredgewidth()) * self.fig.dpi / 72 + 2
        box = bbox.padded(pad)
        inside = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0) & (xy[:, 1] <= box.y1)
        return bool(inside.any()) or (len(xy) > 1 and Path(xy).intersects_bbox(box, filled=False))

    def png(self, key=None) -> bytes:
        canvas = self.fig.canvas
        if self._restore_background(key):
            self._copies = {}
        renderer = canvas.get_renderer()
        drawn = [artist for artist in self.plain if artist.get_visible()]
        for artist in drawn:
            artist.draw(renderer)
        for i, artist in enumerate(self.texts):
            if not artist.get_visible():
                continue
            signature = self._signature(artist)
            box = artist.get_window_extent(renderer).padded(3)
            alone = not any(self._reaches(line, box) for line in drawn)
            copy = self._copies.get(i)
            if alone and copy is not None and copy[0] == signature:
                canvas.restore_region(copy[1])
                continue
            artist.draw(renderer)
            if alone:
                self._copies[i] = (signature, canvas.copy_from_bbox(box))
            else:
                self._copies.pop(i, None)
        return self._encode()


def _choice(value, options, name):
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}")
    return value


class RooflineExplorer(widgets.VBox):
    """Pick target, draft, GPU, GPU count, batch, context, k and alpha; see the roofline costs.

    The read-out lists ``T0``, ``T_verify``, ``c_verify``, ``c_draft``, the
    speedup, utilization, the ridge and break-even batches and the memory
    headroom; the figure is :func:`specdec.plots.roofline_overview`.
    ``values`` holds the numbers of the last update (keys ``t0``,
    ``t_verify``, ``c_verify``, ``c_draft``, ``speedup``, ``utilization``,
    ``ridge_batch``, ``break_even_batch``, ``max_sequences``,
    ``max_sequences_with_draft``, ``fits``, plus the control values).

    Defined in chapter "The roofline model" (Part III, chapter 1).
    """

    def __init__(self, target="llama-3.1-70b", draft="llama-3.1-8b", gpu="h100-sxm", n_gpus=8, batch=1, context=0,
                 k=5, alpha=0.8, dpi: int = 72):
        _choice(target, MODELS, "target")
        _choice(draft, MODELS, "draft")
        _choice(gpu, GPUS, "gpu")
        _choice(n_gpus, _N_GPUS, "n_gpus")
        _choice(batch, ROOFLINE_BATCHES, "batch")
        _choice(context, ROOFLINE_CONTEXTS, "context")
        kk = int(check_integer(k, "k", minimum=1, maximum=10))
        a = float(check_probability(alpha, "alpha"))
        self.dpi = int(check_integer(dpi, "dpi", minimum=30, maximum=300))
        style = {"description_width": "initial"}
        layout = widgets.Layout(width="320px")
        self.controls = {
            "target": widgets.Dropdown(options=list(MODELS), value=target, description="target", style=style,
                                       layout=layout),
            "draft": widgets.Dropdown(options=list(MODELS), value=draft, description="draft", style=style,
                                      layout=layout),
            "gpu": widgets.Dropdown(options=list(GPUS), value=gpu, description="GPU", style=style, layout=layout),
            "n_gpus": widgets.Dropdown(options=list(_N_GPUS), value=n_gpus, description="GPUs (tensor parallel)",
                                       style=style, layout=layout),
            "batch": widgets.SelectionSlider(options=list(ROOFLINE_BATCHES), value=batch, description="batch",
                                             continuous_update=False, style=style, layout=layout),
            "context": widgets.SelectionSlider(options=list(ROOFLINE_CONTEXTS), value=context,
                                               description="context (tokens)", continuous_update=False, style=style,
                                               layout=layout),
            "k": widgets.IntSlider(value=kk, min=1, max=10, description="k", continuous_update=False, style=style,
                                   layout=layout),
            "alpha": widgets.FloatSlider(value=a, min=0.0, max=1.0, step=0.01, description="alpha",
                                         continuous_update=False, style=style, layout=layout),
        }
        self.readout = widgets.HTML()
        self.image = widgets.Image(format="png")
        self.figure = None
        self._build(self._inputs())
        self.values: dict = {}
        names = list(self.controls)
        box = widgets.HBox([widgets.VBox([self.controls[n] for n in names[:4]]),
                            widgets.VBox([self.controls[n] for n in names[4:]])])
        super().__init__([box, self.readout, self.image])
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update(draw=False)           # the figure was drawn at these values already
        self.image.value = self._blit.initial_png()

    def _build(self, v) -> None:
        # Draw the whole figure (as roofline_overview does) and cache its background.
        axes = None if self.figure is None else self.figure.axes
        self.figure, self._artists = roofline_overview_artists(
            v["target_model"], v["draft_model"], v["hardware"], v["alpha"], v["k"], v["batch"], v["context"],
            batch_max=self._batch_max(v), axes=axes)
        a = self._artists
        self._blit = _TextCachingBlitter(self.figure, self.dpi,
                                         dynamic=[a["cv"], a["ring"], a["ridge"], a["speed"], a["here"]],
                                         texts=[a["title"], a["legend_verify"], a["legend_speed"]])
        self._setup = tuple(v[name] for name in _SETUP) + (self._batch_max(v),)

    @staticmethod
    def _batch_max(v) -> int:
        # The figure's batch axis runs to 512 (the chapter's figure), or to the chosen batch beyond that.
        return max(512, v["batch"])

    def _draw(self, v) -> bytes:
        """Move the dynamic artists to ``v`` and return the PNG (full redraw only when needed)."""
        if tuple(v[name] for name in _SETUP) + (self._batch_max(v),) != self._setup:
            self._build(v)                # new models, hardware or batch axis: titles, ridge and limits change
            return self._blit.initial_png()
        top = roofline_overview_update(self._artists, v["target_model"], v["draft_model"], v["hardware"],
                                        v["alpha"], v["k"], v["batch"], v["context"])
        ax2 = self._artists["axes"][1]
        current = ax2.get_ylim()[1]
        if top > current or top < 0.5 * current:
            # Out of range (or far below it): a new, rounded limit, so that nearby values keep it.
            ax2.set_ylim(0, math.ceil(top * 4) / 4)
        return self._blit.png(key=ax2.get_ylim())

    def _on_change(self, change) -> None:
        self.update()

    def _inputs(self) -> dict:
        v = {name: control.value for name, control in self.controls.items()}
        v["target_model"] = MODELS[v["target"]]
        v["draft_model"] = MODELS[v["draft"]]
        v["hardware"] = GPUS[v["gpu"]].scaled(v["n_gpus"]) if v["n_gpus"] > 1 else GPUS[v["gpu"]]
        v["k"] = int(v["k"])
        v["alpha"] = float(v["alpha"])
        return v

    def compute(self) -> dict:
        """The numbers for the current controls (no drawing)."""
        v = self._inputs()
        tm, dm, hw = v["target_model"], v["draft_model"], v["hardware"]
        b, c, k, a = v["batch"], v["context"], v["k"], v["alpha"]
        r = speculative_costs(tm, dm, hw, a, k, b, c)
        ctx = max(c, 1)
        v.update(
            t0=float(r.t0), t_verify=float(r.t_verify), c_verify=float(r.c_verify), c_draft=float(r.c_draft),
            speedup=float(r.speedup), expected_tokens=float(r.expected_tokens),
            utilization=float(utilization(tm, hw, b, 1, c)),
            ridge_batch=ridge_batch(tm, hw),
            break_even_batch=break_even_batch(tm, dm, hw, a, k, c),
            max_sequences=int(max_concurrent_sequences(tm, hw, ctx)),
            max_sequences_with_draft=int(max_concurrent_sequences(tm, hw, ctx, draft=dm, k=k)),
            fits=bool(r.fits),
        )
        return v

    def update(self, draw: bool = True) -> dict:
        """Recompute, refresh the read-out and (if ``draw``) the figure; return the values."""
        v = self.compute()
        be = v["break_even_batch"]
        self.readout.value = table_html([
            ("plain decode step T0", f"{v['t0'] * 1e3:.3f} ms"),
            (f"verification of k + 1 = {v['k'] + 1} tokens, T_verify", f"{v['t_verify'] * 1e3:.3f} ms"),
            ("c_verify = T_verify / T0", f"{v['c_verify']:.3f}"),
            ("c_draft (one draft step / T0)", f"{v['c_draft']:.4f}"),
            ("E[L] and speedup E[L] / (k c_draft + c_verify)",
             f"{v['expected_tokens']:.3f} tokens, {v['speedup']:.3f}x"),
            ("plain step uses this fraction of peak FLOP/s", f"{v['utilization']:.2%}"),
            ("ridge point (tokens per step)", f"{v['ridge_batch']:.0f}"),
            ("speculation loses from batch", "never (up to 4096)" if be != be else f"{be:.0f}"),
            ("sequences that fit: target only / with draft", f"{v['max_sequences']} / {v['max_sequences_with_draft']}"),
            ("this batch fits in memory with the draft", "yes" if v["fits"] else "no"),
        ])
        if draw:
            self.image.value = self._draw(v)
        self.values = v
        return v


def roofline_explorer(target="llama-3.1-70b", draft="llama-3.1-8b", gpu="h100-sxm", n_gpus=8, batch=1, context=0,
                      k=5, alpha=0.8) -> RooflineExplorer:
    """Interactive roofline explorer; defaults are the first source's 70B/8B pair on 8 H100s.

    Defined in chapter "The roofline model" (Part III, chapter 1).

    Parameters
    ----------
    target, draft : str, optional
        Keys of :data:`specdec.hardware.MODELS`.
    gpu : str, optional
        Key of :data:`specdec.hardware.GPUS`.
    n_gpus : {1, 2, 4, 8}, optional
        Tensor-parallel group size.
    batch : int, optional
        One of :data:`ROOFLINE_BATCHES`.
    context : int, optional
        One of :data:`ROOFLINE_CONTEXTS`.
    k : int, optional
        Drafts per round, in [1, 10].
    alpha : float, optional
        Acceptance rate in [0, 1].

    Returns
    -------
    RooflineExplorer
        An ``ipywidgets.VBox``; display it in a notebook.

    Examples
    --------
    >>> import specdec as sd
    >>> w = sd.widgets.roofline_explorer()
    >>> round(w.values["t0"] * 1e3, 2), w.values["c_verify"], w.values["break_even_batch"]
    (5.27, 1.0, 154.0)
    """
    return RooflineExplorer(target=target, draft=draft, gpu=gpu, n_gpus=n_gpus, batch=batch, context=context, k=k,
                            alpha=alpha)
