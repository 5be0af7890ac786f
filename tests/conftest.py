"""Shared pytest configuration: where the built book is, its pages, a local web server.

Environment variables
---------------------
SPECDEC_HTML_DIR
    The built HTML to check (default: ``_build/html`` in the repository).
SPECDEC_CHROMIUM
    The chromium executable for the browser test (default ``/usr/bin/chromium``).
SPECDEC_FULL_TEST_RUN
    Set to 1 by ``scripts/run-tests.sh``: then every test group (unit tests,
    specdec's doctests, nbval for every notebook with code, built-HTML checks,
    browser test) must
    have been collected, otherwise the run fails instead of silently passing
    on less than everything.

The fast inner loop
-------------------
``python -m pytest -m core -n 2`` runs the core's unit and property tests and
the doctests of the core modules (``specdec/`` but its plots and widgets), about a minute on two
cores: the tests that need no notebook, no built book, no browser, no
figure and no explorer. Every test of ``tests/`` is in the core unless its
file is in ``NOT_CORE`` or the test's own code uses ``sd.plots``,
``sd.widgets`` or matplotlib (``PRESENTATION``, :func:`is_core`); so a new
test file of a core module joins the loop by itself.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import pathlib
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

#: Test inputs, never collected: tests/data/grading holds hostile notebooks (one kills every ancestor and every
#: process that looks like a test runner, one writes into every pipe it can see) that only the grader may run,
#: inside its namespaces; nbval collecting them would run them in the test run itself.
collect_ignore = ["data"]


def html_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("SPECDEC_HTML_DIR", ROOT / "_build" / "html")).resolve()


@functools.cache
def toc_docnames() -> tuple[str, ...]:
    """Every document in ``_toc.yml``, in reading order (root first): scripts/book_toc.py, the one reader."""
    import book_toc

    return book_toc.documents(ROOT)


def source_of(docname: str) -> pathlib.Path | None:
    for suffix in (".ipynb", ".md"):
        path = ROOT / f"{docname}{suffix}"
        if path.exists():
            return path
    return None


@pytest.fixture(scope="session", autouse=True)
def _no_course_key_left_behind(tmp_path_factory):
    """Course keys the grading tests write are deleted when the session (each xdist worker's) ends.

    pytest keeps the temporary folders of the last three sessions, and the hostile notebooks of a later run scan
    the machine for keys: with ``tests/test_grading.py``'s fixed key left in an earlier session's folder, its
    forger graded itself right (it did once, on a machine that had run the tests before; the grader hides only
    the key of the run it grades). A fresh machine has no such folder; a developer's has."""
    yield
    for path in tmp_path_factory.getbasetemp().rglob("*"):
        if path.name.endswith((".key", ".key~")) and path.is_file():
            path.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def built_html() -> pathlib.Path:
    """The built book; fails with instructions when it is missing."""
    path = html_dir()
    if not (path / "index.html").is_file():
        pytest.fail(
            f"no built book at {path} (index.html missing). Build it first with "
            "`bash scripts/build-book.sh`, or set SPECDEC_HTML_DIR to a built html folder.",
            pytrace=False,
        )
    return path


def pytest_generate_tests(metafunc):
    if "docname" in metafunc.fixturenames:
        names = toc_docnames()
        metafunc.parametrize("docname", names, ids=list(names))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature from the base class
        pass


# One Chromium for the whole session: Playwright's sync API runs an event loop,
# so a second sync_playwright() inside the same session would fail.
CHROMIUM = os.environ.get("SPECDEC_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run",
]
#: Loopback is reached directly; every other host only through this proxy, which is a port of ours that is bound
#: but never listens: a request to another host fails at once (ERR_PROXY_CONNECTION_FAILED), whatever the machine's
#: network. The tests also record such requests (``page.on("request")``) and fail on them. Unlike ``route``, which
#: would also block them, this keeps the browser's HTTP cache: a reader's second page loads the theme's and
#: MathJax's scripts from the cache, and so do the tests (a third of the CPU time of a fresh load per page).
PROXY_BYPASS = "127.0.0.1,localhost"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def is_local(url: str) -> bool:
    """Whether a page's request stays on this machine (loopback, or a data:, blob:, about: or file: URL)."""
    import urllib.parse

    return url.startswith(("data:", "blob:", "about:", "file:")) or urllib.parse.urlsplit(url).hostname in LOCAL_HOSTS


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - requirements.txt pins playwright
        pytest.fail("playwright is not installed: pip install -r requirements.txt", pytrace=False)
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium) "
            "or set SPECDEC_CHROMIUM. `bash scripts/run-tests.sh` installs it when run as root.",
            pytrace=False,
        )
    import socket

    with socket.socket() as dead_end, sync_playwright() as playwright:
        dead_end.bind(("127.0.0.1", 0))          # bound, never listening: connections to it are refused
        proxy = {"server": f"http://127.0.0.1:{dead_end.getsockname()[1]}", "bypass": PROXY_BYPASS}
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
                                             proxy=proxy)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def listening(page, listeners: dict):
    """``page.on(event, listener)`` for each item while the block runs, removed after it (the tab is shared)."""
    for event, listener in listeners.items():
        page.on(event, listener)
    try:
        yield page
    finally:
        for event, listener in listeners.items():
            page.remove_listener(event, listener)


