"""Small tables for the chapters: computed values rendered as Markdown or HTML.

Presentation only: nothing here knows about speculative decoding. A chapter
computes a grid of numbers with ``specdec`` and hands it to
:func:`grid_table` (a value for every row label x column label) or
:func:`records_table` (one row per record). The result is a :class:`Table`,
which a notebook displays as a Markdown table (so MyST renders it with the
book's table style, and it reads well without a kernel). This module is the
one place that escapes and aligns table cells: every Markdown table of the
package is a :class:`Table`, and every HTML table (:meth:`Table.to_html`, the
explorers' read-outs) is written by :func:`html_table`.

:func:`rounding_check` and :func:`source_check_table` compare a grid that a
source *printed* (rounded) with the values we compute: a printed value is
consistent when it is within half a unit in its last printed place of the
computed one. :func:`count_phrase` turns such a check into words for the
prose ("all 15 printed cells", "14 of the 15 printed cells"), or counts by
kind ("12 errors; and 1 rule").
"""

from __future__ import annotations

import html
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from specdec._validate import as_float_array, check_integer, describe

__all__ = ["Table", "grid_table", "records_table", "html_table", "rounding_check", "source_check_table",
           "count_phrase", "MISSING", "MISSING_NOTE"]

#: What a table shows in a cell whose value does not exist (a ``nan``: no alpha reaches the target, no batch fits).
MISSING = "\u2014"
#: The footnote under a table with such cells, unless the table gives its own reason.
MISSING_NOTE = "no value: none exists at this setting"


def _is_missing(value: Any) -> bool:
    """A number that is nan (an infeasible quantity): shown as MISSING, never as 'nan'."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isnan(float(value))


def _cell(value: Any, fmt: Callable[[Any], str]) -> tuple[str, bool]:
    """The text of a cell, and whether it is a missing value."""
    if isinstance(value, str):
        return value, False
    if _is_missing(value):
        return MISSING, True
    return fmt(value), False


def _formatter(fmt: str | Callable[[Any], str]) -> Callable[[Any], str]:
    if callable(fmt):
        return fmt
    if not isinstance(fmt, str):
        raise TypeError(f"fmt must be a format string such as '{{:.2f}}' or a callable, got {describe(fmt)}")
    for probe in (1.0, 1, "x"):  # accept formats for floats, ints or labels
        try:
            fmt.format(probe)
            return fmt.format
        except (ValueError, IndexError, KeyError, TypeError):
            continue
    raise ValueError(f"fmt must be a format string with one field such as '{{:.2f}}'; got {describe(fmt)}")


def _escape_markdown(text: str) -> str:
    return str(text).replace("|", r"\|").replace("\n", " ")


@dataclass(frozen=True, repr=False)
class Table:
    """A rendered table: a header row and body rows of strings.

    Displaying a :class:`Table` in a notebook shows it as Markdown; call
    :meth:`to_html` for an HTML fragment. ``align`` gives one of ``"l"``,
    ``"c"``, ``"r"`` per column; ``notes`` are lines printed under the table
    (the footnote of cells that read ``MISSING``, "—").

    Defined in chapter "Expected tokens per round".

    Examples
    --------
    >>> from specdec.tables import Table
    >>> print(Table(("x", "y"), (("1", "2"),), ("l", "r")).to_markdown())
    | x | y |
    |:--|--:|
    | 1 | 2 |
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        width = len(self.header)
        if width == 0:
            raise ValueError("header must name at least one column")
        for row in self.rows:
            if len(row) != width:
                raise ValueError(f"every row must have {width} cells like the header; got a row with {len(row)}")
        if self.align and (len(self.align) != width or any(a not in ("l", "c", "r") for a in self.align)):
            raise ValueError(f"align must give one of 'l', 'c', 'r' for each of the {width} columns; got {describe(self.align)}")

    def _alignments(self) -> tuple[str, ...]:
        return self.align or ("l",) + ("r",) * (len(self.header) - 1)

    def to_markdown(self) -> str:
        """The table as a GitHub/MyST pipe table (one line per row)."""
        rule = {"l": ":--", "c": ":-:", "r": "--:"}
        lines = ["| " + " | ".join(_escape_markdown(h) for h in self.header) + " |",
                 "|" + "|".join(rule[a] for a in self._alignments()) + "|"]
        lines += ["| " + " | ".join(_escape_markdown(c) for c in row) + " |" for row in self.rows]
        return "\n".join(lines + [line for note in self.notes for line in ("", note)])

    def to_html(self, attributes: dict[str, str] | None = None) -> str:
        """The table as an HTML ``<table>`` fragment (cells are escaped; see :func:`html_table`).

        ``attributes`` are the ``<table>`` element's own, e.g. ``{"class": "specdec-exercise-list"}``.
        """
        style = {"l": "left", "c": "center", "r": "right"}
        aligns = [{"style": f"text-align:{style[a]}"} for a in self._alignments()]
        table = html_table([list(zip(row, aligns, strict=True)) for row in self.rows],
                           list(zip(self.header, aligns, strict=True)), attributes=attributes)
        return table + "".join(f"<p>{html.escape(note)}</p>" for note in self.notes)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        return self.to_markdown()


