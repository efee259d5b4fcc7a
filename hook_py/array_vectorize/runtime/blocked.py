"""Cache-blocked evaluation of a generated function on large NumPy inputs.

A generated body allocates one temporary per operation. On a million float64 elements each is
8 MB, far more than the caches hold, so every operation streams its operands from memory and
faults in fresh pages for its result. Run over blocks of ``BLOCK`` elements, the same body keeps
its temporaries in the L2 cache, and each block's result is copied into one preallocated output:
the hand rewrite's speed is bounded by memory traffic, the blocked one much less.

How a call gets here (emit.py installs both halves; the ``Dispatch`` sits in every generated
function's exact-body slot, and blocks those whose namespace is not pinned and that bind no
hidden values, or only module-level objects every block reads whole: ``emit.shares_hidden``):
the function's float prologue is ``_vec_float_args_blocked``,
which returns ``None`` for NumPy float64 arguments of at least ``THRESHOLD`` elements, as it does
for non-float arguments; so the entry calls its exact body's slot, where a ``Dispatch`` sits. The
dispatch runs the entry over blocks (each block is below the threshold, so it takes the entry's
usual path, float or exact) or, when the arguments cannot be blocked, runs the entry once whole
with blocking off in this thread. The prologue marks the calls it sends (``send_large``, after
its dtype checks: float64 arrays and floats only) with the frame of the entry it serves;
every other call of the exact body's slot
(other argument types, small calls) goes straight to the exact body, whole. The mark, not the
arguments the dispatch sees, decides: those include the D14 uniform parameters (a mode string,
a parameter dict, ``None``) that the prologue does not examine, and a large call with one went
to the exact body, whose result dtype can differ from the float body's (fuzz campaign 47, seed
510009 #732: float64 on 10 elements, int64 on 2**17).

Results never change: every lane is computed by the same code on the same operands. The whole-
array decisions of docs/semantics.md (item 12: int ** int is int64 only when no exponent is
negative; item 13: uint64 results only when no lane is negative) are taken per block, so the
blocks must agree: a block whose result differs from the first block's in dtype or shape (or
structure) abandons the blocked run, and the call is evaluated again whole. When every block
agrees, the whole array decides the same way (all blocks "no lane negative" is the whole array's
"no lane negative"), with the same lane values. Not every whole-array decision of the exact body
shows in the result's dtype, though (a select of an int and a float is float on every lane once
any lane takes the float side: an int lane's later arithmetic wraps at 64 bits in a block where
no lane does), so only calls on float64 arrays and floats are blocked; their lanes are float64
from the start. So are calls the int body takes, or the mixed body (int64 and float64 arguments
of the kinds it was compiled for, issue 30), when the core says that body is lane-wise: kinds
fixed at compile time and no helper that decides over the whole array (``Dispatch``).

The blocks after the first run on several threads when the process may use more than one CPU
(runtime/threads.py: ``ARRAY_VECTORIZE_THREADS``, one call at a time on the pool) and the body is
heavy enough to gain (its fastest first block, ``MIN_PARALLEL_SECONDS_PER_ELEMENT``): NumPy
releases the GIL inside its loops, and the outcome is the sequential loop's whatever the threads
(the lowest block's failure decides, ``_fill_rest``).

Only NumPy is blocked: ``out[lo:hi] = block`` needs in-place slice assignment (JAX arrays are
immutable; Dask and array-api-strict are left whole), and only exact ``numpy.ndarray`` arguments
(a subclass may override slicing or arithmetic).
"""

from __future__ import annotations

import contextvars
import sys
import threading
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

from . import threads
from .marks import is_ndarray, mark, send  # noqa: F401 - is_ndarray and send are read as blocked.<name>

#: Elements per block: a handful of float64 temporaries of 32 Ki elements (256 KiB each) fit in
#: the L2 caches of current x86 and ARM cores.
BLOCK = 1 << 15
#: Elements from which a call is blocked. Below, the per-block cost of running the body's Python
#: (a few microseconds per block) is not repaid.
THRESHOLD = 1 << 17

