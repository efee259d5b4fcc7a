"""``_vec_select`` and ``_vec_broadcast``: merging and shaping values.

``_vec_select(xp, cond, a, b)`` is ``xp.where(cond, a, b)`` for operands of any kinds. CPython's
``a if cond else b`` keeps the chosen object's type; an array has one dtype, so the operands are
promoted first:

* bool < int64 < float64: ``select(c, True, 2)`` is int64 (``True`` becomes 1), and
  ``select(c, 1, 2.5)`` is float64 (``1`` becomes ``1.0``, exact up to 2**53; larger ints are
  rounded to the nearest float). This representation change is a documented divergence;
* with a uint64 or ``LatticeInt`` operand (or a Python int in [2**63, 2**64)) the uint64
  lattice of ``intops.py`` decides: uint64 when no selected lane is negative, else a
  ``LatticeInt`` (every lane keeps its value);
* ``cond`` is a bool array or a Python bool; a numeric condition means ``cond != 0`` (Python
  truthiness: NaN is true).

``min``/``max`` have no helper of their own: lowering keeps CPython's rule (a later argument
replaces the running winner only when it compares strictly less, greater) as a comparison and a
select per argument, so in an exact body they are ``_vec_binary`` and ``_vec_select``. Known
limit: with three or more arguments the running winner is already promoted, so when uint64
values above ``INT64_MAX`` meet negative values, a later comparison sees the wrapped int64 value.

``_vec_pick(xp, op, a, b)`` is ``a if a > b else b`` (``op`` ``"gt"``: CPython's ``max(b, a)``) or
``a if a < b else b`` (``"lt"``: ``min(b, a)``) for float64 operands, in the float body, and
``_vec_clip(xp, x, lo, hi)`` is ``min(max(x, lo), hi)``: on every namespace the comparisons and
``where`` that define them, exact by construction. On NumPy two cheaper forms give the same bits:

* ``a`` a NumPy float64 scalar (a parameter passed as a number: the float prologue makes those
  NumPy scalars) that is neither NaN nor zero: ``xp.maximum(b, a)`` / ``xp.minimum(b, a)``, one
  pass, with the same result in every lane: a NaN ``b`` gives NaN in both, and on a tie ``a``
  and ``b`` are one value with one sign. (A NaN ``a`` must give ``b``, which ``maximum`` would
  not; a zero ``a`` ties with ``-0.0``, whose sign ``maximum`` leaves to the library: NumPy
  returns its second operand in SIMD lanes, and ``fmax`` either one.)
* arrays of at least ``CHECKED_PASS_MIN`` elements: one ``maximum`` / ``minimum`` / ``clip`` pass
  whose result ``r`` is kept when it holds no NaN and no zero (two reductions, ``r.all()`` and
  ``r.max()``, a fraction of a pass: no temporary), else the comparisons and ``where``. Exact
  (issue 15 item 4), lane by lane: NaN in ``r`` is excluded, and ``maximum``, ``minimum`` and
  ``clip`` give NaN whenever an operand is NaN (NumPy's documented NaN propagation; the Array
  API's ``clip``), so every operand of a kept lane is a number (for ``clip``: a NaN bound that
  a library treated as absent would give CPython's value too, ``max(x, nan)`` being ``x``).
  Between numbers ``max``/``min`` have one value, and two floats of one value differ in bits
  only as ``0.0`` and ``-0.0``, which excluding zero from ``r`` excludes: a tie of zeros gives
  a zero (an inner tie of ``clip`` with ``hi < 0`` gives ``hi``, as CPython does). ``clip`` is
  documented as ``minimum(maximum(x, lo), hi)``, and so is ``min(max(x, lo), hi)``, ``lo > hi``
  included. NaN or zeros in the result only cost the second evaluation.
* bounds that are Python floats (the code's constants, ``lo <= hi``, neither NaN): NumPy's
  ``clip`` ufunc on NumPy arrays, one pass. Exact lane by lane: it propagates a NaN ``x`` as
  CPython does (``max(nan, lo)`` is ``nan``), and between numbers ``max``/``min`` differ from
  CPython only on a tie (CPython keeps ``x``, then ``m``; NumPy's loops may take the bound),
  which changes bits only as a tie of zeros, so a tie needs a zero bound and a zero ``x``. With
  no zero bound the pass is exact; with one, the lanes where ``x`` is a zero get ``x`` back
  (CPython's result there: neither strict comparison holds), checked with a count of the
  nonzero lanes, below ``CHECKED_PASS_MIN`` elements only (on larger arrays the count and the
  copy cost more than array-api-compat's ``clip``). Two zero bounds, other namespaces and larger
  arrays with a zero bound take ``xp.clip`` (array-api-compat's on NumPy: a copy of ``x`` and
  masked assignments where ``x < lo``, then where ``> hi``, exactly CPython's comparisons), as
  the exact body does; array-api-compat's ``clip`` costs ~9 us on 10 elements, the ufunc 0.6.
* smaller arrays of one shape: the same checked ``clip`` pass (NumPy's ufunc itself, without
  ``numpy.clip``'s two Python layers), its result checked by ``count_nonzero`` and the sum of
  squares ``r . r`` (NaN exactly when a lane is NaN), together ~0.4 us at 10 elements
  against ~2 us for ``r.all()`` and ``r.max()``; when the check fails, the same selections
  written into a copy of ``x`` (``numpy.copyto(r, lo, where=lo > x)``, then ``hi`` where
  ``hi < r``): the comparisons of the definition, without ``where``'s allocation.
* C-contiguous float64 NumPy arrays of one shape with ``blocked.THRESHOLD`` elements or more
  (``_checked_blocks``): the checked pass block by block (``blocked.BLOCK`` elements) into one
  output, each block's check run while the block is in the cache, and the selections above
  written into the blocks that fail it; for ``_vec_clip`` the pass is ``maximum`` then
  ``minimum`` in place (SIMD loops, where ``clip``'s for array bounds is scalar code: 19 us
  against 36 us on a block in cache). On a million elements, measured on a loaded 2-core
  machine, 0.63-0.65 of the hand rewrite's CPU time against 0.72-0.78 for the whole-array
  pass, which reads its result twice more for the check.

``_vec_broadcast(xp, value, *params)`` is ``value`` as an array with the broadcast shape of
``value`` and the array ``params``: Python scalars become bool / int64 (uint64 in
[2**63, 2**64)) / float64 arrays (``xp.full_like`` on a parameter of that shape, keeping its
device, when there is one); arrays are broadcast with ``xp.broadcast_to`` (a read-only view), a
``LatticeInt`` part by part.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from . import blocked
from .arith import _scalar_kind, _to_float, _vec_binary
from .dtype import _NAMESPACES, LatticeInt, Namespace, Overflowed, joined_sites, known_any, namespace_info, python_int_kind
from .intops import as_int64, finish, mask, to_int


def _condition(xp: Any, info: Namespace, cond: Any) -> Any:
    if type(cond) is bool:
        return info.scalar("b", cond)
    kind = info.kind(cond)
    if kind == "b":
        return cond
    if kind == "B":
        return info.scalar("b", bool(cond))
    return _vec_binary(xp, "ne", cond, 0)


def _vec_select(xp: Any, cond: Any, a: Any, b: Any) -> Any:
    """``xp.where(cond, a, b)`` with ``a`` and ``b`` promoted to one dtype (module docstring)."""
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    if getattr(cond, "dtype", None) is not info.b1:
        cond = _condition(xp, info, cond)
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if da is not None and da is db:
        return xp.where(cond, a, b)  # one dtype already (the common case)
    f64 = info.f64
    if (da is f64 and type(b) is float) or (db is f64 and type(a) is float):
        return xp.where(cond, a, b)
    if type(a) is Overflowed or type(b) is Overflowed:
        return _select_marked(xp, info, cond, a, b)
    ka, kb = info.kind(a), info.kind(b)
    if ka == kb and ka in "biuf":
        return xp.where(cond, a, b)
    if _scalar_fits(ka, kb, b) or _scalar_fits(kb, ka, a):
        return xp.where(cond, a, b)  # an array and a Python scalar of its kind (Array API 2024.12)
    return _select(xp, info, cond, ka, a, kb, b)


def _select_marked(xp: Any, info: Namespace, cond: Any, a: Any, b: Any) -> Any:
    """D1's merge of a side with lanes beyond the uint64 lattice (docs/semantics.md item 13):
    each lane keeps the marks of the side it takes, so a lane whose branch CPython does not take
    raises nothing for what that branch computed."""
    value = _vec_select(xp, cond, *[x.value if type(x) is Overflowed else x for x in (a, b)])
    none = info.scalar("b", False)
    over = xp.where(cond, a.over if type(a) is Overflowed else none, b.over if type(b) is Overflowed else none)
    if known_any(xp, over) is False:
        return value
    marked = Overflowed(value, over, joined_sites([x for x in (a, b) if type(x) is Overflowed]), info)
    if type(value) is not LatticeInt and info.kind(value) not in "iu":
        # A float side (`1.5 if c else k * 2**63`): the merge converts the marked integer lanes
        # to float, a use of the value other than integer arithmetic (item 13 lists `float()`),
        # which raises for the lanes that take that side, as ``arith._carried`` does for
        # `d + 0.5`. A float-valued mark would reach the code the int body emits for float
        # values (Python operators, ``xp`` functions), which does not know this class.
        raise marked.error()
    return marked


def _scalar_fits(array_kind: str, scalar_kind: str, scalar: Any) -> bool:
    """Whether the Python scalar needs no conversion to share the array's dtype."""
    if array_kind == "f":
        return scalar_kind == "F"
    if array_kind == "b":
        return scalar_kind == "B"
    if array_kind == "i":
        return scalar_kind == "I" and python_int_kind(scalar) == "i"
    return False


