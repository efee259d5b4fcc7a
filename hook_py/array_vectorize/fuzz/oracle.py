"""CPython as the oracle, element by element, and the one comparison every differential layer
uses (the fuzzer's ``check.py`` and the test suite's ``tests/oracle.py``).

``Evaluator(source, path, entry).run(args)`` is CPython's result for one element: the program
runs unchanged, except that where CPython raises ``ZeroDivisionError``/``ValueError``/
``OverflowError`` or produces a complex number, the operation gives the documented IEEE value
instead (D3; docs/semantics.md items 1-5, 7): the IEEE helpers (``oracle_ieee.py``) try CPython
first and fall back only on its exception. The result is ``Ok(value, ieee)`` (``ieee``: some fallback was taken),
``Skip(reason)`` (an integer power beyond 64 bits, which CPython would compute for ever) or
``Invalid(exc)`` (any other exception: the program is ill-formed, a fuzzer bug).

``agree(got, dtype_kind, expected, float_result)`` compares one vectorized element with CPython's:

* a float: same value, NaN equals NaN, the sign of a zero matters;
* an int: in an int64/uint64 result, the exact value modulo 2**64 read in that dtype (items 6,
  13: integer results wrap); in a float64 result only when ``float_result`` (the core's result
  kind is float: some path returns a float, item 8), compared by exact value (an int beyond 2**53
  is not equal to the float it rounds to);
* a bool: in a bool result, or as 0/1 in a numeric result whose kind is not bool (other paths
  return numbers).

What else may differ (a value held as float64 after a mixed-kind merge, item 8; wrapping on the
way, items 6, 13; the array library's transcendental functions, items 9, 10, 18) is explained by
``model.py`` from the IR the core reports, never by re-deciding what the compiler folds.
"""

from __future__ import annotations

import ast
import math
import re
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .grammar_names import unalias_math
from .oracle_calls import special_math
from .oracle_ieee import (  # noqa: F401 - model.py reads some as oracle.<name>
    BEYOND_RAISED,
    BeyondInt64,
    CONVERSIONS_RAISE,
    EXACT_CONVERSIONS,
    FALLBACKS,
    INT64_END,
    INT64_MIN,
    SATURATED,
    TRY_DEPTH,
    UINT64_END,
    WIDE,
    Huge,
    _saturate,
    beyond_int64,
    _wide,
    _wide_add,
    _wide_mul,
    _wide_sub,
    ieee_div,
    ieee_floordiv,
    ieee_int,
    ieee_mod,
    ieee_pow,
    ieee_round,
    in_try,
    np_value,
)


@dataclass
class Ok:
    value: Any
    ieee: bool = False  # CPython raised somewhere (D3) and the IEEE value was taken there
    special: Optional[str] = None  # the inexact D17 function the value came from (INEXACT_SPECIAL)
    wide: bool = False  # an int outside int64's range was computed on the way (WIDE)
    #: Where a finite float beyond int64 was converted to an int on the way (item 7 saturates
    #: it), CPython's own result with the exact conversion: what the call gives where the core
    #: computed that conversion as Python (a folded constant, the closing paragraph of
    #: docs/semantics.md's divergences). None elsewhere, or where that run does not return.
    exact: Any = None


@dataclass
class Skip:
    reason: str
    detail: str = ""


@dataclass
class Invalid:
    error: BaseException


@dataclass
class Raised:
    """CPython's element raised (D11): an explicit ``raise``/``assert``, or a numeric error of a
    ``try`` body that no ``except`` clause took (item 30)."""

    error: BaseException
    wide: bool = False  # an int outside int64's range was computed on the way (WIDE)


#: Exception classes a fuzzed program raises on purpose (explicit raises, asserts, numeric
#: errors inside ``try``); anything else escaping the program is a fuzzer bug (``Invalid``).
#: (UnboundLocalError: a name some lanes never assigned, D20.)
RAISED_CLASSES = (ArithmeticError, ValueError, AssertionError, UnboundLocalError)


#: NumPy's counterpart of every math function that can raise (its value where CPython raises).
NUMPY_MATH = {
    "exp": np.exp, "expm1": np.expm1, "log1p": np.log1p, "log2": np.log2, "log10": np.log10, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "atan2": np.arctan2, "hypot": np.hypot, "pow": np.power, "sqrt": np.sqrt, "fabs": np.abs,
    "copysign": np.copysign, "degrees": np.degrees, "radians": np.radians,
}


