"""Docstrings point at chapters that exist, by the title the chapter shows.

Every "Defined in chapter "..."" / "See chapter "..."" pointer in the core modules and in
``specdec.plots`` must name a chapter of ``_toc.yml`` exactly as its notebook's first heading reads,
and every public function and class of the core modules must carry such a pointer. Chapter numbers
like "(Part II, chapter 3)" are not used: the book numbers its chapters 1 to 15 across the parts, and
titles survive renumbering.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pathlib
import re

import book_toc
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "specdec"

PRESENTATION = ("plots", "widgets")


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_public_core(path: pathlib.Path) -> bool:
    parts = path.relative_to(PKG).parts
    if parts[0] in PRESENTATION or any(part.startswith("_") for part in parts[:-1]):
        return False
    return not path.name.startswith("_") or (path.name == "__init__.py" and len(parts) > 1)


#: Every public module of the core: the top-level ones, the concept packages and their modules.
CORE = sorted(_module_name(p) for p in PKG.rglob("*.py") if _is_public_core(p))
PLOTS = sorted(f"specdec.plots.{p.stem}" for p in (PKG / "plots").glob("*.py") if not p.name.startswith("_"))

POINTER = re.compile(r'(?:Defined in|See) chapters?\s+((?:"[^"]+"(?:\s*,\s*|\s+and\s+)?)+)')
TITLE = re.compile(r'"([^"]+)"')
OLD_NUMBERING = re.compile(r"\(Part [IV]+, chapters? [\d ,and]+\)")


def chapter_titles() -> dict:
    """First '# ' heading of every notebook in the table of contents -> its file (scripts/book_toc.py)."""
    titles = {}
    for file in book_toc.documents(ROOT):
        if (ROOT / f"{file}.ipynb").exists():
            heading = book_toc.title(file, ROOT)
            if heading:
                titles[heading] = file
    return titles


TITLES = chapter_titles()


def _source(module_name: str) -> str:
    """The source file of a module (``specdec/roofline/hardware.py``, or a package's ``__init__.py``)."""
    return pathlib.Path(importlib.util.find_spec(module_name).origin).read_text()


def pointers(text: str) -> list[str]:
    flat = " ".join((text or "").split())
    return [title for match in POINTER.finditer(flat) for title in TITLE.findall(match.group(1))]


def public_objects(module_name: str):
    """The module itself and every function/class it lists in __all__ (defined in it), with their methods' docs."""
    module = importlib.import_module(module_name)
    yield module_name, module
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module_name:
            yield f"{module_name}.{name}", obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if inspect.isfunction(member) and not attr.startswith("_"):
                        yield f"{module_name}.{name}.{attr}", member


def test_the_table_of_contents_has_titles():
    assert "Expected tokens per round" in TITLES
    assert "The roofline model" in TITLES
    assert len(TITLES) >= 15


@pytest.mark.parametrize("module_name", CORE + PLOTS)
def test_every_pointer_names_an_existing_chapter_by_its_title(module_name):
    bad = []
    for qual, obj in public_objects(module_name):
        for title in pointers(inspect.getdoc(obj) or ""):
            if title not in TITLES:
                bad.append(f"{qual}: {title!r}")
    # private helpers and constants documented with comments count too: scan the whole source
    source = _source(module_name)
    for title in pointers(source):
        if title not in TITLES:
            bad.append(f"{module_name} (source): {title!r}")
    assert not bad, "pointers to no chapter of _toc.yml:\n" + "\n".join(sorted(set(bad)))


@pytest.mark.parametrize("module_name", CORE + PLOTS)
def test_no_chapter_numbers_that_do_not_match_the_book(module_name):
    source = _source(module_name)
    found = OLD_NUMBERING.findall(source)
    assert not found, f"{module_name} still numbers chapters by part: {found[:3]}"


@pytest.mark.parametrize("module_name", CORE)
def test_every_public_function_and_class_of_the_core_points_at_a_chapter(module_name):
    missing = []
    for qual, obj in public_objects(module_name):
        if qual == module_name or qual.count(".") > module_name.count(".") + 1:   # module docstrings, methods: optional
            continue
        if not pointers(inspect.getdoc(obj) or ""):
            missing.append(qual)
    assert not missing, "no 'Defined in chapter' / 'See chapter' pointer:\n" + "\n".join(missing)


#: The course package (course/specdec_course): its framework modules and the chapters' exercise modules.
COURSE = sorted(["specdec_course"] + [f"specdec_course.{p.stem}" for p in (ROOT / "course" / "specdec_course").glob(
    "*.py") if p.stem not in ("__init__", "__main__")] + [f"specdec_course.bank.{p.stem}" for p in (
    ROOT / "course" / "specdec_course" / "bank").glob("*.py") if p.stem != "__init__"])


@pytest.mark.parametrize("module_name", COURSE)
def test_the_course_package_points_at_chapters_by_their_titles(module_name):
    """The course package's pointers ("Defined in chapter ...") name chapters (or the instructors' page, a
    Markdown page) as the book titles them."""
    source = _source(module_name)
    pages = set(TITLES) | {book_toc.title(d, ROOT) for d in book_toc.documents(ROOT)}
    bad = [title for title in pointers(source) if title not in pages] + OLD_NUMBERING.findall(source)
    assert not bad, f"{module_name}: pointers to no chapter of _toc.yml: {bad}"


def test_every_exercise_chapter_is_a_chapter_of_the_book_by_its_title():
    """Each chapter an exercise module declares is a chapter of the table of contents, titled as its heading."""
    from specdec_course import REGISTRY

    declared = {e.chapter.docname: e.chapter.declared_title for e in REGISTRY.values()
                if not e.label.startswith("zz-")}
    assert len(declared) >= 20
    bad = {docname: title for docname, title in declared.items() if TITLES.get(title) != docname}
    assert not bad, f"declared chapters whose title is not their notebook's heading: {bad}"


def test_the_pointer_pattern_itself():
    assert pointers('x\n    Defined in chapter "Expected tokens\n    per round".') == ["Expected tokens per round"]
    assert pointers('Defined in chapters "A" and "B"; see') == ["A", "B"]
    assert pointers('See chapter "C" for the rest.') == ["C"]
    assert OLD_NUMBERING.findall("Defined in chapter \"X\" (Part II, chapter 3).")
