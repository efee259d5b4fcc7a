"""The expression rules of the well-formedness checker (``wellformed.Scope`` mixin): which
expressions, operators and calls a program may contain, reads of names only where they are
defined, the walrus of an ``if`` test, tuple indexes in range and table indexes of the form
``int(x) % size``, calls of ``math`` functions, builtins, helpers and lambdas with their arity
(and a tuple-returning helper only where its result is unpacked into as many names, D13), and
``isinstance`` of a number against the builtin number types (D22).

The statement walk that tracks which names are defined, and the kinds of variables, stay in
``wellformed.py`` (``Scope``); the D11, D14, D16 and D17 forms are delegated to
``wellformed_ext.py`` (``expr``, ``call``). The tables of allowed operators and arities live
here, below ``wellformed.py``, which imports them; the checker's exception ``Invalid`` is
``wellformed_ext.py``'s, below both (``wellformed.Invalid`` is the same class).
"""

from __future__ import annotations

import ast

from . import wellformed_containers, wellformed_ext
from .wellformed_ext import Invalid

BUILTIN_ARITY = {"abs": (1, 1), "min": (2, 5), "max": (2, 5), "int": (1, 1), "float": (1, 1), "bool": (1, 1), "round": (1, 1), "pow": (2, 2)}
MATH_ARITY = {
    **{name: (1, 1) for name in (
        "sqrt", "exp", "expm1", "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
        "cosh", "tanh", "asinh", "acosh", "atanh", "fabs", "floor", "ceil", "trunc", "isnan", "isinf",
        "isfinite", "degrees", "radians")},
    "log": (1, 2), "atan2": (2, 2), "hypot": (2, 2), "copysign": (2, 2), "pow": (2, 2),
}
MATH_CONSTANTS = ("pi", "e", "tau", "inf", "nan")
#: The types ``isinstance(x, T)`` may test (D22).
ELEMENT_TYPES = ("int", "float", "bool")
ALLOWED_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
ALLOWED_CMPOPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


