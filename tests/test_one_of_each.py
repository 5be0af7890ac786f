"""One of each: every shared idea is written once in the package, and every caller uses that one.

Source-level guards (the modules are parsed, not imported) for issue 27: the first source's worked
example is typed in one module, Markdown and HTML tables are built in one module (``tables``), and
``count_phrase`` is defined once. Docstrings are text, not code, and are not searched.
"""

from __future__ import annotations

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODULES = {str(p.relative_to(ROOT)): p for p in sorted((ROOT / "specdec").rglob("*.py"))}


@functools.cache
def _parsed() -> tuple:
    """Every module of specdec, parsed once for all the tests of this file (which only read the trees)."""
    return tuple((name, ast.parse(path.read_text(), name)) for name, path in MODULES.items())


def _trees():
    yield from _parsed()


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


# ------------------------------------------------------------- Amdahl, verdict policy, catalogue, citation type
def _calls(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            yield node, f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")


def test_amdahls_law_is_written_once():
    """The law ``1 / (p + o + (1 - p) / S)`` is request._amdahl; both request-level speedups reach it and
    serving.regimes calls end_to_end_speedup (no module writes ``(1 - p) / s`` over a share again)."""
    def terms(node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return terms(node.left) + terms(node.right)
        return [node]

    def amdahl(node):
        """``1 / (p + ... + (1 - p) / s)``: a share p in the sum and its complement over a speedup."""
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _number(node.left) == 1):
            return False
        parts = terms(node.right)
        shown = {ast.unparse(t) for t in parts}
        return any(isinstance(t, ast.BinOp) and isinstance(t.op, ast.Div) and isinstance(t.left, ast.BinOp)
                   and isinstance(t.left.op, ast.Sub) and _number(t.left.left) == 1
                   and ast.unparse(t.left.right) in shown for t in parts)

    assert amdahl(ast.parse("1.0 / (p + o + (1.0 - p) / s)", mode="eval").body)
    assert not amdahl(ast.parse("1 / ((1 - a) / b)", mode="eval").body)
    writers = {name for name, tree in _trees() for node in ast.walk(tree) if amdahl(node)}
    assert writers == {"specdec/economics/request.py"}, writers
    request = ast.parse(MODULES["specdec/economics/request.py"].read_text())
    callers = {f.name for f in request.body if isinstance(f, ast.FunctionDef)
               and any(n == "_amdahl" for _, n in _calls(f))}
    assert callers == {"end_to_end_speedup", "_request_speedup"}
    # the public request_speedup validates, then calls its kernel (validation once, at the edge)
    public = next(f for f in request.body if isinstance(f, ast.FunctionDef) and f.name == "request_speedup")
    assert any(n == "_request_speedup" for _, n in _calls(public))
    regimes = ast.parse(MODULES["specdec/serving/regimes.py"].read_text())
    assert "end_to_end_speedup" in {n for _, n in _calls(regimes)}


def test_verdict_thresholds_are_named_once():
    """The policy's numbers (worth it 1.3, helps above 1.1, retune gain 0.02) are typed only in decision/policy.py:
    no other module compares with them or takes them as a default."""
    import specdec.decision.policy as policy

    numbers = {policy.WORTH_IT_SPEEDUP, policy.HELPS_ABOVE, policy.RETUNE_GAIN}
    found = {}
    for name, tree in _trees():
        if name == "specdec/decision/policy.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                operands = [_number(c) for c in [node.left, *node.comparators]]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                operands = [_number(d) for d in node.args.defaults + [d for d in node.args.kw_defaults if d]]
            else:
                continue
            if numbers & set(operands):
                found.setdefault(name, []).append(node.lineno)
    assert found == {}, found


def test_the_catalogue_is_the_one_source_of_shapes():
    """ModelSpec and GpuSpec are built only in roofline/catalogue.py; no core module types a model's shape into
    a Model (d_model, heads), and head models are built only by roofline.presets.head_preset."""
    shape = {"d_model", "n_kv_heads", "head_dim", "n_heads"}
    specs, typed, heads = set(), set(), set()
    for name, tree in _trees():
        for node, called in _calls(tree):
            if called in ("ModelSpec", "GpuSpec"):
                specs.add(name)
            if called == "Model" and any(k.arg in shape and _number(k.value) is not None for k in node.keywords):
                typed.add(name)
            if called in ("eagle_head", "medusa_heads") and any(
                    isinstance(parent, ast.Call) and getattr(parent.func, "id", "") == "Model"
                    for parent in ast.walk(tree) if node in ast.walk(parent) and parent is not node):
                heads.add(name)
    assert specs == {"specdec/roofline/catalogue.py"}
    assert {n for n in typed if not n.startswith("specdec/exercises/")} == set(), typed
    assert heads <= {"specdec/roofline/presets.py"}, heads


def test_every_citation_is_a_cited_record():
    """No tuple or list starting with a source key (a bare citation), no dict with a typed "source" string, and
    no second registry name such as DRAFTER_SOURCES: a quoted number carries a sources.Cited."""
    from specdec.sources import SOURCES

    bare, dicts, registries = [], [], []
    for name, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) >= 2 \
                    and isinstance(node.elts[0], ast.Constant) and node.elts[0].value in SOURCES:
                bare.append(f"{name}:{node.lineno}")
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and key.value == "source" \
                            and isinstance(value, (ast.Constant, ast.JoinedStr)):
                        dicts.append(f"{name}:{node.lineno}")
            if isinstance(node, ast.Assign) and name != "specdec/sources/__init__.py":
                registries += [f"{name}:{t.id}" for t in node.targets
                               if isinstance(t, ast.Name) and t.id.endswith("SOURCES") and t.id != "SOURCES"]
    assert (bare, dicts, registries) == ([], [], [])
