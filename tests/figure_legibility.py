"""The legibility checks of a figure, from the PNG it was saved as (issue 13, item 4; issue 27, item 5).

A figure made by ``specdec.plots.new_figure`` saves PNGs that carry a record of
what was drawn (``specdec.plots._legibility``): the figure's size before the
"tight" crop, every visible text (font size, box in pixels at 100 dpi, drawn
or not, tick label of which axes and axis, held by which legend) and every
legend's frame. :func:`problems` applies the book's rules to a PNG:

- the figure is at most ``CONTENT_WIDTH`` (7 in) wide;
- no text is smaller than ``MIN_FONT_SIZE`` (7 pt);
- the PNG (cropped "tight", as the inline backend saves it) is at most 0.15 in
  wider than the figure (its own padding): no text sticks out;
- no two drawn texts overlap (boxes padded by 1.5 px each, so touching texts
  count), except an x and a y tick label of one axes at its corner;
- no legend's frame covers a drawn text that is not its own.

Used by ``tests/test_plots_legible.py`` (the PNGs the notebooks store) and by
``tests/nbval_inline.py`` (the PNGs nbval's fresh run of a notebook draws).
"""

from __future__ import annotations

import base64
import io
import json

from PIL import Image

from specdec.plots._legibility import RECORD_DPI, RECORD_KEY
from specdec.plots._style import CONTENT_WIDTH, MIN_FONT_SIZE

#: What the "tight" bounding box may add to the figure's width (inches): its padding.
TIGHT_PADDING = 0.15
#: Padding of each text's box (pixels at 100 dpi) in the overlap check.
TEXT_PADDING = 1.5


def read(png: bytes | str) -> tuple[dict | None, int]:
    """The record stored in a PNG (None if it has none) and the PNG's width in pixels.

    ``png`` is the file's bytes or a notebook's base64 text of them.
    """
    if isinstance(png, str):
        png = base64.b64decode(png)
    image = Image.open(io.BytesIO(png))
    text = image.text.get(RECORD_KEY) if hasattr(image, "text") else None
    return (json.loads(text) if text else None), image.size[0]


def _overlap(a, b) -> bool:
    """Whether boxes ``(x0, y0, x1, y1)`` overlap, as matplotlib's ``Bbox.overlaps`` says (touching edges do)."""
    ax0, ax1 = sorted((a[0], a[2]))
    ay0, ay1 = sorted((a[1], a[3]))
    bx0, bx1 = sorted((b[0], b[2]))
    by0, by1 = sorted((b[1], b[3]))
    return not (bx1 < ax0 or bx0 > ax1 or by1 < ay0 or by0 > ay1)


def _padded(box, pad):
    return (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)


def problems(png: bytes | str) -> list[str]:
    """Every rule the figure saved as ``png`` breaks (an empty list if none), each as a sentence."""
    record, pixels = read(png)
    if record is None:
        return ["the PNG has no legibility record: it was not drawn by specdec.plots.new_figure's canvas, "
                "or stored before it recorded (re-run scripts/execute_notebooks.py on the notebook)"]
    found = []
    width = record["size_in"][0]
    if width > CONTENT_WIDTH + 1e-9:
        found.append(f"{width} in wide (at most {CONTENT_WIDTH})")
    texts = [dict(zip(("text", "size", "x0", "y0", "x1", "y1", "drawn", "corner", "legend"), t, strict=True))
             for t in record["texts"]]
    small = sorted({(t["size"], t["text"]) for t in texts if t["size"] < MIN_FONT_SIZE - 1e-9})
    if small:
        found.append(f"text below {MIN_FONT_SIZE} pt: {small[:5]}")
    shown = pixels * RECORD_DPI / record["dpi"]
    if shown > (width + TIGHT_PADDING) * RECORD_DPI + 1e-6:
        found.append(f"text sticks out of the figure ({shown:.0f} px at {RECORD_DPI:.0f} dpi for {width} in)")
    drawn = [t for t in texts if t["drawn"]]
    box = {id(t): (t["x0"], t["y0"], t["x1"], t["y1"]) for t in drawn}
    overlaps = [(a["text"][:30], b["text"][:30]) for i, a in enumerate(drawn) for b in drawn[i + 1:]
                if _overlap(_padded(box[id(a)], TEXT_PADDING), _padded(box[id(b)], TEXT_PADDING))
                and not (a["corner"] and b["corner"] and a["corner"][0] == b["corner"][0]
                         and a["corner"][1] != b["corner"][1])]
    if overlaps:
        found.append(f"texts drawn over each other: {overlaps[:5]}")
    covered = [(t["text"][:30], f"legend {index}") for index, frame in enumerate(record["legends"])
               for t in drawn if t["legend"] != index and _overlap(frame, box[id(t)])]
    if covered:
        found.append(f"a legend covers {covered[:5]}")
    return found