def _ieee_math() -> types.SimpleNamespace:
    """``math`` whose functions give NumPy's value where CPython raises (items 3, 5, 7)."""
    ns = types.SimpleNamespace(**{k: v for k, v in vars(math).items() if not k.startswith("_")})

    def wrap(name: str) -> Callable[..., Any]:
        real, npf = getattr(math, name), NUMPY_MATH[name]

        def fn(*args: Any) -> Any:
            try:
                return real(*args)
            except (ValueError, OverflowError, ZeroDivisionError):
                if in_try():
                    raise
                return np_value(npf, *args)

        fn.__name__ = name
        return fn

    for name in NUMPY_MATH:
        setattr(ns, name, wrap(name))

    def log(x: Any, *base: Any) -> float:
        try:
            return math.log(x, *base)
        except (ValueError, ZeroDivisionError):
            if in_try():
                raise
            if base:
                return np_value(lambda a, b: np.log(a) / np.log(b), x, base[0])
            return np_value(np.log, x)

    ns.log = log
    for name in ("floor", "ceil", "trunc"):
        exact = getattr(math, name)
        setattr(ns, name, (lambda exact, name: lambda x: _saturate(x, exact, f"math.{name}") if isinstance(x, float) else _wide(exact(x)))(exact, name))
    for name, fn in special_math().items():
        setattr(ns, name, fn)
    return ns


IEEE_MATH = _ieee_math()

_OPERATORS = {
    ast.Div: "_ieee_div", ast.FloorDiv: "_ieee_floordiv", ast.Mod: "_ieee_mod", ast.Pow: "_ieee_pow",
    ast.Add: "_wide_add", ast.Sub: "_wide_sub", ast.Mult: "_wide_mul",
}

#: The D17 functions documented within some ulps of ``math`` (docs/semantics.md's D17 table).
INEXACT_SPECIAL = ("erf", "erfc", "gamma", "lgamma")


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


class _IEEE(ast.NodeTransformer):
    """``/ // % **`` (and their augmented forms) through the IEEE helpers; ``from math import``
    reads the IEEE ``math``, ``import numpy as np`` the ``NumpyShim``. A ``try`` body counts
    itself in ``TRY_DEPTH`` (there the helpers give CPython's exceptions) and marks what leaves
    it. A ``return`` of the entry function whose value is an inexact D17 call records which one
    (``Ok.special``: its documented ulp bound applies to that element). Nothing else of the
    program changes."""

    def __init__(self, entry: str) -> None:
        self.entry = entry

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if not isinstance(node.op, ast.USub):
            return node
        return ast.copy_location(_call("_wide", node), node)

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        name = _OPERATORS.get(type(node.op))
        if name is None:
            return node
        return ast.copy_location(_call(name, node.left, node.right), node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        self.generic_visit(node)
        if type(node.op) not in _OPERATORS or not isinstance(node.target, ast.Name):
            return node
        value = self.visit_BinOp(ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value))
        return ast.copy_location(ast.Assign([ast.Name(node.target.id, ast.Store())], value), node)

    def visit_Import(self, node: ast.Import) -> Any:
        if [(a.name, a.asname) for a in node.names] == [("numpy", "xnp")]:
            # grammar_names.py: another alias of NumPy is the oracle's `np` too.
            return ast.copy_location(ast.Assign([ast.Name("xnp", ast.Store())], ast.Name("np", ast.Load())), node)
        dropped = [a for a in node.names if (a.name, a.asname) in (("math", None), ("numpy", "np"))]
        return None if len(dropped) == len(node.names) else node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        # `from math import sqrt` and `from numpy import sqrt as np_sqrt` (grammar_names.py) bind
        # the oracle's `math` and `np` members.
        module = {"math": "math", "numpy": "np"}.get(node.module or "")
        if module is None or node.level:
            return node
        return [
            ast.copy_location(ast.Assign([ast.Name(a.asname or a.name, ast.Store())], ast.Attribute(ast.Name(module, ast.Load()), a.name, ast.Load())), node)
            for a in node.names
        ]

    def visit_Try(self, node: ast.Try) -> ast.stmt:
        self.generic_visit(node)
        # try: _try_enter(); try: BODY except BaseException as e: _try_mark(e); raise
        #      finally: _try_leave()
        mark = ast.ExceptHandler(
            ast.Name("BaseException", ast.Load()), "_fuzz_exc",
            [ast.Expr(_call("_try_mark", ast.Name("_fuzz_exc", ast.Load()))), ast.Raise()],
        )
        inner = ast.Try(node.body, [mark], [], [ast.Expr(_call("_try_leave"))])
        node.body = [ast.Expr(_call("_try_enter")), inner]
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.stmt:
        self.generic_visit(node)
        if node.name == self.entry:
            for stmt in _own_statements(node.body):
                value = stmt.value if isinstance(stmt, ast.Return) else None
                if isinstance(value, ast.Call) and _special_name(value.func) in INEXACT_SPECIAL:
                    stmt.value = _call("_special_return", ast.Constant(_special_name(value.func)), value)
        return node


