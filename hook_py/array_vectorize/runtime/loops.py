"""Data-dependent loops (D12): ``carried = _vec_while(xp, step, mask, *carried)``.

Generated code makes each masked loop a step function of its carried variables
(src/codegen/loop_fn.rs); ``_vec_while`` calls it while any lane of the mask is true. The test
is ``_vec_any``: on an eager namespace ``bool(xp.any(active))``, on a lazy one (Dask) a compute
of the mask's graph per iteration. Under tracing (``jax.jit``) the lanes' values are unknown,
so Python cannot drive the loop: the same step runs as the body of ``jax.lax.while_loop``, whose
test is the same ``any`` of the mask, so each lane takes the same iterations and operations as
on concrete arrays. A loop still written ``while _vec_any(xp, active):`` (one whose temporaries
are read after it) raises a ``VectorizationError`` under tracing instead of the tracer's error.
A loop whose step computes each lane from that lane's values only (``lane_wise``: the loops
src/codegen/pack.rs packs on NumPy) is packed under tracing too, into buffers of static sizes
(``_packed_lax_while``).
"""

from __future__ import annotations

import sys

from .traced import _is_traced

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The exception raised under tracing: ``registry`` binds it to the core's ``VectorizationError``
#: (the runtime reads the compiled core only through the registry).
TRACED_LOOP_ERROR: type = RuntimeError


#: ``(numpy.ndarray, count_nonzero)`` once NumPy is loaded (``_numpy_fast``).
_NUMPY_FAST: Any = None


def _numpy_fast() -> Any:
    global _NUMPY_FAST
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return (_NoArray, None)
    _NUMPY_FAST = (numpy.ndarray, _count_nonzero(numpy))
    return _NUMPY_FAST


def _count_nonzero(numpy: Any) -> Any:
    """NumPy's C ``count_nonzero``: ``numpy.count_nonzero(a)`` calls it for ``a`` alone (no axis)
    after its ``__array_function__`` dispatch, which costs ~0.3 us a call, three times the count
    of a 10-element mask; a masked loop tests its mask every iteration. ``numpy.count_nonzero``
    where the module is not where NumPy 1 and 2 keep it."""
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        count = getattr(sys.modules.get(module), "count_nonzero", None)
        if type(count) is type(len):  # the builtin, not a Python wrapper
            return count
    return numpy.count_nonzero


class _NoArray:
    """A type no value has: the fast path's type while NumPy is not loaded."""


def _vec_any(xp: Any, mask: Any) -> bool:
    """Whether any lane of the bool array ``mask`` is true, as a Python bool.

    A bool ``numpy.ndarray`` (exactly that type) is tested with ``count_nonzero``: ~0.2 us on a
    10-element mask against ~2 us for ``any`` (NumPy's reduction wrapper), which the loop pays
    once per iteration; the count is nonzero exactly when some lane is true."""
    nd, count = _NUMPY_FAST or _numpy_fast()
    if type(mask) is nd and mask.dtype.char == "?":
        return count(mask) != 0
    try:
        return bool(xp.any(mask))
    except Exception as exc:
        if not type(exc).__module__.startswith("jax"):
            raise
        err = TRACED_LOOP_ERROR(
            "a `while` loop (or a loop with `break`) of a vectorized function cannot run under "
            "jax.jit: how many iterations it takes depends on the values of the lanes, which "
            "tracing does not know (D12). Call the function outside jax.jit, or with concrete "
            "arrays."
        )
        err.diagnostics = []
        raise err from exc


