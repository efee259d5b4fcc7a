"""CPython as the oracle, element by element, under the documented divergences only
(docs/semantics.md).

``Evaluator(source, path, entry)`` runs an instrumented copy of the program: every arithmetic
operation, unary operation and call passes its result through ``_chk``, which notes integers a
64-bit array cannot hold and complex results. Per element, ``run(args)`` gives

* ``Ok(value, wide, big53, ieee)``; ``wide`` when some integer on the way lies outside int64
  (in [2**63, 2**64) or below -2**63): whether it wraps depends on the dtype the uint64 lattice
  picks for the whole array (items 6, 13), so a difference there is re-checked on that element
  alone (``check.py``);
* ``Skip("overflow")``: some integer on the way lies outside [-2**63, 2**64): it wraps (item 6);
* ``Skip("d3")``: CPython raises ``ArithmeticError``/``ValueError`` or produces a complex number;
  ``run(args, ieee=True)`` then computes the IEEE value the vectorized code must give instead
  (items 1-5, 7, 16): ``x / 0`` is ``±inf``/nan, ``int // 0`` and ``int % 0`` are 0, ``x % 0.0``
  is nan, domain errors and overflows give NumPy's value, ``int()``/``round()``/``floor()`` of nan
  give 0 and saturate beyond int64;
* ``Invalid(exc)``: any other exception: the program is not well-formed (a fuzzer bug).

Alternative semantics for a second look at a differing element (``check._second_look``):

* ``shim=True``: transcendental functions and float powers are NumPy's array implementations
  (item 9: last-bit differences, which can flip a later comparison or ``floor``), and ``x ** 0.5``
  is ``sqrt`` (item 10); a power with a Python-scalar exponent takes NumPy's scalar-exponent
  fast paths (``x ** 2.0`` a square, ``x ** -1.0`` a reciprocal); ``shim="loop"`` likewise,
  except that a power whose exponent may be an array (it reads a local other than a loop
  index) takes NumPy's ``pow`` loop, which is not correctly rounded (``0.1 ** array([2.0])``
  is ``0.01``); ``math.pow`` is the compiler's ``xp.pow`` (a constant exponent on a 0-d array),
  so the same paths apply (``_make_mpow``);
* ``r53=...``: ints held in float64 arrays where values of mixed kinds merge (item 8): ``merge``
  rounds ints beyond 2**53 at ternaries, ``and``/``or``, ``min``/``max``, assignments under ``if``
  and returns; ``all`` everywhere; ``mergek`` evaluates the untaken alternatives of ternaries and
  ``and``/``or`` eagerly (D1) and gives the result the widest kind among them; ``mergekf`` adds
  floats at assignments under ``if``; ``mergephi`` converts every variable an ``if`` or a loop
  assigns after the ``if`` and around the loop (phis of mixed kinds); ``mergeif`` only after the
  ``if`` (the exact body's loop variable keeps its initial value's dtype until a merge converts
  it); ``mergeeager`` runs the untaken side of an ``if`` too and gives each variable it assigns the
widest kind of the two sides; ``mergef`` converts ints at every merge. A later operation then follows float rules
  (``-0`` is ``-0.0``, ``x // 0`` is the IEEE quotient). In these kind modes a constant tuple with
  a float item is read as floats (``T[i]`` with ``i`` a variable, ``for c in T``): its items are one kind in the
  vectorized code, the loop variable's kind changes across iterations otherwise.

``agree(got, dtype_kind, expected)`` is the per-element comparison: same value (NaN equals NaN,
the sign of a float zero matters), and a result dtype that can hold CPython's kind: a bool needs a
bool array unless other paths return numbers (then 0/1 in an int or float array); an int needs an
integer array, or float64 when other paths return floats (compared by value).
"""

from __future__ import annotations

import ast
import copy
import math
import types
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

INT64_MIN = -(1 << 63)
INT64_END = 1 << 63
UINT64_END = 1 << 64

#: math functions whose NumPy implementation may differ from the C library's in the last bits.
SHIM_MATH = {
    "exp": np.exp, "expm1": np.expm1, "log1p": np.log1p, "log2": np.log2, "log10": np.log10,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "atan2": np.arctan2, "hypot": np.hypot, "pow": np.power,
}


@dataclass
class Ok:
    value: Any
    wide: bool
    big53: bool = False  # some int beyond 2**53 in magnitude on the way (see ``_r53``)
    ieee: bool = False  # CPython raised (D3): the value is the IEEE one (``Evaluator.run(ieee=True)``)


@dataclass
class Skip:
    reason: str
    detail: str = ""


@dataclass
class Invalid:
    error: BaseException


class _Complex(Exception):
    pass


class _Huge(Exception):
    """An integer beyond 64 bits: the element is skipped, so evaluation stops right there (an
    unbounded ``int ** int`` could otherwise run for ever)."""


class _Flags:
    __slots__ = ("wide", "huge", "big53", "wrap", "wrap64", "nanflip")

    def __init__(self) -> None:
        self.wide = False
        self.huge = False
        self.big53 = False
        # On an untaken side (D1) an int beyond 64 bits wraps as the vectorized code's does
        # (item 6): the side still runs on, and its kinds still merge.
        self.wrap = False
        # ``run(wrap64=True)``: an int in [2**63, 2**64) wraps to int64 (items 6, 13: the
        # lattice picks int64 for the whole array), e.g. abs(-2**63) of an int held as float64.
        self.wrap64 = False
        # ``run(nanflip=True)``: ``copysign`` reads the other sign of a NaN (item 18: which NaN
        # an operation on NaNs gives, and so its sign, is the library's).
        self.nanflip = False


