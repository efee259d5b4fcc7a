"""Cache-blocked evaluation of a generated function on large NumPy inputs.

A generated body allocates one temporary per operation. On a million float64 elements each is
8 MB, far more than the caches hold, so every operation streams its operands from memory and
faults in fresh pages for its result. Run over blocks of ``BLOCK`` elements, the same body keeps
its temporaries in the L2 cache, and each block's result is copied into one preallocated output:
the hand rewrite's speed is bounded by memory traffic, the blocked one much less.

How a call gets here (emit.py installs both halves, for functions whose namespace is not pinned
and that bind no hidden values): the function's float prologue is ``_vec_float_args_blocked``,
which returns ``None`` for NumPy float64 arguments of at least ``THRESHOLD`` elements, as it does
for non-float arguments; so the entry calls its exact body's slot, where a ``Dispatch`` sits. The
dispatch runs the entry over blocks (each block is below the threshold, so it takes the entry's
usual path, float or exact) or, when the arguments cannot be blocked, runs the entry once whole
with blocking off in this thread; small non-float calls go straight to the exact body.

Results never change: every lane is computed by the same code on the same operands. The whole-
array decisions of docs/semantics.md (item 12: int ** int is int64 only when no exponent is
negative; item 13: uint64 results only when no lane is negative) are taken per block, so the
blocks must agree: a block whose result differs from the first block's in dtype or shape (or
structure) abandons the blocked run, and the call is evaluated again whole. When every block
agrees, the whole array decides the same way (all blocks "no lane negative" is the whole array's
"no lane negative"), with the same lane values.

Only NumPy is blocked: ``out[lo:hi] = block`` needs in-place slice assignment (JAX arrays are
immutable; Dask and array-api-strict are left whole), and only exact ``numpy.ndarray`` arguments
(a subclass may override slicing or arithmetic).
"""

from __future__ import annotations

import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

#: Elements per block: a handful of float64 temporaries of 32 Ki elements (256 KiB each) fit in
#: the L2 caches of current x86 and ARM cores.
BLOCK = 1 << 15
#: Elements from which a call is blocked. Below, the per-block cost of running the body's Python
#: (a few microseconds per block) is not repaid.
THRESHOLD = 1 << 17

_state = threading.local()


def blocking_off() -> bool:
    """True while this thread runs a call whole after blocking was declined or abandoned."""
    return getattr(_state, "off", False)


class Dispatch:
    """What sits in a generated function's exact-body slot when it may be blocked: ``entry``,
    the function itself, is run over blocks for large NumPy arguments; ``exact`` is the exact
    body (or the stand-in that compiles it on its first call). The exact body takes the entry's
    parameters positionally; ``n_positional`` of them are positional in the entry and the rest,
    ``keywords``, keyword-only."""

    __slots__ = ("entry", "exact", "keywords", "n_positional", "worth")

    def __init__(self, entry: Callable[..., Any], exact: Callable[..., Any]) -> None:
        code = entry.__code__
        self.entry = entry
        self.exact = exact
        self.n_positional = code.co_argcount
        self.keywords = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
        self.worth: bool | None = None  # worth_blocking(entry), on the first large call

    def __call__(self, *args: Any) -> Any:
        if blocking_off() or not _large(args):
            return self.exact(*args)
        worth = self.worth
        if worth is None:
            worth = self.worth = worth_blocking(self.entry.__code__)
        result = _run_blocked(self, args) if worth else _DECLINED
        if result is _DECLINED:
            result = self.whole(args)
        return result

    def call_entry(self, args: tuple[Any, ...]) -> Any:
        n = self.n_positional
        if not self.keywords:
            return self.entry(*args)
        return self.entry(*args[:n], **dict(zip(self.keywords, args[n:])))

    def whole(self, args: tuple[Any, ...]) -> Any:
        """The entry on the whole arguments, with blocking off in this thread."""
        was = blocking_off()
        _state.off = True
        try:
            return self.call_entry(args)
        finally:
            _state.off = was


_DECLINED = object()

#: Blocking pays when the body makes at least this many array operations (or loops): each
#: block's result is copied into the output, one more pass than the whole-array call makes,
#: which a body of two or four passes (``max(x, c)``, ``min(max(x, lo), hi)``) does not win back.
MIN_OPERATIONS = 5