class ExpressionRules:
    """Mixin of ``wellformed.Scope`` (module docstring): it reads the scope's ``info``,
    ``defined``, ``kinds``, ``indices`` and ``locals_callables``, and ``store``s a walrus target."""

    def condition(self, test: ast.expr) -> None:
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.NamedExpr):
            walrus = test.left
            self.expr(walrus.value)
            if not isinstance(walrus.target, ast.Name):
                raise Invalid("walrus target")
            for c in test.comparators:
                self.expr(c)
            for op in test.ops:
                if not isinstance(op, ALLOWED_CMPOPS):
                    raise Invalid("comparison operator")
            self.store(walrus.target.id)
            return
        self.expr(test)

    def read(self, name: str) -> None:
        if name not in self.defined:
            raise Invalid(f"{name} may be undefined")

    def expr(self, node: ast.expr) -> None:
        if wellformed_ext.expr(self, node) or wellformed_containers.expr(self, node):
            return
        if isinstance(node, ast.Constant):
            if type(node.value) not in (bool, int, float):
                raise Invalid("constant")
            if type(node.value) is int and not -(2**63) <= node.value < 2**64:
                raise Invalid("literal beyond 64 bits")
        elif isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load):
                raise Invalid("store in expression")
            n = node.id
            if wellformed_containers.name(self, n):
                return
            if n in self.defined:
                if self.kinds.get(n) == "callable":
                    raise Invalid("function used as a value")
                return
            if n in self.info.consts:
                return
            raise Invalid(f"{n} may be undefined")
        elif isinstance(node, ast.BinOp):
            if not isinstance(node.op, ALLOWED_BINOPS):
                raise Invalid("operator")
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
                raise Invalid("unary operator")
            self.expr(node.operand)
        elif isinstance(node, ast.Compare):
            if not all(isinstance(op, ALLOWED_CMPOPS) for op in node.ops):
                raise Invalid("comparison operator")
            self.expr(node.left)
            for c in node.comparators:
                self.expr(c)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                self.expr(v)
        elif isinstance(node, ast.IfExp):
            self.expr(node.test)
            self.expr(node.body)
            self.expr(node.orelse)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id == "math" and self.info.has_math and node.attr in MATH_CONSTANTS):
                raise Invalid("attribute")
        elif isinstance(node, ast.Subscript) and table_name(node.value) in self.info.tables:
            idx = node.slice
            if not (
                isinstance(idx, ast.BinOp)
                and isinstance(idx.op, ast.Mod)
                and isinstance(idx.right, ast.Constant)
                and idx.right.value == self.info.tables[table_name(node.value)]
                and isinstance(idx.left, ast.Call)
                and getattr(idx.left.func, "id", None) == "int"
            ):
                raise Invalid("table index must be int(x) % size")
            self.expr(idx.left)
        elif isinstance(node, ast.Subscript):
            if not isinstance(node.value, ast.Name) or node.value.id not in self.info.tuples:
                raise Invalid("subscript")
            size = len(self.info.tuples[node.value.id])
            idx = node.slice
            if isinstance(idx, ast.Name) and idx.id in self.indices:
                values = self.indices[idx.id]
                if not values or not all(-size <= v < size for v in values):
                    raise Invalid("index out of range")
            else:
                try:
                    v = ast.literal_eval(idx)
                except ValueError:
                    raise Invalid("index must be constant or a loop index") from None
                if type(v) is not int or not -size <= v < size:
                    raise Invalid("index out of range")
        elif isinstance(node, ast.NamedExpr):
            raise Invalid("walrus outside an if test")
        else:
            raise Invalid(f"unsupported expression {type(node).__name__}")

    def call(self, node: ast.Call, arity: int = 1) -> None:
        """A call; ``arity`` is how many names its result is unpacked into (1: used as a number)."""
        f = node.func
        name = f.id if isinstance(f, ast.Name) else None
        # Before the D16/D17 calls and isinstance, which give one number: `a, b = math.fmod(x, y)`
        # is CPython's TypeError.
        if self.info.arities.get(name, 1) != arity and name not in self.locals_callables:
            raise Invalid(f"{ast.unparse(f)} returns {self.info.arities.get(name, 1)} values, used as {arity}")
        if wellformed_ext.call(self, node) or self.element_type_test(node):
            return
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise Invalid("starred")
            self.expr(a)
        for k in node.keywords:
            if k.arg is None:
                raise Invalid("**kwargs")
            self.expr(k.value)
        n = len(node.args)
        if isinstance(f, ast.Attribute):
            if not (isinstance(f.value, ast.Name) and f.value.id == "math" and self.info.has_math and f.attr in MATH_ARITY):
                raise Invalid("call of an attribute")
            lo, hi = MATH_ARITY[f.attr]
            if node.keywords or not lo <= n <= hi:
                raise Invalid("math arity")
            return
        if not isinstance(f, ast.Name):
            raise Invalid("call target")
        name = f.id
        params = self.locals_callables.get(name) or self.info.callables.get(name)
        if params is not None:
            if name not in self.locals_callables and name in self.defined:
                raise Invalid("call of a shadowed name")
            given = set(params[:n])
            for k in node.keywords:
                if k.arg not in params or k.arg in given:
                    raise Invalid("keyword argument")
                given.add(k.arg)
            if n > len(params) or given != set(params):
                raise Invalid("call arity")
            return
        if name in self.info.math_names and name not in self.defined:
            lo, hi = MATH_ARITY[name]
            if node.keywords or not lo <= n <= hi:
                raise Invalid("math arity")
            return
        if name in BUILTIN_ARITY and name not in self.defined:
            lo, hi = BUILTIN_ARITY[name]
            if node.keywords or not lo <= n <= hi:
                raise Invalid("builtin arity")
            return
        raise Invalid(f"call of {name}")

    def element_type_test(self, node: ast.Call) -> bool:
        """Whether ``node`` is ``isinstance(x, T)`` of a number against ``int``, ``float``,
        ``bool`` or a tuple of them (D22); raises ``Invalid`` for another ``isinstance``."""
        if not (isinstance(node.func, ast.Name) and node.func.id == "isinstance") or "isinstance" in self.defined:
            return False
        if len(node.args) != 2 or node.keywords:
            raise Invalid("isinstance arity")
        self.expr(node.args[0])
        types = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        if not types or not all(isinstance(t, ast.Name) and t.id in ELEMENT_TYPES and t.id not in self.defined for t in types):
            raise Invalid("isinstance types")
        return True


def table_name(node: ast.expr) -> str:
    """`S0`, or `Tab.S0` for a table of the class `Tab` (issue 27); "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Tab":
        return f"Tab.{node.attr}"
    return ""