def _make_chk(flags: _Flags, round_all: bool = False) -> Callable[[Any], Any]:
    def _chk(v: Any) -> Any:
        t = type(v)
        if t is int:
            if not -TWO_53 <= v <= TWO_53:
                flags.big53 = True
                if round_all and INT64_MIN <= v < UINT64_END:
                    return float(v)
            if not INT64_MIN <= v < INT64_END:
                if INT64_MIN <= v < UINT64_END:
                    flags.wide = True
                    if flags.wrap64:
                        return v - UINT64_END
                elif flags.wrap:
                    return (v - INT64_MIN) % UINT64_END + INT64_MIN
                else:
                    flags.huge = True
                    raise _Huge()
        elif t is complex:
            raise _Complex()
        return v

    return _chk


def _np_call(npf: Any, *args: Any) -> float:
    # One-element arrays: NumPy's array loops (SIMD on AVX-512) may round differently from its
    # scalar paths, and the vectorized code works on arrays.
    with np.errstate(all="ignore"):
        return float(npf(*[np.array([float(a)]) for a in args])[0])


def _shim_fn(name: str) -> Callable[..., float]:
    real = getattr(math, name)
    npf = SHIM_MATH[name]

    def fn(*args: Any) -> float:
        real(*args)  # CPython's exceptions
        return _np_call(npf, *args)

    fn.__name__ = name
    return fn


def _shim_log(*args: Any) -> float:
    math.log(*args)
    with np.errstate(all="ignore"):
        x = np.log(np.float64(float(args[0])))
        if len(args) == 1:
            return float(x)
        return float(x / np.log(np.float64(float(args[1]))))


def _ipow(a: Any, b: Any) -> Any:
    """``a ** b``, except that an integer power beyond 64 bits is not computed."""
    if type(a) in (int, bool) and type(b) in (int, bool) and b >= 64 and abs(a) >= 2:
        raise _Huge()
    return a ** b


def _fpow_half(a: Any) -> Any:
    """``a ** 0.5`` as NumPy's ``**`` computes it: ``sqrt`` (docs/semantics.md item 10)."""
    r = _ipow(a, 0.5)
    if type(r) is complex:
        raise _Complex()
    return _np_call(np.sqrt, a)


def _fpow(a: Any, b: Any) -> Any:
    """``a ** b`` as NumPy's ``**`` computes it for a float array and a scalar exponent: its
    fast paths (``x ** -1`` is a correctly rounded reciprocal, ``x ** 2`` a square) may differ
    from the C library's ``pow`` in the last bit (item 9). Other exponents give ``pow``, as
    with an array exponent (which CPython's own ``pow`` covers)."""
    r = _ipow(a, b)
    if type(r) is complex:
        raise _Complex()
    if type(r) is float:
        return _np_pow(a, b)
    return r


def _make_mpow(ieee: bool, loop: bool) -> Callable[[Any, Any], float]:
    """``math.pow(a, b)`` as NumPy computes it (item 9): the compiler emits ``xp.pow`` with a
    0-d exponent for a scalar one, so NumPy's scalar-exponent fast paths apply (``0.5`` is
    ``sqrt``, item 10), or with ``loop`` its ``pow`` loop. Without ``ieee``, CPython's
    exceptions first."""

    def _mpow(a: Any, b: Any) -> float:
        if not ieee:
            math.pow(a, b)
        return _np_call(np.power, a, b) if loop else _np_pow(a, b)

    return _mpow


def _np_pow(a: Any, b: Any) -> float:
    with np.errstate(all="ignore"):
        return float((np.array([float(a)]) ** b)[0])


def _fpow_loop(a: Any, b: Any) -> Any:
    """``a ** b`` as NumPy computes it with an array exponent: its ``pow`` loop (AVX-512 on this
    kind of machine, not correctly rounded: ``0.1 ** array([2.0])`` is ``0.01``, one ulp below
    the C library's ``pow``), never the scalar-exponent fast paths of ``_fpow`` (item 9)."""
    r = _ipow(a, b)
    if type(r) is complex:
        raise _Complex()
    if type(r) is float:
        return _np_call(np.power, a, b)
    return r


def _shim_math() -> types.SimpleNamespace:
    ns = types.SimpleNamespace(**{k: v for k, v in vars(math).items() if not k.startswith("_")})
    for name in SHIM_MATH:
        setattr(ns, name, _shim_fn(name))
    ns.log = _shim_log
    return ns


SHIM = _shim_math()

# ---------------------------------------------------------------- D3: IEEE values instead of errors

#: NumPy's version of every math function that can raise (its value where CPython raises).
NUMPY_MATH = {
    **SHIM_MATH, "sqrt": np.sqrt, "fabs": np.abs, "copysign": np.copysign, "degrees": np.degrees, "radians": np.radians,
}
INT64_MAX = (1 << 63) - 1
NAN = float("nan")


def _saturate(x: float, exact: Callable[[float], int]) -> int:
    """``int(x)``-like conversions of a float as the vectorized code does them (docs/semantics.md
    item 7): nan gives 0, values beyond int64 saturate."""
    if x != x:
        return 0
    if x >= 9.223372036854775807e18:
        return INT64_MAX
    if x < -9.223372036854775807e18:
        return INT64_MIN
    return exact(x)


def _i_int(x: Any) -> Any:
    return _saturate(x, int) if type(x) is float else int(x)


def _i_round(x: Any) -> Any:
    return _saturate(x, round) if type(x) is float else round(x)


def _i_div(a: Any, b: Any) -> Any:
    try:
        return a / b
    except ZeroDivisionError:
        return _np_call(np.divide, a, b)


def _both_int(a: Any, b: Any) -> bool:
    return type(a) in (int, bool) and type(b) in (int, bool)


def _i_fdiv(a: Any, b: Any) -> Any:
    try:
        return a // b
    except ZeroDivisionError:
        return 0 if _both_int(a, b) else _np_call(np.floor_divide, a, b)


def _i_mod(a: Any, b: Any) -> Any:
    try:
        return a % b
    except ZeroDivisionError:  # NumPy's nan (its sign bit shows through math.copysign)
        return 0 if _both_int(a, b) else _np_call(np.remainder, a, b)