def worth_blocking(code: Any) -> bool:
    """Whether a generated entry's body is heavy enough to gain from blocks: it loops, or it
    calls, compares and computes at least ``MIN_OPERATIONS`` times besides its prologue's two
    calls (read from the bytecode: every array operation is one of those instructions, named
    ``CALL*``, ``BINARY_*`` and ``COMPARE_OP`` on every CPython since 3.9)."""
    import opcode  # small, and only on a function's first large call

    names = opcode.opname
    raw = code.co_code
    count = -2
    for i in range(0, len(raw), 2):
        name = names[raw[i]]
        if name == "FOR_ITER":
            return True
        if name.startswith(("CALL", "BINARY_")) or name == "COMPARE_OP":
            count += 1
    return count >= MIN_OPERATIONS


def is_ndarray(a: Any) -> bool:
    """Whether `a` is exactly a ``numpy.ndarray`` (not a subclass), without importing NumPy."""
    t = type(a)
    return t.__name__ == "ndarray" and t.__module__ == "numpy"


def _large(args: tuple[Any, ...]) -> bool:
    for a in args:
        if is_ndarray(a) and a.size >= THRESHOLD:
            return True
    return False


def _run_blocked(dispatch: Dispatch, args: tuple[Any, ...]) -> Any:
    """The entry over blocks of the arguments, written into preallocated outputs; ``_DECLINED``
    when the arguments cannot be blocked or the blocks disagree."""
    np = sys.modules["numpy"]  # an argument is a numpy.ndarray: NumPy is loaded (not imported here)

    arrays = []
    for a in args:
        if is_ndarray(a):
            arrays.append(a)
        elif hasattr(a, "shape") and not isinstance(a, np.generic):
            return _DECLINED  # another library's array: the entry decides what to do
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return _DECLINED  # the entry raises the library's own error
    plan = _plan(args, shape)
    if plan is None:
        return _DECLINED
    bounds, take, block_shape = plan
    size = bounds[-1]
    out = None
    multiple = False
    for lo, hi in zip(bounds, bounds[1:]):
        result = dispatch.call_entry(take(lo, hi))
        multiple = type(result) is tuple
        parts = result if multiple else (result,)
        expected = block_shape(lo, hi)
        if out is None:
            if not _agrees(parts, None, expected):
                return _DECLINED
            out = tuple(np.empty(size, dtype=part.dtype) for part in parts)
        elif not _agrees(parts, out, expected):
            return _DECLINED
        for dest, part in zip(out, parts):
            dest[lo:hi] = part.reshape(-1)
    if out is None:
        return _DECLINED
    results = tuple(o.reshape(shape) for o in out)
    return results if multiple else results[0]


def _plan(args: tuple[Any, ...], shape: tuple[int, ...]):
    """``(bounds, take, block_shape)``: flat block boundaries, ``take(lo, hi)`` giving the
    arguments of one block, and the shape its result must have; None when not blockable.

    When every array argument either has the full shape and is C-contiguous or is 0-d, the
    arguments are cut as flat views, in blocks of ``BLOCK`` elements whatever the shape.
    Otherwise the leading axis is cut, and the arguments that broadcast along it (fewer
    dimensions, or length 1 there) are passed whole."""
    size = 1
    for n in shape:
        size *= n
    full = [is_ndarray(a) and a.shape == shape for a in args]
    flat_ok = all(
        a.flags.c_contiguous if f else (not is_ndarray(a) or a.ndim == 0) for a, f in zip(args, full)
    )
    if flat_ok:
        flat = tuple(a.reshape(-1) if f else a for a, f in zip(args, full))

        def take_flat(lo: int, hi: int) -> tuple[Any, ...]:
            return tuple(a[lo:hi] if f else a for a, f in zip(flat, full))

        return _bounds(size, BLOCK), take_flat, lambda lo, hi: (hi - lo,)
    if len(shape) < 2 or shape[0] < 2:
        return None
    row = size // shape[0]
    rows = BLOCK // row if row else 0
    if rows < 1 or rows >= shape[0]:
        return None
    ndim = len(shape)
    cut = [is_ndarray(a) and a.ndim == ndim and a.shape[0] == shape[0] for a in args]
    rest = shape[1:]

    def take_rows(lo: int, hi: int) -> tuple[Any, ...]:
        return tuple(a[lo // row : hi // row] if c else a for a, c in zip(args, cut))

    return _bounds(size, rows * row), take_rows, lambda lo, hi: ((hi - lo) // row, *rest)


def _bounds(size: int, step: int) -> list[int]:
    return [*range(0, size, step), size]


def _agrees(parts: tuple[Any, ...], out: tuple[Any, ...] | None, shape: tuple[int, ...]) -> bool:
    """Whether a block's results are arrays of the block's shape and, after the first block,
    of the first block's dtypes."""
    if out is not None and len(parts) != len(out):
        return False
    for i, part in enumerate(parts):
        if not is_ndarray(part) or part.shape != shape:
            return False
        if out is not None and part.dtype != out[i].dtype:
            return False
    return True
