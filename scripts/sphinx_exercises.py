"""Sphinx extension: the book's exercises in the full and the student edition.

Loaded by both editions (``_config.yml``; ``scripts/build-student.sh`` builds
the student edition with ``specdec_edition = "student"``). It

1. **writes the check line into every exercise box**, from the registry of
   ``specdec_course``: "Check your answer: ``course.check("label",
   answer)``: a float, tokens per round, to 2 decimals." A paragraph of the
   box that already starts with "Check your answer:" (the stored value of an
   ``{eval}`course.describe(...)``` role, which JupyterLab readers
   see) is replaced by it, and must say the same (else: a warning that the
   notebook needs re-executing). An exercise label the registry lacks, or a
   registered exercise no exercise box shows, is a build warning (an error
   under ``-W``).
2. **keeps each edition's text true**: the student edition removes every
   element with the class ``full-edition-only`` (``:class: full-edition-only``
   on an admonition, a ``{container}`` or a cell tag), the full edition every
   ``student-edition-only`` one. In the student edition a link to a page it
   omits (``specdec_omitted_docs``: the instructors' page) becomes plain text,
   and it ships no copies of the notebooks (``html_copy_source`` off, no
   download button: the sources hold the solutions).
3. **removes gated solutions completely** when ``hide_solutions`` is on.
   sphinx-exercise 1.2.1 implements ``hide_solutions`` by making the
   solution directives return nothing; for the gated form used in this book
   (``solution-start`` ... ``solution-end``, with code cells in between) that
   drops only the start marker: the ``solution-end`` node is left behind
   (Sphinx fails with "unknown node type: solution_end_node") and the
   explanation and code cells would stay on the page. Here ``solution-start``
   leaves a marker, and a transform deletes everything from the marker
   through the matching ``solution-end``.
4. provides the ``{specdec-answer-key}`` directive: a table of every
   exercise with its form and its reference answer, computed at build time
   (for the instructors' page of the full edition; in the student edition it
   is an error).
5. **numbers the exercises as Sphinx numbers the chapters**: once Sphinx has
   numbered the toctrees (``env.toc_secnumbers``, at the consistency check and
   when pages are written), the chapter numbers are handed to the course package (``specdec_course._chapters.number_chapters``),
   so that the answer key (built when the pages are written) uses Sphinx's own
   numbers; a number that differs from the package's shipped numbering
   (``_book.json``, written by ``scripts/book_toc.py``) is a build warning.
"""

from __future__ import annotations

import pathlib
import posixpath

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

__all__ = ["setup"]

LOGGER = logging.getLogger(__name__)

#: The class of elements that only one edition shows.
ONLY = {"full": "student-edition-only", "student": "full-edition-only"}


def _registry():
    import specdec_course as course
    from specdec_course import _core

    return course, _core


# --------------------------------------------------------------------------
# 3. Gated solutions in the student edition
# --------------------------------------------------------------------------
class hidden_solution_marker(nodes.Element):  # noqa: N801 (docutils node naming)
    """Placeholder where a hidden gated solution starts; removed before writing."""


def _make_solution_start():
    from sphinx_exercise.directive import SolutionStartDirective

    class HidingSolutionStartDirective(SolutionStartDirective):
        """``solution-start`` that leaves a marker when solutions are hidden."""

        def run(self):
            result = super().run()
            if self.env.app.config.hide_solutions:
                return [hidden_solution_marker(label=self.arguments[0])]
            return result

    return HidingSolutionStartDirective


class RemoveHiddenGatedSolutions(SphinxTransform):
    """Delete the nodes from each marker through the next ``solution_end_node`` sibling."""

    default_priority = 5  # before sphinx-exercise's gated merge (priority 10)

    def apply(self, **kwargs):
        from sphinx_exercise.nodes import solution_end_node

        for marker in list(self.document.findall(hidden_solution_marker)):
            parent = marker.parent
            if parent is None:
                continue
            start = parent.index(marker)
            end = None
            for offset, child in enumerate(parent.children[start:]):
                if isinstance(child, solution_end_node):
                    end = start + offset
                    break
            if end is None:
                LOGGER.warning("hidden solution %r has no solution-end at the same level; removing only its marker",
                               marker.get("label"), location=marker)
                parent.remove(marker)
                continue
            for child in parent.children[start:end + 1]:
                parent.remove(child)


def _skip(self, node):
    raise nodes.SkipNode


# --------------------------------------------------------------------------
# 2. Edition-only blocks
# --------------------------------------------------------------------------
def _edition(config) -> str:
    edition = str(config.specdec_edition or "full")
    if edition not in ONLY:
        raise ValueError(f"specdec_edition must be 'full' or 'student', got {edition!r}")
    return edition


class RemoveOtherEditionBlocks(SphinxTransform):
    """Remove the elements that the other edition only shows (before references are resolved)."""

    default_priority = 4

    def apply(self, **kwargs):
        unwanted = ONLY[_edition(self.config)]
        classes = {unwanted, f"tag_{unwanted}"}
        for node in list(self.document.findall(nodes.Element)):
            if node.parent is not None and classes & set(node.get("classes", [])):
                node.parent.remove(node)


