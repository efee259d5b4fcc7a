"""The documented array rules, applied to the IR the core reports: what explains a difference
from CPython that is not a bug.

The core states its decisions in the IR it returns under ``options={"ir": True}`` (the exact body,
after every pass): which tests it decided in Python (they left no select), which values merge
(``select``, loop phis, ``if_merge``) and the printed kind of each value. ``Model(irtext.read(text))`` reads
that text (``irtext.py``: the declared, versioned grammar) and interprets it on the lanes of one call in two ways:

* ``plain``: every operation with CPython's semantics on Python scalars, lane by lane (unbounded
  ints, per-lane types, ``math``; the IEEE values of D3 where CPython raises, as ``oracle.py``),
  or, ``stated``, with the values the core prints as float held as floats (a ``float()`` of the
  source it folded into a merge). On an element where this gives CPython's own result, the IR
  computes what the source computes;
* ``arrays``: the same operations under the documented array rules: a value has one dtype for
  all lanes (bool < int64 < float64; a merge of an int and a float is float64 and an int held
  there follows float rules from then on, item 8; the elements of a constant tuple take one
  kind; an ``int ** int`` with some negative exponent is float64 on every lane, item 12);
  integers wrap modulo 2**64 at every operation (int64, or the uint64 lattice: uint64 when no
  lane is negative, item 13, items 6); transcendental functions, float ``**``, ``//`` and ``%`` are
  the array library's (items 9, 10, 18).

``check.py`` accepts a differing element only when ``plain`` gives CPython's value there and
``arrays`` gives the vectorized value: the difference is then exactly the array rules', never the
vectorized code compared with itself.
"""

from __future__ import annotations

import builtins
import math
import operator
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..runtime.special import SPECIAL_HELPERS
from . import oracle, raise_sites
from .irtext import If, IrFunction, Let, Loop, Merge, const, read  # noqa: F401 - Merge: a node of the body

INT64_MIN = oracle.INT64_MIN
INT64_END = oracle.INT64_END
UINT64_END = oracle.UINT64_END


class Unsupported(Exception):
    """IR the model does not interpret (a call site, D23; a tuple result; a hidden parameter)."""


class _Poison:
    """A lane whose value the model cannot give (an integer power beyond 64 bits)."""

    def __repr__(self) -> str:
        return "<poison>"


POISON = _Poison()


# ------------------------------------------------------------------------------------ parsing


#: Iterations after which the model gives up on a data-dependent loop (the programs it checks end).
_MAX_TRIPS = 100_000


def parse(function: IrFunction) -> Tuple[list, int]:
    """The body the model interprets, and the returned value: one result, no call site (D23)."""
    if any(let.op == "call_site" for let in function.lets()):
        raise Unsupported("call_site")  # D23: not generated
    if function.tuple or len(function.ret) != 1:
        raise Unsupported("a tuple result")
    return function.body, function.ret[0]


# ---------------------------------------------------------------------------------- operations

_ARITH = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": oracle.ieee_div, "floordiv": oracle.ieee_floordiv, "mod": oracle.ieee_mod, "pow": oracle.ieee_pow,
}
_COMPARE = {
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
}
_UNARY = {
    "neg": lambda a: -a, "pos": lambda a: +a, "not": lambda a: not a, "abs": abs,
    "cast.float": float, "cast.int": oracle.ieee_int, "cast.bool": bool, "cast.round": oracle.ieee_round,
    "cast.index": operator.index,
}
#: The array library's float operations (items 9, 10, 18: its results, its NaN signs).
_NP_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "floordiv": np.floor_divide,
    "mod": np.remainder,
}
_NP_MATH = dict(oracle.NUMPY_MATH, log=np.log)
_ROUNDING = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}


#: The globals of the generated code holding scalar originals (D19, ``emit.SCALAR_PREFIX``).
_SCALAR_PREFIX = "_vec_scalar_"


def _is_nan(x: Any) -> bool:
    if isinstance(x, (tuple, list)):
        return any(_is_nan(y) for y in x)
    return type(x) is float and x != x


def _by_library(fn: Any, *args: Any) -> Any:
    """``fn`` (a NumPy ufunc) of Python numbers as a program's D16 call computes it: on 0-d
    float64 arrays, NumPy's loop (item 9: it can round an ulp from the C library's)."""
    with np.errstate(all="ignore"):
        return float(fn(*[np.asarray(float(a)) for a in args]))


def _library_pow(a: Any, b: Any) -> Any:
    """``a ** b`` of Python numbers as ``np.power(a, b)`` computes it where a float is involved."""
    if type(a) is float or type(b) is float:
        try:
            return _by_library(np.power, a, b)
        except OverflowError:  # an int beyond the float range
            pass
    return oracle.ieee_pow(a, b)


