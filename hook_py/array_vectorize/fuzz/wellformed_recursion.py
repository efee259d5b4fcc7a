"""Well-formedness of the D19 and D21 constructs (``grammar_recursion.py``), called by
``wellformed.check_module`` and ``wellformed_ext.message``:

* module level: message strings ``MSG0 = "..."`` and ``LimitError``, an exception class whose
  ``__init__`` takes a name, a value and a limit (``grammar_recursion.LIMIT_ERROR``); a function
  may call itself or a function defined after it (``wellformed.check_module`` knows every
  function's parameters before checking any body) in the forms that end (``recursion``), so a
  minimized program never recurses without end;
* an exception's message built as written: a message string ``%`` a value or ``.format`` of one,
  an f-string whose fields have a format spec or a conversion, concatenations of strings with
  ``str(x)`` and ``repr(x)``, ``"..." % (values)``.
"""

from __future__ import annotations

import ast
from typing import Any

from .grammar_recursion import LIMIT_ERROR, MESSAGES
from .wellformed_invalid import Invalid

_LIMIT_ERROR = ast.dump(ast.parse(LIMIT_ERROR).body[0])
_MESSAGES = dict(MESSAGES)


def _invalid() -> type:
    return Invalid


def module_stmt(info: Any, stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is a message string or ``LimitError`` (recorded in ``info``)."""
    if isinstance(stmt, ast.ClassDef) and ast.dump(stmt) == _LIMIT_ERROR:
        info.exceptions.add(stmt.name)
        return True
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        name = stmt.targets[0].id
        if name in _MESSAGES and isinstance(stmt.value, ast.Constant) and stmt.value.value == _MESSAGES[name]:
            info.messages.add(name)
            return True
    return False


def message(scope: Any, node: ast.expr) -> bool:
    """Whether ``node`` is one of the messages above (its values checked)."""
    bad = _invalid()
    messages = scope.info.messages
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = node.left
        if isinstance(left, ast.Name) and left.id in messages or isinstance(left, ast.Constant) and type(left.value) is str:
            for v in node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]:
                if not (isinstance(v, ast.Constant) and type(v.value) is str):
                    scope.expr(v)
            return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id in messages) or node.keywords:
            raise bad("str.format form")
        for a in node.args:
            scope.expr(a)
        return True
    if isinstance(node, ast.JoinedStr):
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                if v.format_spec is not None and not all(isinstance(p, ast.Constant) for p in v.format_spec.values):
                    raise bad("f-string form")
                scope.expr(v.value)
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _text(scope, node):
        return True
    return False


def _text(scope: Any, node: ast.expr) -> bool:
    """A concatenation of strings, ``str(x)`` and ``repr(x)`` (values checked)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(scope, node.left) and _text(scope, node.right)
    if isinstance(node, ast.Constant) and type(node.value) is str:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("str", "repr") and len(node.args) == 1:
        scope.expr(node.args[0])
        return True
    return False


#: The test a counting-down function starts with: it returns unless ``n`` lies in ``(0, 12]``.
_COUNTDOWN = "not 0.0 < n <= 12.0"


def recursion(module: ast.Module) -> None:
    """The calls between functions that call one another (or themselves) end, in the grammar's
    forms (``grammar_recursion.py``):

    * ``g(x, n - 1)`` from a function whose own second parameter is ``n``, where the caller or
      ``g`` starts with ``if not (0.0 < n <= 12.0): return ...`` (so the count goes down by one
      at every such call, and every cycle stops within 13 calls);
    * ``if a < 0.0: return K - g(-a)`` first in ``g``, its only such call (one reflection);
    * ``if not s: return g(b, a, True)`` first in ``g``, its only such call (one swap);
    * ``f`` calling itself first thing as ``if 0.0 < pK <= 6.0: return ... + f(..., pK - 1, ...)``.
    """
    bad = _invalid()
    functions = {s.name: s for s in module.body if isinstance(s, ast.FunctionDef)}
    calls = {
        name: [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in functions]
        for name, fn in functions.items()
    }
    reach = {name: {c.func.id for c in cs} for name, cs in calls.items()}
    changed = True
    while changed:
        changed = False
        for name in reach:
            more = set().union(*(reach[r] for r in reach[name])) - reach[name]
            if more:
                reach[name] |= more
                changed = True
    for name, fn in functions.items():
        cyclic = [c for c in calls[name] if name in reach[c.func.id]]
        if not cyclic:
            continue
        first = fn.body[0]
        if _reflection(fn, first, cyclic) or _swap(fn, first, cyclic) or _self_countdown(fn, _after_prologue(fn), cyclic):
            continue
        params = [a.arg for a in fn.args.args]
        for call in cyclic:
            callee = functions[call.func.id]
            guarded = _countdown_guard(callee) or _countdown_guard(fn)
            if not (guarded and params[1:2] == ["n"] and len(call.args) == 2 and _minus_one(call.args[1], "n")):
                raise bad(f"recursion form in {name}")


def _after_prologue(fn: ast.FunctionDef) -> ast.stmt:
    """``f``'s first statement after its local lambdas and nested defs and the validator's call."""
    for stmt in fn.body:
        lambdas = isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda)
        if not (lambdas or isinstance(stmt, ast.FunctionDef) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return stmt
    return fn.body[0]


def _countdown_guard(fn: ast.FunctionDef) -> bool:
    first = fn.body[0]
    return (
        [a.arg for a in fn.args.args][1:2] == ["n"]
        and isinstance(first, ast.If)
        and ast.unparse(first.test) == _COUNTDOWN
        and len(first.body) == 1
        and isinstance(first.body[0], ast.Return)
    )


def _minus_one(node: ast.expr, name: str) -> bool:
    return ast.unparse(node) == f"{name} - 1"


def _reflection(fn: ast.FunctionDef, first: ast.stmt, back: list) -> bool:
    return (
        len(back) == 1
        and isinstance(first, ast.If)
        and ast.unparse(first.test) == "a < 0.0"
        and len(first.body) == 1
        and isinstance(first.body[0], ast.Return)
        and isinstance(first.body[0].value, ast.BinOp)
        and first.body[0].value.right is back[0]
        and back[0].func.id == fn.name
        and [ast.unparse(a) for a in back[0].args] == ["-a"]
    )


def _swap(fn: ast.FunctionDef, first: ast.stmt, back: list) -> bool:
    return (
        len(back) == 1
        and isinstance(first, ast.If)
        and ast.unparse(first.test) == "not s"
        and len(first.body) == 1
        and isinstance(first.body[0], ast.Return)
        and first.body[0].value is back[0]
        and back[0].func.id == fn.name
        and [ast.unparse(a) for a in back[0].args] == ["b", "a", "True"]
    )


def _self_countdown(fn: ast.FunctionDef, first: ast.stmt, back: list) -> bool:
    if not (len(back) == 1 and back[0].func.id == fn.name and isinstance(first, ast.If)):
        return False
    test = first.test
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 2
        and isinstance(test.comparators[0], ast.Name)
        and ast.unparse(test) == f"0.0 < {test.comparators[0].id} <= 6.0"
    ):
        return False
    counter = test.comparators[0].id
    params = [a.arg for a in fn.args.args]
    expected = [f"{p} - 1" if p == counter else p for p in params]
    return (
        len(first.body) == 1
        and isinstance(first.body[0], ast.Return)
        and any(n is back[0] for n in ast.walk(first.body[0]))
        and [ast.unparse(a) for a in back[0].args] == expected
    )
