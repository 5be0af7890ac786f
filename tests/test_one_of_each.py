"""One of each: every shared idea is written once in the package, and every caller uses that one.

Source-level guards (the modules are parsed, not imported) for issue 27: the first source's worked
example is typed in one module, Markdown and HTML tables are built in one module (``tables``), and
``count_phrase`` is defined once. Docstrings are text, not code, and are not searched.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODULES = {str(p.relative_to(ROOT)): p for p in sorted((ROOT / "specdec").rglob("*.py"))}


def _trees():
    for name, path in MODULES.items():
        yield name, ast.parse(path.read_text(), name)


def _number(node):
    """A numeric literal (``-x`` included), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    return None


def _literal_groups(tree):
    """(line, numbers) for each place that types numbers side by side.

    A call's arguments, a dict's values, a tuple, list or set, an arithmetic expression, and a
    function's defaults: the numeric literals that are its direct parts (through arithmetic).
    """
    def parts(nodes):
        out = set()
        for node in nodes:
            if isinstance(node, ast.BinOp):
                out |= parts([node.left, node.right])
            elif _number(node) is not None:
                out.add(_number(node))
        return out

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node.lineno, parts(node.args + [k.value for k in node.keywords])
        elif isinstance(node, ast.Dict):
            yield node.lineno, parts(node.values)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            yield node.lineno, parts(node.elts)
        elif isinstance(node, ast.BinOp):
            yield node.lineno, parts([node])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            yield node.lineno, parts(args.defaults + [d for d in args.kw_defaults if d is not None])


def _typed_worked_example(numbers) -> bool:
    """T0 = 5.2 ms typed beside the example's draft (2.5 ms) or verification (6.0 ms) time."""
    return 5.2 in numbers and bool(numbers & {2.5, 6.0})


def test_the_guard_sees_a_typed_worked_example():
    """The detector on fixed snippets: a dict, defaults, a ratio; T0 alone or other numbers are not it."""
    def found(code):
        return any(_typed_worked_example(n) for _, n in _literal_groups(ast.parse(code)))

    assert found('W = {"t0": 5.2, "t_draft": 2.5}')
    assert found("def f(t0=5.2, t_verify=6.0): pass")
    assert found("point = (5, 6.0 / 5.2)")
    assert found("speedup(0.8, 5, 5.2, 2.5, 6.0, 0.5)")
    assert not found('X = dict(k=3, c_draft=0.05, t0=5.2, t_overhead=0.8)')
    assert not found('"""sd.speedup(0.8, 5, 5.2, 2.5, 6.0)"""')
    assert not found("a = (5.2,)\nb = (2.5, 6.0)")


def test_the_worked_example_is_typed_in_one_module():
    """Its numbers are literals only in specdec.economics (WORKED_EXAMPLE); figures, explorers, the
    checklist, the errata, the calibration and the exercises read that record."""
    homes = {name: line for name, tree in _trees() for line, numbers in _literal_groups(tree)
             if _typed_worked_example(numbers)}
    assert set(homes) == {"specdec/economics/__init__.py"}, homes


def test_the_worked_example_is_the_first_sources():
    """The one record holds the inputs of the first source's section 2 (independent reference: the source's table)."""
    import specdec as sd
    from specdec.sources import Cited

    record = sd.economics.WORKED_EXAMPLE
    assert type(record) is Cited and record.source == "first-source" and record.status == "verified"
    assert record.value == {"alpha": 0.8, "k": 5, "t0": 5.2, "t_draft": 2.5, "t_verify": 6.0, "t_overhead": 0.5}
    # The source: T_round = 2.5 + 6.0 + 0.5 = 9.0 ms, E[L] = (1 - 0.8**6) / 0.2 = 3.68928, speedup 5.2 E[L] / 9.0.
    assert abs(sd.speedup(**record.value) - 5.2 * 3.68928 / 9.0) < 1e-12
    assert sd.checklist.EXAMPLES["chat"].t0 == 5.2 and sd.checklist.EXAMPLES["chat"].t_verify == 6.0


def _string_values(node):
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _builds_a_table(tree) -> list:
    """Lines that write a Markdown table row, rule or escaped pipe, or an HTML table cell, in code (not docstrings)."""
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if id(node) in docstrings:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if (" | " in text or "|---" in text or "|:--" in text or text == "\\|"
                    or "<td" in text or "<th" in text or "<tr" in text):
                found.append(node.lineno)
    return found


def test_tables_are_built_in_one_module():
    """No module but specdec/tables.py writes a Markdown row (``" | "`` joins, ``|---`` rules) or an HTML cell."""
    builders = {name: lines for name, tree in _trees() if (lines := _builds_a_table(tree))}
    assert set(builders) == {"specdec/tables.py"}, builders


def test_the_table_guard_sees_a_table():
    assert _builds_a_table(ast.parse('line = "| " + " | ".join(cells) + " |"'))
    assert _builds_a_table(ast.parse('rule = "|---|---|"'))
    assert _builds_a_table(ast.parse("cell = f'<td>{x}</td>'"))
    assert _builds_a_table(ast.parse('cell = text.replace("|", "\\\\|")'))
    assert not _builds_a_table(ast.parse('pattern = "|".join(names)'))
    assert not _builds_a_table(ast.parse('def f():\n    """| a | b |"""\n    return "a, b"'))


def test_count_phrase_is_defined_once():
    """One phrase helper: ``count_phrase`` is defined in specdec/tables.py only."""
    defined = {name for name, tree in _trees() for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "count_phrase"}
    assert defined == {"specdec/tables.py"}