def _html_attributes(attributes: dict[str, str] | None, name: str) -> str:
    if attributes is None:
        return ""
    if not isinstance(attributes, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in attributes.items()):
        raise TypeError(f"{name} must be a dict of attribute names to strings, got {describe(attributes)}")
    return "".join(f' {key}="{html.escape(value)}"' for key, value in attributes.items())


def _html_cell(cell: Any, tag: str) -> str:
    text, attributes = tuple(cell) if isinstance(cell, (tuple, list)) and len(cell) == 2 else (cell, None)
    if not isinstance(text, str):
        raise TypeError(f"a cell must be a string or a (string, attributes) pair, got {describe(cell)}")
    return f"<{tag}{_html_attributes(attributes, 'a cell attributes')}>{html.escape(text)}</{tag}>"


def html_table(rows: Sequence[Sequence[Any]], header: Sequence[Any] = (), *, attributes: dict[str, str] | None = None,
               sections: bool = True) -> str:
    """An HTML ``<table>`` whose every cell is escaped: the one HTML table writer of the package.

    A cell is its text, or a pair ``(text, {attribute: value})`` for its own
    attributes (a ``style``, a ``data-key``); attribute values are escaped
    too. :meth:`Table.to_html` and the explorers' read-outs are written by it.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    rows : sequence of sequences
        The body rows (``<td>`` cells).
    header : sequence, optional
        The header row (``<th>`` cells); none if empty.
    attributes : dict of str, optional
        The ``<table>`` element's attributes, in order.
    sections : bool, optional
        Wrap the header and the body in ``<thead>`` and ``<tbody>`` (default);
        False writes the rows straight into the table.

    Returns
    -------
    str

    Examples
    --------
    >>> from specdec import tables
    >>> tables.html_table([["a < b", ("1.00", {"data-key": "x"})]], ["what", "value"])
    '<table><thead><tr><th>what</th><th>value</th></tr></thead><tbody><tr><td>a &lt; b</td><td data-key="x">1.00</td></tr></tbody></table>'
    >>> tables.html_table([["1"]], attributes={"class": "readout"}, sections=False)
    '<table class="readout"><tr><td>1</td></tr></table>'
    """
    if not isinstance(sections, bool):
        raise TypeError(f"sections must be True or False, got {describe(sections)}")
    head = "<tr>" + "".join(_html_cell(c, "th") for c in header) + "</tr>" if len(header) else ""
    body = "".join("<tr>" + "".join(_html_cell(c, "td") for c in row) + "</tr>" for row in rows)
    if sections:
        head, body = (f"<thead>{head}</thead>" if head else ""), f"<tbody>{body}</tbody>"
    return f"<table{_html_attributes(attributes, 'attributes')}>{head}{body}</table>"