def _make_i_pow(shim: Any, loop: bool = False) -> Callable[[Any, Any], Any]:
    """The IEEE ``a ** b``; with ``shim``, NumPy's value for a float result: its scalar-exponent
    fast paths, or with ``loop`` its array-exponent loop (``_fpow_loop``)."""

    def _i_pow(a: Any, b: Any) -> Any:
        try:
            r = _ipow(a, b)
        except (ZeroDivisionError, OverflowError):
            return _np_call(np.power, a, b)
        if type(r) is complex:
            return _np_call(np.power, a, b)
        if shim and type(r) is float:
            return _np_call(np.power, a, b) if loop else _np_pow(a, b)
        return r

    return _i_pow


def _i_fpow_half(a: Any) -> Any:
    return _np_call(np.sqrt, a)


def _ieee_math(shim: bool) -> types.SimpleNamespace:
    """``math`` whose functions give NumPy's value where CPython raises (and everywhere, for the
    transcendental ones, with ``shim``)."""
    ns = types.SimpleNamespace(**{k: v for k, v in vars(math).items() if not k.startswith("_")})

    def wrap(name: str) -> Callable[..., Any]:
        real, npf = getattr(math, name), NUMPY_MATH[name]
        if shim and name in SHIM_MATH:
            return lambda *args: _np_call(npf, *args)

        def fn(*args: Any) -> Any:
            try:
                return real(*args)
            except (ValueError, OverflowError, ZeroDivisionError):
                return _np_call(npf, *args)

        return fn

    for name in NUMPY_MATH:
        setattr(ns, name, wrap(name))

    def log(*args: Any) -> float:
        if not shim:
            try:
                return math.log(*args)
            except (ValueError, ZeroDivisionError):
                pass
        with np.errstate(all="ignore"):
            x = np.log(np.array([float(args[0])]))
            if len(args) == 2:
                x = x / np.log(np.array([float(args[1])]))
            return float(x[0])

    ns.log = log
    for name, exact in (("floor", math.floor), ("ceil", math.ceil), ("trunc", math.trunc)):
        setattr(ns, name, (lambda exact: lambda x: _saturate(x, exact) if type(x) is float else exact(x))(exact))
    return ns


IEEE_MATH = {False: _ieee_math(False), True: _ieee_math(True)}


TWO_53 = 1 << 53


def _r53(v: Any) -> Any:
    """An int beyond 2**53 in magnitude as the nearest float (a mixed-kind merge, select.py)."""
    if type(v) is int and not -TWO_53 <= v <= TWO_53:
        return float(v)
    if type(v) is tuple:  # a helper's several results: each position merges on its own (D13)
        return tuple(_r53(x) for x in v)
    return v


def _rfb(v: Any) -> Any:
    """An int or bool held in a float64 array."""
    if type(v) in (int, bool) and INT64_MIN <= v < UINT64_END:
        return float(v)
    return v


def _rf(v: Any) -> Any:
    """Any int or bool as a float: a merge with a float array holds it as float64."""
    if type(v) in (int, bool) and INT64_MIN <= v < UINT64_END:
        return float(v)
    if type(v) is tuple:  # a helper's several results: each position merges on its own (D13)
        return tuple(_rf(x) for x in v)
    return v


def _rtup(t: Any) -> Any:
    """A constant tuple as the vectorized code holds it: with a float item, every int and bool
    item as a float (docs/semantics.md item 8)."""
    if type(t) is tuple and any(type(x) is float for x in t):
        return tuple(float(x) if type(x) in (int, bool) and INT64_MIN <= x < UINT64_END else x for x in t)
    return t


#: ``r53`` modes that model where values of mixed kinds are held as float64.
KIND_MODES = ("mergek", "mergekf", "mergef", "mergephi", "mergeif", "mergeeager")


def _widest(values: List[Any], chosen: Any) -> Any:
    """``chosen`` in the kind an array holding every value of ``values`` would have."""
    kinds = {type(v) for v in values}
    if float in kinds and type(chosen) in (int, bool):
        return float(chosen)
    if int in kinds and type(chosen) is bool:
        return int(chosen)
    return chosen


def _eager(thunk: Callable[[], Any]) -> List[Any]:
    """The value of an alternative CPython does not take, if it has one (D1 evaluates it too)."""
    try:
        return [thunk()]
    except Exception:  # noqa: BLE001 - D3 errors, overflow: no value, no kind
        return []


def _make_kind_merges(flags: "_Flags") -> Dict[str, Callable[..., Any]]:
    def untaken(thunk: Callable[[], Any]) -> List[Any]:
        saved = (flags.wide, flags.huge, flags.big53, flags.wrap)
        flags.wrap = True
        try:
            return _eager(thunk)
        finally:
            flags.wide, flags.huge, flags.big53, flags.wrap = saved

    def _kifexp(test: Callable[[], Any], body: Callable[[], Any], orelse: Callable[[], Any]) -> Any:
        if test():
            chosen = body()
            return _widest([chosen] + untaken(orelse), chosen)
        chosen = orelse()
        return _widest([chosen] + untaken(body), chosen)

    def _kboolop(is_and: bool, *thunks: Callable[[], Any]) -> Any:
        values = []
        chosen = None
        for i, thunk in enumerate(thunks):
            chosen = thunk()
            values.append(chosen)
            if (not chosen) if is_and else chosen:
                for rest in thunks[i + 1:]:
                    values.extend(untaken(rest))
                break
        return _widest(values, chosen)

    def _kminmax(fn: Callable[..., Any], *args: Any) -> Any:
        return _widest(list(args), fn(*args))

    def _eager_alt(fn: Callable[..., Any], loc: Dict[str, Any]) -> Dict[str, Any]:
        """The variables the untaken side of an ``if`` assigns, run on the current values (D1)."""
        names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
        out = untaken(lambda: fn(**{k: v for k, v in loc.items() if k in names}))
        return out[0] if out else {}

    def _alt_vars(loc: Dict[str, Any], names: Tuple[str, ...]) -> Dict[str, Any]:
        return {n: loc[n] for n in names if n in loc}

    def _wid(current: Any, alt: Dict[str, Any], name: str) -> Any:
        if name in alt and alt[name] is not _UNSET:
            return _widest([current, alt[name]], current)
        return current

    return {"_kifexp": _kifexp, "_kboolop": _kboolop, "_kminmax": _kminmax, "_eager_alt": _eager_alt, "_alt_vars": _alt_vars, "_wid": _wid, "_UNSET": _UNSET}


