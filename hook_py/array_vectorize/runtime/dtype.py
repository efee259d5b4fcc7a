"""Dtype kinds, per-namespace dtype tables and the small utilities every helper shares.

The exact body of a generated function works on four dtypes only: ``bool``, ``int64``, ``uint64``
and ``float64`` (``_vec_exact_args`` widens everything else). Each operand a helper receives is
classified into a one-letter *kind*:

==========  ===================================================================
kind        operand
==========  ===================================================================
``b``       bool array
``i``       int64 array
``u``       uint64 array
``f``       float64 array
``B``       Python ``bool``
``I``       Python ``int`` (any size; helpers decide what its value fits)
``F``       Python ``float``
``l``       ``LatticeInt``: an integer array of the uint64 lattice with a negative lane
==========  ===================================================================

``Namespace`` caches, per array namespace, the four dtype objects and a map from every dtype object
seen so far to its kind, so that classifying an array costs one attribute read and one dict lookup.

This module is part of the stdlib-only runtime leaf: it imports the standard library and
``array_api_compat`` only.
"""

from __future__ import annotations

import warnings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from . import compat

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
#: ``float(INT64_MAX)`` and ``float(UINT64_MAX)`` round up to these powers of two.
TWO_63 = 2.0**63
TWO_64 = 2.0**64
#: The largest finite float64.
DBL_MAX = 1.7976931348623157e308

ARRAY_KINDS = frozenset("biuf")
#: Dtype-table kinds that ``_vec_exact_args`` widens: narrow ints to int64, narrow floats to float64.
WIDEN_INT = "w"
WIDEN_FLOAT = "h"
COMPLEX = "c"
UNSUPPORTED = "x"

_NARROW_INTS = ("int8", "int16", "int32", "uint8", "uint16", "uint32")
_NARROW_FLOATS = ("float16", "float32")
_COMPLEX = ("complex64", "complex128")


class LatticeInt:
    """An intermediate integer array of the uint64 lattice (``intops.py``) with negative lanes.

    Its lanes hold values in [-2**63, 2**64), which neither int64 nor uint64 holds alone:
    ``bits`` (uint64 array) is each value modulo 2**64 and ``neg`` (bool array, same shape)
    marks the negative lanes; a negative lane's bits are at least 2**63. Helpers accept it as an
    operand (kind ``l``); generated code never lets one escape: ``_vec_result`` turns it into the
    returned array (int64, docs/semantics.md item 13).
    """

    __slots__ = ("bits", "neg")

    def __init__(self, bits: Any, neg: Any) -> None:
        self.bits = bits
        self.neg = neg


def lane(xp: Any, array: Any, shape: tuple, index: int) -> Any:
    """Element ``index`` (C order) of ``array`` broadcast to ``shape`` (a one-element array
    stands for every lane: an operation on 0-d operands runs on shape (1,), ``arith._binary``)."""
    flat = xp.reshape(array, (-1,))
    if flat.shape[0] == 1:
        return flat[0]
    return xp.reshape(xp.broadcast_to(array, shape), (-1,))[index]


class Overflowed:
    """A value computed from an integer of the uint64 lattice whose exact value left
    [-2**63, 2**64) on some lanes (docs/semantics.md item 13, ``intops.beyond``).

    ``value`` holds every lane as the lattice wraps it (an array or a ``LatticeInt``), ``over``
    (bool array) marks the lanes beyond, ``sites`` (``intops.Site``) are the operations that left
    the range, in the order they ran. Only ``+ - * // %`` (``arith._carried``) carry it on, and
    D1's select (``select._vec_select``) keeps the marks of the side each lane takes: a lane
    CPython does not send through the operation raises nothing. Any other use (``kind``), a
    merge with a float side (``select._select_marked``) and returning it (``_vec_result``) raise
    ``error()``: ``value`` is always an integer (code emitted for float values does not know
    this class).
    """

    __slots__ = ("value", "over", "sites", "info")

    def __init__(self, value: Any, over: Any, sites: list, info: Namespace) -> None:
        self.value, self.over, self.sites, self.info = value, over, sites, info

    def error(self) -> OverflowError:
        """Item 13's OverflowError of the first marked lane in C order: the first operation
        that left the range on that lane, with its operands there."""
        xp = self.info.xp
        shape = tuple(self.over.shape)
        index = int(xp.argmax(xp.astype(xp.reshape(self.over, (-1,)), self.info.int64)))
        for site in self.sites:
            if bool(lane(xp, site.over, shape, index)):
                return site.error(xp, shape, index)
        raise AssertionError("a lane beyond the lattice without its operation")  # pragma: no cover