def grid_table(values: ArrayLike, row_labels: Sequence[Any], col_labels: Sequence[Any], *, corner: str = "",
               fmt: str | Callable[[Any], str] = "{:.2f}", row_fmt: str | Callable[[Any], str] = "{}",
               col_fmt: str | Callable[[Any], str] = "{}", emphasize: ArrayLike | None = None,
               missing: str = MISSING_NOTE) -> Table:
    """A two-way table: ``values[i, j]`` in row ``row_labels[i]``, column ``col_labels[j]``.

    A ``nan`` (a value that does not exist, such as the alpha of an
    impossible target) reads "—", and the table gets the footnote
    "— ``missing``".

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    values : array_like, shape (n_rows, n_cols)
        Numbers (formatted with ``fmt``) or strings (shown as given).
    row_labels, col_labels : sequence
        Labels of the rows and columns, formatted with ``row_fmt`` and ``col_fmt``.
    corner : str, optional
        Text of the top-left header cell, e.g. ``"alpha \\\\ k"``.
    fmt : str or callable, optional
        Format for numeric cells, default ``"{:.2f}"``.
    row_fmt, col_fmt : str or callable, optional
        Formats of the labels.
    emphasize : array_like of bool, optional
        Same shape as ``values``: cells to show in bold.
    missing : str, optional
        Why a "—" cell has no value (the footnote), e.g. ``"no alpha reaches 3x at this k"``.

    Returns
    -------
    Table

    Examples
    --------
    >>> from specdec import tables
    >>> t = tables.grid_table([[1.0, 2.0]], ["a"], [3, 5], corner="x", fmt="{:.1f}")
    >>> print(t.to_markdown())
    | x | 3 | 5 |
    |:--|--:|--:|
    | a | 1.0 | 2.0 |
    """
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 2:
        raise ValueError(f"values must be a 2-D grid (rows x columns); got shape {arr.shape}")
    if arr.shape != (len(row_labels), len(col_labels)):
        raise ValueError(f"values has shape {arr.shape} but there are {len(row_labels)} row labels and {len(col_labels)} column labels")
    cell, rfmt, cfmt = _formatter(fmt), _formatter(row_fmt), _formatter(col_fmt)
    bold = np.zeros(arr.shape, dtype=bool) if emphasize is None else np.asarray(emphasize, dtype=bool)
    if bold.shape != arr.shape:
        raise ValueError(f"emphasize must have the shape of values {arr.shape}; got {bold.shape}")

    absent = []

    def show(v: Any, strong: bool) -> str:
        text, gone = _cell(v, cell)
        absent.append(gone)
        return f"**{text}**" if strong else text

    rows = tuple(
        (rfmt(label),) + tuple(show(v, b) for v, b in zip(arr[i], bold[i], strict=False))
        for i, label in enumerate(row_labels)
    )
    return Table((str(corner),) + tuple(cfmt(c) for c in col_labels), rows, notes=_notes(absent, missing))


def _notes(absent: list[bool], missing: str) -> tuple:
    if not isinstance(missing, str) or not missing.strip():
        raise TypeError(f"missing must be a non-empty string (the footnote of '{MISSING}' cells), got {describe(missing)}")
    return (f"{MISSING} {missing}",) if any(absent) else ()


def records_table(header: Sequence[str], rows: Sequence[Sequence[Any]],
                  fmt: str | Callable[[Any], str] | Sequence[str | Callable[[Any], str]] = "{:.2f}",
                  align: Sequence[str] = (), missing: str = MISSING_NOTE) -> Table:
    """A table with one row per record; numbers are formatted, strings kept.

    A ``nan`` cell (a value that does not exist) reads "—", and the table
    gets the footnote "— ``missing``".

    Defined in chapter "The speedup formula".

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : sequence of sequences
        One record per row, as many cells as ``header``.
    fmt : str, callable, or a sequence of them (one per column), optional
        Format of numeric cells; strings are shown as given.
    align : sequence of str, optional
        ``"l"``, ``"c"`` or ``"r"`` per column (default: first left, rest right).
    missing : str, optional
        Why a "—" cell has no value (the footnote).

    Returns
    -------
    Table

    Examples
    --------
    >>> from specdec import tables
    >>> print(tables.records_table(["part", "ms"], [["draft", 2.5], ["verify", 6]], fmt="{:.1f}").to_markdown())
    | part | ms |
    |:--|--:|
    | draft | 2.5 |
    | verify | 6.0 |
    >>> print(tables.records_table(["k", "alpha for 3x"], [[1, float("nan")], [4, 0.932]],
    ...                            fmt=["{:d}", "{:.3f}"], missing="no alpha reaches 3x at this k").to_markdown())
    | k | alpha for 3x |
    |:--|--:|
    | 1 | — |
    | 4 | 0.932 |
    <BLANKLINE>
    — no alpha reaches 3x at this k
    """
    header = tuple(str(h) for h in header)
    if isinstance(fmt, (str,)) or callable(fmt):
        formats = [_formatter(fmt)] * len(header)
    else:
        if len(fmt) != len(header):
            raise ValueError(f"fmt must be one format or one per column ({len(header)}); got {len(fmt)}")
        formats = [_formatter(f) for f in fmt]
    body, absent = [], []
    for row in rows:
        row = tuple(row)
        if len(row) != len(header):
            raise ValueError(f"every row must have {len(header)} cells like the header; got {len(row)}")
        cells = [_cell(v, f) for v, f in zip(row, formats, strict=False)]
        absent += [gone for _, gone in cells]
        body.append(tuple(text for text, _ in cells))
    return Table(header, tuple(body), tuple(align), notes=_notes(absent, missing))


