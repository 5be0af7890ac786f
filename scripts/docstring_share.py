"""Print how much of each specdec module is docstring, and the package total.

A docstring line is a line of a module, class or function docstring, or of a bare string
statement (an attribute docstring), as ``ast`` finds them. Code lines are the remaining lines
that are neither blank nor comment-only. Usage::

    python scripts/docstring_share.py            # every module, largest docstring share first
    python scripts/docstring_share.py --top 20   # only the first 20 rows
    python scripts/docstring_share.py specdec/plots

``course/specdec_course`` is left out unless a path under it is named.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import tokenize

ROOT = pathlib.Path(__file__).resolve().parents[1]


def docstring_lines(tree: ast.AST) -> set[int]:
    """Line numbers covered by docstrings and bare string statements."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)):
                lines.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return lines


def comment_only_lines(path: pathlib.Path) -> set[int]:
    """Line numbers that hold a comment and no code."""
    code, comments = set(), set()
    with path.open("rb") as handle:
        for tok in tokenize.tokenize(handle.readline):
            if tok.type == tokenize.COMMENT:
                comments.add(tok.start[0])
            elif tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                  tokenize.ENCODING, tokenize.ENDMARKER):
                code.update(range(tok.start[0], tok.end[0] + 1))
    return comments - code


def measure(path: pathlib.Path) -> tuple[int, int, int]:
    """(all lines, docstring lines, code lines) of one file."""
    text = path.read_text()
    lines = text.splitlines()
    docs = docstring_lines(ast.parse(text))
    blank = {i for i, line in enumerate(lines, 1) if not line.strip()}
    code = set(range(1, len(lines) + 1)) - docs - blank - comment_only_lines(path)
    return len(lines), len(docs), len(code)


def files(targets: list[str]) -> list[pathlib.Path]:
    found: list[pathlib.Path] = []
    for target in targets:
        path = (ROOT / target).resolve()
        if path.is_file():
            found.append(path)
            continue
        found += sorted(path.rglob("*.py"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["specdec"], help="files or folders (default: specdec)")
    parser.add_argument("--top", type=int, default=0, help="print only this many rows (0: all)")
    args = parser.parse_args()
    rows = [(p.relative_to(ROOT).as_posix(), *measure(p)) for p in files(args.paths)]
    rows.sort(key=lambda row: (-row[2] / max(row[1], 1), row[0]))
    print(f"{'module':48} {'lines':>6} {'doc':>6} {'code':>6} {'doc %':>6}")
    for name, total, doc, code in rows[: args.top or None]:
        print(f"{name:48} {total:6d} {doc:6d} {code:6d} {100 * doc / max(total, 1):6.1f}")
    total, doc, code = (sum(row[i] for row in rows) for i in (1, 2, 3))
    print(f"{'TOTAL (' + str(len(rows)) + ' files)':48} {total:6d} {doc:6d} {code:6d} {100 * doc / max(total, 1):6.1f}")


if __name__ == "__main__":
    main()