def _vec_while(xp: Any, step: Any, mask: int, *carried: Any, lane_wise: bool = False) -> tuple:
    """``carried`` after ``carried = step(*carried)`` ran while any lane of ``carried[mask]`` is
    true (D12); from the first iteration whose mask is traced on, ``jax.lax.while_loop`` runs
    the rest (``_lax_while``). ``lane_wise``: the step computes each lane from that lane's
    values (its arguments) only, so under tracing the lanes still active may be packed."""
    nd, count = _NUMPY_FAST or _numpy_fast()
    while True:
        m = carried[mask]
        if type(m) is nd and m.dtype.char == "?":
            if count(m) == 0:
                return carried
        else:
            try:
                if not bool(xp.any(m)):
                    return carried
            except Exception:
                # A tracer without a concrete value (jax.jit; not jax.grad alone, whose
                # tracers have values and keep the Python loop, which it can differentiate).
                if not _is_traced(m):
                    raise
                return _lax_while(xp, step, mask, carried, lane_wise)
        carried = step(*carried)


def _vec_ifexp(xp: Any, test: Any, then: Any, other: Any) -> Any:
    """``then() if test else other()``: a conditional expression of a loop's step whose test reads
    a value the loop carries (src/codegen/loop_fn.rs), such as a counter the same on every lane
    (`n_1 < 50` of ``while n < 50:``). On concrete values only the side the test picks runs, as
    the conditional did. Under ``jax.lax.while_loop`` that counter is traced, so Python cannot
    pick: both sides run and ``xp.where`` picks, the same side on every lane (D12)."""
    if type(test) is bool or not _is_traced(test):
        return then() if test else other()
    return xp.where(test, then(), other())


def _lax_while(xp: Any, step: Any, mask: int, carried: tuple, lane_wise: bool = False) -> tuple:
    """The rest of a masked loop whose mask is traced, as ``jax.lax.while_loop``: the test is
    whether any lane of the mask is true, the body ``step``. The loop's carry keeps one shape and
    dtype: every carried value starts as the array (broadcast, in the dtype) that ``step`` gives
    for it, which holds each lane's value unchanged (a 0-d counter broadcast to every lane, a
    Python number as the array of its value); lanes that finished are masked out by the step.
    A ``lane_wise`` loop whose values allow it runs packed (``_packed_lax_while``)."""
    jax = sys.modules["jax"]
    try:
        init = tuple(xp.asarray(c) for c in carried)
        kept: list = []

        def probe(*c: Any) -> tuple:
            out = tuple(step(*c))
            kept[:] = [o is i for o, i in zip(out, c)]
            return out

        shapes = jax.eval_shape(probe, *init)
        init = tuple(_fit(xp, c, s) for c, s in zip(init, shapes))
        kinds = _lane_kinds(carried, shapes, kept, mask) if lane_wise else None
        if kinds is not None:
            return _packed_lax_while(jax, xp, step, mask, init, shapes, kinds)
        return _full_lax_while(jax, xp, step, mask, init, shapes)
    except Exception as exc:
        # JAX's errors, and the TypeError of a carry JAX cannot hold, become the loop's own;
        # the project's errors from inside the body (a table read, a raise check, an inner
        # loop) and the body's own exceptions pass.
        ours = isinstance(exc, TRACED_LOOP_ERROR) or str(exc).startswith("array-vectorize")
        if not ours and _empty_sequence_read(exc, carried):
            raise _empty_sequence_error(exc) from exc
        if ours or not (type(exc).__module__.startswith("jax") or type(exc) in (TypeError, OverflowError)):
            raise
        err = TRACED_LOOP_ERROR(
            "a `while` loop (or a loop with `break`) of a vectorized function could not run as "
            f"jax.lax.while_loop under tracing ({type(exc).__name__}: {_first_line(exc)}): its "
            "carried values must be numbers or arrays of one shape and dtype on every "
            "iteration, and its body must not decide in Python on a value that changes per "
            "iteration (D12). Call the function outside jax.jit, or with concrete arrays."
        )
        err.diagnostics = []
        raise err from exc


