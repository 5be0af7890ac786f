"""Concept packages, one-way imports, no cycles, no private names across modules, a light core.

The layering (specdec/__init__.py documents it): the top-level helpers (``_validate``, ``_units``,
``_datafiles``, ``tables``) <- ``sources`` <- ``acceptance`` <- ``economics`` <- ``roofline`` <-
``verification`` <- ``decision`` <- ``serving`` <- ``drafts`` <- ``calibration`` <- ``predict`` <-
``literature`` <- ``cli``, then ``plots`` <- ``widgets`` on top. A module imports from
its own package or from a package below it. Checked by parsing every module of the package (imports
inside functions included), and by importing each core module in a fresh interpreter.

The course tooling (``course/specdec_course``, a distribution of its own) sits above all of it: it imports
specdec, and no module of specdec imports it; its framework imports nothing of specdec (the chapters'
exercises in ``specdec_course.bank`` do, as its data).
"""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "specdec"
COURSE = ROOT / "course" / "specdec_course"

#: Private names one module may import from another, with the reason. Nothing else is allowed
#: (``specdec._validate`` is the shared private validation module and is exempt by design).
#: The kernels below compute a public function's formula on inputs already validated: a public function
#: validates its arguments once and its internal callers, having validated theirs, call the kernel, so that
#: no argument is checked twice on one call path (tests/test_validate_once.py; issue 27).
ALLOWED_PRIVATE: set = {
    ("specdec.economics", "specdec.acceptance", "_expected_tokens_array"),  # E[L]
    ("specdec.calibration", "specdec.acceptance", "_expected_tokens_array"),
    ("specdec.calibration", "specdec.roofline.hardware", "_step_time"),  # one pass of checked inputs
    ("specdec.calibration", "specdec.serving.deployment", "_speculative_kernel"),  # speculative_speedup's costs
    ("specdec.economics", "specdec.acceptance", "_alpha_for_expected_tokens"),  # its inverse
    ("specdec.acceptance._intervals", "specdec.acceptance", "_alpha_for_expected_tokens"),
    ("specdec.acceptance._intervals", "specdec.acceptance", "_tokens_per_round_variance"),
    ("specdec.acceptance.estimation", "specdec.acceptance._engine_formats", "_read_engine_source"),
    ("specdec.decision._measurements", "specdec.acceptance._engine_formats", "_read_engine_source"),
    ("specdec.decision._measurements", "specdec.acceptance.estimation", "_read_one_argument"),
    ("specdec.acceptance.estimation", "specdec.acceptance", "_alpha_for_expected_tokens"),
    ("specdec.acceptance.estimation", "specdec.acceptance._intervals", "_moment_alpha_interval"),
    ("specdec.decision", "specdec.acceptance", "_expected_tokens_array"),
    ("specdec.decision", "specdec.acceptance", "_alpha_for_expected_tokens"),
    ("specdec.decision", "specdec.economics", "_speedup"),
    ("specdec.drafts", "specdec.economics", "_speedup_from_costs"),
    ("specdec.decision", "specdec.economics", "_break_even_alpha"),
    ("specdec.decision", "specdec.economics", "_required_alpha"),
    ("specdec.decision._report", "specdec.acceptance", "_expected_tokens_array"),
    ("specdec.decision.checklist", "specdec.acceptance", "_expected_tokens_array"),
    ("specdec.decision.checklist", "specdec.economics", "_speedup"),
    ("specdec.decision.checklist", "specdec.economics", "_quick_estimate"),
    ("specdec.decision.checklist", "specdec.economics", "_costs_from_times"),
    ("specdec.decision.checklist", "specdec.economics.request", "_decode_time"),
    ("specdec.decision.checklist", "specdec.economics.request", "_request_speedup"),
    ("specdec.decision.checklist", "specdec.economics.request", "_break_even_output_length"),
    ("specdec.serving.deployment", "specdec.acceptance", "_expected_tokens_array"),
    ("specdec.serving.deployment", "specdec.roofline.hardware", "_step_time"),
    ("specdec.predict", "specdec.roofline.hardware", "_step_time"),  # every pass of the bootstrap's replicates
    ("specdec.predict", "specdec.calibration.profiles", "_base_calibration"),
    ("specdec.roofline.hardware", "specdec.roofline.kernels", "_overlapped"),
    ("specdec.roofline.hardware", "specdec.roofline.kernels", "_padded_tokens"),
    ("specdec.acceptance._engine_formats", "specdec.acceptance", "_expected_tokens_array"),  # E[L], checked inputs
    ("specdec.acceptance._intervals", "specdec.acceptance", "_check_length_k"),  # bootstrap lengths, checked once
    ("specdec.acceptance.engine_metrics", "specdec.acceptance",
     "_draft_acceptance_rate"),  # drafted-token rate, checked inputs
    ("specdec.acceptance.engine_metrics", "specdec.acceptance", "_expected_tokens_array"),  # E[L], checked inputs
    ("specdec.acceptance.estimation", "specdec.acceptance._intervals",
     "_wilson_interval"),  # interval of checked counts
    ("specdec.calibration.fit_uncertainty", "specdec.calibration.timings",
     "_measured_time"),  # cited timing, checked once
    ("specdec.calibration.fit_uncertainty", "specdec.roofline.hardware", "_step_time"),  # one pass, checked inputs
    ("specdec.calibration.fit_uncertainty", "specdec.roofline.presets",
     "_calibrated"),  # Hardware.calibrated of valid objects
    ("specdec.calibration.fit_uncertainty", "specdec.roofline.presets", "_evolve"),  # derived object of valid values
    ("specdec.calibration.fit_uncertainty", "specdec.roofline.presets",
     "_scaled"),  # Hardware.scaled of a checked count
    ("specdec.calibration.fit_uncertainty", "specdec.serving.deployment",
     "_speculative_kernel"),  # round costs, checked inputs
    ("specdec.calibration.timings", "specdec.roofline.hardware", "_step_time"),  # one pass, checked inputs
    ("specdec.calibration.timings", "specdec.roofline.presets", "_calibrated"),  # Hardware.calibrated of valid objects
    ("specdec.calibration.timings", "specdec.roofline.presets", "_ideal"),  # Hardware.ideal of valid hardware
    ("specdec.calibration.timings", "specdec.roofline.presets", "_scaled"),  # Hardware.scaled of a checked count
    ("specdec.calibration", "specdec.calibration.timings", "_device_for"),  # a measurement's device
    ("specdec.calibration", "specdec.calibration.timings", "_measured_time"),  # cited timing, checked once
    ("specdec.calibration", "specdec.calibration.timings", "_model_time"),  # a measurement priced
    ("specdec.calibration", "specdec.roofline.hardware", "_step_time_parts"),  # terms of one pass, checked inputs
    ("specdec.calibration", "specdec.roofline.presets", "_calibrated"),  # Hardware.calibrated of valid objects
    ("specdec.calibration", "specdec.roofline.presets", "_evolve"),  # derived object of valid values
    ("specdec.calibration", "specdec.roofline.presets", "_ideal"),  # Hardware.ideal of valid hardware
    ("specdec.calibration", "specdec.roofline.presets", "_scaled"),  # Hardware.scaled of a checked count
    ("specdec.drafts.draft_parallel", "specdec.roofline.hardware", "_step_time"),  # one pass, checked inputs
    ("specdec.drafts", "specdec.acceptance", "_alpha_for_expected_tokens"),  # the inverse of E[L]
    ("specdec.drafts", "specdec.acceptance", "_expected_tokens_array"),  # E[L], checked inputs
    ("specdec.drafts", "specdec.acceptance", "_expected_tokens_per_position"),  # E[L] of checked rates
    ("specdec.literature._engine_quotes", "specdec.acceptance",
     "_draft_acceptance_rate"),  # drafted-token rate, checked inputs
    ("specdec.literature._engine_quotes", "specdec.acceptance", "_expected_tokens_array"),  # E[L], checked inputs
    ("specdec.literature", "specdec.acceptance", "_alpha_for_expected_tokens"),  # the inverse of E[L]
    ("specdec.literature", "specdec.acceptance", "_expected_tokens_array"),  # E[L], checked inputs
    ("specdec.literature", "specdec.economics", "_improvement_factor"),  # Theorem 3.8, checked inputs
    ("specdec.literature", "specdec.economics", "_operations_factor"),  # Theorem 3.11, checked inputs
    ("specdec.literature", "specdec.economics", "_speedup_from_costs"),  # speedup of checked costs
    ("specdec.predict", "specdec.roofline.presets", "_medusa_model"),  # Medusa heads, checked count
    ("specdec.roofline.measure", "specdec.roofline._machine", "_blas_thread_limit"),  # thread limit, checked count
    ("specdec.roofline.presets", "specdec.roofline.catalogue", "_medusa_heads"),  # Medusa heads, checked count
    ("specdec.serving.deployment", "specdec.roofline.memory", "_max_concurrent"),  # capacity, checked inputs
    ("specdec.serving.deployment", "specdec.roofline.memory", "_memory_footprint"),  # memory of checked arrays
    ("specdec.serving.dynamic", "specdec.acceptance", "_expected_tokens_array"),  # E[L], checked inputs
    ("specdec.serving.dynamic", "specdec.economics", "_optimal_k"),  # best k of checked arrays
    ("specdec.serving.goodput", "specdec.acceptance", "_accepted_tokens_pmf"),  # the pmf, checked inputs
    ("specdec.serving.goodput", "specdec.roofline.memory", "_max_concurrent"),  # capacity, checked inputs
    ("specdec.serving.goodput", "specdec.serving.deployment", "_costs_of"),  # SpeculativeCosts of the kernel's arrays
    ("specdec.serving.goodput", "specdec.serving.deployment", "_speculative_kernel"),  # round costs, checked inputs
    ("specdec.serving.regimes", "specdec.decision.policy", "_classify_speedup"),  # regime of checked speedups
    ("specdec.serving.regimes", "specdec.economics", "_break_even_alpha"),  # break-even of checked costs
    ("specdec.serving.regimes", "specdec.economics.request", "_amdahl"),  # end-to-end speedup, checked shares
    ("specdec.serving.regimes", "specdec.roofline.hardware", "_crossover_batch"),  # crossover, checked inputs
    ("specdec.serving.regimes", "specdec.roofline.memory", "_max_concurrent"),  # capacity, checked inputs
    ("specdec.serving.regimes", "specdec.serving.deployment", "_costs_of"),  # SpeculativeCosts of the kernel's arrays
    ("specdec.serving.regimes", "specdec.serving.deployment", "_speculative_kernel"),  # round costs, checked inputs
    ("specdec.serving.regimes", "specdec.serving.deployment", "_speedup_of"),  # speedup of the kernel's arrays
    ("specdec.verification", "specdec.acceptance", "_acceptance_rate"),  # acceptance of checked distributions
    ("specdec.verification", "specdec.verification.sampling", "_residual"),  # residual of checked distributions
    ("specdec.verification", "specdec.verification.sampling", "_step"),  # speculative_step's draws, checked inputs
    ("specdec.verification", "specdec.verification.sampling", "_total_variation"),  # distance of checked distributions
}


