"""The chapters as a reader sees them in JupyterLab (with jupyterlab-myst), driven by Playwright.

For the first chapter of every part of ``_toc.yml`` (and any chapter named in
``SPECDEC_LAB_CHAPTERS``, comma-separated docnames), on a copy of ``book/`` so
that JupyterLab cannot touch the repository, each opened in turn in one
JupyterLab tab (the previous chapter closed and its kernel stopped):

1. **Opened, before anything runs** (the notebook is untrusted): every
   computed value of the prose is shown (the stored ``{eval}`` results), no
   MyST role or directive syntax is on screen, figures are images, and
   explorers show their static snapshot, never a widget's ``repr``.
2. **After Run All**: no cell raised, the prose shows the values a fresh kernel
   computes (the same as stored), and every explorer is a live widget.

A screenshot of each state is saved in ``_build/screenshots/jupyterlab-*.png``.
The test needs ``jupyterlab`` and ``jupyterlab_myst`` (requirements.txt) and
Debian's chromium.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import inline_values  # noqa: E402

from specdec.widgets._base import SNAPSHOT_NOTE  # noqa: E402

SCREENSHOTS = ROOT / "_build" / "screenshots"
RAW_SYNTAX = re.compile(r"\{(eval|glue|glue:text|glue:figure|numref|ref|doc|math)\}`|```\{|:::\{|^:(label|alt|name|class):", re.M)
WIDGET_REPR = re.compile(r"\w+Explorer\(children=|VBox\(children=|HBox\(children=")


def lab_chapters() -> list[str]:
    import book_toc

    names, parts = [], set()
    for chapter in book_toc.chapters(ROOT):   # the first notebook chapter of every part
        if chapter.caption not in parts and (ROOT / f"{chapter.docname}.ipynb").exists():
            parts.add(chapter.caption)
            names.append(chapter.docname)
    extra = [n.strip() for n in os.environ.get("SPECDEC_LAB_CHAPTERS", "").split(",") if n.strip()]
    return list(dict.fromkeys(names + extra))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server on a copy of book/, with windowing off so every cell is in the page."""
    try:
        import jupyterlab  # noqa: F401
        import jupyterlab_myst  # noqa: F401
    except ImportError:
        pytest.fail("jupyterlab and jupyterlab_myst are needed: pip install -r requirements.txt", pytrace=False)
    root = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "book", root / "book", ignore=shutil.ignore_patterns("_build", ".ipynb_checkpoints"))
    settings = root / "settings"
    (settings / "@jupyterlab" / "notebook-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"}))
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = _free_port()
    log = open(root / "lab.log", "w")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / "config"), JUPYTER_RUNTIME_DIR=str(root / "runtime"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         "--IdentityProvider.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
         f"--ServerApp.root_dir={root}", f"--LabApp.user_settings_dir={settings}",
         f"--LabApp.workspaces_dir={root / 'workspaces'}", "--LabApp.news_url=", "--ServerApp.open_browser=False",
         "--LabApp.expose_app_in_browser=True"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api", timeout=1)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(f"jupyter lab exited: {(root / 'lab.log').read_text()[-2000:]}", pytrace=False)
                time.sleep(0.5)
        else:
            pytest.fail("jupyter lab did not start within 60 s", pytrace=False)
        yield url, root
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _hidden(cell) -> bool:
    """A cell stored collapsed (every exercise solution): JupyterLab shows a placeholder instead of its text."""
    return bool(cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"))


def _expected_values(path: pathlib.Path) -> list[str]:
    nb = json.loads(path.read_text())
    values = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and not _hidden(cell):
            for result in inline_values.stored_results(cell).values():
                values.append(inline_values.plain_text(result))
    return values


PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"     # the notebook on screen
MARKDOWN = f"{PANEL} .jp-MarkdownCell .jp-RenderedMarkdown, {PANEL} .jp-MarkdownCell .myst"


def _notebook_text(page) -> str:
    return page.inner_text(f"{PANEL} .jp-Notebook")


def _markdown_text(page) -> str:
    return "\n".join(page.locator(MARKDOWN).all_inner_texts())


# true while a cell of the open notebook is queued or running (its prompt shows [*])
BUSY = f"""() => Array.from(document.querySelectorAll("{PANEL} .jp-InputPrompt")).some(p => p.textContent.includes("[*]"))"""
# true once the open notebook's Markdown cells are all rendered and show every expected value
SHOWS = f"""([n, values]) => {{
    const rendered = document.querySelectorAll("{PANEL} .jp-MarkdownCell.jp-mod-rendered").length;
    const text = Array.from(document.querySelectorAll("{MARKDOWN}"), e => e.innerText).join("\\n");
    return rendered >= n && values.every(v => text.includes(v)); }}"""


def _wait(page, predicate: str, arg=None, timeout_s: float = 90.0, polling: float | str = 250) -> bool:
    """Wait until the page predicate holds (polled every ``polling`` ms, or every frame: ``"raf"``);
    False when the time is up."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(predicate, arg=arg, timeout=timeout_s * 1000, polling=polling)
        return True
    except PlaywrightTimeout:
        return False


# true once the open notebook's kernel has started and is idle (the status bar's "Idle")
KERNEL_IDLE = """() => { const w = window.jupyterapp.shell.currentWidget;
    const kernel = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
    return !!kernel && kernel.status === "idle"; }"""
# count the executions the kernel reports from now on (each cell it runs sends one execute_input message)
COUNT_EXECUTIONS = """() => { const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    window.__specdecExecuted = 0;
    kernel.iopubMessage.connect((_, msg) => {
        if (msg.header.msg_type === "execute_input") { window.__specdecExecuted += 1; } }); }"""


def _run_all(page, n_code: int, timeout_s: float = 240.0) -> None:
    """Run > Run All Cells, as a reader does, and wait until the kernel has run all ``n_code`` code cells and
    no cell is queued or running.

    A reader waits for the kernel to start ("Connecting" in the status bar) before running, and so does this.
    The run is followed by the kernel's own messages, not by the [*] prompts: a chapter whose cells all run
    in a fraction of a second may show no [*] in any frame the browser paints.
    """
    if not _wait(page, KERNEL_IDLE, timeout_s=180):
        raise AssertionError("the notebook's kernel did not start within 180 s")
    page.evaluate(COUNT_EXECUTIONS)
    page.click("li.lm-MenuBar-item:has-text('Run')")
    page.click("li.lm-Menu-item:has-text('Run All Cells') >> nth=0")
    if not _wait(page, "() => window.__specdecExecuted > 0", timeout_s=30):
        raise AssertionError("Run All Cells did not start: the kernel ran no cell within 30 s")
    done = f"""(n) => window.__specdecExecuted >= n && !({BUSY})() && ({KERNEL_IDLE})()"""
    if not _wait(page, done, arg=n_code, timeout_s=timeout_s):
        raise AssertionError(f"Run All did not finish within {timeout_s:.0f} s "
                             f"({page.evaluate('() => window.__specdecExecuted')} of {n_code} cells run)")


# Close what the app shows (discarding the run's unsaved outputs), stop the kernels, open the notebook.
OPEN = """async (path) => {
    const app = window.jupyterapp;
    for (const widget of Array.from(app.shell.widgets("main"))) {
        if (widget.context) { widget.context.model.dirty = false; }
        widget.close();
    }
    await app.serviceManager.sessions.shutdownAll();
    await app.commands.execute("docmanager:open", {path});
}"""


@pytest.fixture(scope="module")
def lab_page(lab, browser):
    """One JupyterLab app in one tab for the module: each test opens its chapter in it, as a reader would
    from the file browser (starting the app costs seconds, and the chapters do not share a kernel)."""
    url, _root = lab
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{url}/lab?reset", wait_until="domcontentloaded")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=90_000)
        page.evaluate("() => window.jupyterapp.restored")
        yield page, errors
    finally:
        context.close()


@pytest.mark.parametrize("chapter", lab_chapters())
def test_chapter_in_jupyterlab(lab, lab_page, chapter):
    docname = chapter
    url, root = lab
    page, all_errors = lab_page
    seen_errors = len(all_errors)
    path = root / f"{docname}.ipynb"
    expected = _expected_values(path)
    nb = json.loads(path.read_text())
    n_explorers = sum(1 for c in nb["cells"] if c["cell_type"] == "code"
                      for o in c.get("outputs", []) if "specdec-explorer" in "".join(o.get("data", {}).get("text/html", "")))
    n_figures = sum(1 for c in nb["cells"] if c["cell_type"] == "code" and c.get("metadata", {}).get("mystnb", {}).get("figure"))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = docname.replace("/", "-")
    page.evaluate(OPEN, f"{docname}.ipynb")
    page.wait_for_selector(f"{PANEL} .jp-Notebook .jp-Cell", timeout=90_000)
    # jupyterlab-myst renders the Markdown cells asynchronously: wait until every one is rendered
    # and shows its stored values (or the time is up; the assertions below then say what is missing)
    n_markdown = sum(1 for c in nb["cells"] if c["cell_type"] == "markdown" and not _hidden(c))
    _wait(page, SHOWS, [n_markdown, expected], timeout_s=90)
    rendered = page.locator(f"{PANEL} .jp-MarkdownCell.jp-mod-rendered").count()
    assert rendered >= n_markdown, f"{docname}: only {rendered} of {n_markdown} Markdown cells rendered in 90 s"
    # Opening a chapter changes nothing in it (no "modified" dot on its tab, nothing to save or discard),
    # and its solutions are collapsed: a student sees the exercises, not the answers.
    dirty = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")
    assert not dirty, f"{docname}: opening the notebook in JupyterLab marked it modified"
    n_hidden = sum(1 for c in nb["cells"] if _hidden(c))
    placeholders = page.locator(f"{PANEL} .jp-InputPlaceholder").count()
    assert placeholders >= n_hidden, f"{docname}: {n_hidden} solution cells stored collapsed, {placeholders} shown so"
    page.screenshot(path=str(SCREENSHOTS / f"jupyterlab-{shot}-opened.png"))
    markdown = _markdown_text(page)
    text = _notebook_text(page)
    raw = sorted(set(m.group(0) for m in RAW_SYNTAX.finditer(markdown)))
    assert not raw, f"{docname}: MyST syntax shown as text in JupyterLab: {raw[:10]}"
    assert not WIDGET_REPR.search(text), f"{docname}: an explorer shows its repr instead of its snapshot"
    broken = sorted(set(re.findall(r"\b(?:fig|tab|eq|sec)-[a-z0-9-]+\b", markdown)))
    assert not broken, f"{docname}: cross-references JupyterLab cannot resolve show as labels: {broken[:10]}"
    missing = [v for v in expected if v not in markdown]
    assert not missing, f"{docname}: computed values not shown before running: {missing[:10]}"
    images = page.locator(f"{PANEL} .jp-OutputArea-output img").count()
    assert images >= n_figures, f"{docname}: {images} images shown, {n_figures} figure cells"
    snapshots = page.locator(f"{PANEL} .jp-OutputArea-output .specdec-explorer")
    assert snapshots.count() >= n_explorers, (f"{docname}: {snapshots.count()} explorer snapshots shown "
                                              f"before running, {n_explorers} stored")
    if n_explorers:
        first = snapshots.first
        first.scroll_into_view_if_needed()
        assert first.is_visible() and SNAPSHOT_NOTE in first.inner_text(), \
            f"{docname}: the explorer snapshot does not say how to make it live"
        first.screenshot(path=str(SCREENSHOTS / f"jupyterlab-{shot}-explorer-opened.png"))

    _run_all(page, sum(1 for c in nb["cells"] if c["cell_type"] == "code" and c["source"]))
    _wait(page, SHOWS, [n_markdown, expected], timeout_s=60)
    page.screenshot(path=str(SCREENSHOTS / f"jupyterlab-{shot}-run.png"), full_page=False)
    tracebacks = page.locator(f"{PANEL} [data-mime-type='application/vnd.jupyter.stderr']").all_inner_texts()
    tracebacks = [t for t in tracebacks if "Traceback" in t or "Error" in t]
    assert not tracebacks, f"{docname}: cells raised in JupyterLab: {tracebacks[0][:500]}"
    markdown = _markdown_text(page)
    missing = [v for v in expected if v not in markdown]
    assert not missing, f"{docname}: after Run All the prose does not show the stored values: {missing[:10]}"
    live = page.locator(f"{PANEL} .jupyter-widgets.widget-slider, "
                        f"{PANEL} .jupyter-widgets .widget-slider").count()
    if n_explorers:
        assert live >= n_explorers, f"{docname}: {n_explorers} explorers but {live} live sliders after running"
    errors = all_errors[seen_errors:]
    assert not errors, f"{docname}: JavaScript errors in JupyterLab: {errors[:3]}"