def _select(xp: Any, info: Namespace, cond: Any, ka: str, a: Any, kb: str, b: Any) -> Any:
    kinds = ka + kb
    if "f" in kinds or "F" in kinds:
        x, y = _to_float(xp, info, ka, a), _to_float(xp, info, kb, b)
        if ka in "BIF":
            x = info.scalar("f", x)
        if kb in "BIF":
            y = info.scalar("f", y)
        return xp.where(cond, x, y)
    ka_, kb_ = (_scalar_kind(a, ka) if ka in "BI" else ka), (_scalar_kind(b, kb) if kb in "BI" else kb)
    if "u" in (ka_, kb_) or "l" in (ka_, kb_):
        ia, ib = to_int(xp, info, ka, a), to_int(xp, info, kb, b)
        bits = xp.where(cond, ia.bits, ib.bits)
        if ia.neg is None and ib.neg is None:
            return bits
        return finish(xp, info, bits, xp.where(cond, mask(info, ia.neg), mask(info, ib.neg)))
    if "i" in (ka_, kb_):
        return xp.where(cond, as_int64(xp, info, ka, a), as_int64(xp, info, kb, b))
    x = a if ka == "b" else info.scalar("b", bool(a))
    y = b if kb == "b" else info.scalar("b", bool(b))
    return xp.where(cond, x, y)