def module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def resolve(current: str, is_package: bool, level: int, target: str | None) -> str:
    base = current.split(".") if is_package else current.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(name: str):
    """(imported module, imported name or None, at module level?) for every import in ``name``."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    top_level = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        at_top = id(node) in top_level
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.append((alias.name, None, at_top, alias.asname or alias.name))
        elif isinstance(node, ast.ImportFrom):
            mod = resolve(name, is_package, node.level, node.module) if node.level else node.module
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                if sub in MODULES:   # "from . import hardware": the module itself
                    out.append((sub, None, at_top, alias.asname or alias.name))
                else:
                    out.append((mod, alias.name, at_top, alias.asname or alias.name))
    return out


def internal_graph(top_level_only: bool) -> dict:
    graph = {name: set() for name in MODULES}
    for name in MODULES:
        for mod, _, at_top, _ in imports_of(name):
            if top_level_only and not at_top:
                continue
            if mod in MODULES and mod != name:
                graph[name].add(mod)
    return graph


def find_cycle(graph: dict):
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt == "specdec":            # every submodule's package; importing it is not a dependency edge
                continue
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


#: The concept packages of the core, lowest first, then the presentation packages. Each imports only
#: from packages before it (and from the top-level helpers, floor 0).
PACKAGES = ("sources", "acceptance", "economics", "roofline", "verification", "decision", "serving", "drafts",
            "calibration", "predict", "literature", "cli", "plots", "widgets")
HELPERS = ("_validate", "_units", "_datafiles", "tables")
PRESENTATION = ("plots", "widgets")


def package_of(name: str) -> str:
    """``specdec.roofline.hardware`` -> ``roofline``; a top-level module is its own package."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "specdec"


