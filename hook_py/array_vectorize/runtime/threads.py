"""The worker threads of blocked evaluation (runtime/blocked.py): how many a large call may use,
and the one pool they come from.

A blocked call's blocks are independent (every lane is computed by the same code on the same
operands), and NumPy releases the GIL inside its loops over a block, so the blocks of one call
can run on several cores at once with the same results, bit for bit. How many threads:

- ``ARRAY_VECTORIZE_THREADS=n`` (``1``: the calling thread alone, as before this existed);
- otherwise the CPUs this process may run on (``os.sched_getaffinity``), at most
  ``MAX_DEFAULT_THREADS``: as numexpr and BLAS libraries do by default.

One call at a time uses the pool: a call that finds it taken (another thread of the program is
in a parallel call: a Dask threaded scheduler, the program's own threads) runs its blocks in its
own thread, so threads are never multiplied by threads. A process forked from one with a pool
gets a pool of its own on its first parallel call (the parent's threads are not in the child).
"""

from __future__ import annotations

import os
import threading
import warnings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

THREADS_ENV = "ARRAY_VECTORIZE_THREADS"
#: The default's ceiling: more threads than this rarely pay for one call's blocks.
MAX_DEFAULT_THREADS = 8

_default: int | None = None
_warned: set[str] = set()


def threads() -> int:
    """How many threads (the calling one included) a blocked call may run its blocks on. Read on
    every large call, so that the variable can be changed while the program runs."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if value:
        try:
            n = int(value)
        except ValueError:
            n = 0
        if n >= 1:
            return n
        if value not in _warned:
            _warned.add(value)
            warnings.warn(
                f"{THREADS_ENV}={value!r} is not a positive integer: blocked calls run in the calling thread "
                f"alone; set it to a number of threads (1 for none besides the caller), or unset it for one "
                f"per CPU (at most {MAX_DEFAULT_THREADS})",
                RuntimeWarning,
                stacklevel=2,
            )
        return 1
    global _default
    if _default is None:
        try:
            cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cpus = os.cpu_count() or 1
        _default = max(1, min(cpus, MAX_DEFAULT_THREADS))
    return _default


class Task:
    """One function call for a worker thread. ``wait_or_cancel()``, in the thread that submitted
    it, cancels it if no worker has taken it yet, else waits for it, raising what it raised: a
    call never waits for a task that no worker is free to run (every worker busy with another
    call's endless blocks after that call was interrupted, say); its own thread does the work."""

    __slots__ = ("args", "done", "error", "fn", "taken")

    def __init__(self, fn: Any, *args: Any) -> None:
        self.fn = fn
        self.args = args
        self.taken = threading.Lock()  # by the worker that runs it, or by the cancel
        self.done = threading.Event()
        self.error: BaseException | None = None

    def __call__(self) -> None:
        if not self.taken.acquire(blocking=False):
            return  # cancelled
        try:
            self.fn(*self.args)
        except BaseException as exc:  # noqa: BLE001 - raised again in the waiting thread
            self.error = exc
        finally:
            self.done.set()

    def wait_or_cancel(self) -> None:
        if self.taken.acquire(blocking=False):
            return  # no worker took it
        self.done.wait()
        if self.error is not None:
            raise self.error


class Pool:
    """Worker threads taking tasks from one queue. They are daemon threads: a block that never
    ends (a `while` loop that a lane never leaves, D12, as CPython's would not) cannot keep the
    interpreter from exiting once the caller was interrupted (Ctrl-C reaches the main thread
    only), as the joined threads of a ``ThreadPoolExecutor`` would."""

    def __init__(self) -> None:
        import queue  # on the first parallel call only

        self.tasks = queue.SimpleQueue()
        self.size = 0

    def grow(self, workers: int) -> None:
        while self.size < workers:
            thread = threading.Thread(target=self._work, name=f"array-vectorize-{self.size + 1}", daemon=True)
            thread.start()
            self.size += 1

    def _work(self) -> None:
        while True:
            self.tasks.get()()

    def submit(self, fn: Any, *args: Any) -> Task:
        task = Task(fn, *args)
        self.tasks.put(task)
        return task


#: Held by the one call whose blocks are on the pool (taken without waiting: see the module doc).
_busy = threading.Lock()
_pool: Pool | None = None


def _forget_the_parents_pool() -> None:
    """In a forked child: the parent's worker threads are not there (a task submitted to its
    pool would wait forever), and its lock may have been held by a thread that is not there
    either."""
    global _busy, _pool
    _busy = threading.Lock()
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_the_parents_pool)


def try_acquire() -> bool:
    return _busy.acquire(blocking=False)


def release() -> None:
    _busy.release()


def pool(workers: int) -> Pool:
    """The pool, with at least `workers` threads (call with it acquired). RuntimeError when no
    thread can be started."""
    global _pool
    if _pool is None:
        _pool = Pool()
    _pool.grow(workers)
    return _pool


def numpy_errstate_is_a_context_variable(np: Any) -> bool:
    """NumPy 2 keeps ``errstate`` in a context variable, which worker threads get by running in a
    copy of the caller's context; NumPy 1 keeps it per thread, so its calls stay in one thread."""
    return int(np.__version__.split(".", 1)[0]) >= 2
