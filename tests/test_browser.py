"""Open every built page in a real browser, offline, and check what a reader sees.

Debian's ``chromium`` is driven by Playwright for Python. The built book
(``_build/html``, or ``$SPECDEC_HTML_DIR``) is served from 127.0.0.1; every
request to any other host is blocked (it can only go to a proxy that refuses it,
``tests/conftest.py``) *and* makes the test fail. One tab goes from page to page, as a
reader's does (with the browser's cache). For each page of ``_toc.yml`` (one test per
page, named after it) we check that:

- the page loads without HTTP errors for its own resources;
- MathJax typeset the math: the page's math containers hold ``mjx-container``
  elements and no raw ``$$``, ``\\[`` or ``\\(`` is left in the visible text;
- every ``<img>`` loaded (``naturalWidth > 0``);
- a page whose notebook stores an explorer shows it; each live explorer
  (``specdec-live``) started, has working sliders and the live note; every other
  explorer shows its read-out, its controls disabled and the snapshot note saying how
  to run it;
- every figure is shown at 93 % of its size or more (its CSS size: the ``width``
  MyST-NB writes for a PNG stored at twice the pixels, else its pixel width), so its
  smallest text (7 pt at 100 dpi, 9.7 px) stays at 9 px or more;
- no code block or output scrolls sideways, solutions opened (code is set at a size that shows 88
  characters, ``scripts/static/specdec.css``; longer outputs wrap);
- the browser console shows no error except those in ``CONSOLE_ALLOW_LIST``;
- a screenshot is saved as ``_build/screenshots/<page>.png``: the first screen
  (1280 x 900), or with ``SPECDEC_SCREENSHOTS=full`` the whole page (its top
  20,000 px).
"""

from __future__ import annotations

import os
import pathlib
import re

import pytest
from conftest import html_dir, is_local, listening, source_of  # the browser and reader fixtures: conftest.py

from specdec.widgets._base import LIVE_NOTE, SNAPSHOT_NOTE

# Console messages that are not defects of the book. Keep this list short and
# say why each entry is harmless.
CONSOLE_ALLOW_LIST = [
    # The browser asks every site for /favicon.ico; the book has none.
    re.compile(r"favicon\.ico"),
]
# SPECDEC_SCREENSHOTS=full: screenshots show the whole page up to this height (every chapter
# fits; the API reference is ~55,000 px tall). Encoding a full page takes 1-1.5 s, ten times a
# first-screen shot, so by default each page gets a first-screen (1280 x 900) screenshot.
SCREENSHOT_MAX_HEIGHT = 20_000
FULL_SCREENSHOTS = os.environ.get("SPECDEC_SCREENSHOTS", "") == "full"
# 9 px over the 9.72 px of the figures' smallest text (7 pt at 100 dpi, specdec.plots._style.MIN_FONT_SIZE).
MIN_FIGURE_SCALE = 0.93


def explorer_in_notebook(docname: str) -> bool:
    """Whether the page's notebook stores an explorer output (then the page must show it)."""
    source = source_of(docname)
    return source is not None and source.suffix == ".ipynb" and "specdec-explorer" in source.read_text()


def screenshot_path(docname: str) -> pathlib.Path:
    folder = html_dir().parent / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / (docname.replace("/", "__") + ".png")