#: The core: every public module of the concept packages and the top-level helpers (private modules,
#: and plots and widgets excluded).
CORE = sorted(name for name in MODULES if package_of(name) not in PRESENTATION + ("specdec", "__main__")
              and not name.rsplit(".", 1)[-1].startswith("_"))


def layer(name: str) -> int:
    package = package_of(name)
    if package in HELPERS:
        return 0
    if package == "specdec":
        return len(PACKAGES) + 1
    if package == "__main__":
        return len(PACKAGES) + 2
    return PACKAGES.index(package) + 1


def test_the_parser_sees_the_package():
    assert "specdec.acceptance" in MODULES and "specdec.plots.roofline" in MODULES
    assert "specdec.roofline.hardware" in MODULES and layer("specdec.roofline.hardware") < layer("specdec.serving.goodput")
    assert "specdec.roofline.hardware" in {mod for mod, *_ in imports_of("specdec.drafts.draft_parallel")}
    assert ("specdec._validate", "check_probability", True, "check_probability") in imports_of("specdec.acceptance")


def test_no_import_cycles_even_through_function_level_imports():
    cycle = find_cycle(internal_graph(top_level_only=False))
    assert cycle is None, " -> ".join(cycle)


def test_imports_go_one_way():
    """A module imports only from its own package or a package below it (roofline only sources and helpers...)."""
    bad = []
    for name, deps in internal_graph(top_level_only=False).items():
        for dep in deps:
            if dep == "specdec" and name != "specdec":
                continue
            same_package = package_of(name) == package_of(dep) or layer(name) == layer(dep) == 0
            if layer(dep) > layer(name) or (layer(dep) == layer(name) and not same_package):
                bad.append(f"{name} imports {dep}")
    assert not bad, "\n".join(bad)