#: Fewer elements than this and the two reductions of a checked pass cost more than the
#: comparison and ``where`` they would save (measured crossover 4-8 Ki elements).
CHECKED_PASS_MIN = 8192


#: ``numpy.ndarray`` once NumPy is loaded (``_numpy_array_type``): the checks below run on
#: every call of a pick, 10-element calls included, and an identity test is the cheapest (it
#: also leaves subclasses, masked arrays included, to the comparisons and ``where``).
_ndarray: Any = None


def _numpy_c_function(module: str, name: str) -> Any:
    """NumPy's C function `name` from its private `module` (``numpy._core``; ``numpy.core`` in
    NumPy 1), without the Python layers of the public ``numpy.<name>``; that public function
    where the private module moved."""
    numpy = sys.modules["numpy"]
    core = getattr(numpy, "_core", None) or numpy.core
    found = getattr(getattr(core, module, None), name, None)
    return found if callable(found) else getattr(numpy, name)


#: NumPy's ``clip`` ufunc once looked up (``_numpy_clip_ufunc``): ``numpy.clip`` reaches it
#: through two Python layers, ~1.7 us of a 10-element call.
_clip_ufunc: Any = None


def _numpy_clip_ufunc() -> Any:
    global _clip_ufunc
    _clip_ufunc = _numpy_c_function("umath", "clip")
    return _clip_ufunc