def _lanes(fn: Any, *columns: List[Any]) -> List[Any]:
    out = []
    for args in zip(*columns):
        if any(a is POISON for a in args):
            out.append(POISON)
            continue
        try:
            out.append(fn(*args))
        except (oracle.Huge, OverflowError):  # an int beyond 64 bits on a lane that ends elsewhere
            out.append(POISON)
    return out


def _natural(v: Any) -> str:
    """The dtype kind a Python scalar takes as an array."""
    t = type(v)
    if t is bool:
        return "b"
    if t is float:
        return "f"
    if t is int:
        return "u" if v >= INT64_END else "i"
    return "f"


def _join(kinds: List[str]) -> str:
    if "f" in kinds:
        return "f"
    if "u" in kinds:
        return "u"
    if "i" in kinds:
        return "i"
    return "b"


#: The D17 helpers (docs/semantics.md's D17 table): exact, or within their own documented bound
#: where their value is the result (``oracle.special_close``); never a reason for item 9's ulps.
_D17 = ("fmod", "remainder", "fsum", "isclose", "round", "erf", "erfc", "gamma", "lgamma")


def approximate(function: IrFunction) -> bool:
    """Item 9: a transcendental function or a float power is on the way; a few ulps allowed.
    NumPy's own functions (``math.numpy.power``) are not among them."""
    for let in function.lets():
        if let.op == "pow" or (let.op == "math" and let.args[0] not in _D17 and "." not in let.args[0]):
            return True
    # A D17-free `math` call in a raise site's message (Python source, not IR): its ulps too.
    return any(name not in _D17 for site in function.sites.values() for name in raise_sites.read(site).math_calls())


def operation_exception(site: raise_sites.SiteForm, values: List[Any]) -> Optional[BaseException]:
    """The exception an operation's site (``raise_sites``: a numeric error of a ``try`` body,
    item 7's conversion beyond int64) raises with ``values`` for its names: CPython's operation
    on them, item 7's message the oracle's own (not the runtime's). None where it raises none."""
    scope = {"__builtins__": builtins, raise_sites.INT_OVERFLOW: oracle.beyond_int64}
    try:
        made = eval(site.expr, scope, dict(zip(site.names, values)))  # noqa: S307 - the core's site
    except NameError:
        return None
    except Exception as exc:  # noqa: BLE001 - a numeric site raises its exception
        return exc
    return made if isinstance(made, BaseException) else None


@dataclass
class Val:
    lanes: List[Any]
    kind: Optional[str]  # dtype kind of an array (``arrays`` mode), None for a Python scalar
    # In the uint64 lattice with some lane negative (the runtime's ``LatticeInt``, item 13): held
    # as int64 lanes, but every later operation on it stays in the lattice.
    lattice: bool = False