def test_no_private_name_crosses_a_module_boundary():
    """`from x import _name` and `alias._name` on another specdec module, except _validate and the allow-list."""
    bad = []
    for name in MODULES:
        aliases = {}
        for mod, imported, _, bound in imports_of(name):
            if imported is None and mod in MODULES:
                aliases[bound] = mod
            if imported and imported.startswith("_") and not imported.startswith("__") and mod in MODULES \
                    and mod != "specdec._validate" and (name, mod, imported) not in ALLOWED_PRIVATE:
                bad.append(f"{name}: from {mod} import {imported}")
        tree = ast.parse(MODULES[name].read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                    and node.attr.startswith("_") and not node.attr.startswith("__") \
                    and aliases[node.value.id] != "specdec._validate":
                bad.append(f"{name}: {node.value.id}.{node.attr} ({aliases[node.value.id]})")
    assert not bad, "\n".join(bad)


def test_allow_list_is_not_stale():
    used = set()
    for name in MODULES:
        for mod, imported, _, _ in imports_of(name):
            used.add((name, mod, imported))
    assert ALLOWED_PRIVATE <= used


def test_core_modules_import_without_presentation_libraries():
    """Importing the core modules, one after another in one fresh interpreter, loads neither matplotlib,
    ipywidgets, plots, widgets nor the course package: after each import, nothing of these has appeared (so the
    first module that pulls one in is named; one interpreter instead of one per module)."""
    code = ("import sys, importlib, json; names = json.loads(sys.argv[1]); found = {}\n"
            "for name in names:\n"
            "    importlib.import_module(name)\n"
            "    bad = [m for m in ('matplotlib', 'ipywidgets', 'specdec.plots', 'specdec.widgets', 'specdec_course') "
            "if m in sys.modules]\n"
            "    if bad:\n"
            "        found[name] = bad\n"
            "        break\n"
            "print(json.dumps({'imported': names.index(name) + 1, 'found': found}))")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(CORE)], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    result = json.loads(out.stdout)
    assert not result["found"], f"pulls in presentation: {result['found']}"
    assert result["imported"] == len(CORE) >= 30, result


def test_core_modules_do_not_import_presentation_even_lazily():
    bad = [f"{name} imports {mod}" for name in CORE for mod, _, _, _ in imports_of(name)
           if mod.split(".")[0] in ("matplotlib", "ipywidgets")
           or mod.startswith(("specdec.plots", "specdec.widgets", "specdec_course"))]
    assert not bad, "\n".join(bad)