_UNSET = object()


def _is_half(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is float and node.value == 0.5


#: Calls the compiler evaluates when their arguments are constants.
_FOLDED_CALLS = frozenset({"bool", "int", "float", "abs", "min", "max"})


def _known_truth(test: ast.expr, local: set, module: Dict[str, Any]) -> Optional[bool]:
    """The truth of a test the compiler folds whatever the variables hold: an expression of
    module constants that evaluates without error, or ``or``/``and`` with such an operand that
    decides it (``x or True``)."""
    if isinstance(test, ast.BoolOp):
        decisive = isinstance(test.op, ast.Or)
        truths = [_known_truth(v, local, module) for v in test.values]
        if decisive in truths:
            return decisive
        if all(t is not None for t in truths):
            return not decisive
        return None
    if any(isinstance(n, ast.Name) and n.id in local for n in ast.walk(test)):
        return None
    # The compiler folds operators and these builtins on constants, not math functions
    # (`1 <= math.hypot(0, 0)` is a test decided at run time, and its branches merge).
    if any(
        isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _FOLDED_CALLS)
        for n in ast.walk(test)
    ):
        return None
    # Powers through ``_ipow``: ``3 ** 9223372036854775807`` would run for ever (it is beyond
    # 64 bits: not a test decided in Python, item 17).
    guarded = _GuardPow().visit(copy.deepcopy(test))
    ast.fix_missing_locations(guarded)
    try:
        with np.errstate(all="ignore"):
            return bool(eval(compile(ast.Expression(guarded), "<test>", "eval"), {**module, "_ipow": _ipow, "pow": module.get("pow", _ipow)}))  # noqa: S307
    except Exception:  # noqa: BLE001 - raises in CPython: D3 computes it on a 0-d array
        return None