#: NumPy's C ``count_nonzero`` (``numpy.count_nonzero`` adds a Python layer: 0.2 us against
#: 0.07 us on 10 elements).
_count_nonzero: Any = None


def _numpy_count_nonzero() -> Any:
    global _count_nonzero
    _count_nonzero = _numpy_c_function("multiarray", "count_nonzero")
    return _count_nonzero


def _numpy_array_type() -> Any:
    """``numpy.ndarray`` when NumPy is loaded (not imported here), else a type no value has;
    ``_float64`` is set with it."""
    global _ndarray, _float64
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return _NoArray
    _ndarray, _float64 = numpy.ndarray, numpy.float64
    return _ndarray


class _NoArray:
    """The array type while NumPy is not loaded: no argument is one."""


#: ``numpy.float64`` once ``_numpy_array_type`` found NumPy loaded: the type of a number
#: parameter on NumPy (the float prologue's), which ``_vec_pick`` tests on every call.
_float64: Any = _NoArray


def _no_nan_no_zero(r: Any) -> bool:
    """Whether the float64 NumPy array `r` holds neither NaN nor a zero of either sign."""
    top = r.max()  # NaN when any lane is NaN
    return bool(r.all()) and top == top


def _small_no_nan_no_zero(r: Any) -> bool:
    """``_no_nan_no_zero`` for arrays below ``CHECKED_PASS_MIN``: a count of the nonzero lanes
    for the zeros and the sum of squares ``r . r`` for NaN (every term is >= 0 or NaN, so no
    inf - inf: the sum is NaN exactly when a lane is), ~0.4 us at 10 elements against ~2 us for
    the two reductions. (At a million elements counting costs three times ``r.all()``, and BLAS
    may run the dot product on several threads.)"""
    if (_count_nonzero or _numpy_count_nonzero())(r) != r.size:
        return False
    squares = r.dot(r) if r.ndim == 1 else sys.modules["numpy"].vdot(r, r)
    return bool(squares == squares)


def _vec_pick(xp: Any, op: str, a: Any, b: Any) -> Any:
    t = type(a)
    nd = _ndarray or _numpy_array_type()
    # `b` an array of at least one dimension: on 0-d operands `maximum` would return a NumPy
    # scalar where `where` returns a 0-d array.
    if t is _float64 and a == a and a != 0.0 and getattr(b, "ndim", 0):
        # The array first: NumPy's loop for a scalar second operand is ~25% faster, and with no
        # NaN `a` and no tie of zeros the order does not change a lane.
        return xp.maximum(b, a) if op == "gt" else xp.minimum(b, a)
    if (type(b) is nd and b.size >= CHECKED_PASS_MIN) or (t is nd and a.size >= CHECKED_PASS_MIN):
        if _blockable(a, b):
            numpy = sys.modules["numpy"]
            return _checked_blocks(numpy.maximum if op == "gt" else numpy.minimum, (a, b), _pick_into(op))
        r = xp.maximum(a, b) if op == "gt" else xp.minimum(a, b)
        if _no_nan_no_zero(r):
            return r
    return xp.where(a > b if op == "gt" else a < b, a, b)