def _full_lax_while(jax: Any, xp: Any, step: Any, mask: int, init: tuple, shapes: tuple) -> tuple:
    """``jax.lax.while_loop`` of ``step`` over every lane while any lane of the mask is true."""

    def test(state: tuple) -> Any:
        return xp.any(state[mask])

    def body(state: tuple) -> tuple:
        return tuple(_fit(xp, c, s) for c, s in zip(step(*state), shapes))

    return tuple(jax.lax.while_loop(test, body, init))


# ------------------------------------------------------------------ packed loops under tracing

#: Under tracing a lane-wise loop's active lanes are packed into a buffer of a static size, each
#: level's buffer ``JAX_PACK_FACTOR`` times smaller than the lanes it packs from: a loop of
#: ``n`` lanes runs at full width while more than ``n // 8`` lanes are active, then at
#: ``n // 8`` while more than ``n // 64`` are, and so on. Kepler's equation on mixed orbits
#: (benchmarks/functions.py, 1e6 lanes: 1.1% still active after five steps, 0.05% after
#: fifty) computes 5.2e6 lane-steps so, against 5e7 at full width.
JAX_PACK_FACTOR = 8
#: No buffer is smaller: below, a level saves less than the gather and scatter around it cost,
#: and each level is one more copy of the loop's body for XLA to compile.
JAX_PACK_MIN_LANES = 256

#: The kinds of a loop's carried values (``_lane_kinds``).
_UNIFORM, _LANES, _INPUT = 0, 1, 2


def _lane_kinds(carried: tuple, shapes: tuple, kept: list, mask: int) -> list | None:
    """Per carried value, how a packed loop holds it, or None when the loop cannot be packed
    (its mask has too few lanes, or a value is none of these):

    - ``_UNIFORM``: a 0-d array (a counter the same on every lane, a Python number), or a value
      given per call that the step returns unchanged (a tuple of numbers, D14), kept as it is;
    - ``_LANES``: an array of the mask's shape, gathered to the lanes packed and scattered back;
    - ``_INPUT``: an array the step returns unchanged (a local the loop reads), broadcast to the
      mask's shape and gathered, never scattered back."""
    lanes = tuple(shapes[mask].shape)
    if not lanes or _size(lanes) // JAX_PACK_FACTOR < JAX_PACK_MIN_LANES:
        return None
    numpy = sys.modules["numpy"]
    kinds = []
    for value, like, same in zip(carried, shapes, kept):
        shape = tuple(like.shape)
        if not (hasattr(value, "dtype") or type(value) in (bool, int, float)):
            if not same:
                return None
            kinds.append(_UNIFORM)
        elif not shape:
            kinds.append(_UNIFORM)
        elif shape == lanes and not same:
            kinds.append(_LANES)
        elif same and numpy.broadcast_shapes(shape, lanes) == lanes:
            kinds.append(_INPUT)
        else:
            return None
    return kinds


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _packed_lax_while(jax: Any, xp: Any, step: Any, mask: int, init: tuple, shapes: tuple, kinds: list) -> tuple:
    """A lane-wise masked loop under tracing, packed: ``jax.lax.while_loop`` over every lane
    while more than ``n // JAX_PACK_FACTOR`` of its ``n`` lanes are active; then the active
    lanes' values (at most that many) are gathered, in C order, into buffers of that static
    size, the rest of the loop runs on them (packing again, down to ``JAX_PACK_MIN_LANES``),
    and their carried values are scattered back. Each lane takes the same operations in the
    same order as in the loop over every lane; a buffer's padding (past the active lanes) is
    never active and never written back; a lane that finished keeps its values, as the step
    masks it out. The loop runs as many iterations as over every lane (the mask's ``any`` is
    the same), so a counter the same on every lane ends as it did."""
    lanes = tuple(shapes[mask].shape)
    width = _size(lanes)
    sizes = []
    while width // JAX_PACK_FACTOR >= JAX_PACK_MIN_LANES:
        width //= JAX_PACK_FACTOR
        sizes.append(width)
    flat = [(c if k == _UNIFORM else xp.reshape(xp.broadcast_to(c, lanes), (-1,))) for c, k in zip(init, kinds)]
    likes = [s if k == _UNIFORM else jax.ShapeDtypeStruct((_size(lanes),), s.dtype) for s, k in zip(shapes, kinds)]
    out = _packed_levels(jax, xp, step, mask, tuple(flat), likes, kinds, sizes)
    return tuple(
        xp.reshape(c, lanes) if k == _LANES else (first if k == _INPUT else c)
        for first, c, k in zip(init, out, kinds)
    )