#: The modules of plots/ (figures), by concept.
PLOTS_MODULES = sorted(p.stem for p in (PKG / "plots").glob("*.py") if not p.name.startswith("_"))


def test_presentation_modules_are_named_by_concept():
    """plots/ and widgets/ hold one module per concept package of the core, named as it, never after a chapter."""
    concepts = set(PACKAGES) - set(PRESENTATION) - {"cli"}
    for package in ("plots", "widgets"):
        names = {p.stem for p in (PKG / package).glob("*.py") if not p.name.startswith("_")}
        assert names and names <= concepts, (package, sorted(names - concepts))


def test_plots_list_their_exports_explicitly():
    """plots/__init__.py names every export (no pkgutil scan) and re-exports exactly its submodules' __all__."""
    import importlib

    source = (PKG / "plots" / "__init__.py").read_text()
    assert "pkgutil" not in source and "import_module" not in source
    plots = importlib.import_module("specdec.plots")
    expected = {"COLORS", "SEQUENCE", "new_figure"}
    for sub in PLOTS_MODULES:
        mod = importlib.import_module(f"specdec.plots.{sub}")
        expected |= set(mod.__all__) | {sub}
        for export in mod.__all__:
            assert getattr(plots, export) is getattr(mod, export)
    assert set(plots.__all__) == expected


def test_every_package_is_a_concept_listed_in_the_order():
    """Every subpackage of specdec is in PACKAGES, and no module sits at the top level but the helpers and the edge."""
    packages = {p.parent.name for p in PKG.glob("*/__init__.py")}
    assert packages == set(PACKAGES) - {"cli"}
    top = {p.stem for p in PKG.glob("*.py")}
    assert top == set(HELPERS) | {"__init__", "__main__", "cli"}


def test_lazy_submodule_table_lists_every_core_module():
    """Every public module has one short name (``sd.hardware``) that points to its one home."""
    import specdec

    public = {name for name in MODULES if name != "specdec" and package_of(name) != "__main__"
              and not name.rsplit(".", 1)[-1].startswith("_")
              and (package_of(name) not in PRESENTATION or name.count(".") == 1)}
    homes = {f"specdec.{home}" for home in specdec._SUBMODULES.values()}
    assert homes == public, (sorted(public - homes), sorted(homes - public))
    for short, home in specdec._SUBMODULES.items():
        assert home.rsplit(".", 1)[-1] == short, f"sd.{short} is {home}: a short name is its module's own name"
        assert f"``{short}``" in specdec.__doc__, f"{short} is missing from the table of specdec/__init__.py"


def code_lines(path: pathlib.Path) -> int:
    """Lines of a module that are code: not blank, not a comment, not inside a docstring."""
    source = path.read_text()
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    return sum(1 for number, line in enumerate(source.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and number not in docstrings)


#: Most code lines in one module. The cap used to count every line (850), which split modules by size, not by
#: concept, and made a docstring or a comment cost as much as code; it now counts code only, so documentation is
#: free and a module that grows past a reader's sitting is still flagged.
MAX_CODE_LINES = 600


def test_code_lines_counts_code_only():
    """The counter skips docstrings, comments and blank lines (a fixed snippet, counted by hand: 3 code lines)."""
    import tempfile
    text = '"""Doc.\n\nMore."""\n\n# comment\nimport os\n\n\ndef f():\n    """Doc."""\n    return os.sep\n'
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(text)
    assert code_lines(pathlib.Path(handle.name)) == 3


def test_core_modules_stay_short():
    """No module of specdec has more than MAX_CODE_LINES lines of code (docstrings and comments not counted)."""
    long = {name: code_lines(path) for name, path in MODULES.items()}
    assert max(long.values()) <= MAX_CODE_LINES, sorted(long.items(), key=lambda kv: -kv[1])[:3]



def paths_above_the_package(path: pathlib.Path, text: str | None = None) -> list[str]:
    """Where a module builds a path out of ``specdec/`` from ``__file__`` (``parents[k]``, ``.parent`` chains),
    or names the book's table of contents: the ways a module could read the book's files. ``text`` stands in
    for the file's content (for the test of this check)."""
    tree = ast.parse(path.read_text() if text is None else text, str(path))
    depth = len(path.relative_to(ROOT).parts) - 1  # directories from the root down to the module's own
    found, inner_links = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "_toc.yml" in node.value:
            found.append(f"line {node.lineno}: names _toc.yml")
        # parents[0] is the module's own directory; parents[depth - 1] is specdec/, parents[depth] the root
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "parents" and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, int) and node.slice.value >= depth):
            found.append(f"line {node.lineno}: parents[{node.slice.value}]")
        # Path(__file__).parent is parents[0]: a chain of n .parent is parents[n - 1]
        if isinstance(node, ast.Attribute) and node.attr == "parent" and id(node) not in inner_links:
            chain, inner = 0, node
            while isinstance(inner, ast.Attribute) and inner.attr == "parent":
                chain, inner = chain + 1, inner.value
                inner_links.add(id(inner))
            if chain - 1 >= depth:
                found.append(f"line {node.lineno}: .parent x{chain}")
    return found


