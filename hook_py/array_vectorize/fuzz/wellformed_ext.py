"""Well-formedness of the D11, D14, D16 and D17 constructs (``grammar_raise.py``,
``grammar_calls.py``), called by ``wellformed.Scope`` (``expr`` and ``call`` by its expression
rules, ``wellformed_expressions.py``) and ``wellformed.check_module``:

* module level: ``import numpy as np`` (or ``as xnp``, or ``from numpy import sqrt, pi as np_pi``:
  grammar_names.py), ``import enum``, ``class Mode(enum.Enum)`` with int
  members, exception classes of a builtin or an earlier one whose body is ``pass`` or a docstring
  (``class RangeError(ValueError): pass``); ``check(...)``, a function of raises and asserts only
  that returns nothing, called only as a statement, is ``wellformed.check_module``'s (its body
  is checked by ``wellformed.Scope``);
* ``raise Class(args)`` of a builtin or module exception class, ``assert``, and ``try`` with
  ``except`` clauses naming exception classes, ``else`` and ``finally`` (inside loops too); after
  a ``try``, the names every completing path assigned are defined;
* ``np.F(...)`` of the D16 functions, ``np.pi``/``np.inf``; the D17 ``math`` functions,
  ``math.fsum`` of a tuple, ``round(x, n)`` with a constant int ``n``;
* the uniform parameters (D14) only in their forms: ``rates["low"]``, ``mode is Mode.X``,
  ``mode.value``, ``cap is None`` and ``cap`` read where it is not None, ``label == "text"``.
"""

from __future__ import annotations

import ast
from typing import Any, List, Set

from . import wellformed_recursion
from .wellformed_invalid import Invalid

EXCEPTIONS = {"ValueError", "ArithmeticError", "ZeroDivisionError", "OverflowError", "AssertionError"}
NP_ARITY = {
    "sqrt": 1, "exp": 1, "log": 1, "abs": 1, "floor": 1, "sign": 1, "float64": 1, "maximum": 2, "minimum": 2,
    "where": 3, "clip": 3, "power": 2,
}
SPECIAL_ARITY = {"erf": 1, "erfc": 1, "gamma": 1, "lgamma": 1, "fmod": 2, "remainder": 2, "isclose": 2, "fsum": 1}
UNIFORM = {"rates", "mode", "cap", "label"}
#: The annotation a uniform parameter may carry (D14: it makes the parameter uniform).
ANNOTATIONS = {"rates": "dict", "mode": "Mode", "cap": "float | None", "label": "str"}


def annotation_ok(arg: ast.arg) -> bool:
    return arg.annotation is None or ANNOTATIONS.get(arg.arg) == ast.unparse(arg.annotation)


def uniforms_marked(fn: ast.FunctionDef) -> bool:
    """Every uniform parameter is annotated or read (else D14 takes it for a number)."""
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return all(a.annotation is not None or a.arg in read for a in fn.args.args if a.arg in UNIFORM)