def rounding_check(computed: ArrayLike, printed: ArrayLike, decimals: int) -> np.ndarray:
    """Whether each printed value is a correct rounding of the computed one.

    A value printed with ``decimals`` decimals is consistent with ``computed``
    when ``|computed - printed| <= 0.5 * 10**-decimals`` (either direction
    of a tie is accepted: sources round ties both ways). A tiny tolerance of
    1e-9 of a unit absorbs binary floating-point representation of the
    printed value.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    computed : array_like
        Our values.
    printed : array_like
        The source's rounded values (broadcast against ``computed``).
    decimals : int
        Decimals the source printed, >= 0.

    Returns
    -------
    numpy.ndarray of bool
        True where the printed value agrees.

    Examples
    --------
    >>> from specdec import tables
    >>> tables.rounding_check([1.875, 1.377], [1.9, 1.2], 1).tolist()
    [True, False]
    """
    c = as_float_array(computed, "computed")
    p = as_float_array(printed, "printed")
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=15))
    try:
        return _rounding_check(c, p, d)
    except ValueError as exc:
        raise ValueError(f"computed {c.shape} and printed {p.shape} do not broadcast") from exc


def _rounding_check(c: np.ndarray, p: np.ndarray, d: int) -> np.ndarray:
    """:func:`rounding_check` of float arrays and a checked ``decimals`` (no checks)."""
    half = 0.5 * 10.0 ** (-d)
    return np.abs(c - p) <= half * (1 + 1e-9)


def source_check_table(computed: ArrayLike, printed: ArrayLike, decimals: int, row_labels: Sequence[Any],
                       col_labels: Sequence[Any], *, corner: str = "", computed_decimals: int = 3,
                       row_fmt: str | Callable[..., Any] = "{}", col_fmt: str | Callable[..., Any] = "{}") -> Table:
    """A grid showing, per cell, our value, the source's printed value and whether they agree.

    Each cell reads ``"<ours> (source <printed>) ok"`` or ``"... DIFFERS"``
    (the differing cells in bold), with ours shown to ``computed_decimals``
    decimals.

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    computed, printed : array_like, shape (n_rows, n_cols)
        Our values and the source's printed values.
    decimals : int
        Decimals the source printed (see :func:`rounding_check`).
    row_labels, col_labels : sequence
        As in :func:`grid_table`.
    corner : str, optional
        Top-left header cell.
    computed_decimals : int, optional
        Decimals shown for our values, default 3.
    row_fmt, col_fmt : str or callable, optional
        Formats of the labels.

    Returns
    -------
    Table

    Examples
    --------
    >>> from specdec import tables
    >>> t = tables.source_check_table([[1.875, 1.377]], [[1.9, 1.2]], 1, ["a"], ["x", "y"])
    >>> t.rows[0]
    ('a', '1.875 (source 1.9) ok', '**1.377 (source 1.2) DIFFERS**')
    """
    c = as_float_array(computed, "computed")
    p = as_float_array(printed, "printed")
    if c.ndim != 2 or c.shape != p.shape:
        raise ValueError(f"computed and printed must be 2-D grids of the same shape; got {c.shape} and {p.shape}")
    d = int(check_integer(decimals, "decimals", minimum=0, maximum=15))
    cd = int(check_integer(computed_decimals, "computed_decimals", minimum=0, maximum=15))
    ok = _rounding_check(c, p, d)
    text = np.empty(c.shape, dtype=object)
    for idx in np.ndindex(c.shape):
        text[idx] = f"{c[idx]:.{cd}f} (source {p[idx]:.{d}f}) " + ("ok" if ok[idx] else "DIFFERS")
    return grid_table(text, row_labels, col_labels, corner=corner, row_fmt=row_fmt, col_fmt=col_fmt, emphasize=~ok)