def _special_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math":
        return func.attr
    return ""


def _own_statements(body: List[ast.stmt]) -> List[ast.stmt]:
    """The statements of a function body, nested blocks included, nested functions not."""
    out: List[ast.stmt] = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            out.extend(_own_statements(getattr(stmt, name, []) or []))
        for handler in getattr(stmt, "handlers", []) or []:
            out.extend(_own_statements(handler.body))
    return out


#: The inexact D17 function whose value the last ``return`` of the entry function gave.
SPECIAL_RETURN: List[Any] = [None]


def _special_return(name: str, value: Any) -> Any:
    SPECIAL_RETURN[0] = name
    return value


def _try_enter() -> None:
    TRY_DEPTH[0] += 1


def _try_leave() -> None:
    TRY_DEPTH[0] -= 1


def _try_mark(exc: BaseException) -> None:
    exc.__dict__["fuzz_in_try"] = True


def _isinstance(x: Any, types: Any) -> bool:
    """``isinstance`` where the program's ``int`` is ``ieee_int`` (D3's conversion): the builtin."""
    if isinstance(types, tuple):
        return isinstance(x, tuple(int if t is ieee_int else t for t in types))
    return isinstance(x, int if types is ieee_int else types)


class Evaluator:
    """CPython on one program, with the IEEE values of D3 where it raises (module docstring).
    ``resolve`` turns an argument that names an object of the module (an Enum member,
    ``inputs.ModuleRef``) into that object of the oracle's own module."""

    def __init__(self, source: str, path: str, entry: str = "f") -> None:
        from .oracle_calls import NumpyShim

        tree = _IEEE(entry).visit(unalias_math(ast.parse(source)))
        ast.fix_missing_locations(tree)
        ns: Dict[str, Any] = {
            "__name__": "array_vectorize_fuzz_oracle", "math": IEEE_MATH, "int": ieee_int, "round": ieee_round,
            "pow": ieee_pow, "_ieee_div": ieee_div, "_ieee_floordiv": ieee_floordiv, "_ieee_mod": ieee_mod,
            "_ieee_pow": ieee_pow, "np": NumpyShim(), "_special_return": _special_return,
            "_try_enter": _try_enter, "_try_leave": _try_leave, "_try_mark": _try_mark,
            "_wide_add": _wide_add, "_wide_sub": _wide_sub, "_wide_mul": _wide_mul, "_wide": _wide,
            "abs": lambda x: _wide(abs(x)),
            "isinstance": _isinstance,
        }
        exec(compile(tree, path, "exec"), ns)  # noqa: S102 - the fuzzer's own program
        self.namespace = ns
        self.fn = ns[entry]

    def run(self, args: List[Any]) -> Any:
        """CPython's outcome for one element: ``Ok``, ``Raised``, ``Skip`` or ``Invalid``; an
        ``Ok`` that saturated a finite float (item 7) carries the value of a second run with
        CPython's exact conversions (``Ok.exact``)."""
        outcome, raised = self._run_converting(args, True)
        if raised:
            # Item 7: a float beyond int64 met an int conversion; with protect_domains=True it
            # saturates instead: that compile's expected outcome (``protected``).
            outcome.protected, _ = self._run_converting(args, False)
        return outcome

    def _run_converting(self, args: List[Any], raising: bool) -> Any:
        """One element's outcome, conversions beyond int64 raising (item 7) or saturating
        (``protect_domains``), and whether such a conversion raised."""
        SATURATED[0] = False
        BEYOND_RAISED[0] = False
        CONVERSIONS_RAISE[0] = raising
        try:
            outcome = self._run(args)
            raised = BEYOND_RAISED[0]
        finally:
            CONVERSIONS_RAISE[0] = False
        if isinstance(outcome, Ok) and SATURATED[0]:
            EXACT_CONVERSIONS[0] = True
            try:
                exact = self._run(args)
            finally:
                EXACT_CONVERSIONS[0] = False
            if isinstance(exact, Ok):
                outcome.exact = exact.value
        return outcome, raised

    def _run(self, args: List[Any]) -> Any:
        from .inputs import resolve

        before = FALLBACKS[0]
        SPECIAL_RETURN[0] = None
        WIDE[0] = False
        TRY_DEPTH[0] = 0
        args = [resolve(a, self.namespace) for a in args]
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")  # D16: np.sqrt(-1.0) is nan with a warning
                r = self.fn(*args)
        except Huge:
            return Skip("int-beyond-64-bits")
        except BeyondInt64 as beyond:  # item 7: past the program's own `except` clauses
            return Raised(beyond.error, WIDE[0])
        except RAISED_CLASSES as exc:
            if isinstance(exc, OverflowError) and not exc.__dict__.get("fuzz_in_try"):
                # An int beyond the float range met a float: it lies beyond 64 bits, where the
                # vectorized code wraps (item 6) or raises (item 17).
                return Skip("int-beyond-64-bits")
            return Raised(exc, WIDE[0])
        except Exception as exc:  # noqa: BLE001 - an ill-formed program
            return Invalid(exc)
        t = type(r)
        if t not in (bool, int, float):
            return Invalid(TypeError(f"the function returned {t.__name__}"))
        return Ok(r, FALLBACKS[0] != before, SPECIAL_RETURN[0], WIDE[0])