class Model:
    """One program's IR, interpreted (module docstring)."""

    def __init__(self, function: IrFunction) -> None:
        self.body, self.ret = parse(function)
        self.approximate = approximate(function)
        # D11: `raise if %n != 0` (a lane raises where its code is not 0); read after `run`.
        self.raise_refs = [] if function.raise_code is None else [function.raise_code]
        self.raises: List[bool] = []
        #: The program's module (set by check.py) and the IR's parameter names, hidden ones
        #: included: ``uniform Global(i)`` reads the module object named by the i-th.
        self.module: Dict[str, Any] = {}
        #: The call's arrays are lazy (Dask): an int power with an exponent array is float64 on
        #: every lane, whatever the exponents' signs (item 12). Set by ``Explainer.arrays``.
        self.lazy = False
        self.header = function.params
        self.raise_codes: List[Any] = []  # per lane, the code of the site it raises at (0: none)
        #: A D17 helper gave a NaN where CPython raises (D3) in an ``arrays`` run; the sign such
        #: a NaN takes there (None: the one CPython's IEEE value has), item 18.
        self.d3_nans = False
        #: ``copysign`` of a NaN in the last run: it shows the sign some NaN was given.
        self.nan_signs_shown = False
        self.nan_sign: Optional[float] = None
        #: Each raise site, its expression read (``raise_sites.SiteForm``).
        self.sites = {n: raise_sites.read(site) for n, site in function.sites.items()}

    def run(
        self, params: List[Tuple[List[Any], str]], arrays: bool, exact_body: bool = True, stated: bool = False,
        library: Tuple[str, ...] = (),
    ) -> Tuple[List[Any], str]:
        """The lanes of the result, and its dtype kind (``arrays``). ``params``: per declared
        parameter, its lanes and its dtype kind (``b i u f``; empty for a Python scalar, whose
        one lane stands for all); ``exact_body``: the helpers' body runs
        (not every argument is float64), whose ``x ** 0.5`` is CPython's. ``stated`` (plain
        mode): a value the core prints as float is a float (it may have absorbed a ``float()``
        of the source into a merge it made float64). ``library`` (plain mode): ``"pow"``, float
        powers, and ``"math"``, ``math``'s transcendental functions, are NumPy's on Python numbers
        (``_by_library``), as CPython computes the program's D16 calls, which the IR reads as
        ``**`` and ``math``."""
        self.arrays = arrays
        self.stated = stated
        self.library = () if arrays else library
        self.nan_signs_shown = False
        if arrays:
            self.d3_nans = False
        self.exact_body = exact_body
        self.n = max(len(p[0]) for p in params)
        self.params = params
        self.env: Dict[int, Val] = {}
        self.residue_raised: Dict[int, List[bool]] = {}  # D19: per residue value, its raising lanes
        self.printed: Dict[int, str] = {}  # the kind the core prints for each value
        self.operands: List[int] = []  # of the instruction being interpreted
        self._block(self.body)
        out = self.env[self.ret]
        codes = [self.env[r].lanes for r in self.raise_refs]
        self.raise_codes = [next((c[lane] for c in codes if c[lane] is not POISON and c[lane] != 0), 0) for lane in range(self.n)]
        self.raises = [code != 0 for code in self.raise_codes]
        return out.lanes, out.kind or _natural(out.lanes[0])

    def site_class(self, code: Any, lane: int) -> Optional[str]:
        """The exception class raise site ``code`` raises on ``lane`` of the last run: the class
        a written raise names (``ValueError(...)``, a bare ``AssertionError``), or, for a numeric
        error of a ``try`` body (``int(_a)``, ``_a // _b``, ``__import__('math').log(_a0)``:
        the operation itself, on the operands the core passes), what CPython's operation raises
        on this run's values of those operands (an int held as float64 gives ``int(nan)``'s
        ValueError, item 8)."""
        site = self.sites.get(int(code)) if code is not POISON else None
        if site is None:
            return None
        if site.written is not None:
            return site.written
        exc = self.site_exception(code, lane)
        return None if exc is None else type(exc).__name__

    def site_exception(self, code: Any, lane: int) -> Optional[BaseException]:
        """The exception raise site ``code`` raises on ``lane`` of the last run, where the model
        can build it: a numeric site's operation on its operands' values, a residue's scalar
        original on them (D19), or a written expression of builtins and constants only
        (``ZeroDivisionError(0, 0)``). None otherwise (a written site that formats the program's
        own values: the checker compares the class)."""
        site = self.sites.get(int(code)) if code is not POISON else None
        if site is None:
            return None
        if site.rerun is not None:
            return self._rerun(site.rerun, site.refs, lane)
        if site.operation:
            values = self._lane_values(site.refs, lane)
            return None if values is None else operation_exception(site, values)
        if site.names:
            return None
        try:
            made = eval(site.expr, {"__builtins__": builtins}, {})  # noqa: S307 - the program's raise
        except Exception:  # noqa: BLE001 - not built from builtins alone
            return None
        if raise_sites.exception_class(made):
            made = made()
        return made if isinstance(made, BaseException) else None

    def _lane_values(self, refs: List[int], lane: int) -> Optional[list]:
        """The values of ``refs`` on ``lane`` (a uniform value's one lane), or None where one of
        them is poisoned."""
        values = []
        for ref in refs:
            lanes = self.env[ref].lanes
            values.append(lanes[lane] if len(lanes) > lane else lanes[0])
        return None if any(v is POISON for v in values) else values

    def _rerun(self, global_name: str, refs: List[int], lane: int) -> Optional[BaseException]:
        """The exception the scalar original raises on ``lane`` (a residue's raise site, D19)."""
        fn = self.module.get(global_name[len(_SCALAR_PREFIX):]) if global_name.startswith(_SCALAR_PREFIX) else None
        if fn is None:
            return None
        values = self._lane_values(refs, lane)
        if values is None:
            return None
        try:
            fn(*values)
        except Exception as exc:  # noqa: BLE001 - the lane's exception
            return exc
        return None

    # -- blocks

    def _block(self, block: list) -> None:
        for inst in block:
            if isinstance(inst, Let):
                self.printed[inst.dst] = inst.kind
                self.operands = [a for a in inst.args if type(a) is int] if inst.op != "math" else inst.args[1:]
                self.inst = inst
                value = self._let(inst)
                if self.arrays:
                    value = self._stated(inst, value)
                elif self.stated and inst.kind == "float" and not (inst.op == "math" and inst.args[0] in _ROUNDING):
                    value = Val([self._convert(x, "f") for x in value.lanes], None)
                self.env[inst.dst] = value
            elif isinstance(inst, Loop):
                self._loop(inst)
            else:
                cond = self.env[inst.cond].lanes[0]
                self._block(inst.then if cond else inst.other)
                for m in inst.outs:
                    self.printed[m.dst] = m.kind
                    self.env[m.dst] = self._held(self.env[m.first if cond else m.second], m.kind)

    def _loop(self, loop: Loop) -> None:
        items = loop.items
        if self.arrays and isinstance(items, tuple):
            kind = _join([_natural(x) for x in items])
            items = tuple(self._convert(x, kind) for x in items)
        for m in loop.phis:
            self.printed[m.dst] = m.kind
            self.env[m.dst] = self._held(self.env[m.first], m.kind)
        if loop.active is not None:
            trips = 0
            while any(x is not POISON and bool(x) for x in self.env[loop.active].lanes):
                trips += 1
                if trips > _MAX_TRIPS:
                    raise Unsupported("a data-dependent loop that does not end")
                self._iterate(loop)
            return
        for item in items:
            self.env[loop.index] = Val([item] * self.n, None)
            self._iterate(loop)

    def _iterate(self, loop: Loop) -> None:
        self._block(loop.body)
        nexts = [self._held(self.env[m.second], m.kind) for m in loop.phis]  # all at once
        for m, v in zip(loop.phis, nexts):
            self.env[m.dst] = v

    def _stated(self, inst: Let, v: Val) -> Val:
        """A value as the core states it: an array unless printed ``scalar`` (a 0-d array for
        what it computes on scalars, item 16), of the printed kind where it states one (a merge it
        made float64, item 8). ``math.floor`` and kin are printed float and give ints (int64 on a
        0-d array)."""
        stated = {"float": "f", "bool": "b", "int": "i"}.get(inst.kind)
        if inst.op == "math" and inst.args[0] in _ROUNDING:
            stated = None
        if inst.scalar:
            if stated in ("f", "i") and v.kind is None:
                return Val([self._convert(x, stated) for x in v.lanes], None)
            return v
        kind = v.kind or _natural(next((x for x in v.lanes if x is not POISON), 0))
        if stated == "f" and kind != "f" or stated == "i" and kind == "b":
            return Val([self._convert(x, stated) for x in v.lanes], stated)
        if v.kind is None:  # a Python int takes int64, or uint64 in [2**63, 2**64) (item 13)
            return self._settle(v.lanes, kind, lattice=kind == "u")
        return v

    def _held(self, v: Val, kind: str) -> Val:
        """A loop phi or if_merge: its kind is stated by the core (the generated code converts
        the initial value, ``acc = float(0)``)."""
        if not (self.arrays or self.stated) or kind not in ("float", "int") or v.kind == "f":
            return v
        target = "f" if kind == "float" else "i"
        if v.kind is None:
            return Val([self._convert(x, target) for x in v.lanes], None)
        if target == "i" and v.kind in "iu":
            return v
        return Val([self._convert(x, target) for x in v.lanes], target)

    @staticmethod
    def _convert(x: Any, kind: str) -> Any:
        if x is POISON:
            return x
        if kind == "f" and type(x) in (int, bool):
            return float(x)
        if kind in "iu" and type(x) is bool:
            return int(x)
        return x

    # -- one operation

    def _let(self, inst: Let) -> Val:
        op, args = inst.op, inst.args
        n = self.n
        if op in ("const", "placeholder"):
            return Val([args[0]] * n, None)
        if op == "param":
            if args[0] >= len(self.params):
                raise Unsupported("hidden parameter")
            lanes, kind = self.params[args[0]]
            lanes = lanes if len(lanes) == n else lanes * n
            return Val(list(lanes), (kind or _natural(lanes[0])) if self.arrays else None)
        if op == "math":
            return self._math(args[0], [self.env[a] for a in args[1:]])
        if op == "uniform":
            return Val([self._uniform(args)] * n, None)
        if op == "residue":
            return self._residue(inst.dst, args[0], [self.env[a] for a in args[1:]])
        if op == "scalar_raised":
            lanes = self.residue_raised.get(args[0], [False] * n)
            return Val(list(lanes), "b" if self.arrays else None)
        vals = [self.env[a] for a in args]
        if op in ("broadcast", "asarray"):
            v = vals[0]
            if not self.arrays or v.kind is not None:
                return v
            kind = _natural(v.lanes[0])
            if kind == "u" and type(v.lanes[0]) is int and v.lanes[0] >= UINT64_END:
                return Val([POISON] * n, "i")  # item 17: beyond 64 bits, the call raises
            return Val(v.lanes, kind)
        if op == "index":
            tup, i = vals
            lanes = _lanes(lambda t, k: t[k], tup.lanes, i.lanes)
            if self.arrays:
                # The items' one kind, unless the core states the kind of the items the index
                # reaches (an int where only int items are reachable).
                kind = {"int": "i", "bool": "b"}.get(inst.kind) or _join([_natural(x) for x in tup.lanes[0]])
                lanes = [self._convert(x, kind) for x in lanes]
            return Val(lanes, None)
        if op == "select":
            return self._select(*vals)
        if op in ("and", "or"):
            # One operand decides, whatever the other: a lane the model cannot give there is
            # decided too.
            decisive = op == "or"
            lanes = [
                decisive if decisive in (x, y) else POISON if POISON in (x, y) else (not decisive)
                for x, y in zip(*[[x if x is POISON else bool(x) for x in v.lanes] for v in vals])
            ]
            return self._shaped(lanes, vals, "b")
        if op in _COMPARE:
            return self._shaped(_lanes(_COMPARE[op], vals[0].lanes, vals[1].lanes), vals, "b")
        if op in _UNARY:
            return self._unary(op, vals[0])
        if op in _ARITH:
            return self._arith(op, vals[0], vals[1])
        raise Unsupported(op)

    def _residue(self, dst: int, callee: int, vals: List[Val]) -> Val:
        """D19: the scalar original, called in Python on each lane its lanes mask reaches, with the
        lane's values (the runtime's ``_vec_residue``); a lane where it raises is recorded for its
        ``scalar_raised``. On ``arrays``, the results take one dtype from their values: bools
        bool, ints int64 (wrapped), any float float64; no lane reached, bool."""
        names = self.header
        if callee >= len(names) or not names[callee].startswith(_SCALAR_PREFIX):
            raise Unsupported("a residue of no function")
        fn = self.module.get(names[callee][len(_SCALAR_PREFIX):])
        if fn is None:
            raise Unsupported("a residue of no function of the module")
        lanes_mask, args = vals[0], vals[1:]
        out: List[Any] = [False] * self.n
        raised = [False] * self.n
        for lane in range(self.n):
            take = lanes_mask.lanes[lane if len(lanes_mask.lanes) > lane else 0]
            if take is POISON:
                out[lane] = POISON
                continue
            if not take:
                continue
            values = [a.lanes[lane if len(a.lanes) > lane else 0] for a in args]
            if any(v is POISON for v in values):
                out[lane] = POISON
                continue
            try:
                out[lane] = fn(*values)
            except Exception:  # noqa: BLE001 - the lane raises there (D11)
                raised[lane] = True
        self.residue_raised[dst] = raised
        if not self.arrays:
            return Val(out, None)
        live = [x for x, r in zip(out, raised) if x is not POISON and not r]
        kind = "f" if any(type(x) is float for x in live) else "i" if any(type(x) is int for x in live) else "b"
        return self._settle([self._convert(x, kind) for x in out], kind, lattice=False)

    def _uniform(self, args: List[Any]) -> Any:
        """A uniform operation (D14): Python on the one object every lane sees."""
        name, payload, *refs = args
        ops = [self.env[r].lanes[0] for r in refs]
        if any(type(x).__name__ == "ModuleRef" for x in ops):
            raise Unsupported("an Enum member not resolved")
        if name == "Arg":
            return self.params[int(payload)][0][0]
        if name == "Global":  # a module object (an Enum class) read by the name the header gives
            names = self.header
            if int(payload) >= len(names) or names[int(payload)] not in self.module:
                raise Unsupported("a hidden module object")
            return self.module[names[int(payload)]]
        if name == "Lit":
            return payload  # None, or the string
        if name == "Attr":
            return getattr(ops[0], payload)
        if name == "Item":
            return ops[0][ops[1]]
        if name == "Compare":
            return {"Eq": operator.eq, "Ne": operator.ne, "Is": operator.is_, "IsNot": operator.is_not}[payload](*ops)
        if name == "Truth":
            return bool(ops[0])
        if name == "Number":
            return ops[0]
        if name == "ElementIs":  # D22: the type every lane's element has (`bool|int`, `none`)
            return type(ops[0]).__name__ in payload.split("|")
        raise Unsupported(f"uniform {name}")

    def _shaped(self, lanes: List[Any], vals: List[Val], kind: str) -> Val:
        """A result with kind ``kind``: an array if some operand is (``arrays``)."""
        if self.arrays and any(v.kind is not None for v in vals):
            return Val([self._convert(x, kind) for x in lanes], kind)
        return Val(lanes, None)

    def _settle(self, lanes: List[Any], kind: str, lattice: bool) -> Val:
        """An array's lanes in one dtype (item 8: one kind; items 6, 13: integers wrap)."""
        live = [x for x in lanes if x is not POISON]
        if kind == "f" or any(type(x) is float for x in live):
            return Val([self._convert(x, "f") for x in lanes], "f")
        if kind == "b" and all(type(x) is bool for x in live):
            return Val(lanes, "b")
        ints = [self._convert(x, "i") for x in lanes]
        if not lattice:  # int64: wraps (item 6)
            return Val([x if x is POISON else oracle.wrap(x, "i") for x in ints], "i")
        # The uint64 lattice (item 13): each lane holds its value in [-2**63, 2**64) whatever
        # the other lanes hold. A result leaving that range wraps modulo 2**64 by its own sign:
        # a non-negative one into [0, 2**64), a negative one into int64's range (intops.finish).
        # The array is uint64 when no lane is negative, else int64 (where every lane fits).
        held = [x if x is POISON or INT64_MIN <= x < UINT64_END else oracle.wrap(x, "u" if x >= 0 else "i") for x in ints]
        negative = any(x < 0 for x in held if x is not POISON)
        if negative and all(INT64_MIN <= x < INT64_END for x in held if x is not POISON):
            return Val(held, "i", lattice=True)
        return Val(held, "u")

    @staticmethod
    def _lattice(vals: List[Val]) -> bool:
        """Some operand is uint64, a lattice value with a negative lane, or a Python int in
        [2**63, 2**64) (intops.py)."""
        for v in vals:
            if v.kind == "u" or v.lattice or v.kind is None and type(v.lanes[0]) is int and v.lanes[0] >= INT64_END:
                return True
        return False

    def _kind_of(self, v: Val) -> str:
        return v.kind if v.kind is not None else _natural(v.lanes[0])

    def _select(self, cond: Val, a: Val, b: Val) -> Val:
        lanes = [x if (c is not POISON and c) else y for c, x, y in zip(cond.lanes, a.lanes, b.lanes)]
        lanes = [POISON if c is POISON else x for c, x in zip(cond.lanes, lanes)]
        if not self.arrays or (a.kind is None and b.kind is None and cond.kind is None):
            return Val(lanes, None)
        if cond.kind is None and cond.lanes[0] is not POISON:
            # A Python condition: codegen prints a ternary, which passes the side it picks
            # whole (converted to the kind the core states for the select, `_stated`).
            return a if cond.lanes[0] else b
        return self._settle(lanes, _join([self._kind_of(a), self._kind_of(b)]), self._lattice([a, b]))

    def _unary(self, op: str, a: Val) -> Val:
        if op in ("not", "cast.bool"):
            return self._shaped(_lanes(_UNARY[op], a.lanes), [a], "b")
        if op == "cast.float":
            return self._shaped(_lanes(float, a.lanes), [a], "f")
        if not self.arrays or a.kind is None:
            return Val(_lanes(_UNARY[op], a.lanes), None)
        if a.kind == "f" and op in ("neg", "abs"):
            return Val(self._numpy(np.negative if op == "neg" else np.abs, a.lanes), "f")
        if op in ("cast.int", "cast.round", "cast.index", "pos") and a.kind in "iu":
            return a
        return self._settle(_lanes(_UNARY[op], a.lanes), "i", self._lattice([a]))

    def _arith(self, op: str, a: Val, b: Val) -> Val:
        if not self.arrays or (a.kind is None and b.kind is None):
            fn = _library_pow if op == "pow" and "pow" in self.library else _ARITH[op]
            return Val(_lanes(fn, a.lanes, b.lanes), None)
        ka, kb = self._kind_of(a), self._kind_of(b)
        if (ka == "f" or kb == "f") or op == "div":
            fa, fb = [self._convert(x, "f") for x in a.lanes], [self._convert(x, "f") for x in b.lanes]
            if op == "div" and ka != "f" and kb != "f":
                lanes = _lanes(oracle.ieee_div, a.lanes, b.lanes)  # int / int: correctly rounded
                self._d3_nan_signs(lanes, [a.lanes, b.lanes])  # 0 / 0: D3's NaN, item 18's sign
                return Val(lanes, "f")
            if op == "pow":
                # Codegen calls the helper (CPython's values) unless the core states both
                # operands float: then the operator, NumPy's values (item 10).
                helper = self.exact_body and any(self.printed.get(x) != "float" for x in self.operands)
                return Val(self._pow(fa, fb, b.kind is None, helper), "f")
            lanes = self._numpy(_NP_BINARY[op], fa, fb)
            if op in ("floordiv", "mod"):  # x // 0.0, x % 0.0: D3's NaN, item 18's sign
                self._d3_nan_signs(lanes, [fa, fb])
            return Val(lanes, "f")
        ia, ib = [self._convert(x, "i") for x in a.lanes], [self._convert(x, "i") for x in b.lanes]
        if op == "pow":
            return self._int_pow(ia, ib, self._lattice([a, b]), b.kind is None)
        return self._settle(_lanes(_ARITH[op], ia, ib), "i", self._lattice([a, b]))

    def _int_pow(self, a: List[Any], b: List[Any], lattice: bool, scalar_exponent: bool) -> Val:
        """``int ** int`` on arrays: modulo 2**64 (items 6, 13); where some exponent is negative,
        and on a lazy backend wherever the exponent is an array, float64 on every lane (item
        12): the others are their wrapped int power as floats. A negative exponent's lane is
        ``float(x) ** float(e)`` by the array library (item 9), a Python exponent as one scalar
        (NumPy's loop over an exponent array can round an ulp otherwise)."""
        floats = self._pow(
            [x if x is POISON else float(x) for x in a], [e if e is POISON else float(e) for e in b], scalar_exponent, True
        )

        def power(x: Any, e: Any, by_library: Any) -> Any:
            if e < 0:
                return by_library
            bits = pow(x, e, UINT64_END)
            return bits - UINT64_END if x < 0 and e % 2 and bits else bits

        lanes = _lanes(power, a, b, floats)
        if not any(type(x) is float for x in lanes) and not (self.lazy and not scalar_exponent):
            return self._settle(lanes, "i", lattice)
        ints = self._settle([0 if type(x) is float else x for x in lanes], "i", lattice)
        return Val([x if type(x) is float or x is POISON else float(w) for x, w in zip(lanes, ints.lanes)], "f")

    def _numpy(self, fn: Any, *columns: List[Any]) -> List[Any]:
        poison = [any(c[i] is POISON for c in columns) for i in range(self.n)]
        arrays = [np.array([0.0 if x is POISON else float(x) for x in c], dtype=np.float64) for c in columns]
        with np.errstate(all="ignore"):
            out = fn(*arrays).tolist()
        return [POISON if p else x for p, x in zip(poison, out)]

    def _pow(self, a: List[Any], b: List[Any], scalar_exponent: bool, helper: bool) -> List[Any]:
        """The array library's ``**`` (items 9, 10): with a scalar exponent, NumPy's fast paths
        (``x ** 2`` a square, ``x ** 0.5`` sqrt); the helper gives CPython's ``-0.0 ** 0.5`` and
        ``-inf ** 0.5``."""
        if scalar_exponent and b[0] is not POISON:
            out = self._numpy(lambda x: x ** b[0], a)
        else:
            out = self._numpy(np.power, a, b)
        if helper:
            out = [
                (0.0 if x == 0.0 else math.inf if x == -math.inf else r) if y == 0.5 and r is not POISON else r
                for x, y, r in zip(a, b, out)
            ]
        return out

    def _math(self, name: str, vals: List[Val]) -> Val:
        """``math.name`` of ``vals``: CPython's on Python scalars, the array library's (item 9)
        where the core computes it on arrays, which it states (not printed ``scalar``: a 0-d
        array even when every operand is a Python number)."""
        if name == "numpy.power":  # D16 `np_pow` with a run-time exponent: not modelled
            raise Unsupported("np.power with an exponent known only at run time")
        columns = [v.lanes for v in vals]
        if name in ("isnan", "isinf", "isfinite"):
            return self._shaped(_lanes(getattr(math, name), *columns), vals, "b")
        if name in _D17:
            return self._d17(name, vals)
        real = getattr(oracle.IEEE_MATH, name)
        if name in _ROUNDING and all(v.kind is None for v in vals) and (not self.arrays or self.inst.scalar):
            # D16: a rounding call in the IR is NumPy's (`math.floor` lowers to a cast): on a
            # Python float it gives a float (nan and inf included), an int or bool stays as is.
            return Val([float(_ROUNDING[name](x)) if type(x) is float else x for x in columns[0]], None)
        # On Python scalars `math` computes, unless the core states an array (a 0-d one).
        if not self.arrays or (all(v.kind is None for v in vals) and self.inst.scalar):
            if name in _NP_MATH and ("pow" if name == "pow" else "math") in self.library:
                real = lambda *xs: _by_library(_NP_MATH[name], *xs)  # noqa: E731
            lanes = _lanes(real, *columns)
            if name == "copysign":
                self._copysign_of_nans(lanes, columns[1])
            return Val(lanes, None)
        if name in _ROUNDING:
            kind = self._kind_of(vals[0])
            if kind in "iub":
                return self._settle([self._convert(x, "i") for x in columns[0]], "i", kind == "u")
            return Val(self._numpy(_ROUNDING[name], columns[0]), "f")
        if name == "pow":
            # As for `**` (`_arith`): the helper (CPython's values) unless the core states both
            # operands float, then the library's pow (item 10: `math.pow(-inf, 0.5)` is nan).
            fa, fb = ([self._convert(x, "f") for x in c] for c in columns)
            helper = self.exact_body and any(self.printed.get(x) != "float" for x in self.operands)
            return Val(self._pow(fa, fb, vals[1].kind is None, helper), "f")
        if name == "log" and len(columns) == 2:
            return Val(self._numpy(lambda x, b: np.log(x) / np.log(b), *columns), "f")
        if name not in _NP_MATH:
            raise Unsupported(f"math.{name}")
        lanes = self._numpy(_NP_MATH[name], *columns)
        if name == "copysign":
            self._copysign_of_nans(lanes, columns[1])
        return Val(lanes, "f")

    def _copysign_of_nans(self, lanes: List[Any], signs: List[Any]) -> None:
        """``copysign(x, y)`` of a NaN ``y``: the sign of that NaN is the pick of whoever
        computed it (item 18: a NaN computed from NaNs, whose sign NumPy's loops, its scalar
        math and CPython's float each pick their own way, and in an order the core may change),
        so the result takes ``nan_sign`` when the checker asks for one (in place)."""
        for i, y in enumerate(signs):
            if _is_nan(y) and lanes[i] is not POISON:
                self.nan_signs_shown = True
                if self.nan_sign is not None:
                    lanes[i] = math.copysign(lanes[i], self.nan_sign)

    def _d17(self, name: str, vals: List[Val]) -> Val:
        """The D17 helpers: CPython's IEEE values (the D17 table); on arrays they take float64,
        and the inexact ones give the runtime helper's values, which the vectorized code computes
        on with, each first judged against CPython's ``math`` under its documented bound
        (``oracle.special_close``): the helper is never its own reference (issue 28 item 11), and
        a value beyond the bound leaves the model without a reading, so no difference is
        explained by it."""
        arrays = self.arrays and any(v.kind is not None for v in vals)
        columns = [[self._convert(x, "f") for x in v.lanes] if arrays else v.lanes for v in vals]
        if name == "round":
            fn = lambda x, n: oracle.ieee_round(x, int(n))  # noqa: E731
        elif name == "fsum":
            fn = lambda *xs: oracle.IEEE_MATH.fsum(xs)  # noqa: E731 - fsum((a, b, c)) of the source
        elif name == "isclose":  # the IR passes rel_tol and abs_tol
            fn = lambda a, b, rel, tol: math.isclose(a, b, rel_tol=rel, abs_tol=tol)  # noqa: E731
        else:
            fn = getattr(oracle.IEEE_MATH, name)
        on_arrays = self.arrays and not self.inst.scalar  # the helper runs on arrays (0-d ones too)
        if on_arrays and name in oracle.INEXACT_SPECIAL:
            # The inexact helpers' values on arrays are their own, within their bound of
            # CPython's: an element the array rules explain otherwise (a wrapped int on the way,
            # item 13) gives the helper's value, not CPython's (seed 1 #64).
            helper = SPECIAL_HELPERS[name][1]
            lanes = self._numpy(lambda *xs: helper(np, *xs), *columns)
            for got, want in zip(lanes, _lanes(fn, *columns)):
                if got is not POISON and want is not POISON and not oracle.special_close(got, "f", want, name):
                    raise Unsupported(f"math.{name} gives {want!r} where its helper gives {got!r}, beyond the documented bound")
        else:
            lanes = _lanes(fn, *columns)
        if on_arrays:
            self._d3_nan_signs(lanes, columns)
        if not arrays:
            return Val(lanes, None)
        return Val(lanes, "b" if name == "isclose" else "f")

    def _d3_nan_signs(self, lanes: List[Any], columns: List[List[Any]]) -> None:
        """A NaN from operands that are not NaN where CPython raised (D3: a D17 helper, an int
        division by zero) takes the sign ``nan_sign`` (in place)."""
        for i, x in enumerate(lanes):
            if type(x) is float and x != x and not any(_is_nan(c[i]) for c in columns):
                # D3: CPython raises here and the helper gives a NaN, whose sign is the array
                # library's (item 18): ``nan_sign`` when the checker asks for one.
                self.d3_nans = True
                if self.nan_sign is not None:
                    lanes[i] = math.copysign(math.nan, self.nan_sign)
