"""A course's files: the roster, the assignment (exercises and points) and matching submissions to students.

* **Roster**: a CSV file with a column ``id`` (or ``student``, ``student_id``)
  and optionally ``name``. Row order matters: the student in row ``i`` gets
  the ``i``-th keyed variant of each exercise, so add late students at the
  end and never reorder or delete rows (leave a withdrawn student's row).
* **Assignment**: a small TOML file::

      title = "Homework 1"

      [points]
      "1.1" = 2
      "1.2" = [2, 1]          # a tuple answer: 2 points for its first part, 1 for its second
      "expected-tokens-5" = 3

  or, on the command line, ``--labels 1.1,1.2`` (one point each) or
  ``--labels 1.1:2,1.2:3``.
* **Submissions** are matched to roster ids by their file names: the id must
  appear as a whole token of the name (``lastname_123_s26001.ipynb``,
  ``s26001-1.ipynb`` for a resubmission). A name that contains no roster id,
  or several, is reported and never graded; of several files for one
  student the latest resubmission counts (the highest ``-N`` suffix, then
  the newest file).
"""

from __future__ import annotations

import csv
import fnmatch
import json
import os
import pathlib
import re
from dataclasses import dataclass, field
from typing import Any

from ._core import sorted_exercises
from ._registry import REGISTRY
from ._variants import graded_kind, student_id

__all__ = ["select_labels", "Roster", "AssignmentSpec", "read_assignment", "parse_labels", "match_submissions", "Matches"]


@dataclass(frozen=True)
class Roster:
    """The students of a course, in roster order: ``ids`` and ``names``."""

    ids: tuple
    names: tuple
    path: str = ""

    @classmethod
    def read(cls, path: str | os.PathLike) -> Roster:
        """Read a roster CSV (see the module docstring)."""
        try:
            with open(path, newline="", encoding="utf-8-sig") as handle:
                rows = list(csv.DictReader(handle))
        except OSError as exc:
            raise ValueError(f"roster: cannot read {str(path)!r} ({exc.strerror or exc})") from None
        if not rows:
            raise ValueError(f"roster: {str(path)!r} has no students (a header line `id,name` and one row each)")
        columns = {c.strip().lower(): c for c in rows[0].keys() if c}
        id_column = next((columns[c] for c in ("id", "student", "student_id", "student id") if c in columns), None)
        if id_column is None:
            raise ValueError(f"roster: {str(path)!r} needs a column `id` (found: {', '.join(columns) or 'none'})")
        name_column = columns.get("name")
        ids, names = [], []
        for number, row in enumerate(rows, start=2):
            raw = (row.get(id_column) or "").strip()
            if not raw:
                raise ValueError(f"roster: line {number} of {str(path)!r} has no id")
            if raw in ids:
                raise ValueError(f"roster: the id {raw!r} appears twice in {str(path)!r}")
            ids.append(raw)
            names.append((row.get(name_column) or "").strip() if name_column else "")
        return cls(tuple(ids), tuple(names), str(pathlib.Path(path).resolve()))

    @classmethod
    def of(cls, ids) -> Roster:
        """A roster from a list of ids (tests, scripts)."""
        ids = tuple(student_id(i) for i in ids)
        if len(set(ids)) != len(ids):
            raise ValueError("ids: every id must appear once in a roster")
        return cls(ids, ("",) * len(ids))

    def slot(self, student: Any) -> int:
        """The row of ``student`` (0 first); ``KeyError`` naming the roster for an unknown id."""
        text = student_id(student)
        try:
            return self.ids.index(text)
        except ValueError:
            raise KeyError(f"student {text!r} is not in the roster {self.path or ''}".rstrip()) from None

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class AssignmentSpec:
    """An assignment: its title and, in order, each exercise's points and part weights."""

    title: str
    points: dict  # label -> float
    parts: dict = field(default_factory=dict)  # label -> tuple of weights (tuple answers)

    @property
    def labels(self) -> list[str]:
        return list(self.points)

    def kind(self, label: str) -> str:
        return graded_kind(REGISTRY[label])

    def max_points(self) -> float:
        return float(sum(p for label, p in self.points.items() if self.kind(label) != "practice"))

    def fingerprint(self) -> str:
        import hashlib
        text = json.dumps([self.title, self.points, {k: list(v) for k, v in self.parts.items()}], sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def select_labels(spec: str | None) -> list[str]:
    """Labels in book order from "1.1,1.2", "expected-tokens-*", "3" (a chapter) or "all"."""
    ordered = [e.label for e in sorted_exercises()]
    if spec is None or spec.strip().lower() == "all":
        return ordered
    chosen: list[str] = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        if item in REGISTRY:
            matches = [item]
        elif item.isdigit():  # a chapter number (the unnumbered "Start here" chapter is chosen by its labels)
            matches = [e.label for e in sorted_exercises() if e.chapter.number == int(item)]
        elif any(e.number == item for e in REGISTRY.values()):
            matches = [e.label for e in REGISTRY.values() if e.number == item]
        else:
            matches = [label for label in ordered if fnmatch.fnmatchcase(label, item)]
        if not matches:
            raise ValueError(f"no exercise matches {item!r} (use a label, a glob, an exercise number such as 1.2, "
                             f"or a chapter number)")
        chosen += [m for m in matches if m not in chosen]
    return sorted(chosen, key=ordered.index)


def _labels_of(item: str) -> list[str]:
    return select_labels(item)


def _weights(label: str, value: Any) -> tuple[float, tuple]:
    if isinstance(value, bool) or not isinstance(value, (int, float, list, tuple)):
        raise ValueError(f"assignment: the points of {label!r} must be a number or a list of part weights, "
                         f"got {value!r}")
    if isinstance(value, (list, tuple)):
        weights = tuple(float(v) for v in value)
        if not weights or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"assignment: the part weights of {label!r} must be non-negative with a positive sum")
        form = REGISTRY[label].form()
        items = getattr(form, "items", None)
        if items is None or len(items) != len(weights):
            raise ValueError(f"assignment: {label!r} has {len(items) if items else 1} part(s); "
                             f"{len(weights)} weights given")
        return float(sum(weights)), weights
    if value < 0:
        raise ValueError(f"assignment: the points of {label!r} must be non-negative, got {value!r}")
    return float(value), ()