def count_phrase(flags: ArrayLike | Mapping[str, int], noun: str | Mapping[str, tuple[str, str]]) -> str:
    """How many of some checks hold, or how many of each kind there are, in the words a person would write.

    With ``flags`` (booleans): ``"all 15 printed cells"`` when every flag is
    true, ``"none of the 15 printed cells"`` when none is, ``"14 of the 15
    printed cells"`` otherwise; the phrase takes a plural verb, so it needs
    at least two items. With ``flags`` a dict of counts by kind and ``noun`` a
    dict of ``(singular, plural)`` by kind: each kind counted, in the dict's
    order, ``"12 errors; 3 empirical rules; and 1 overstatement"`` (kinds
    counted 0 are left out). The phrase is lower case (use ``.capitalize()``
    at the start of a sentence).

    Defined in chapter "Expected tokens per round".

    Parameters
    ----------
    flags : array_like of bool, or dict of int
        One flag per item (for example the result of :func:`rounding_check`),
        at least two; or a count (>= 0) per kind, one of them at least 1.
    noun : str, or dict of (str, str)
        The items, in the plural (``"printed cells"``); or, for counts, the
        singular and plural noun of each kind.

    Returns
    -------
    str

    Examples
    --------
    >>> from specdec import tables
    >>> tables.count_phrase([True, True, True], "printed cells")
    'all 3 printed cells'
    >>> tables.count_phrase([True, False, True], "printed cells")
    '2 of the 3 printed cells'
    >>> tables.count_phrase([False, False], "values")
    'none of the 2 values'
    >>> tables.count_phrase({"error": 2, "rule": 1}, {"error": ("error", "errors"), "rule": ("rule", "rules")})
    '2 errors; and 1 rule'
    """
    if isinstance(flags, dict):
        return _tally_phrase(flags, noun)
    if not isinstance(noun, str) or not noun.strip():
        raise TypeError(f"noun must be a non-empty string, got {describe(noun)}")
    f = np.asarray(flags)
    if f.dtype != bool:
        raise TypeError(f"flags must be booleans (True/False) or a dict of counts, got an array of dtype {f.dtype}")
    total, held = int(f.size), int(np.count_nonzero(f))
    if total < 2:
        raise ValueError(f"flags must hold at least two items (a count of one reads better as its own sentence); "
                         f"got {total}")
    if held == total:
        return f"all {total} {noun}"
    if held == 0:
        return f"none of the {total} {noun}"
    return f"{held} of the {total} {noun}"


def _tally_phrase(counts: dict, nouns: Any) -> str:
    """The counts form of :func:`count_phrase`."""
    if not isinstance(nouns, dict):
        raise TypeError(f"noun must be a dict of (singular, plural) by kind when flags are counts, got {describe(nouns)}")
    parts = []
    for kind, n in counts.items():
        if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
            raise ValueError(f"flags[{kind!r}] must be a count, a whole number >= 0; got {describe(n)}")
        pair = nouns.get(kind)
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(w, str) and w.strip() for w in pair)):
            raise TypeError(f"noun[{kind!r}] must be a (singular, plural) pair of words, got {describe(pair)}")
        if n:
            parts.append(f"{n} {pair[0] if n == 1 else pair[1]}")
    if not parts:
        raise ValueError("flags must count at least one item")
    return parts[0] if len(parts) == 1 else "; ".join(parts[:-1]) + "; and " + parts[-1]