# -------------------------------------------------------------------------------- comparison


def wrap(value: int, dtype_kind: str) -> int:
    """An exact int as a 64-bit array of dtype kind ``u``/``i`` holds it: modulo 2**64."""
    bits = value % UINT64_END
    return bits if dtype_kind == "u" or bits < INT64_END else bits - UINT64_END


def same_float(got: float, expected: float) -> bool:
    if expected != expected:
        return got != got
    return got == expected and (expected != 0.0 or math.copysign(1.0, got) == math.copysign(1.0, expected))


def same_value(got: Any, expected: Any) -> bool:
    """A model's result ``got`` is CPython's ``expected``: the same value of the same kind (int
    and bool count as one), or an int where CPython's float is that int converted (the core
    folds a ``float()`` of the source into a value it holds as float64)."""
    if got is None:
        return False
    if type(expected) is float:
        if type(got) in (int, bool):
            try:
                got = float(got)
            except OverflowError:
                return False
        return type(got) is float and same_float(got, expected)
    return type(got) is not float and got == expected


def agree(got: Any, dtype_kind: str, expected: Any, float_result: bool = False) -> bool:
    """The vectorized element ``got`` (a Python scalar from an array of NumPy dtype kind
    ``dtype_kind``) stands for CPython's ``expected`` (module docstring)."""
    te = type(expected)
    if dtype_kind == "b":
        return te is bool and got == expected
    if te is float:
        return dtype_kind == "f" and same_float(got, expected)
    if dtype_kind in "iu":
        return got == wrap(int(expected), dtype_kind)
    if dtype_kind == "f":
        # An int (or bool) held in a float64 result: only where the core says the result is
        # float, as the float it converts to (rounded beyond 2**53, item 8), compared exactly.
        if not (float_result or te is bool):
            return False
        try:
            held = float(expected)
        except OverflowError:
            return False
        return same_float(got, held)
    return False


def ulp_distance(a: float, b: float) -> int:
    """How many doubles lie between finite ``a`` and ``b``."""
    ia = int(np.float64(a).view(np.int64))
    ib = int(np.float64(b).view(np.int64))
    if ia < 0:
        ia = -(ia & 0x7FFFFFFFFFFFFFFF)
    if ib < 0:
        ib = -(ib & 0x7FFFFFFFFFFFFFFF)
    return abs(ia - ib)