def _packed_levels(jax: Any, xp: Any, step: Any, mask: int, state: tuple, likes: list, kinds: list, sizes: list) -> tuple:
    """``state`` (its lane values flat) after the loop, run at its width while more lanes than
    ``sizes[0]`` are active, then on the active lanes packed into buffers of ``sizes[0]`` lanes
    (recursively, down the rest of ``sizes``)."""
    jnp = sys.modules["jax.numpy"]

    def body(st: tuple) -> tuple:
        return tuple(_fit(xp, c, s) for c, s in zip(step(*st), likes))

    if not sizes:
        return tuple(jax.lax.while_loop(lambda st: jnp.any(st[mask]), body, state))
    size = sizes[0]
    state = jax.lax.while_loop(lambda st: jnp.count_nonzero(st[mask]) > size, body, state)
    width = likes[mask].shape[0]
    inner_likes = [s if k == _UNIFORM else jax.ShapeDtypeStruct((size,), s.dtype) for s, k in zip(likes, kinds)]

    def packed(state: tuple) -> tuple:
        # At most `size` lanes are active: their indices in C order, the padding `width` (out
        # of bounds: read clipped to the last lane, made inactive, dropped when written back).
        index = jnp.nonzero(state[mask], size=size, fill_value=width)[0]
        gathered = [c if k == _UNIFORM else c.at[index].get(mode="clip") for c, k in zip(state, kinds)]
        gathered[mask] = gathered[mask] & (index < width)
        done = _packed_levels(jax, xp, step, mask, tuple(gathered), inner_likes, kinds, sizes[1:])
        return tuple(
            c.at[index].set(d, mode="drop") if k == _LANES else (c if k == _INPUT else d)
            for c, d, k in zip(state, done, kinds)
        )

    # A loop whose lanes all finished together (none left active) skips the gathers.
    return tuple(jax.lax.cond(jnp.any(state[mask]), packed, lambda st: st, state))


def _empty_sequence_read(exc: BaseException, carried: tuple) -> bool:
    """Whether ``exc`` is JAX's ``IndexError`` for an item read from an empty sequence the loop
    carries (a table given per call, D14, run over by ``for lo in table:``): JAX traces the body
    of ``jax.lax.while_loop`` even when the loop would run no iteration, and an empty array has
    no item to read, whichever index is traced."""
    if not isinstance(exc, IndexError) or not any(type(c) in (tuple, list) and not c for c in carried):
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    # Raised by JAX's indexing (the innermost frame), not by the body's own Python.
    return tb is not None and str(tb.tb_frame.f_globals.get("__name__", "")).startswith("jax")


def _empty_sequence_error(exc: BaseException) -> BaseException:
    """Issue 30: the project's error in place of JAX's ``IndexError`` (``_empty_sequence_read``)."""
    err = TRACED_LOOP_ERROR(
        "a loop over an empty sequence given per call (a tuple or list argument, D14) cannot run "
        f"under jax.jit ({type(exc).__name__}: {_first_line(exc)}): JAX traces the loop's body, "
        "which reads an item of the sequence, even when the loop runs no iteration (D12). Call "
        "the function outside jax.jit when the sequence is empty (the loop then runs no "
        "iteration, as in CPython), or pass a nonempty one."
    )
    err.diagnostics = []
    return err