def test_the_package_reads_no_book_file():
    """Issue 27, item 3: the package stands alone. No module of ``specdec`` reaches above the package for a
    file (a wheel install has no book around it) or reads the table of contents; the chapter titles it shows
    are data (``sd.errata.CHAPTER_TITLES``, checked against the notebooks in tests/test_errata.py).

    The course tooling (``specdec_course``, its own distribution) is not part of ``specdec``; its chapter
    numbers are package data written by ``scripts/book_toc.py`` (tests/test_book_toc.py)."""
    offenders = {name: found for name, path in MODULES.items() if (found := paths_above_the_package(path))}
    assert offenders == {}


@pytest.mark.parametrize(("text", "expected"), [
    ("import pathlib\nTOC = pathlib.Path(__file__).resolve().parents[2] / 'book.ipynb'\n", ["line 2: parents[2]"]),
    ("import pathlib\nTOC = pathlib.Path(__file__).parent.parent.parent / 'x'\n", ["line 2: .parent x3"]),
    ("TOC = 'the _toc.yml'\n", ["line 1: names _toc.yml"]),
    ("import pathlib\nHERE = pathlib.Path(__file__).resolve().parents[1] / 'data.json'\n", []),
    ("import pathlib\nHERE = pathlib.Path(__file__).parent.parent / 'data.json'\n", []),
])
def test_the_book_file_check_can_fail(text, expected):
    """The check above catches a module two levels down (``specdec/literature/``) that leaves the package,
    and lets one that stays inside it pass."""
    assert paths_above_the_package(PKG / "literature" / "probe.py", text) == expected


def _imported_modules(path: pathlib.Path) -> set[str]:
    """Every absolute module an ``import`` or ``from ... import`` of ``path`` names (inside functions too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module)
    return out


def test_specdec_never_imports_the_course_package():
    """The runtime package stands without the course tooling: no module of specdec names specdec_course."""
    bad = [f"{name} imports {mod}" for name, path in MODULES.items() for mod in _imported_modules(path)
           if mod.split(".")[0] == "specdec_course"]
    assert not bad, "\n".join(bad)
    code = "import sys, specdec, specdec.plots, specdec.cli; print('specdec_course' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "False"


COURSE_MODULES = sorted(COURSE.rglob("*.py"))


#: What the course framework may take from specdec: the one table writer (a domain-free helper), so that the
#: exercise list and the answer key are written like every other table.
FRAMEWORK_MAY_IMPORT = {"specdec.tables"}


def test_the_course_framework_imports_nothing_of_specdec():
    """The framework (checker, forms, variants, grader, ...) is domain-free; only the bank's exercises use specdec
    (the framework takes only the table writer, ``FRAMEWORK_MAY_IMPORT``)."""
    assert COURSE_MODULES and (COURSE / "bank" / "p1_expected_tokens.py") in COURSE_MODULES
    bad = [f"{path.relative_to(ROOT)} imports {mod}" for path in COURSE_MODULES if "bank" not in path.parts
           for mod in _imported_modules(path) if mod.split(".")[0] == "specdec" and mod not in FRAMEWORK_MAY_IMPORT]
    assert not bad, "\n".join(bad)


def test_course_modules_stay_short():
    """The course package keeps the same length limit as specdec (code lines, docstrings not counted)."""
    long = {path.relative_to(ROOT).as_posix(): code_lines(path) for path in COURSE_MODULES}
    assert max(long.values()) <= MAX_CODE_LINES, sorted(long.items(), key=lambda kv: -kv[1])[:3]