def joined_sites(marked: list) -> list:
    """The sites of the ``Overflowed`` values ``marked``, each once, in the order they ran: the
    values of a loop share their sites (``t = t % 7 + n`` carries ``t``'s, and the merge of each
    step joins the step's value with ``t``), which a plain concatenation would double per step."""
    if len(marked) == 1:
        return marked[0].sites
    unique = {id(site): site for x in marked for site in x.sites}
    return sorted(unique.values(), key=lambda site: site.order)


def settle(args: tuple) -> None:
    """Raises item 13's OverflowError of the first ``Overflowed`` among ``args``: a use of the
    value that cannot carry its marked lanes (a call run element by element, D19, D23)."""
    for a in args:
        if type(a) is Overflowed:
            raise a.error()


class Namespace:
    """Dtype table of one array namespace ``xp`` (built once, see ``namespace_info``)."""

    __slots__ = ("xp", "bool", "int64", "uint64", "float64", "f64", "b1", "kinds", "makers", "_errstate", "uint64_arithmetic")

    def __init__(self, xp: Any) -> None:
        self.xp = xp
        self.bool = getattr(xp, "bool", None) or xp.bool_  # NumPy 1.x modules have only bool_
        self.int64 = xp.int64
        self.uint64 = xp.uint64
        self.float64 = xp.float64
        self.kinds: dict[Any, str] = {}
        # The dtype object arrays actually carry (numpy's ``xp.float64`` is the scalar *type*;
        # arrays carry ``dtype('float64')``). Identity with it is the fastest float64 test.
        self.f64 = xp.asarray(0.0, dtype=xp.float64).dtype
        self.b1 = xp.asarray(False, dtype=xp.bool).dtype
        for probe, dt in ((False, xp.bool), (0, xp.int64), (0, xp.uint64), (0.0, xp.float64)):
            self.kind_of_dtype(dt)
            self.kind_of_dtype(xp.asarray(probe, dtype=dt).dtype)
        self.makers = {kind: self._maker(kind) for kind in "biuf"}
        self.uint64_arithmetic = _has_uint64_arithmetic(xp, self.uint64)
        # D3 needs IEEE results without floating-point warnings; numpy (through the
        # array_api_compat wrapper) and cupy expose ``errstate``.
        self._errstate = getattr(xp, "errstate", None)

    def kind_of_dtype(self, dt: Any) -> str:
        """The kind letter of dtype object ``dt`` (``x`` when unsupported)."""
        try:
            return self.kinds[dt]
        except KeyError:
            kind = self._classify(dt)
            self.kinds[dt] = kind
            return kind
        except TypeError:  # unhashable dtype object: classify without caching
            return self._classify(dt)

    def _classify(self, dt: Any) -> str:
        xp = self.xp
        for kind, known in (("b", self.bool), ("i", self.int64), ("u", self.uint64), ("f", self.float64)):
            if dt == known:
                return kind
        for kind, names in ((WIDEN_INT, _NARROW_INTS), (WIDEN_FLOAT, _NARROW_FLOATS), (COMPLEX, _COMPLEX)):
            for name in names:
                other = getattr(xp, name, None)
                if other is not None and dt == other:
                    return kind
        return UNSUPPORTED

    def _maker(self, kind: str) -> Any:
        dt = self.dtype_of_kind(kind)
        if compat.is_numpy_namespace(self.xp):
            # ``numpy.float64(v)[...]`` is a 0-d ndarray made in ~0.15 us; the array_api_compat
            # ``asarray`` wrapper takes ~1 us, which would dominate a 10-element call.
            def make_numpy(v: Any) -> Any:
                return dt(v)[...]

            return make_numpy
        asarray = self.xp.asarray

        def make(v: Any) -> Any:
            return asarray(v, dtype=dt)

        return make

    def scalar(self, kind: str, v: Any) -> Any:
        """Python scalar ``v`` (already in range) as a 0-d array of kind ``kind``."""
        return self.makers[kind](v)

    def is_float64(self, dt: Any) -> bool:
        """Whether ``dt`` is float64 (the slow path behind the identity test with ``f64``)."""
        return dt is self.f64 or self.kind_of_dtype(dt) == "f"

    def kind(self, x: Any) -> str:
        """The kind letter of operand ``x`` (see the module docstring)."""
        t = type(x)
        if t is float:
            return "F"
        if t is int:
            return "I"
        if t is bool:
            return "B"
        dt = getattr(x, "dtype", None)
        if dt is not None:
            kind = self.kind_of_dtype(dt)
            if kind in ARRAY_KINDS:
                return kind
            raise TypeError(
                f"array-vectorize runtime: unsupported operand dtype {dt!r} "
                "(expected bool, int64, uint64 or float64)"
            )
        if t is LatticeInt:
            return "l"
        if t is Overflowed:  # item 13: a lane beyond the lattice used other than by + - * // %
            raise x.error()
        if isinstance(x, bool):
            return "B"
        if isinstance(x, int):
            return "I"
        if isinstance(x, float):
            return "F"
        raise TypeError(f"array-vectorize runtime: unsupported operand of type {t.__name__}")

    def dtype_of_kind(self, kind: str) -> Any:
        return {"b": self.bool, "i": self.int64, "u": self.uint64, "f": self.float64}[kind]

    def quiet(self) -> Any:
        """Context manager that silences floating-point warnings (D3: the IEEE value is the result).

        Uses the namespace's ``errstate`` when it has one (NumPy through ``array_api_compat``,
        CuPy): about 1 us, and thread-safe on NumPy 2. Otherwise it filters the RuntimeWarnings
        that NumPy-backed libraries (array-api-strict) emit, with ``warnings.catch_warnings``:
        about 2 us, and not thread-safe (the warnings filter list is process-wide). Lazy backends
        evaluate later, outside this context: their warnings, if any, are not silenced. Helpers
        use it only around float ``/``, ``//``, ``%`` and ``**``; everywhere else they arrange
        their operands so that no floating-point exception can occur.
        """
        if self._errstate is not None:
            return self._errstate(all="ignore")
        return _IgnoreFloatWarnings()