def _pick_into(op: str) -> Any:
    """The comparison and selection of ``_vec_pick``, written into a block ``r``."""

    def pick_into(copyto: Any, r: Any, a: Any, b: Any) -> None:
        r[...] = b
        copyto(r, a, where=a > b if op == "gt" else a < b)

    return pick_into


def _max_then_min(x: Any, lo: Any, hi: Any, out: Any) -> None:
    """``minimum(maximum(x, lo), hi)`` into `out`, the checked pass of ``_vec_clip`` in blocks:
    NumPy's ``clip`` loop for array bounds is scalar code, its ``maximum`` and ``minimum`` loops
    are SIMD (the second reads the block from the cache): on a million elements 0.63 of the hand
    rewrite's CPU time, ``clip`` per block 0.93 (module docstring)."""
    numpy = sys.modules["numpy"]
    numpy.maximum(x, lo, out=out)
    numpy.minimum(out, hi, out=out)


def _clip_into(copyto: Any, r: Any, x: Any, lo: Any, hi: Any) -> None:
    """The comparisons and selections of ``min(max(x, lo), hi)``, written into a block ``r``."""
    r[...] = x
    copyto(r, lo, where=lo > x)
    copyto(r, hi, where=hi < r)


def _blockable(*arrays: Any) -> bool:
    """Whether the checked pass over `arrays` runs in blocks (``_checked_blocks``): C-contiguous
    float64 ``numpy.ndarray``s of one shape with at least ``blocked.THRESHOLD`` elements."""
    first = arrays[0]
    nd = _ndarray or _numpy_array_type()
    if type(first) is not nd or first.size < blocked.THRESHOLD:
        return False
    shape = first.shape
    return all(
        type(a) is nd and a.shape == shape and a.dtype.char == "d" and a.flags.c_contiguous for a in arrays
    )


def _checked_blocks(ufunc: Any, arrays: tuple, into: Any) -> Any:
    """The checked pass of the module docstring (`ufunc` on `arrays`, written into ``out=``,
    kept where its result has no NaN and no zero) on large arrays (``_blockable``), block by
    block into one output: each block's result is checked while it is in the cache, so the
    operands are read once and the result written once (the whole-array pass reads its result
    twice more). A block that fails the check gets the comparisons and selections instead
    (`into`). Lanes are independent: the blocks give the whole pass's lanes."""
    numpy = sys.modules["numpy"]
    copyto = numpy.copyto
    out = numpy.empty(arrays[0].shape)
    flat = [a.reshape(-1) for a in arrays]
    dest = out.reshape(-1)
    step = blocked.BLOCK
    for lo in range(0, dest.size, step):
        hi = lo + step
        r = dest[lo:hi]
        parts = [a[lo:hi] for a in flat]
        ufunc(*parts, out=r)
        top = r.max()
        if not (top == top and r.all()):
            into(copyto, r, *parts)
    return out