def _build(title: str, entries: list[tuple[str, Any]]) -> AssignmentSpec:
    points, parts = {}, {}
    for item, value in entries:
        labels = _labels_of(item)
        for label in labels:
            if len(labels) > 1 and isinstance(value, (list, tuple)):
                raise ValueError(f"assignment: part weights need one exercise, but {item!r} selects {len(labels)}")
            total, weights = _weights(label, value)
            points[label] = total
            if weights:
                parts[label] = weights
    if not points:
        raise ValueError("assignment: no exercise is assigned")
    return AssignmentSpec(title, points, parts)


def parse_labels(spec: str, title: str = "Exercises") -> AssignmentSpec:
    """``"1.1,1.2:3,expected-tokens-*"``: one point each unless ``:points`` is given."""
    entries = []
    for item in (s.strip() for s in str(spec).split(",")):
        if not item:
            continue
        name, _, points = item.partition(":")
        try:
            value = float(points) if points else 1.0
        except ValueError:
            raise ValueError(f"labels: {item!r}: the points after ':' must be a number") from None
        entries.append((name.strip(), value))
    return _build(title, entries)


_TOML_LINE = re.compile(r'^\s*(?:"(?P<q>[^"]+)"|(?P<b>[A-Za-z0-9_.*-]+))\s*=\s*(?P<v>.+?)\s*$')


def _toml_subset(text: str) -> dict:
    try:
        import tomllib
        return tomllib.loads(text)
    except ImportError:  # Python 3.10: the small subset the assignment file uses
        pass
    data: dict = {}
    table = data
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if '"' not in raw.split("#", 1)[0] else raw.strip()
        line = re.sub(r'\s+#[^"]*$', "", line)
        if not line:
            continue
        if re.fullmatch(r"\[\s*[A-Za-z_]+\s*\]", line):
            table = data.setdefault(line.strip("[] "), {})
            continue
        match = _TOML_LINE.match(line)
        if not match:
            raise ValueError(f"line {number}: expected `name = value`")
        table[match["q"] or match["b"]] = json.loads(match["v"])
    return data


def read_assignment(path: str | os.PathLike) -> AssignmentSpec:
    """Read an assignment file (see the module docstring)."""
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"assignment: cannot read {str(path)!r} ({exc.strerror or exc})") from None
    try:
        data = _toml_subset(text)
    except ValueError as exc:
        raise ValueError(f"assignment: {str(path)!r} is not a valid assignment file ({exc})") from None
    points = data.get("points")
    if not isinstance(points, dict) or not points:
        raise ValueError(f"assignment: {str(path)!r} needs a [points] table: \"1.1\" = 2, ...")
    return _build(str(data.get("title") or pathlib.Path(path).stem), list(points.items()))


# --------------------------------------------------------------------------
# Submissions -> students
# --------------------------------------------------------------------------
_SPLIT = re.compile(r"[\s_.\-]+")
_RESUBMISSION = re.compile(r"-(\d+)$")


def _tokens(text: str) -> list[str]:
    return [t for t in _SPLIT.split(text.lower()) if t]


@dataclass
class Matches:
    """Which file counts for each student; what could not be matched."""

    files: dict = field(default_factory=dict)        # id -> path
    superseded: list = field(default_factory=list)   # (path, id)
    unknown: list = field(default_factory=list)      # path
    ambiguous: list = field(default_factory=list)    # (path, [ids])


def _contains(tokens: list[str], wanted: list[str]) -> bool:
    n = len(wanted)
    return any(tokens[i:i + n] == wanted for i in range(len(tokens) - n + 1))


def match_submissions(paths, roster: Roster) -> Matches:
    """Map notebook files to roster ids by their names (see the module docstring)."""
    out = Matches()
    wanted = {sid: _tokens(sid) for sid in roster.ids}
    candidates: dict[str, list] = {}
    for path in paths:
        path = pathlib.Path(path)
        tokens = _tokens(path.stem)
        found = [sid for sid, toks in wanted.items() if toks and _contains(tokens, toks)]
        # an id that is part of a longer matching id ("s1" inside "s1-2"?) is not a second match
        found = [sid for sid in found if not any(o != sid and _contains(wanted[o], wanted[sid]) for o in found)]
        if not found:
            out.unknown.append(path)
        elif len(found) > 1:
            out.ambiguous.append((path, found))
        else:
            candidates.setdefault(found[0], []).append(path)
    for sid, files in candidates.items():
        def order(p: pathlib.Path, sid=sid):      # sid bound now (sorted calls it at once)
            m = _RESUBMISSION.search(p.stem)
            try:
                mtime = p.stat().st_mtime
            except OSError:
                mtime = 0.0
            return (int(m.group(1)) if m and not p.stem.lower().endswith(sid.lower()) else 0, mtime, p.name)
        files = sorted(files, key=order)
        out.files[sid] = files[-1]
        out.superseded += [(p, sid) for p in files[:-1]]
    return out