#: The blocks after the first go to worker threads only when the function's first blocks took at
#: least this long per element (the fastest so far: ~200 us for a block of 32 Ki): each array operation holds the GIL while NumPy
#: sets it up, and on light bodies the threads mostly wait for each other's GIL. Measured with
#: `make bench` on 2 cores (the same functions on one thread and on two): kepler (5.4 ms a
#: block), bs_call (1.2 ms) and knock_out_value (0.8 ms) ran 1.3-1.9x faster; smoothstep and
#: reciprocal_series (0.12-0.14 ms, 3.7-4.3 ns per element) 1.1-1.6x slower. 5 ns, not the 6 ns
#: it was: seawater_density's block (two passes on two threads at 7.9 ns per element) takes ~6
#: ns with its polynomials one kernel pass each (runtime/horner.py, which runs without the GIL),
#: and must keep its second thread.
MIN_PARALLEL_SECONDS_PER_ELEMENT = 5e-9

_state = threading.local()


def lane_position(index: int, shape: tuple) -> tuple[int, tuple]:
    """Where lane `index` (C order) of an array of `shape` that a generated body computed lies in
    the whole call: during a block, an array of the block's shape holds the lanes from the
    block's first onwards (``(lo + index, whole shape)``); anything else (a call not blocked, an
    argument passed whole to every block) is numbered as in the whole call already. The notes
    of exceptions raised for a lane (runtime/raises.py, runtime/tables.py) name it by this."""
    lanes = getattr(_state, "lanes", None)
    if lanes is None or tuple(shape) != lanes[1]:
        return index, shape
    return lanes[0] + index, lanes[2]


def _call_block(dispatch: Dispatch, args: tuple[Any, ...], lo: int, block: tuple, shape: tuple) -> Any:
    """The entry on one block's arguments, with the block's place in the call known to
    `lane_position` in this thread meanwhile."""
    _state.lanes = (lo, block, shape)
    try:
        return dispatch.call_entry(args)
    finally:
        _state.lanes = None


def blocking_off() -> bool:
    """True while this thread runs a call whole after blocking was declined or abandoned."""
    return getattr(_state, "off", False)


class Dispatch:
    """What sits in a generated function's exact-body slot: ``exact`` is the exact body (or the
    stand-in that compiles it on its first call), where every call goes unless its float
    prologue sent it here with a mark (``send``): then ``entry``, the function itself, is run
    over blocks for large NumPy arguments (when ``blocks``: the function may be blocked), or
    on the arrays inside pandas and xarray containers (runtime/containers.py). An unmarked
    large call of int64 arrays is run over blocks too when the int body is lane-wise
    (``int_call``). The exact body takes the entry's parameters positionally; ``n_positional``
    of them are positional in the entry and the rest, ``keywords``, keyword-only. So is an
    unmarked large call of int64 and float64 arrays in the kinds of the mixed body (issue 30),
    when that body is lane-wise (``mixed``: its prologue's kinds, ``i`` or ``f`` per parameter,
    the core's ``mixed_lanewise``)."""

    __slots__ = (
        "blocks", "entry", "exact", "fastest", "int_blocks", "keywords", "mixed", "n_positional", "worth",
    )

    def __init__(
        self,
        entry: Callable[..., Any],
        exact: Callable[..., Any],
        blocks: bool = True,
        int_blocks: bool = False,
        mixed: str | None = None,
    ) -> None:
        code = entry.__code__
        self.entry = entry
        self.exact = exact
        self.blocks = blocks
        # The core's ``int_lanewise`` (src/codegen/assemble.rs): the int body calls only `xp`
        # functions and lane-wise helpers, so a large int64 call may run in blocks (`int_call`).
        self.int_blocks = int_blocks
        self.mixed = mixed
        self.n_positional = code.co_argcount
        self.keywords = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
        self.worth: bool | None = None  # worth_blocking(entry), on the first large call
        # The fastest first block so far, in seconds per element: whether the body is heavy
        # enough for worker threads (MIN_PARALLEL_SECONDS_PER_ELEMENT). The minimum over calls,
        # so that a block slowed down by other load does not decide.
        self.fastest = float("inf")

    def __call__(self, *args: Any) -> Any:
        sent = getattr(mark, "sent", None)
        if sent is None:
            if self.blocks and not blocking_off():
                if large_int_call(args):
                    return self.int_call(args)
                if self.mixed is not None and large_mixed_call(args, self.mixed):
                    return self.blocked_or_whole(args)
            return self.exact(*args)
        mark.sent = None
        entry, marker = sent
        if entry is not sys._getframe(1):  # not this call's mark (send)
            return self.exact(*args)
        if not is_ndarray(marker):  # a pandas or xarray container (runtime/containers.py)
            from .containers import call

            return call(self, args)
        if not self.blocks or blocking_off():
            return self.exact(*args)
        worth = self.worth
        if worth is None:
            worth = self.worth = worth_blocking(self.entry.__code__)
        result = _run_blocked(self, args) if worth else _DECLINED
        if result is _DECLINED:
            result = self.whole(args)
        return result

    def int_call(self, args: tuple[Any, ...]) -> Any:
        """A large call of int64 NumPy arrays (and Python ints), which the float prologue passed
        on unmarked: in blocks when the int body is lane-wise (`int_blocks`, the core's word: its
        operations are plain int64 and bool array operations of kinds fixed at compile time, each
        lane's result the same whole or in blocks) and heavy enough, else whole."""
        if not self.int_blocks:
            return self.exact(*args)
        return self.blocked_or_whole(args)

    def blocked_or_whole(self, args: tuple[Any, ...]) -> Any:
        """A call whose body is lane-wise: in blocks when heavy enough, else whole."""
        worth = self.worth
        if worth is None:
            worth = self.worth = worth_blocking(self.entry.__code__)
        result = _run_blocked(self, args) if worth else _DECLINED
        return self.whole(args) if result is _DECLINED else result

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