def _vec_clip(xp: Any, x: Any, lo: Any, hi: Any) -> Any:
    """``min(max(x, lo), hi)`` for float64 operands (module docstring)."""
    nd = _ndarray or _numpy_array_type()
    if type(lo) is float and type(hi) is float and lo <= hi:
        # Number bounds (the code's constants), neither NaN.
        if type(x) is nd and x.ndim:  # 0-d: the ufunc would return a NumPy scalar
            if lo != 0.0 and hi != 0.0:
                return (_clip_ufunc or _numpy_clip_ufunc())(x, lo, hi)
            if x.size < CHECKED_PASS_MIN and (lo != 0.0 or hi != 0.0):
                r = (_clip_ufunc or _numpy_clip_ufunc())(x, lo, hi)
                if (_count_nonzero or _numpy_count_nonzero())(x) != x.size:
                    sys.modules["numpy"].copyto(r, x, where=x == 0.0)
                return r
        return xp.clip(x, lo, hi)
    if type(x) is nd and type(lo) is nd and type(hi) is nd and (shape := x.shape) == lo.shape and shape == hi.shape:
        if x.size >= CHECKED_PASS_MIN:
            if _blockable(x, lo, hi):
                return _checked_blocks(_max_then_min, (x, lo, hi), _clip_into)
            return _clip_checked_pass(xp, x, lo, hi)
        if shape:  # 0-d: the ufunc would return a NumPy scalar
            r = (_clip_ufunc or _numpy_clip_ufunc())(x, lo, hi)
            if _small_no_nan_no_zero(r):
                return r
        # A NaN or a zero: the same selections written into a copy of `x` (`copyto` with
        # `where=` costs a third of a 10-element `where`).
        copyto = sys.modules["numpy"].copyto
        r = x.copy()
        copyto(r, lo, where=lo > x)
        copyto(r, hi, where=hi < r)
        return r
    n = CHECKED_PASS_MIN
    if (type(x) is nd and x.size >= n) or (type(lo) is nd and lo.size >= n) or (type(hi) is nd and hi.size >= n):
        return _clip_checked_pass(xp, x, lo, hi)
    return _vec_pick(xp, "lt", hi, _vec_pick(xp, "gt", lo, x))


def _clip_checked_pass(xp: Any, x: Any, lo: Any, hi: Any) -> Any:
    """``_vec_clip`` when a NumPy operand has at least ``CHECKED_PASS_MIN`` elements."""
    r = (_clip_ufunc or _numpy_clip_ufunc())(x, lo, hi)
    if _no_nan_no_zero(r):
        return r
    m = xp.where(lo > x, lo, x)
    return xp.where(hi < m, hi, m)


def broadcast_shape(shapes: list[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """The broadcast of ``shapes`` (NumPy rules); ``None`` when a dimension is unknown."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(ndim):
        size = 1
        for s in shapes:
            i = axis - (ndim - len(s))
            if i < 0:
                continue
            d = s[i]
            if not isinstance(d, int):
                return None
            if d == 1:
                continue
            if size != 1 and d != size:
                raise ValueError(f"array-vectorize runtime: shapes {shapes} cannot be broadcast together")
            size = d
        out.append(size)
    return tuple(out)


def _vec_broadcast(xp: Any, value: Any, *params: Any) -> Any:
    """``value`` as an array of the broadcast shape of ``value`` and ``params`` (module docstring)."""
    if type(value) is LatticeInt:
        return LatticeInt(_vec_broadcast(xp, value.bits, *params), _vec_broadcast(xp, value.neg, *params))
    if type(value) is (_ndarray or _numpy_array_type()):
        # A NumPy array whose shape each parameter has, or is 0-d (a number): already of the
        # broadcast shape (the common case, checked without the general walk below).
        shape = value.shape
        for p in params:
            s = getattr(p, "shape", ())
            if s != shape and s != ():
                break
        else:
            return value
    info = _NAMESPACES.get(xp) or namespace_info(xp)
    arrays = [p for p in params if hasattr(p, "shape")]
    is_array = hasattr(value, "shape")
    shape = broadcast_shape([p.shape for p in arrays] + ([value.shape] if is_array else []))
    if shape is None:  # unknown dimensions (lazy backends): let the library broadcast
        ref = xp.broadcast_arrays(*arrays, *([value] if is_array else []))[0]
        shape = ref.shape
        arrays = [ref]
    if is_array:
        return value if value.shape == shape else xp.broadcast_to(value, shape)
    kind = _scalar_kind(value, info.kind(value))
    dtype = info.dtype_of_kind(kind)
    fill = bool(value) if kind == "b" else (float(value) if kind == "f" else int(value))
    for p in arrays:
        if p.shape == shape:
            return xp.full_like(p, fill, dtype=dtype)
    return xp.full(shape, fill, dtype=dtype)