def close(got: Any, dtype_kind: str, expected: Any, ulps: int, float_result: bool = False) -> bool:
    """``agree``, or both finite floats within ``ulps`` (item 9: the array library's
    transcendental functions)."""
    if agree(got, dtype_kind, expected, float_result):
        return True
    if ulps == 0 or dtype_kind != "f" or type(expected) is not float:
        return False
    return math.isfinite(got) and math.isfinite(expected) and ulp_distance(got, expected) <= ulps



def special_close(got: Any, dtype_kind: str, expected: Any, key: str) -> bool:
    """``agree``, or a finite float within the ulp bound docs/semantics.md documents for the
    inexact D17 function ``key`` (``special.ULP_BOUNDS``; ``lgamma`` counts ulps of
    ``max(|result|, 1)``), and no wider."""
    if agree(got, dtype_kind, expected):
        return True
    if dtype_kind != "f" or type(expected) is not float or not (math.isfinite(got) and math.isfinite(expected)):
        return False
    from array_vectorize.runtime.special import ULP_BOUNDS

    bound = ULP_BOUNDS[key]
    if key == "lgamma":
        return abs(got - expected) <= bound * math.ulp(max(abs(expected), 1.0))
    return ulp_distance(got, expected) <= bound


_FLOAT_TOKEN = re.compile(r"(-?(?:\d+\.\d*(?:e[-+]\d+)?|\d+e[-+]\d+|inf|nan))")


def _close_text(got: str, expected: str, ulps: int) -> bool:
    """Two messages equal but for floats within ``ulps`` (item 9's values, formatted)."""
    a, b = _FLOAT_TOKEN.split(got), _FLOAT_TOKEN.split(expected)
    if len(a) != len(b):
        return False
    for i, (x, y) in enumerate(zip(a, b)):
        if i % 2 == 0 or x == y:
            if x != y:
                return False
            continue
        fx, fy = float(x), float(y)
        if not (math.isfinite(fx) and math.isfinite(fy) and ulp_distance(fx, fy) <= ulps):
            return False
    return True


def _class_key(cls: type) -> List[tuple]:
    """A class as the names along its MRO: a builtin by its module and name, a class of the
    program by its qualified name (the oracle and the vectorized function each run their own
    copy of the program's module, so its classes are two objects of the same names)."""
    return [(c.__module__ if c.__module__ == "builtins" else "", c.__qualname__) for c in cls.__mro__]


def same_class(got: type, expected: type) -> bool:
    """The same exception class: the same object, or the same names along the MRO (a subclass
    is not its base, nor a base its subclass)."""
    return got is expected or _class_key(got) == _class_key(expected)


def same_exception(got: BaseException, expected: BaseException, ints_as_floats: bool = False, ulps: int = 0) -> bool:
    """The vectorized call raised CPython's exception: the same class (``same_class``) and the same args (a float
    arg compared as a value, NaN equal to NaN). ``ints_as_floats`` (item 37): an int of CPython's
    may stand as the float it converts to, in an arg or formatted in a message (``0`` as
    ``0.0``). ``ulps`` (item 9, where the model finds transcendental functions on the way): a
    float arg, or one formatted in a message, within that many ulps."""
    if not same_class(type(got), type(expected)) or len(got.args) != len(expected.args):
        return False
    for a, b in zip(got.args, expected.args):
        if ints_as_floats and type(b) is bool and isinstance(a, (int, float)) and not isinstance(a, bool):
            b = type(a)(b)  # a bool held as a number (item 37)
        if ints_as_floats and type(b) is int and isinstance(a, float):
            b = float(b)
        if ulps and isinstance(a, str) and isinstance(b, str) and _close_text(a, b, ulps):
            continue
        if isinstance(b, float) and isinstance(a, float):
            if not (same_float(a, b) or ulps and close(a, "f", b, ulps)):
                return False
        elif ints_as_floats and isinstance(a, str) and isinstance(b, str):
            pattern = "".join(
                f"(?:{re.escape(piece)}(?:\\.0)?|{re.escape(repr(float(int(piece))))})" if piece.isdigit()
                else f"(?:{piece}|{int(piece == 'True')}(?:\\.0)?)" if piece in ("True", "False")
                else re.escape(piece)
                for piece in re.split(r"(?<![\w.])(\d+|True|False)(?![\w.])", b)
            )
            if re.fullmatch(pattern, a) is None:
                return False
        elif type(a) is not type(b) or a != b:
            return False
    return True
