#!/usr/bin/env python3
"""Time the live explorers of the HTML book in Chromium: milliseconds per control change.

For each headline explorer, on its built page (``_build/html``, or
``$SPECDEC_HTML_DIR``), served from 127.0.0.1 with every other host
blocked, each control is moved through a fixed sequence of values inside
the page: the time from setting the ``<input type="range">``'s value and
dispatching its ``input`` event (what a slider move does) to the end of the
layout that follows (read-out and SVG chart replaced, ``offsetHeight``
read), and separately to the end of the frame that paints it (a message
posted from the next ``requestAnimationFrame`` callback, which runs after
that frame's paint; this includes waiting for the display's next frame, up
to 16.7 ms at 60 Hz). Printed per explorer: median and
90th percentile of both, and the median's ratio to the 100 ms budget of
issue 13. Run from the repository root after building the book::

    python benchmarks/bench_live_explorers.py [--changes 40]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import pathlib
import statistics
import sys
import threading
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUDGET_MS = 100.0
PAGES = {
    "expected-tokens": "book/part1-speedup-bounds/01-expected-tokens",
    "speedup": "book/part1-speedup-bounds/02-speedup-formula",
    "checklist": "book/part1-speedup-bounds/05-decision-checklist",
    "threshold": "book/part2-cost-accounting/03-break-even",
    "serving-metrics": "book/part3-beyond/03-serving-metrics",
}
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]

# In the page: move every control of the explorer through `changes` values, timing each change.
MEASURE = """
async ([name, changes]) => {
  const root = document.querySelector(`.specdec-live[data-explorer="${name}"]`);
  const inputs = Array.from(root.querySelectorAll('input[type=range]'));
  const layout = [], frame = [];
  const nextFrame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const painted = () => new Promise(r => requestAnimationFrame(() => {
    const channel = new MessageChannel(); channel.port1.onmessage = () => r(); channel.port2.postMessage(0); }));
  for (let i = 0; i < changes; i++) {
    const input = inputs[i % inputs.length];
    const lo = parseFloat(input.min), hi = parseFloat(input.max), step = parseFloat(input.step);
    const n = Math.round((hi - lo) / step);
    const value = lo + step * Math.round(n * ((i * 0.618034) % 1));
    await nextFrame();
    const t0 = performance.now();
    input.value = String(value);
    input.dispatchEvent(new Event('input', {bubbles: true}));
    void root.offsetHeight;                    // the browser lays the new read-out and chart out
    const t1 = performance.now();
    await painted();
    const t2 = performance.now();
    layout.push(t1 - t0); frame.push(t2 - t0);
  }
  return {layout, frame, renders: parseInt(root.getAttribute('data-renders'), 10)};
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=40, help="control changes per explorer (default 40)")
    args = parser.parse_args()
    html_dir = pathlib.Path(os.environ.get("SPECDEC_HTML_DIR", ROOT / "_build" / "html")).resolve()
    if not (html_dir / "index.html").is_file():
        print(f"no built book at {html_dir}: run `bash scripts/build-book.sh` first", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"live explorers in Chromium, {args.changes} control changes each; 1-min load {load:.1f} "
          f"on {os.cpu_count()} CPUs; budget {BUDGET_MS:.0f} ms per change")
    print(f"{'explorer':16s} {'to layout: median':>18s} {'p90':>8s} {'to painted frame: median':>25s} {'p90':>8s} "
          f"{'median/budget':>14s}")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("SPECDEC_CHROMIUM", "/usr/bin/chromium"),
                                        args=FLAGS)
            for name, docname in PAGES.items():
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                context.route("**/*", lambda route: route.continue_()
                              if urllib.parse.urlsplit(route.request.url).hostname in ("127.0.0.1", None)
                              else route.abort("blockedbyclient"))
                page = context.new_page()
                page.goto(f"{base}/{docname}.html", wait_until="load")
                page.wait_for_function(f"""() => {{ const r = document.querySelector('.specdec-live[data-explorer="{name}"]');
                                              return r && r.getAttribute('data-live') === 'ready'; }}""")
                result = page.evaluate(MEASURE, [name, args.changes])
                layout, frame = sorted(result["layout"]), sorted(result["frame"])
                med_l, med_f = statistics.median(layout), statistics.median(frame)
                p90 = lambda xs: xs[int(0.9 * (len(xs) - 1))]  # noqa: E731
                print(f"{name:16s} {med_l:15.2f} ms {p90(layout):5.2f} ms {med_f:22.2f} ms {p90(frame):5.2f} ms "
                      f"{med_f / BUDGET_MS:14.3f}")
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