def _omitted_reference(app, env, node, contnode):
    """Student edition: a link to a page it omits becomes its text (the HTML tests flag such mentions)."""
    if _edition(app.config) != "student":
        return None
    omitted = {d.strip("/") for d in app.config.specdec_omitted_docs}
    target = str(node.get("reftarget", "")).split("#")[0]
    for suffix in (".md", ".ipynb"):
        if target.endswith(suffix):
            target = target[: -len(suffix)]
    if not target:
        return None
    base = posixpath.dirname(str(node.get("refdoc", "")))
    candidates = {target.strip("/"), posixpath.normpath(posixpath.join(base, target)).strip("/")}
    if candidates & omitted:
        LOGGER.info("student edition: a link to the omitted page %s became plain text", target, location=node)
        return contnode
    return None


# --------------------------------------------------------------------------
# 1. The check line of every exercise box
# --------------------------------------------------------------------------
CHECK_LINE_CLASS = "specdec-check-line"
_PREFIX = "Check your answer:"


def _check_line(call: str, form: str) -> nodes.paragraph:
    para = nodes.paragraph(classes=[CHECK_LINE_CLASS])
    para += nodes.Text(f"{_PREFIX} ")
    para += nodes.literal(call, call)
    para += nodes.Text(f": {form}.")
    return para


class AddCheckLines(SphinxTransform):
    """Append (or refresh) the check line in every exercise box, from the registry."""

    default_priority = 12  # after sphinx-exercise merges gated exercises (priority 10)

    def apply(self, **kwargs):
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

        exercises, core = _registry()
        seen = self.env.specdec_exercise_labels.setdefault(self.env.docname, [])
        boxes = list(self.document.findall(lambda n: isinstance(n, (exercise_node, exercise_enumerable_node))))
        if boxes:
            for path in _course_files():    # a changed exercise's form re-reads its chapter in an incremental build
                self.env.note_dependency(path)
        for box in boxes:
            label = box.get("label", "")
            seen.append(label)
            if label not in exercises.REGISTRY:
                LOGGER.warning(f"exercise {label!r} is not in specdec's exercise registry "
                               f"(course/specdec_course/bank/p*_*.py): register it, or fix the label",
                               location=box, type="specdec", subtype="exercise")
                continue
            call, form = core.check_line(label)
            expected = f"{_PREFIX} {call}: {form}."
            content = box.children[-1] if box.children and isinstance(box.children[-1], nodes.section) else box
            for para in list(content.findall(nodes.paragraph)):
                text = " ".join(para.astext().split())
                if text.startswith(_PREFIX):
                    if text != expected:
                        LOGGER.warning(f"exercise {label!r}: the box says {text!r} but the registry says "
                                       f"{expected!r} (re-execute the notebook)", location=box,
                                       type="specdec", subtype="exercise")
                    para.parent.remove(para)
            content += _check_line(call, form)


def _purge(app, env, docname):
    getattr(env, "specdec_exercise_labels", {}).pop(docname, None)
    getattr(env, "specdec_answer_keys", set()).discard(docname)


def _merge(app, env, docnames, other):
    env.specdec_exercise_labels.update({d: other.specdec_exercise_labels.get(d, []) for d in docnames})
    env.specdec_answer_keys |= getattr(other, "specdec_answer_keys", set()) & set(docnames)


def _init_env(app, env, docnames):
    if not hasattr(env, "specdec_exercise_labels"):
        env.specdec_exercise_labels = {}
    if not hasattr(env, "specdec_answer_keys"):
        env.specdec_answer_keys = set()


def _course_files() -> list[str]:
    """The course package's source files: the check lines and the answer key are computed from them."""
    import specdec_course

    return sorted(str(p) for p in pathlib.Path(specdec_course.__file__).parent.rglob("*.py"))


def _outdated_answer_keys(app, env, added, changed, removed):
    """An incremental build rewrites every page with an answer key: its reference answers are computed by
    specdec and the course package, which Sphinx does not track (a clean build needs no help)."""
    return sorted(getattr(env, "specdec_answer_keys", set()) - set(removed))


def sphinx_chapter_numbers(env) -> dict[str, int]:
    """``{docname: number}`` of every chapter Sphinx numbers as a whole (a document whose own title carries a
    one-level section number, "6" for chapter 6), from its toctree numbering."""
    numbers = {}
    for docname, secnumbers in getattr(env, "toc_secnumbers", {}).items():
        number = tuple(secnumbers.get("", ()))
        if len(number) == 1:
            numbers[docname] = int(number[0])
    return numbers


def _hand_numbering(env) -> None:
    """Hand the course package the chapter numbers Sphinx gave (once it has numbered the toctrees: from the
    consistency check on, and when pages are written)."""
    from specdec_course import _chapters

    _chapters.number_chapters(sphinx_chapter_numbers(env))