#: The name generated code calls a masked ``while`` loop's driver by (the core's contract:
#: ``registry`` binds it).
LOOP_DRIVER = "_vec_while"


def worth_blocking(code: Any) -> bool:
    """Whether a generated entry's body is heavy enough to gain from blocks: it loops (a ``for``
    loop, or a masked ``while`` loop's driver, D12), or it calls, compares and computes at least
    ``MIN_OPERATIONS`` times besides its prologue's two calls (read from the bytecode: every
    array operation is one of those instructions, named ``CALL*``, ``BINARY_*`` and
    ``COMPARE_OP`` on every CPython since 3.9)."""
    if LOOP_DRIVER in code.co_names:
        return True
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


def large_int_call(args: tuple[Any, ...]) -> bool:
    """Whether every argument is an int64 ``numpy.ndarray`` or a Python int within int64 (what
    ``_vec_int_args`` takes without widening), and some array has ``THRESHOLD`` elements or
    more. Anything else (a uniform argument, D14; another array type; a narrower int array)
    keeps the call whole."""
    large = False
    for a in args:
        if is_ndarray(a):
            if a.dtype.char not in "lq" or a.dtype.itemsize != 8:
                return False
            large = large or a.size >= THRESHOLD
        elif type(a) is not int or not -(1 << 63) <= a < (1 << 63):
            return False
    return large


def large_mixed_call(args: tuple[Any, ...], kinds: str) -> bool:
    """Whether every argument is of its kind in `kinds` as the mixed body's prologue
    (``_vec_mixed_args``) takes it without widening: ``i`` an int64 ``numpy.ndarray`` or a Python
    int within int64, ``f`` a float64 ``numpy.ndarray`` or a Python float; and some array has
    ``THRESHOLD`` elements or more. Then every block of the call takes the mixed body: the
    blocks have the call's dtypes, and a float64 argument keeps them from the int body."""
    if len(args) != len(kinds):
        return False
    large = False
    for kind, a in zip(kinds, args):
        if is_ndarray(a):
            dtype = a.dtype
            if dtype.itemsize != 8 or dtype.char not in ("lq" if kind == "i" else "d"):
                return False
            large = large or a.size >= THRESHOLD
        elif kind == "i":
            if type(a) is not int or not -(1 << 63) <= a < (1 << 63):
                return False
        elif type(a) is not float:
            return False
    return large