class _IgnoreFloatWarnings:
    """``warnings.catch_warnings`` ignoring numpy's floating-point RuntimeWarnings only."""

    __slots__ = ("_ctx",)

    def __enter__(self) -> None:
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.filterwarnings(
            "ignore",
            message=r"(overflow|underflow|invalid value|divide by zero) encountered",
            category=RuntimeWarning,
        )

    def __exit__(self, *exc: object) -> None:
        self._ctx.__exit__(*exc)


def _has_uint64_arithmetic(xp: Any, uint64: Any) -> bool:
    """Whether ``xp`` computes on uint64 arrays: PyTorch stores them but has neither their
    comparisons nor their arithmetic (``"gt_cpu" not implemented for 'UInt64'``)."""
    try:
        a = xp.asarray([1], dtype=uint64)
        bool(xp.any(a < a + a))
    except (NotImplementedError, TypeError, RuntimeError):
        return False
    return True


_NAMESPACES: dict[Any, Namespace] = {}


def namespace_info(xp: Any) -> Namespace:
    """The (memoized) ``Namespace`` table of ``xp``."""
    try:
        return _NAMESPACES[xp]
    except KeyError:
        info = _NAMESPACES[xp] = Namespace(xp)
        return info


def known_any(xp: Any, mask: Any) -> bool | None:
    """``any(mask)`` as a Python bool; ``None`` when ``mask`` is lazy (the values are unknown).

    ``mask`` may also be the static markers ``None`` (no lane) or ``True`` (every lane).
    """
    if mask is None or mask is False:
        return False
    if mask is True:
        return True
    if compat.is_lazy_array(mask):
        return None
    return bool(xp.any(mask))


def python_int_kind(v: int) -> str:
    """``i`` when ``v`` fits int64, ``u`` when it fits uint64 only, ``L`` beyond both."""
    if INT64_MIN <= v <= INT64_MAX:
        return "i"
    if 0 <= v <= UINT64_MAX:
        return "u"
    return "L"


def int_overflow(v: int) -> OverflowError:
    return OverflowError(
        f"array-vectorize runtime: integer {shown_int(v)} does not fit a 64-bit integer array "
        "(int64 or uint64); vectorized integers are 64-bit"
    )


def shown_int(v: int) -> str:
    """`v` for a message: its digits, or its size when they are too many to print (``10 **
    100000`` has more than ``sys.get_int_max_str_digits()`` allows)."""
    if v.bit_length() <= 256:
        return str(v)
    return f"{'-' if v < 0 else ''}<an int of {v.bit_length()} bits>"