def _fit(xp: Any, value: Any, like: Any) -> Any:
    """``value`` as an array of ``like``'s shape and dtype (``like`` a ``jax.ShapeDtypeStruct``)."""
    if value.dtype != like.dtype:
        value = xp.astype(value, like.dtype)
    if value.shape != like.shape:
        value = xp.broadcast_to(value, like.shape)
    return value


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


# --------------------------------------------------------------------------- packed while loops

#: Lanes of the current arrays from which a loop's arrays are packed; below, the iterations
#: cost their Python more than their elements, and packing would save little.
PACK_MIN_LANES = 1 << 12
#: The same for a loop packed already (at ``PACK_MIN_LANES`` lanes or more): its lanes still
#: active after that are the slow ones, which often iterate dozens of times more, so packing
#: their arrays again is repaid down to a few lanes. Kepler's equation on mixed orbits (2%
#: near-parabolic, docs/benchmarks.md): each block of 32 Ki lanes packed to 377 lanes after
#: five steps and kept them for the 45 more that 13 of them take; packing on down to 64 lanes
#: took 0.93 of the time (median of 11 round-robin calls, one thread).
REPACK_MIN_LANES = 1 << 6
#: A loop's arrays are packed when at most this share of their lanes is still active.
PACK_FRACTION = 0.5


class Lanes:
    """The state of one packed ``while`` loop (src/codegen/pack.rs): the lanes its arrays still
    hold, as flat indices into ``shape`` (None: not packed yet), and, per carried variable, a
    flat array of ``shape`` holding the value of every lane packed away (None: a Python value,
    the same on every lane)."""

    __slots__ = ("carried", "shape", "index", "full", "invariant")

    def __init__(self, carried: int) -> None:
        self.carried = carried
        self.shape: Any = None
        self.index: Any = None
        self.full: list = []
        self.invariant: tuple = ()


def _vec_lanes(xp: Any, carried: int, *values: Any) -> Any:
    """A ``Lanes`` for the ``while`` loop about to run, or None when its arrays are never packed:
    the loop's carried variables (the first ``carried`` of ``values``) and the locals it reads
    (the rest) must be NumPy arrays (exactly ``numpy.ndarray``; bool, int or float: uint64 lanes
    follow the lattice of docs/semantics.md item 13, whose dtype is decided per array), NumPy
    or Python scalars, or objects holding no array; and some array has ``PACK_MIN_LANES`` lanes
    or more. Other namespaces keep their loops as they are (JAX arrays are immutable, Dask's and
    array-api-strict's indexing by a computed index is not the hot path)."""
    nd = (_NUMPY_FAST or _numpy_fast())[0]
    # Small calls first, in one cheap pass: most loops run on a few lanes.
    for v in values:
        if type(v) is nd and v.size >= PACK_MIN_LANES:
            break
    else:
        return None
    generic = sys.modules["numpy"].generic
    for v in values:
        t = type(v)
        if t is nd or isinstance(v, generic):
            if v.dtype.kind not in "bif":
                return None
        elif t in (tuple, list, dict):
            if any(hasattr(x, "shape") for x in (v.values() if t is dict else v)):
                return None
        elif hasattr(v, "shape") or hasattr(v, "__array_namespace__"):
            return None  # another array type, or a subclass of ndarray
    return Lanes(carried)