def send_large(marker: Any) -> None:
    """The float prologue's ``None`` for a large call of float64 NumPy arrays and floats: the
    ``Dispatch`` its entry calls next runs it in blocks (``send``). Only calls the float body
    takes are blocked: the exact body makes whole-array decisions that the agreement of the
    blocks' dtypes does not show (a select of an int and a float makes every lane float when any
    lane takes the float side, so an int lane's later arithmetic wraps at 64 bits in a block
    where no lane does and rounds in float in the whole call: fuzz campaign 29, seed 320004
    #1634)."""
    send(marker)


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
    if len(bounds) < 2:
        return _DECLINED
    # The first block in this thread: it fixes the outputs' dtypes (and fills in a lazy
    # function's globals before any other thread calls it).
    lo, hi = bounds[0], bounds[1]
    block = block_shape(lo, hi)
    started = time.perf_counter()
    result = _call_block(dispatch, take(lo, hi), lo, block, shape)
    dispatch.fastest = fastest = min(dispatch.fastest, (time.perf_counter() - started) / (hi - lo))
    heavy = fastest >= MIN_PARALLEL_SECONDS_PER_ELEMENT
    # D13: several results, a tuple or a namedtuple (issue 27), remade of the whole arrays.
    multiple = type(result) if isinstance(result, tuple) else None
    parts = result if multiple else (result,)
    if not _agrees(parts, None, block):
        return _DECLINED
    out = tuple(np.empty(bounds[-1], dtype=part.dtype) for part in parts)
    for dest, part in zip(out, parts):
        dest[lo:hi] = part.reshape(-1)
    if _fill_rest(dispatch, take, block_shape, bounds, shape, out, multiple, np, heavy) is _DECLINED:
        return _DECLINED
    results = tuple(o.reshape(shape) for o in out)
    if multiple is None:
        return results[0]
    return results if multiple is tuple else multiple(*results)


def _fill_rest(
    dispatch: Dispatch,
    take: Any,
    block_shape: Any,
    bounds: list[int],
    shape: tuple,
    out: tuple[Any, ...],
    multiple: type | None,
    np: Any,
    heavy: bool,
) -> Any:
    """Blocks 1 onwards into `out`, on as many threads as runtime/threads.py allows when the body
    is `heavy` (``MIN_PARALLEL_SECONDS_PER_ELEMENT``), else in this thread. Whatever the
    threads, the outcome is the sequential loop's: the failure of the lowest block decides, a
    block that disagrees with the first (``_DECLINED``) or an exception its lanes raised (D11),
    and every block below it has been written. Blocks are handed out in increasing order, so once
    a failure is recorded the blocks still to be taken are above it and are skipped."""
    n_blocks = len(bounds) - 1
    if n_blocks < 2:
        return None
    pending = iter(range(1, n_blocks))  # next() on it is atomic under the GIL
    failures: list[tuple[int, Any]] = []

    def fill() -> None:
        for i in pending:
            if failures:
                return
            lo, hi = bounds[i], bounds[i + 1]
            block = block_shape(lo, hi)
            try:
                result = _call_block(dispatch, take(lo, hi), lo, block, shape)
            except Exception as exc:  # noqa: BLE001 - re-raised below if it is the lowest block's
                failures.append((i, exc))
                return
            parts = result if isinstance(result, tuple) else (result,)
            if (type(result) if isinstance(result, tuple) else None) is not multiple or not _agrees(parts, out, block):
                failures.append((i, _DECLINED))
                return
            for dest, part in zip(out, parts):
                dest[lo:hi] = part.reshape(-1)

    workers = min(threads.threads(), n_blocks - 1) - 1 if heavy else 0  # besides this thread
    if workers < 1 or not threads.numpy_errstate_is_a_context_variable(np) or not threads.try_acquire():
        fill()
    else:
        try:
            tasks = []
            try:
                pool = threads.pool(workers)
            except RuntimeError:
                pool = None  # no thread can be started: this thread does it all
            if pool is not None:
                # Each worker runs in a copy of this thread's context: NumPy's errstate (the
                # caller's `with np.errstate(...)`) holds there as here.
                tasks = [pool.submit(contextvars.copy_context().run, fill) for _ in range(workers)]
            try:
                fill()
                for task in tasks:
                    task.wait_or_cancel()
            except BaseException:
                failures.append((-1, None))  # the workers stop at their next block
                raise
        finally:
            threads.release()
    if not failures:
        return None
    failure = min(failures, key=lambda f: f[0])[1]
    failures.clear()  # no cycle through the exception's traceback
    if failure is _DECLINED:
        return _DECLINED
    raise failure


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