def module_stmt(info: Any, stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is one of the module statements above (recorded in ``info``)."""
    if isinstance(stmt, ast.Import):
        names = [(a.name, a.asname) for a in stmt.names]
        if names in ([("numpy", "np")], [("numpy", "xnp")]):
            info.has_numpy = True
            info.numpy_modules.add(names[0][1])
            return True
        if names == [("enum", None)]:
            info.has_enum = True
            return True
        return False
    if isinstance(stmt, ast.ImportFrom) and stmt.module == "numpy" and not stmt.level:
        for a in stmt.names:
            if a.name not in NP_ARITY and a.name not in ("pi", "inf"):
                raise Invalid(f"numpy import {a.name}")
            info.numpy_names[a.asname or a.name] = a.name
        info.has_numpy = True
        return True
    if isinstance(stmt, ast.ClassDef) and stmt.name != "Tab":  # `Tab`: wellformed.class_tables
        base = stmt.bases[0] if len(stmt.bases) == 1 else None
        body_ok = len(stmt.body) == 1 and (
            isinstance(stmt.body[0], ast.Pass)
            or isinstance(stmt.body[0], ast.Expr) and isinstance(stmt.body[0].value, ast.Constant) and type(stmt.body[0].value.value) is str
        )
        if isinstance(base, ast.Name) and (base.id in EXCEPTIONS or base.id in info.exceptions) and body_ok:
            info.exceptions.add(stmt.name)
            return True
        if isinstance(base, ast.Attribute) and ast.unparse(base) == "enum.Enum" and info.has_enum:
            for s in stmt.body:
                if not (isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) and type(s.value.value) is int):
                    raise Invalid("enum members")
            info.enums[stmt.name] = {s.targets[0].id for s in stmt.body}
            return True
        raise Invalid(f"class {stmt.name}")
    return False


def stmt(scope: Any, node: ast.stmt) -> Any:
    """Whether ``node`` falls through, or None when it is none of the statements above."""
    if isinstance(node, ast.Raise):
        exc = node.exc
        if node.cause is not None or not (isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name)):
            raise Invalid("raise form")
        if exc.func.id not in EXCEPTIONS | scope.info.exceptions or exc.keywords:
            raise Invalid(f"raise {exc.func.id}")
        for a in exc.args:
            message(scope, a)
        return False
    if isinstance(node, ast.Assert):
        scope.condition(node.test)
        if node.msg is not None:
            message(scope, node.msg)
        return True
    if isinstance(node, ast.Try):
        return try_stmt(scope, node)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name):
        call = node.value
        if scope.info.checkers.get(call.func.id) != len(call.args) or call.keywords:
            raise Invalid("call statement")
        for a in call.args:
            scope.expr(a)
        return True
    return None


def message(scope: Any, node: ast.expr) -> None:
    """An exception argument: a string, an f-string of values, or a number (or a message built
    as written, D21: ``wellformed_recursion.message``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return
    if wellformed_recursion.message(scope, node):
        return
    if isinstance(node, ast.JoinedStr):
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                if v.format_spec is not None or v.conversion != -1:
                    raise Invalid("f-string form")
                scope.expr(v.value)
        return
    scope.expr(node)


def try_stmt(scope: Any, node: ast.Try) -> bool:
    before = set(scope.defined)
    outs: List[Set[str]] = []
    if scope.block(node.body) and (not node.orelse or scope.block(node.orelse)):
        outs.append(scope.defined)
    if not node.handlers:
        raise Invalid("try without except")
    for h in node.handlers:
        names = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        if h.name or not all(isinstance(n, ast.Name) and n.id in EXCEPTIONS | scope.info.exceptions for n in names):
            raise Invalid("except clause")
        scope.defined = set(before)  # the body may have stopped anywhere
        if scope.block(h.body):
            outs.append(scope.defined)
    scope.defined = set.intersection(*outs) if outs else set(before)
    if node.finalbody:
        if not scope.block(node.finalbody):
            raise Invalid("finally leaves")
    return bool(outs)


def expr(scope: Any, node: ast.expr) -> bool:
    """Whether ``node`` is one of the expressions above (checked)."""
    if isinstance(node, ast.Name) and node.id in UNIFORM and node.id in scope.defined:
        if node.id != "cap" or not getattr(scope, "cap_guarded", False):
            raise Invalid(f"uniform parameter {node.id} read as a number")
        return True
    if isinstance(node, ast.Name) and scope.info.numpy_names.get(node.id) in ("pi", "inf") and node.id not in scope.defined:
        return True
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id in scope.info.numpy_modules and node.attr in ("pi", "inf"):
            return True
        if node.value.id == "mode" and node.attr == "value":
            return True
        if node.value.id in scope.info.enums and node.attr in scope.info.enums[node.value.id]:
            return True
        return False
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "rates":
        if not (isinstance(node.slice, ast.Constant) and node.slice.value in ("low", "high")):
            raise Invalid("rates key")
        return True
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id in UNIFORM:
        (op,), (right,) = node.ops, node.comparators
        if isinstance(op, (ast.Is, ast.IsNot)) and node.left.id in ("cap", "mode"):
            return node.left.id == "cap" and isinstance(right, ast.Constant) and right.value is None or expr(scope, right)
        if isinstance(op, (ast.Eq, ast.NotEq)):
            if node.left.id == "label" and isinstance(right, ast.Constant) and isinstance(right.value, str):
                return True
            if node.left.id == "mode" and expr(scope, right):
                return True
        raise Invalid("uniform comparison")
    if isinstance(node, ast.IfExp) and _cap_test(node.test) is not None:
        scope.expr(node.test)
        guarded = node.body if _cap_test(node.test) else node.orelse
        other = node.orelse if _cap_test(node.test) else node.body
        scope.cap_guarded = True
        scope.expr(guarded)
        scope.cap_guarded = False
        scope.expr(other)
        return True
    return False


def _cap_test(test: ast.expr) -> Any:
    """True for ``cap is not None``, False for ``cap is None``, None for any other test."""
    if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "cap" and len(test.ops) == 1:
        if isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
            return isinstance(test.ops[0], ast.IsNot)
    return None


def call(scope: Any, node: ast.Call) -> bool:
    """Whether ``node`` is a D16/D17 call (its arguments checked)."""
    f = node.func
    numpy_name = None
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in scope.info.numpy_modules:
        numpy_name = f.attr
    elif isinstance(f, ast.Name) and f.id in scope.info.numpy_names and f.id not in scope.defined:
        numpy_name = scope.info.numpy_names[f.id]
    if numpy_name is not None:
        if NP_ARITY.get(numpy_name) != len(node.args) or node.keywords:
            raise Invalid(f"np.{numpy_name}")
        for a in node.args:
            scope.expr(a)
        return True
    if (
        isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math"
        and scope.info.has_math and f.attr in SPECIAL_ARITY
    ):
        if SPECIAL_ARITY[f.attr] != len(node.args) or node.keywords:
            raise Invalid(f"math.{f.attr}")
        args = node.args
        if f.attr == "fsum":
            if not isinstance(args[0], ast.Tuple) or len(args[0].elts) < 2:
                raise Invalid("fsum of a tuple")
            args = args[0].elts
        for a in args:
            scope.expr(a)
        return True
    if isinstance(f, ast.Name) and f.id == "round" and len(node.args) == 2 and "round" not in scope.defined:
        digits = node.args[1]
        if isinstance(digits, ast.UnaryOp) and isinstance(digits.op, ast.USub):
            digits = digits.operand
        if not (isinstance(digits, ast.Constant) and type(digits.value) is int):
            raise Invalid("round digits")
        scope.expr(node.args[0])
        return True
    return False
