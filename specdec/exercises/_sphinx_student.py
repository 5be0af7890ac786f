"""Sphinx extension: make ``hide_solutions`` remove *gated* solutions completely.

sphinx-exercise (1.2.1) implements ``hide_solutions = True`` by making the
solution directives return nothing. For the gated form used in this book

.. code-block:: md

   ```{solution-start} expected-tokens-1
   ```
   explanation, then code cells with their outputs
   ```{solution-end}
   ```

that drops only the ``solution-start`` marker: the ``solution-end`` node is
left behind (Sphinx then fails with "unknown node type: solution_end_node")
and the explanation and code cells in between would stay on the page.

This extension replaces the ``solution-start`` directive by one that, when
``hide_solutions`` is on, leaves a private marker node; a transform then
deletes everything from the marker through the matching ``solution-end``
node. With ``hide_solutions`` off it changes nothing.

Use it in the student edition's configuration (Jupyter Book ``_config.yml``)::

    sphinx:
      extra_extensions:
        - sphinx_exercise
        - specdec.exercises._sphinx_student
      config:
        hide_solutions: true
"""

from __future__ import annotations

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

__all__ = ["setup"]

_LOG = logging.getLogger(__name__)


class hidden_solution_marker(nodes.Element):  # noqa: N801 (docutils node naming)
    """Placeholder where a hidden gated solution starts; removed before writing."""


def _make_directive():
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
                _LOG.warning("hidden solution %r has no solution-end at the same level; removing only its marker",
                             marker.get("label"), location=marker)
                parent.remove(marker)
                continue
            for child in parent.children[start:end + 1]:
                parent.remove(child)


def _skip(self, node):
    raise nodes.SkipNode


def setup(app):
    """Register the directive override and the transform (after sphinx_exercise)."""
    app.setup_extension("sphinx_exercise")
    app.add_node(hidden_solution_marker, html=(_skip, None), latex=(_skip, None), text=(_skip, None))
    app.add_directive("solution-start", _make_directive(), override=True)
    app.add_transform(RemoveHiddenGatedSolutions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