def test_page_in_browser(reader, book_server, built_html, docname):
    """The page renders offline: math typeset, images legible, explorers live or disabled, no console errors."""
    external, http_errors, console_errors = [], [], []
    page = reader
    listeners = {
        "request": lambda request: None if is_local(request.url) else external.append(request.url),
        "console": lambda msg: console_errors.append(
            f"console.{msg.type}: {msg.text} ({msg.location.get('url', '')})") if msg.type == "error" else None,
        "pageerror": lambda exc: console_errors.append(f"uncaught exception: {exc}"),
        "response": lambda response: http_errors.append(f"HTTP {response.status} {response.url}")
        if response.status >= 400 and "favicon.ico" not in response.url else None,
    }
    with listening(page, listeners):
        response = page.goto(f"{book_server}/{docname}.html", wait_until="load")
        assert response is not None and response.ok, f"{docname}: page did not load ({response and response.status})"

        # --- math -------------------------------------------------------------
        n_math = page.locator("article .math").count()
        if n_math:
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("() => MathJax.startup.promise")
            untypeset = page.evaluate(
                """() => Array.from(document.querySelectorAll('article .math'))
                      .filter(el => !el.querySelector('mjx-container'))
                      .map(el => el.textContent.trim().slice(0, 80))"""
            )
            assert not untypeset, f"{docname}: {len(untypeset)} of {n_math} math elements not typeset by MathJax: {untypeset[:5]}"
        visible = page.evaluate("() => (document.querySelector('article') || document.body).innerText")
        leftovers = [token for token in ("$$", "\\[", "\\(", "\\begin{") if token in visible]
        if leftovers:
            index = visible.find(leftovers[0])
            snippet = " ".join(visible[max(0, index - 80): index + 80].split())
            pytest.fail(f"{docname}: raw LaTeX {leftovers} left in the visible text: ...{snippet}...", pytrace=False)

        # --- images -------------------------------------------------------------
        page.evaluate(
            """() => Promise.all(Array.from(document.images).map(img => img.complete ? null :
                   new Promise(resolve => { img.onload = img.onerror = resolve; })))"""
        )
        broken = page.evaluate(
            """() => Array.from(document.images)
                  .filter(img => !(img.complete && img.naturalWidth > 0))
                  .map(img => img.getAttribute('src'))"""
        )
        assert not broken, f"{docname}: images that did not load: {broken}"

        # --- explorers: the headline ones become live, the others stay disabled snapshots ----------
        roots = page.locator("article .specdec-explorer")
        if explorer_in_notebook(docname):
            assert roots.count() >= 1, f"{docname}: the notebook has an explorer, the page shows none"
        for i in range(roots.count()):
            root = roots.nth(i)
            name = root.get_attribute("data-explorer")
            if "specdec-live" in (root.get_attribute("class") or ""):
                page.wait_for_function("r => ['ready', 'failed'].includes(r.getAttribute('data-live'))",
                                       arg=root.element_handle())
                assert root.get_attribute("data-live") == "ready", f"{docname}: live explorer {name} did not start"
                assert root.locator("svg[role=img], table.specdec-readout").count() >= 1
                assert root.locator("input[type=range]:not([disabled])").count() >= 1, f"{docname}: {name}"
                assert root.locator(".specdec-note").inner_text() == LIVE_NOTE, f"{docname}: {name}"
            else:
                fields = root.locator("input, select")
                assert fields.count() >= 1, f"{docname}: {name} shows no controls"
                assert all(fields.nth(j).is_disabled() for j in range(fields.count())), \
                    f"{docname}: explorer {name} has controls that move but change nothing"
                note = root.locator(".specdec-note")
                assert note.is_visible() and note.inner_text() == SNAPSHOT_NOTE, \
                    f"{docname}: explorer {name} has no visible note saying how to run it"
                assert root.locator("[data-key]").count() >= 1, f"{docname}: {name} has no read-out"

        # --- figures are shown at (nearly) their own size: their 7 pt text stays >= 9 px ---------
        small = page.evaluate(
            """() => Array.from(document.querySelectorAll('article .cell_output img'))
                  .map(img => [img.getAttribute('src'),
                               parseFloat(img.getAttribute('width') || img.style.width) || img.naturalWidth,
                               img.getBoundingClientRect().width])
                  .filter(([src, css, shown]) => css > 0 && shown / css < MIN_SCALE)"""
            .replace("MIN_SCALE", str(MIN_FIGURE_SCALE)))
        assert not small, (f"{docname}: figures shown below {MIN_FIGURE_SCALE:.0%} of their size, so their "
                           f"smallest text is under 9 px: {small[:3]}")

        # --- no code block or output scrolls sideways (solutions opened): nothing is clipped ----------
        page.evaluate("() => document.querySelectorAll('article details').forEach(d => { d.open = true; })")
        clipped = page.evaluate(
            """() => Array.from(document.querySelectorAll('article div.highlight pre, article div.cell_output pre'))
                  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
                  .map(e => e.innerText.split('\\n').reduce((a, l) => l.length > a.length ? l : a, '').slice(0, 100))""")
        assert not clipped, f"{docname}: {len(clipped)} code blocks or outputs scroll sideways; longest lines: {clipped[:3]}"
        page.evaluate("() => document.querySelectorAll('article details').forEach(d => { d.open = false; })")

        page.wait_for_timeout(100)  # let late console errors arrive
        if FULL_SCREENSHOTS:
            height = page.evaluate("() => document.documentElement.scrollHeight")
            page.screenshot(path=str(screenshot_path(docname)), full_page=True,
                            clip={"x": 0, "y": 0, "width": 1280, "height": min(height, SCREENSHOT_MAX_HEIGHT)})
        else:
            page.screenshot(path=str(screenshot_path(docname)))

    assert not external, f"{docname}: requests to other hosts (blocked): {sorted(set(external))}"
    assert not http_errors, f"{docname}: local resources failed to load: {sorted(set(http_errors))}"
    unexpected = [m for m in console_errors if not any(p.search(m) for p in CONSOLE_ALLOW_LIST)]
    assert not unexpected, f"{docname}: browser console errors:\n  " + "\n  ".join(unexpected)


def test_a_request_to_another_host_is_blocked_and_recorded(reader, book_server):
    """The check above can fail: a page that asks another host for an image and a fetch gets neither (the proxy
    refuses them), and each request is seen."""
    seen, failed = [], []
    listeners = {"request": lambda request: None if is_local(request.url) else seen.append(request.url),
                 "requestfailed": lambda request: failed.append(request.url)}
    with listening(reader, listeners):
        reader.goto(f"{book_server}/intro.html", wait_until="load")
        result = reader.evaluate("""async () => {
            const img = new Image();
            const loaded = new Promise(resolve => { img.onload = () => resolve('loaded'); img.onerror = () => resolve('failed'); });
            img.src = 'https://cdn.example.org/pixel.png';
            const fetched = await fetch('https://example.com/x.js').then(() => 'loaded', () => 'failed');
            return [await loaded, fetched];
        }""")
    assert result == ["failed", "failed"]
    assert sorted(seen) == ["https://cdn.example.org/pixel.png", "https://example.com/x.js"]
    assert sorted(failed) == sorted(seen)
    assert is_local(f"{book_server}/intro.html") and is_local("data:,x") and not is_local("https://example.com/")