def _check_numbering(env) -> None:
    """Warn where Sphinx numbers a chapter otherwise than the numbering the course package ships (``_book.json``,
    then stale: run ``python scripts/book_toc.py --write``)."""
    from specdec_course import _chapters

    numbers = sphinx_chapter_numbers(env)
    _chapters.number_chapters(None)
    shipped = _chapters.numbering()
    for docname in sorted(set(numbers) | set(shipped)):
        if docname in env.found_docs and numbers.get(docname) != shipped.get(docname):
            LOGGER.warning(f"{docname}: Sphinx numbers this chapter {numbers.get(docname)}, the course package's "
                           f"data {shipped.get(docname)} (run python scripts/book_toc.py --write)",
                           type="specdec", subtype="exercise")
    _hand_numbering(env)


def _check_consistency(app, env):
    _check_numbering(env)   # Sphinx has numbered the toctrees by now (env-get-updated runs before)
    if not app.config.specdec_require_all_exercises:
        return
    exercises, _core = _registry()
    shown = [label for labels in env.specdec_exercise_labels.values() for label in labels]
    missing = sorted(set(exercises.REGISTRY) - set(shown))
    if missing:
        LOGGER.warning(f"registered exercises that no exercise box of the book shows: {', '.join(missing)}",
                       type="specdec", subtype="exercise")
    if exercises.IMPORT_ERRORS:
        LOGGER.warning(f"exercise modules failed to import: {exercises.IMPORT_ERRORS}", type="specdec",
                       subtype="exercise")


# --------------------------------------------------------------------------
# 4. The answer key
# --------------------------------------------------------------------------
class answer_key_node(nodes.General, nodes.Element):  # noqa: N801 (docutils node naming)
    """Where the answer key goes; filled when the page is written, once Sphinx has numbered the chapters."""


class AnswerKeyDirective(SphinxDirective):
    """``{specdec-answer-key}``: every exercise, its computed reference answer and its form (the questions are
    in the chapters; ``instructors.answer_key()`` has them too)."""

    has_content = False
    option_spec = {"labels": directives.unchanged}

    def run(self):
        if _edition(self.config) == "student":
            LOGGER.warning("the answer key is instructors' material and is not part of the student edition",
                           location=(self.env.docname, self.lineno), type="specdec", subtype="exercise")
            return []
        self.env.specdec_answer_keys.add(self.env.docname)
        return [answer_key_node(labels=self.options.get("labels"))]


def _fill_answer_keys(app, doctree, docname):
    """Replace each answer-key placeholder by the table, numbered as Sphinx numbered the chapters."""
    keys = list(doctree.findall(answer_key_node))
    if keys:
        _hand_numbering(app.env)
    for node in keys:
        node.replace_self(_answer_key_table(node.get("labels")))


def _answer_key_table(labels) -> nodes.table:
    """The answer key as a table: number, label, reference answer, form."""
    from specdec_course import instructors

    key = instructors.answer_key(labels)  # the book's answers (no student's: no course key)
    table = nodes.table(classes=["specdec-answer-key"])
    group = nodes.tgroup(cols=4)
    table += group
    for width in (8, 22, 22, 48):
        group += nodes.colspec(colwidth=width)

    def row(cells, literal_columns=()):
        out = nodes.row()
        for i, text in enumerate(cells):
            entry = nodes.entry()
            para = nodes.paragraph()
            para += nodes.literal(text, text) if i in literal_columns else nodes.Text(text)
            entry += para
            out += entry
        return out

    head = nodes.thead()
    head += row(["Exercise", "Label", "Answer", "Form of the answer"])
    group += head
    body = nodes.tbody()
    for number, label, _question, form, answer in key:
        body += row([number, label, answer, form], literal_columns=(1, 2))
    group += body
    return table


def _student_config(app, config):
    """Student edition: no copies of the sources (the notebooks hold the solutions) and no download button."""
    if _edition(config) != "student":
        return
    config.html_copy_source = False
    if config.html_theme == "sphinx_book_theme":
        options = dict(config.html_theme_options or {})
        options["use_download_button"] = False
        config.html_theme_options = options


def setup(app):
    """Register the transforms, the directive override, the answer key and the edition settings."""
    app.setup_extension("sphinx_exercise")
    app.add_config_value("specdec_edition", "full", "env")
    app.add_config_value("specdec_omitted_docs", [], "env")
    app.add_config_value("specdec_require_all_exercises", True, "env")
    app.add_node(hidden_solution_marker, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_node(answer_key_node, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_directive("solution-start", _make_solution_start(), override=True)
    app.add_directive("specdec-answer-key", AnswerKeyDirective)
    app.add_transform(RemoveHiddenGatedSolutions)
    app.add_transform(RemoveOtherEditionBlocks)
    app.add_transform(AddCheckLines)
    app.connect("config-inited", _student_config)
    app.connect("env-before-read-docs", _init_env)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check_consistency)
    app.connect("env-get-outdated", _outdated_answer_keys)
    app.connect("doctree-resolved", _fill_answer_keys)
    app.connect("missing-reference", _omitted_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "2"}