def _vec_pack(xp: Any, lanes: Lanes, active: Any, *values: Any) -> tuple:
    """``values`` (the loop's carried variables, then the locals it reads) unchanged, or, when at
    most ``PACK_FRACTION`` of the lanes of the current arrays are ``active`` (and they have at
    least ``PACK_MIN_LANES``, or ``REPACK_MIN_LANES`` once packed), each array of them reduced
    to the active lanes, flat: every lane keeps its own values, and each iteration from now on
    computes the active lanes only. The carried values of the lanes left out are kept in
    ``lanes`` for ``_vec_unpack``."""
    if type(active) is not (_NUMPY_FAST or _numpy_fast())[0] or not active.ndim:
        return values  # a mask the same on every lane: every lane active (none ends the loop)
    if lanes.index is None:
        held, least = active.size, PACK_MIN_LANES
    else:
        held, least = lanes.index.size, min(PACK_MIN_LANES, REPACK_MIN_LANES)
    if held < least or _NUMPY_FAST[1](active) > held * PACK_FRACTION:
        return values
    numpy = sys.modules["numpy"]
    nd = numpy.ndarray
    k = lanes.carried
    carried, invariant = values[:k], values[k:]
    if lanes.index is None:
        shapes = [v.shape for v in values if type(v) is nd]
        shape = numpy.broadcast_shapes(active.shape, *shapes)
        lanes.shape = shape
        lanes.full = [
            numpy.broadcast_to(c, shape).reshape(-1).copy() if _holds_lanes(numpy, c) else None
            for c in carried
        ]
        lanes.invariant = invariant
        flat = numpy.broadcast_to(active, shape).reshape(-1)
        index = numpy.flatnonzero(flat)
        lanes.index = index
        packed = [_gather(numpy, v, shape, index) for v in values]
        return tuple(packed)
    if active.shape != lanes.index.shape:
        raise RuntimeError(
            "array-vectorize internal error: a packed loop's mask has lanes the loop does not hold; "
            "please report this with the function's source"
        )
    _store(numpy, lanes, carried)
    keep = numpy.flatnonzero(active)
    lanes.index = lanes.index[keep]
    return tuple(v[keep] if type(v) is nd and v.ndim else v for v in values)


def _vec_unpack(xp: Any, lanes: Lanes, *values: Any) -> tuple:
    """After a loop ``_vec_pack`` may have packed: ``values`` (its carried variables, then the
    locals it reads) as they would be had it never packed: each carried array with every lane
    (the packed lanes' final values, the others' values when they were packed away), in the
    shape the arrays broadcast to; the locals as they were."""
    if lanes.index is None:
        return values
    numpy = sys.modules["numpy"]
    k = lanes.carried
    _store(numpy, lanes, values[:k])
    out = [c if full is None else full.reshape(lanes.shape) for full, c in zip(lanes.full, values[:k])]
    return (*out, *lanes.invariant)


def _holds_lanes(numpy: Any, v: Any) -> bool:
    """``v`` is a NumPy array or scalar: a value per lane, or one broadcast to every lane. Any
    other carried value (a Python number, a uniform object, D14) is the same on every lane."""
    return type(v) is numpy.ndarray or isinstance(v, numpy.generic)


def _gather(numpy: Any, v: Any, shape: tuple, index: Any) -> Any:
    """``v``'s values at the flat ``index`` of ``shape``, when it is an array with lanes."""
    if type(v) is numpy.ndarray and v.ndim:
        return numpy.broadcast_to(v, shape).reshape(-1)[index]
    return v


def _store(numpy: Any, lanes: Lanes, carried: tuple) -> None:
    """Writes the packed lanes' current values of each carried array into its full array."""
    for i, (full, c) in enumerate(zip(lanes.full, carried)):
        if full is None:
            if type(c) is numpy.ndarray and c.ndim:
                raise RuntimeError(
                    "array-vectorize internal error: a packed loop's scalar variable became an array; "
                    "please report this with the function's source"
                )
            continue
        if getattr(c, "ndim", 0) and c.shape != lanes.index.shape:
            raise RuntimeError(
                "array-vectorize internal error: a packed loop's variable has lanes the loop does not "
                "hold; please report this with the function's source"
            )
        dtype = numpy.result_type(full, c)
        if dtype != full.dtype:
            if dtype.kind not in "bif":
                raise RuntimeError(
                    "array-vectorize internal error: a packed loop's variable changed dtype; please "
                    "report this with the function's source"
                )
            full = lanes.full[i] = full.astype(dtype)
        full[lanes.index] = c
