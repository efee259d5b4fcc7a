"""The runtime's size-gated specialisations forced on the fuzzer's small calls (backend
``blocked``; issue 30).

The fuzzer's calls have 48-160 lanes, and the runtime specialises only far larger NumPy calls:
cache-blocked evaluation from ``blocked.THRESHOLD`` (128 Ki) elements, its worker threads for
bodies slower than ``MIN_PARALLEL_SECONDS_PER_ELEMENT``, packed ``while`` loops from
``loops.PACK_MIN_LANES`` (4 Ki) lanes, the checked ``maximum``/``minimum``/``clip`` passes of
``_vec_pick``/``_vec_clip`` from ``select.CHECKED_PASS_MIN`` (8 Ki). None of them may change a
result (each is the unspecialised code's bit for bit), so the fuzzer judges them against CPython
as it judges the plain NumPy call: ``forced()`` lowers every gate for the duration of one call,
in this process, with the blocks on ``THREADS`` threads. Campaigns 28, 42 and 47 did the same by
patching a copy of the package; this makes it a backend (``--backend numpy,strict,blocked``), and
a third of the programs run on it besides NumPy by default (``generator``'s ``forced_blocks``).
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

#: (module under ``array_vectorize.runtime``, attribute, forced value). A block of 7 elements
#: cuts every call into blocks of uneven sizes (the last shorter); a threshold of 20 leaves the
#: 0-d and short arguments whole, as a large call's broadcasting ones are. The checked passes
#: stay off 0-d arrays (size 1), where NumPy's ufuncs return NumPy scalars.
SETTINGS = (
    ("blocked", "BLOCK", 7),
    ("blocked", "THRESHOLD", 20),
    ("blocked", "MIN_OPERATIONS", 0),
    ("blocked", "MIN_PARALLEL_SECONDS_PER_ELEMENT", 0.0),
    ("loops", "PACK_MIN_LANES", 1),
    ("loops", "REPACK_MIN_LANES", 1),
    ("loops", "PACK_FRACTION", 1.0),
    ("select", "CHECKED_PASS_MIN", 2),
)
#: Worker threads of a forced call (``runtime/threads.py`` reads the variable on every call).
THREADS = "4"


@contextlib.contextmanager
def forced() -> Iterator[None]:
    """Every size gate of ``SETTINGS`` lowered, and ``THREADS`` threads, until the block ends."""
    import importlib

    from array_vectorize.runtime import threads

    saved = []
    for module_name, attribute, value in SETTINGS:
        module = importlib.import_module(f"array_vectorize.runtime.{module_name}")
        saved.append((module, attribute, getattr(module, attribute)))
        setattr(module, attribute, value)
    env = os.environ.get(threads.THREADS_ENV)
    os.environ[threads.THREADS_ENV] = THREADS
    try:
        yield
    finally:
        for module, attribute, value in saved:
            setattr(module, attribute, value)
        if env is None:
            del os.environ[threads.THREADS_ENV]
        else:
            os.environ[threads.THREADS_ENV] = env