@pytest.fixture(scope="session")
def reader(browser):
    """One tab, 1280 x 900, that the page tests navigate from page to page as a reader does (a fresh context per
    page costs nearly three times the CPU: a new renderer, and every script parsed again). Service workers are blocked."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    context.set_default_timeout(90_000)
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="session")
def book_server(built_html):
    """Serve the built book on http://127.0.0.1:<free port>/ for the session."""
    handler = functools.partial(_QuietHandler, directory=str(built_html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _notebooks_with_code() -> list[pathlib.Path]:
    import nbformat

    found = []
    for path in sorted((ROOT / "book").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts or "_build" in path.parts:
            continue
        nb = nbformat.read(path, as_version=4)
        if any(cell.cell_type == "code" and cell.source.strip() for cell in nb.cells):
            found.append(path)
    return found


def _incomplete_run(config, files) -> str | None:
    """What a full run (``SPECDEC_FULL_TEST_RUN=1``) is missing, given the collected test files."""
    if os.environ.get("SPECDEC_FULL_TEST_RUN") != "1" or config.option.collectonly:
        return None
    if config.option.keyword or config.option.markexpr:
        return None  # the user deliberately selected a subset
    problems = []
    for group in ("test_built_html.py", "test_browser.py"):
        if ROOT / "tests" / group not in files:
            problems.append(f"no tests collected from tests/{group}")
    if not any(p.name.startswith("test_") and p.parent == ROOT / "tests" and p.name not in
               ("test_built_html.py", "test_browser.py") for p in files):
        problems.append("no specdec unit tests collected from tests/")
    if not any(ROOT / "specdec" in p.parents for p in files):
        problems.append("no doctests collected from specdec/ (run pytest with --doctest-modules specdec)")
    if not any(ROOT / "course" / "specdec_course" in p.parents for p in files):
        problems.append("no doctests collected from course/specdec_course/ (run pytest with --doctest-modules "
                        "course/specdec_course)")
    for notebook in _notebooks_with_code():
        if notebook.resolve() not in files:
            problems.append(f"nbval collected nothing from {notebook.relative_to(ROOT)} (run pytest with --nbval)")
    return "incomplete test run:\n  " + "\n  ".join(problems) if problems else None


#: Tests that take longest, or hold one worker longest (a module kept on one worker), run first, so that
#: pytest-xdist does not start one of them when the other workers are nearly done. Lower runs earlier;
#: the order within a group, and so of a notebook's cells, is kept. The grading runs spend much of their
#: time waiting for a notebook's time limit, so they alternate with work that keeps cores busy (the measuring
#: notebook's matrix products use every core); scripts/run-tests.sh starts one worker more than there are
#: cores, so that a worker that waits leaves its core to the others.
FIRST = {"tests/test_grading_hostile.py": 0, "book/part3-beyond/04-measure-your-machine.ipynb": 1,
         "tests/test_grading.py": 2, "tests/test_jupyterlab.py": 3, "tests/test_packaging.py": 4,
         "tests/test_live_explorers.py": 6}
#: The rank of the student edition's sweeps over every page and its Sphinx builds (one worker, ~40 s), and of
#: the notebooks and every other test.
SWEEPS, NOTEBOOKS, OTHERS = 5, 6, 7


def _start_order(item) -> int:
    path = item.nodeid.split("::", 1)[0]          # relative to the repository (pytest's rootdir)
    if path in FIRST:
        return FIRST[path]
    if path == "tests/test_student_edition.py" and "[" not in item.nodeid:
        return SWEEPS
    if path.endswith(".ipynb"):
        return NOTEBOOKS
    return OTHERS


#: Test files outside the fast loop: they read the notebooks or the built book, start a browser, JupyterLab,
#: a kernel or a fresh venv, draw figures or explorers, or exercise the course tooling (exercises, grading).
NOT_CORE = frozenset(f"tests/{name}.py" for name in (
    "test_book_toc", "test_browser", "test_built_html", "test_docstrings", "test_errata", "test_exercises", "test_exercises_leaks",
    "test_grading", "test_grading_attacks", "test_grading_container", "test_grading_variants", "test_handouts",
    "test_jupyterlab", "test_live_explorers", "test_measure", "test_notebooks_meta", "test_packaging",
    "test_plots_legible", "test_plots_published", "test_plots_screens", "test_plots_widgets_part1",
    "test_plots_widgets_part4", "test_spine", "test_student_edition", "test_summary_claims", "test_widgets",
    "test_word_budget",
))
#: What in a test's own code puts it outside the fast loop: drawing a figure or building an explorer.
PRESENTATION = ("sd.plots.", "sd.widgets.", "from specdec.plots", "from specdec.widgets", "import specdec.plots",
                "import specdec.widgets", "import matplotlib", "from matplotlib")


@functools.cache
def _source_of_test(function) -> str:
    import inspect

    try:
        return inspect.getsource(function)
    except (OSError, TypeError):  # pragma: no cover - a test defined where its source cannot be read
        return ""


def is_core(item) -> bool:
    """Whether a collected test is in the fast loop (``-m core``): see the module docstring."""
    path = item.nodeid.split("::", 1)[0]
    if path.startswith("specdec/"):              # a doctest: the core modules', not plots/widgets
        return not path.startswith(("specdec/plots/", "specdec/widgets/"))
    if not path.startswith("tests/") or path in NOT_CORE:
        return False
    function = getattr(item, "function", None)
    return function is None or not any(word in _source_of_test(function) for word in PRESENTATION)


def pytest_configure(config):
    config.addinivalue_line("markers", "core: the fast inner loop (python -m pytest -m core): no notebook, book, "
                                       "browser, figure or explorer; set by tests/conftest.py, not by hand")


@pytest.hookimpl(tryfirst=True)        # before pytest's own hook deselects by marker (-m core)
def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if is_core(item):
            item.add_marker(pytest.mark.core)
    items.sort(key=_start_order)


def pytest_collection_finish(session):
    """In the full run, refuse to pass on less than every test group."""
    if hasattr(session.config, "workerinput"):
        return  # a pytest-xdist worker: the controller checks (below)
    files = {pathlib.Path(str(item.fspath)).resolve() for item in session.items}
    message = _incomplete_run(session.config, files)
    if message:
        raise pytest.UsageError(message)


try:
    import xdist  # noqa: F401  (pinned in requirements.txt; the hook below exists only with it)
except ImportError:  # pragma: no cover
    pass
else:
    #: Test modules whose module-scoped fixture is expensive (grading seven notebooks, a fresh venv with
    #: ``pip install .``, a JupyterLab server): their tests stay on one worker, so the fixture is built once.
    SHARED_FIXTURE_MODULES = {"tests/test_grading.py", "tests/test_grading_hostile.py", "tests/test_packaging.py",
                              "tests/test_jupyterlab.py"}
    #: Test modules with one test per page and check: a page's tests go to one worker, which parses it once,
    #: and the module's tests without parameters (those that sweep every page) to one worker, which parses
    #: each page once for all of them.
    PER_PAGE_MODULES = {"tests/test_built_html.py", "tests/test_student_edition.py"}

    def pytest_xdist_make_scheduler(config, log):
        """Keep each notebook's cells on one worker (and each module of SHARED_FIXTURE_MODULES, and each
        page's tests of PER_PAGE_MODULES); spread the rest.

        nbval runs a notebook's cells in order in one kernel, so all of them must
        go to the same pytest-xdist worker; every other test (for instance the
        one-per-page browser tests) is its own unit of work. (``--dist
        loadgroup`` cannot do this with pytest 9, whose node ids it no longer
        rewrites.)
        """
        from xdist.scheduler import LoadScopeScheduling

        # Hand out the work in collection order, which pytest_collection_modifyitems above made longest
        # first; xdist's own order (the scopes with most tests first) would start the JupyterLab module,
        # six tests but a minute of work, near the end.
        config.option.loadscopereorder = False

        class NotebookScheduling(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                path = nodeid.split("::", 1)[0]
                if path.endswith(".ipynb") or path in SHARED_FIXTURE_MODULES:
                    return path
                if path in PER_PAGE_MODULES:      # one page's tests share its parsed HTML; so do the sweeps
                    return path + ("[" + nodeid.rsplit("[", 1)[1] if nodeid.endswith("]") else "")
                return nodeid

        return NotebookScheduling(config, log)

    def pytest_xdist_node_collection_finished(node, ids):
        """The same check under pytest-xdist, on what the first worker collected."""
        config = node.config
        if getattr(config, "_specdec_collection_checked", False):
            return
        config._specdec_collection_checked = True
        files = {(config.rootpath / nodeid.split("::")[0]).resolve() for nodeid in ids}
        message = _incomplete_run(config, files)
        if message:
            pytest.exit(message, returncode=pytest.ExitCode.USAGE_ERROR)
