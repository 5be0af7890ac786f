"""What a reader must never see on a page: Python reprs, unlabelled tuples, ``nan``, exponents.

Shared by the checks of the built pages (``tests/test_built_html.py``), of the kernel
explorers' read-outs (``tests/test_widgets.py``) and of the live ones
(``tests/test_live_explorers.py``); :func:`forbidden_in` names what it found. What counts:

* a dict repr (``{2: 14.06, 4: 15.07}``, ``{'a': 1}``, ``{}``);
* a list repr: three or more numbers in brackets, or strings, brackets or nothing between
  them (``[1.8, 2.44, 3.36]``, ``['a', 'b']``, ``[]``), and numpy's ``array(...)``;
* an unlabelled tuple: numbers (or strings, True/False/None) in parentheses, separated by
  commas, not after a name or a closing bracket (``(0.0962, 1.25, 0.4257)``, ``(743, 512)``).
  Two increasing numbers, ``(0, 1)``, read as an open interval and are allowed; so is a
  call such as ``E[L](0.8, 5)`` or ``sd.speedup(0.8, 5, ...)``;
* ``nan`` or ``NaN`` as a word;
* a number in exponent notation (``4e+03``, ``1.2e-05``, ``9.1e-13``); a power of ten written
  as a tolerance, ``1e-12``, is allowed.
"""

from __future__ import annotations

import re

_NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_ITEM = rf"(?:{_NUMBER}|'[^'\n]{{0,60}}'|\"[^\"\n]{{0,60}}\"|True|False|None|nan|inf)"
_TUPLE = re.compile(rf"(?<![\w\])])\(\s*({_ITEM})\s*((?:,\s*{_ITEM}\s*)+),?\s*\)|(?<![\w\])])\(\s*{_ITEM}\s*,\s*\)")
_EXPONENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e([-+])(\d+)(?![\w])")

FORBIDDEN = [
    (re.compile(rf"\{{\s*(?:{_ITEM})\s*:\s*(?:{_ITEM}|\[|\{{|\()"), "a dict repr"),
    (re.compile(r"\{\s*\}"), "an empty dict repr"),
    (re.compile(rf"\[\s*{_NUMBER}\s*(?:,\s*{_NUMBER}\s*){{2,}},?\s*\]"), "a list repr"),
    (re.compile(r"\[\s*(?:'[^'\n]{0,60}'|\"[^\"\n]{0,60}\"|\(|\[)"), "a list repr"),
    (re.compile(r"\[\s*\]"), "an empty list repr"),
    (re.compile(r"\b(?:array|np\.float64|np\.int64|np\.True_|np\.False_)\("), "a numpy repr"),
    (re.compile(r"(?<![\w.])(?:nan|NaN)(?![\w])"), "nan"),
]


def _interval(match) -> bool:
    """``(a, b)`` with two increasing numbers: an open interval, not a tuple."""
    if match.group(1) is None:
        return False
    rest = [x.strip() for x in match.group(2).split(",") if x.strip()]
    try:
        a, b = float(match.group(1)), float(rest[0])
    except ValueError:
        return False
    return len(rest) == 1 and a < b


def _context(flat: str, match, label: str) -> str:
    start = max(0, match.start() - 50)
    return f"{label}: ...{flat[start:match.end() + 50]}..."


def forbidden_in(text: str) -> list[str]:
    """Each forbidden repr found in ``text``, with what surrounds it."""
    flat = " ".join(str(text).split())
    found = [_context(flat, m, label) for pattern, label in FORBIDDEN for m in pattern.finditer(flat)]
    found += [_context(flat, m, "an unlabelled tuple") for m in _TUPLE.finditer(flat) if not _interval(m)]
    found += [_context(flat, m, "an exponent") for m in _EXPONENT.finditer(flat)
              if not (m.group(1) == "1" and m.group(2) == "-" and not m.group(3).startswith("0"))]
    return found


def _string_types(tag):
    types = tag.interesting_string_types
    if types is None:
        return tag.MAIN_CONTENT_STRING_TYPES
    return {types} if isinstance(types, type) else types


def strings_outside(tag, left_out) -> list:
    """The strings ``tag.get_text()`` joins, in document order, but for those inside the elements whose ``id()``
    is in ``left_out``: a parsed page shared by several checks is read without removing anything from it."""
    types = _string_types(tag)
    found = []

    def walk(element):
        for child in element.children:
            if hasattr(child, "children"):
                if id(child) not in left_out:
                    walk(child)
            elif type(child) in types:
                found.append(child)

    walk(tag)
    return found


#: What page_text leaves out: these elements (the CSS selector ``script, style, mjx-container, code, .cell_input,
#: .math, .headerlink, dt.sig``), and every ``pre`` outside a cell output.
_LEFT_OUT_TAGS = frozenset({"script", "style", "mjx-container", "code"})
_LEFT_OUT_CLASSES = frozenset({"cell_input", "math", "headerlink"})


def page_text(soup) -> str:
    """What a reader reads on a built page: its article without code (cell inputs, code literals, code blocks
    outside outputs, signatures), math, scripts and styles; cell outputs, explorer read-outs and tables kept.
    (The soup is not changed; one walk over the article, as CSS selectors would be several.)"""
    body = soup.select_one("article.bd-article") or soup.select_one("main") or soup.body
    types = _string_types(body)
    found = []

    def walk(element, in_output):
        for child in element.children:
            if hasattr(child, "children"):
                classes = child.get("class") or ()
                if (child.name in _LEFT_OUT_TAGS or _LEFT_OUT_CLASSES.intersection(classes)
                        or (child.name == "dt" and "sig" in classes) or (child.name == "pre" and not in_output)):
                    continue
                walk(child, in_output or "cell_output" in classes)
            elif type(child) in types:
                found.append(child)

    walk(body, False)
    return " ".join(found)