class _GuardPow(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.Call(func=ast.Name("_ipow", ast.Load()), args=[node.left, node.right], keywords=[])
        return node


def _is_copysign(func: ast.expr) -> bool:
    """``math.copysign`` or a bare ``copysign`` (the fuzzer imports it only from math)."""
    return (isinstance(func, ast.Attribute) and func.attr == "copysign") or (
        isinstance(func, ast.Name) and func.id == "copysign"
    )


def _make_copysign(flags: "_Flags") -> Callable[..., Any]:
    def _copysign(fn: Callable[..., Any], x: Any, y: Any) -> Any:
        r = fn(x, y)
        if flags.nanflip and isinstance(y, float) and y != y:
            return -r
        return r

    return _copysign


def _live_part(block: List[ast.stmt]) -> List[ast.stmt]:
    """What of an untaken side's block reaches the merge after it: nothing of a block that
    returns (its lanes are done, and the vectorized code merges no value of theirs), and of the
    other blocks, their ``if`` and loop bodies recursively so."""
    if any(isinstance(stmt, ast.Return) for stmt in block):
        return [ast.Pass()]
    out = []
    for stmt in block:
        if isinstance(stmt, (ast.If, ast.For)):
            stmt.body = _live_part(stmt.body)
            stmt.orelse = _live_part(stmt.orelse) if stmt.orelse else []
        out.append(stmt)
    return out


#: Builtins a program may call (``_Instrument._scalar_exponent``).
_BUILTIN_CALLS = frozenset({"abs", "min", "max", "float", "int", "round", "bool", "pow"})


class _Instrument(ast.NodeTransformer):
    """``_chk`` around every operation; ``shim``: NumPy's transcendental functions and float
    powers; ``r53``: ``"merge"`` rounds ints beyond 2**53 to floats where values merge (ternaries,
    ``and``/``or``, ``min``/``max``, assignments under ``if``, returns), ``"all"`` everywhere."""

    def __init__(self, shim: bool, r53: str = "", ieee: bool = False, module: Optional[Dict[str, Any]] = None) -> None:
        self.shim = shim
        self.module = module or {}  # the program's module constants and imports
        self.r53 = r53
        self.ieee = ieee
        self.in_if = 0
        self.eager = 0  # ``_eager_if`` functions made so far
        self.locals: List[set] = []  # local names of the functions being visited
        # Per function being visited: loop indices read after their loop, with their last value
        # (``_note_loop_index``), and the function itself.
        self.known: List[Dict[str, int]] = []
        self.functions: List[Optional[ast.AST]] = []
        self.scalar_names: set = set()  # ``shim="loop"``: see ``_scalar_exponent``

    def _binop(self, left: ast.expr, op: ast.operator, right: ast.expr) -> ast.expr:
        """``left op right`` checked by ``_chk``, through the helper of the mode for ``/ // % **``."""
        name = None
        if isinstance(op, ast.Pow):
            if self.shim and _is_half(right):
                return self._wrap(ast.Call(func=ast.Name("_i_fpow_half" if self.ieee else "_fpow_half", ast.Load()), args=[left], keywords=[]))
            name = "_i_pow" if self.ieee else ("_fpow" if self.shim else "_ipow")
            if self.shim == "loop" and not self._scalar_exponent(right):
                name += "_loop"
        elif self.ieee and isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)):
            name = {ast.Div: "_i_div", ast.FloorDiv: "_i_fdiv", ast.Mod: "_i_mod"}[type(op)]
        if name is None:
            return self._wrap(ast.BinOp(left, op, right))
        return self._wrap(ast.Call(func=ast.Name(name, ast.Load()), args=[left, right], keywords=[]))

    def _scalar_exponent(self, node: ast.expr) -> bool:
        """``shim="loop"``: whether an exponent is a Python scalar (or 0-d array) in the
        vectorized code, so that NumPy takes its scalar-exponent fast paths (``_fpow``); any
        other exponent is taken for an array, whose ``pow`` loop gives ``_fpow_loop``. Scalars:
        literals, module constants, ``range`` loop indices, ``for`` items of a constant tuple,
        and operations on those."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id not in self.scalar_names and (
                n.id in (self.locals[-1] if self.locals else set()) or n.id not in self.module and n.id not in _BUILTIN_CALLS
            ):
                return False
            if isinstance(n, (ast.NamedExpr, ast.Lambda, ast.IfExp, ast.BoolOp, ast.Compare)):
                return False
        return True

    def _is_math_pow(self, func: ast.expr) -> bool:
        if isinstance(func, ast.Attribute):
            return func.attr == "pow" and isinstance(func.value, ast.Name) and self.module.get(func.value.id) is math
        local = self.locals[-1] if self.locals else set()
        return isinstance(func, ast.Name) and func.id not in local and self.module.get(func.id) is math.pow

    @staticmethod
    def _call(name: str, node: ast.expr) -> ast.expr:
        return ast.Call(func=ast.Name(name, ast.Load()), args=[node], keywords=[])

    def _wrap(self, node: ast.expr) -> ast.expr:
        return self._call("_chk", node)

    def _merge(self, node: ast.expr, statement: bool = False) -> ast.expr:
        """A merge point: an expression merge (ternary, and/or, min/max) or, with ``statement``,
        an assignment under ``if`` or a return."""
        mode = self.r53
        if mode == "merge":
            return self._call("_r53", node)
        if mode == "mergef" or (mode == "mergekf" and statement):
            return self._call("_rf", node)
        return node

    def _kind_merge(self, name: str, thunks: List[ast.expr], extra: List[ast.expr]) -> ast.expr:
        """``_kmerge``-style call: every alternative as a thunk, evaluated eagerly like the
        vectorized code does, so the result takes the widest kind among them."""
        lambdas = [ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=t) for t in thunks]
        return ast.Call(func=ast.Name(name, ast.Load()), args=extra + lambdas, keywords=[])

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        return self._binop(node.left, node.op, node.right)

    def visit_Constant(self, node: ast.Constant) -> ast.expr:
        # An int literal outside int64 is a value on the way like an operation's result: where
        # it merges with int64 values, the lattice picks the dtype for the whole array (item 13).
        if type(node.value) is int and not INT64_MIN <= node.value < INT64_END:
            return self._wrap(node)
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        return self._wrap(node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        folded = self._folded(node)  # before the operands are instrumented
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            return node
        if self.shim and self._is_math_pow(node.func) and len(node.args) == 2 and not node.keywords:
            loop = self.shim == "loop" and not self._scalar_exponent(node.args[1])
            name = ("_i_mpow" if self.ieee else "_mpow") + ("_loop" if loop else "")
            return self._wrap(ast.Call(func=ast.Name(name, ast.Load()), args=node.args, keywords=[]))
        if self.shim and isinstance(node.func, ast.Name) and node.func.id == "pow" and len(node.args) == 2 and (
            _is_half(node.args[1]) or self.shim == "loop"
        ):
            return self._binop(node.args[0], ast.Pow(), node.args[1])
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            if folded:
                return self._wrap(node)
            if self.r53 in ("mergek", "mergekf", "mergeeager"):
                return self._wrap(ast.Call(func=ast.Name("_kminmax", ast.Load()), args=[node.func] + node.args, keywords=[]))
            return self._merge(self._wrap(node))
        if _is_copysign(node.func) and len(node.args) == 2 and not node.keywords:
            return self._wrap(ast.Call(func=ast.Name("_copysign", ast.Load()), args=[node.func] + node.args, keywords=[]))
        return self._wrap(node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        folded = self._folded(node.test)  # the compiler picks a side: nothing merges
        self.generic_visit(node)
        if folded:
            return node
        if self.r53 in ("mergek", "mergekf", "mergephi", "mergeeager"):
            return self._kind_merge("_kifexp", [node.test, node.body, node.orelse], [])
        return self._merge(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        folded = self._folded(node)
        self.generic_visit(node)
        if folded:
            return node
        if self.r53 in ("mergek", "mergekf", "mergephi", "mergeeager"):
            return self._kind_merge("_kboolop", list(node.values), [ast.Constant(isinstance(node.op, ast.And))])
        return self._merge(node)

    def visit_If(self, node: ast.If) -> Any:
        # Before the sides are transformed: the functions `_eager_if` adds to a nested `if`
        # return, but the program's own statements are what matters here.
        exits = any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(node))
        python_level = self._python_level(node.test)
        node.test = self.visit(node.test)
        self.in_if += 1
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        self.in_if -= 1
        if self.r53 in ("mergephi", "mergeif"):
            return [node] + self._as_floats(node)
        if self.r53 == "mergeeager" and not exits and not python_level:
            return self._eager_if(node)
        return node

    def _runtime_locals(self) -> set:
        """The local names whose value the compiler does not know (all but ``self.known``)."""
        if not self.locals:
            return set()
        return self.locals[-1] - self.known[-1].keys()

    def _constants(self) -> Dict[str, Any]:
        """Module constants and the loop indices the compiler knows after their loop."""
        return {**self.module, **self.known[-1]} if self.known else self.module

    def visit(self, node: ast.AST) -> Any:
        """Tracks the constants the compiler knows through a function's own statements, in order:
        a statement that stores a name makes it unknown, and ``name = <what the compiler folds>``
        directly in the function's body makes it known after it (the compiler folds what reads
        it; seed 13026, program 90: ``p2 = -K0`` then ``max(p2, 1)`` is the int 1), as does
        its loop index after a loop (``_note_loop_index``)."""
        func = self.functions[-1] if self.functions else None
        if func is None or not isinstance(node, ast.stmt) or not any(stmt is node for stmt in func.body):
            return super().visit(node)
        known = self.known[-1]
        # Of an array `if`, only the blocks that do not return reach the statements after it
        # (the compiler merges nothing of a block done on all its lanes). A Python-level `if`
        # merges its two sides whatever they do.
        reaching = node
        if isinstance(node, ast.If) and not self._python_level(node.test):
            reaching = ast.If(node.test, _live_part(copy.deepcopy(node.body)), _live_part(copy.deepcopy(node.orelse)))
        for n in ast.walk(reaching):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                known.pop(n.id, None)
        literal = self._known_value(node.value) if isinstance(node, ast.Assign) else None
        out = super().visit(node)
        if literal is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            known[node.targets[0].id] = literal
        elif isinstance(node, ast.For):
            self._note_loop_index(func, node)
        return out

    def _known_value(self, node: ast.expr) -> Optional[Any]:
        """The value of an expression the compiler folds (``_folded``: literals, module constants,
        known locals, operations that cannot fail, ``min``/``max``/``abs``/``float``/``bool``),
        when it is an int within int64, a float or a bool; else None."""
        if not self._folded(node):
            return None
        expr = ast.Expression(copy.deepcopy(node))
        ast.fix_missing_locations(expr)
        try:
            value = eval(compile(expr, "<known>", "eval"), dict(self._constants()))  # noqa: S307
        except Exception:  # noqa: BLE001 - not a value the compiler folds either
            return None
        if type(value) not in (int, float, bool) or type(value) is int and not INT64_MIN <= value < INT64_END:
            return None
        return value

    def _note_loop_index(self, func: ast.AST, node: ast.For) -> None:
        """After a loop over ``range`` of constants that runs at least once, directly in the
        body of `func` (``visit``), its index (bound nowhere else) holds the last value, which
        the compiler knows: a test on it is folded and merges nothing (seed 11009, program 1914)."""
        target, it = node.target, node.iter
        if (
            not isinstance(target, ast.Name)
            or not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range")
            or it.keywords
        ):
            return
        args = []
        for a in it.args:
            value = self.module.get(a.id, None) if isinstance(a, ast.Name) else None
            if isinstance(a, ast.Constant):
                value = a.value
            elif isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) and isinstance(a.operand, ast.Constant):
                value = -a.operand.value if type(a.operand.value) is int else None
            if type(value) is not int:
                return
            args.append(value)
        try:
            values = range(*args)
        except (TypeError, ValueError):
            return
        stores = [n for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == target.id]
        if len(values) and len(stores) == 1:
            self.known[-1][target.id] = values[-1]

    def _folded(self, expr: ast.expr) -> bool:
        """Whether the compiler computes ``expr`` in Python, exactly: it reads no local name and
        has no operation that could fail (those run on 0-d arrays, D3) and no call other than
        ``min``/``max``/``abs``/``float``/``bool`` (a math function runs on a 0-d array). A
        ``min``/``max``, ``and``/``or`` of such operands, or a ternary with such a test, keeps
        the kind of the value it picks: nothing merges (item 8 is about arrays)."""
        local = self._runtime_locals()
        for n in ast.walk(expr):
            if isinstance(n, ast.Name) and n.id in local:
                return False
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)):
                return False
            if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in ("min", "max", "abs", "float", "bool")):
                return False
        return True

    def _python_level(self, test: ast.expr) -> bool:
        """Whether the compiler decides this test in Python (a constant it folds, or one it
        computes on scalars): it reads no local name and has no operation that could fail on a
        scalar (those run on 0-d arrays, D3, so the ``if`` is an array ``if``). Such an ``if``
        runs one side only, and nothing merges."""
        local = self._runtime_locals()
        if _known_truth(test, local, self._constants()) is not None:
            return True
        for n in ast.walk(test):
            if isinstance(n, ast.Name) and n.id in local:
                return False
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)):
                return False
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("int", "round", "pow"):
                return False
        return True

    def _eager_if(self, node: ast.If) -> Any:
        """``mergeeager``: the vectorized code runs both sides of an ``if`` (D1) and merges each
        variable they assign into one array: an int on the taken side becomes a float where the
        other side gives a float there (docs/semantics.md item 8). The untaken side runs on a copy
        of the variables (a nested function), and each assigned variable takes the widest kind.
        Of the untaken side, blocks that return do not merge (``_live_part``). Not for an ``if``
        that leaves a loop (its caller checks)."""
        names = sorted({
            n.id for side in (node.body, node.orelse) for stmt in side for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and not n.id.startswith("_")
        })
        if not names:
            return node
        self.eager += 1
        tag = self.eager
        local = self.locals[-1] if self.locals else set()
        out: List[ast.stmt] = []

        def alt(side: List[ast.stmt], fname: str) -> None:
            used = sorted({
                n.id for stmt in side for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in local
            } | set(names))
            args = ast.arguments(
                posonlyargs=[], args=[ast.arg(a) for a in used], kwonlyargs=[], kw_defaults=[],
                defaults=[ast.Name("_UNSET", ast.Load()) for _ in used],
            )
            def ret() -> ast.Return:
                return ast.Return(ast.Call(
                    func=ast.Name("_alt_vars", ast.Load()),
                    args=[ast.Call(func=ast.Name("locals", ast.Load()), args=[], keywords=[]),
                          ast.Tuple([ast.Constant(n) for n in names], ast.Load())],
                    keywords=[],
                ))

            body = [ast.Pass()] + _live_part(copy.deepcopy(list(side))) + [ret()]
            out.append(ast.FunctionDef(name=fname, args=args, body=body, decorator_list=[], returns=None, type_comment=None))

        alt(node.body, f"_alt{tag}_then")
        alt(node.orelse, f"_alt{tag}_else")
        took = f"_alt{tag}"

        def call(fname: str) -> ast.stmt:
            return ast.Assign(targets=[ast.Name(took, ast.Store())], value=ast.Call(
                func=ast.Name("_eager_alt", ast.Load()),
                args=[ast.Name(fname, ast.Load()), ast.Call(func=ast.Name("locals", ast.Load()), args=[], keywords=[])],
                keywords=[],
            ))

        node.body = [call(f"_alt{tag}_else")] + node.body
        node.orelse = [call(f"_alt{tag}_then")] + (node.orelse or [])
        out.append(node)
        for n in names:
            out.append(ast.Try(
                body=[ast.Assign(targets=[ast.Name(n, ast.Store())], value=ast.Call(
                    func=ast.Name("_wid", ast.Load()),
                    args=[ast.Name(n, ast.Load()), ast.Name(took, ast.Load()), ast.Constant(n)], keywords=[]))],
                handlers=[ast.ExceptHandler(type=ast.Name("NameError", ast.Load()), name=None, body=[ast.Pass()])],
                orelse=[], finalbody=[],
            ))
        return out

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        local = self._runtime_locals()
        if self.r53 in KIND_MODES and isinstance(node.value, ast.Name) and any(
            isinstance(n, ast.Name) and n.id in local for n in ast.walk(node.slice)
        ):
            # A constant index reads the item itself, of its own kind (the compiler folds
            # ``T[2]``); only an index that varies (a loop index) reads the joined kind.
            node.value = self._call("_rtup", node.value)
        return node

    def visit_For(self, node: ast.For) -> Any:
        if self.r53 in KIND_MODES and isinstance(node.iter, ast.Name):
            node.iter = self._call("_rtup", node.iter)
        node.body = self._block(node.body)
        if self.r53 == "mergephi":
            convert = self._as_floats(ast.Module(body=node.body, type_ignores=[]), exclude={getattr(node.target, "id", "")})
            node.body = convert + node.body
            return convert + [node] + self._as_floats(ast.Module(body=node.body, type_ignores=[]))
        return node

    def _block(self, body: List[ast.stmt]) -> List[ast.stmt]:
        out: List[ast.stmt] = []
        for stmt in body:
            new = self.visit(stmt)
            if isinstance(new, list):
                out.extend(new)
            elif new is not None:
                out.append(new)
        return out

    @staticmethod
    def _as_floats(node: ast.AST, exclude: Optional[set] = None) -> List[ast.stmt]:
        """``v = _rfb(v)`` (if ``v`` is bound) for every variable ``node`` assigns: the merge (or
        loop phi) of an int or bool with a float is one float64 array (docs/semantics.md item 8)."""
        names = sorted({
            n.id for n in ast.walk(node)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and not n.id.startswith("_")
        } - (exclude or set()))
        out: List[ast.stmt] = []
        for name in names:
            out.append(ast.Try(
                body=[ast.Assign(targets=[ast.Name(name, ast.Store())], value=ast.Call(
                    func=ast.Name("_rfb", ast.Load()), args=[ast.Name(name, ast.Load())], keywords=[]))],
                handlers=[ast.ExceptHandler(type=ast.Name("NameError", ast.Load()), name=None, body=[ast.Pass()])],
                orelse=[], finalbody=[],
            ))
        return out

    def visit_Assign(self, node: ast.Assign) -> ast.stmt:
        self.generic_visit(node)
        if self.in_if and not isinstance(node.value, (ast.Lambda, ast.Tuple)):
            node.value = self._merge(node.value, statement=True)
        return node

    def visit_Return(self, node: ast.Return) -> ast.stmt:
        self.generic_visit(node)
        node.value = self._merge(node.value, statement=True)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.stmt:
        saved, self.in_if = self.in_if, 0
        saved_scalars = self.scalar_names
        self._enter(node, node)
        if self.shim == "loop":
            # Names only ever bound by a `for` over `range(...)` or over a constant tuple.
            loops = [
                n.target for n in ast.walk(node) if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and (
                    isinstance(n.iter, ast.Name) and n.iter.id in self.module
                    or isinstance(n.iter, ast.Call) and isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range"
                )
            ]
            bound_elsewhere = {
                n.id for n in ast.walk(node)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and not any(n is t for t in loops)
            }
            self.scalar_names = {t.id for t in loops} - bound_elsewhere
        self.generic_visit(node)
        self._leave()
        self.in_if = saved
        self.scalar_names = saved_scalars
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        # A lambda helper's parameters are its locals, as a function's are: a test on one is
        # decided at run time (seed 7009, program 790: `(0 if 0 == b else 0.1) // 0`).
        self._enter(node, None)
        self.generic_visit(node)
        self._leave()
        return node

    def _enter(self, node: ast.AST, func: Optional[ast.AST]) -> None:
        """Opens the scope of a function or lambda: its locals are its parameters, the names it
        stores, and the enclosing scope's (a nested helper reads those too); `func` is the
        function whose own statements ``visit`` tracks (None for a lambda: it has none)."""
        a = node.args
        enclosing = self.locals[-1] if self.locals else set()
        self.locals.append(enclosing | {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        })
        self.known.append({})
        self.functions.append(func)

    def _leave(self) -> None:
        self.locals.pop()
        self.known.pop()
        self.functions.pop()

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        value = self.visit(node.value)
        new_value = self._binop(ast.Name(node.target.id, ast.Load()), node.op, value)
        if self.in_if:
            new_value = self._merge(new_value, statement=True)
        return ast.copy_location(ast.Assign(targets=[ast.Name(node.target.id, ast.Store())], value=new_value), node)

    def visit_Import(self, node: ast.Import) -> Optional[ast.stmt]:
        return None if self.shim or self.ieee else node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Optional[ast.stmt]:
        return None if self.shim or self.ieee else node


def math_imports(tree: ast.Module) -> List[str]:
    return [a.name for s in tree.body if isinstance(s, ast.ImportFrom) and s.module == "math" for a in s.names]


def uses_shim(tree: ast.Module) -> bool:
    """Whether the program calls anything ``SHIM`` replaces (transcendental math, float ``**``)."""
    imported = set(math_imports(tree))
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.Pow):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and (f.attr in SHIM_MATH or f.attr == "log"):
                return True
            if isinstance(f, ast.Name) and (f.id == "pow" or (f.id in imported and (f.id in SHIM_MATH or f.id == "log"))):
                return True
    return False


class Evaluator:
    def __init__(self, source: str, path: str, entry: str = "f") -> None:
        self.tree = ast.parse(source)
        self.path = path
        self.entry = entry
        self.flags = _Flags()
        self._fns: Dict[tuple, Callable[..., Any]] = {}
        self.uses_shim = uses_shim(self.tree)
        self.uses_copysign = any(isinstance(n, ast.Call) and _is_copysign(n.func) for n in ast.walk(self.tree))
        # The module's constants and imports, to tell the tests the compiler decides statically.
        self.module: Dict[str, Any] = {}
        try:
            exec(compile(self.tree, path, "exec"), self.module)  # noqa: S102 - the fuzzer's own program
        except Exception:  # noqa: BLE001 - then no test is known statically
            self.module = {}
        # A power whose result dtype the whole array decides (``int ** int``: float64 when some
        # lane's exponent is negative): a differing element is checked alone (``check.py``).
        self.int_pow = any(
            isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, ast.Pow)
            or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "pow"
            for n in ast.walk(self.tree)
        )
        # The NumPy semantics a second look tries (``check._second_look``): its scalar-exponent
        # power fast paths, and with a power in the program, its array-exponent loop too.
        self.shims: Tuple[Any, ...] = ((True, "loop") if self.int_pow else (True,)) if self.uses_shim else ()

    def _function(self, shim: bool, r53: str, ieee: bool) -> Callable[..., Any]:
        key = (shim, r53, ieee)
        fn = self._fns.get(key)
        if fn is None:
            tree = _Instrument(shim, r53, ieee, self.module).visit(copy.deepcopy(self.tree))
            ast.fix_missing_locations(tree)
            code = compile(tree, self.path, "exec")
            ns: Dict[str, Any] = {
                "__name__": "array_vectorize_fuzz_oracle", "_chk": _make_chk(self.flags, r53 == "all"),
                "_ipow": _ipow, "pow": _ipow, "_r53": _r53, "_rf": _rf, "_rfb": _rfb, "_rtup": _rtup,
            }
            ns.update(_make_kind_merges(self.flags))
            ns["_copysign"] = _make_copysign(self.flags)
            if shim:
                ns["_fpow"] = _fpow
                ns["_fpow_loop"] = _fpow_loop
                ns["_mpow"], ns["_mpow_loop"] = _make_mpow(ieee, False), _make_mpow(ieee, True)
                ns["_i_mpow"], ns["_i_mpow_loop"] = ns["_mpow"], ns["_mpow_loop"]
                ns["_fpow_half"] = _fpow_half
                ns["math"] = SHIM
                ns["pow"] = _fpow
            if ieee:
                ns.update(
                    _i_div=_i_div, _i_fdiv=_i_fdiv, _i_mod=_i_mod, _i_pow=_make_i_pow(shim), _i_fpow_half=_i_fpow_half,
                    _i_pow_loop=_make_i_pow(shim, loop=True), int=_i_int, round=_i_round, math=IEEE_MATH[bool(shim)],
                )
                ns["pow"] = ns["_i_pow"]
            if shim or ieee:
                for name in math_imports(self.tree):
                    ns[name] = getattr(ns["math"], name)
            exec(code, ns)  # noqa: S102 - the fuzzer's own generated program
            fn = self._fns[key] = ns[self.entry]
        return fn

    def run(
        self, args: List[Any], shim: bool = False, r53: str = "", ieee: bool = False, wrap64: bool = False,
        nanflip: bool = False,
    ) -> Any:
        """CPython's outcome for one element. ``shim``/``r53``/``ieee``/``wrap64``/``nanflip``: the
        alternative semantics of the documented divergences (module docstring, ``_Flags``)."""
        fn = self._function(shim, r53, ieee)
        flags = self.flags
        flags.wide = flags.huge = False
        flags.wrap64 = wrap64
        flags.nanflip = nanflip
        flags.big53 = any(type(a) is int and not -TWO_53 <= a <= TWO_53 for a in args)
        if r53 == "all":
            args = [_r53(a) for a in args]
        try:
            r = fn(*args)
        except (ArithmeticError, ValueError) as exc:
            return Skip("d3", f"{type(exc).__name__}: {exc}")
        except _Complex:
            return Skip("d3", "complex result")
        except _Huge:
            return Skip("overflow")
        except Exception as exc:  # noqa: BLE001 - an ill-formed program
            return Invalid(exc)
        if flags.huge:
            return Skip("overflow")
        t = type(r)
        if t is complex:
            return Skip("d3", "complex result")
        if t not in (bool, int, float):
            return Invalid(TypeError(f"the function returned {t.__name__}"))
        if t is int and not INT64_MIN <= r < UINT64_END:
            return Skip("overflow")
        return Ok(r, flags.wide or (t is int and r >= INT64_END), flags.big53, ieee)


def agree(got: Any, dtype_kind: str, expected: Any) -> bool:
    """The vectorized element ``got`` (a Python scalar from an array of dtype kind ``dtype_kind``,
    NumPy's ``b``/``i``/``u``/``f``) stands for CPython's ``expected``."""
    te = type(expected)
    if dtype_kind == "b":
        return te is bool and got == expected
    if dtype_kind in "iu":
        return te is not float and got == expected
    if dtype_kind == "f":
        if te is not float:
            # An int (or bool) held in a float64 array (mixed-kind results): compared by value.
            return got == float(expected)
        if expected != expected:
            return got != got
        return got == expected and (expected != 0.0 or math.copysign(1.0, got) == math.copysign(1.0, expected))
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


def close(got: Any, dtype_kind: str, expected: Any, ulps: int) -> bool:
    """``agree``, or both finite floats within ``ulps``."""
    if agree(got, dtype_kind, expected):
        return True
    if dtype_kind != "f" or type(expected) is not float:
        return False
    if not (math.isfinite(got) and math.isfinite(expected)):
        return False
    return ulp_distance(got, expected) <= ulps


def describe(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f"float('{value}')"
    return repr(value)
