"""Decoration latency: what ``vectorize(f)`` costs at decoration time (DESIGN.md section 6).

Target: ``functions.knock_out_value``, a 20-line function (def line, docstring, nested branches,
exp/log/sqrt). ``vectorize`` memoizes canonical compilations per function object, so every
iteration decorates a *fresh* function object with the same code, globals and source
(``types.FunctionType(f.__code__, ...)``): each one is really read, compiled, executed and wrapped
(the ``compiled`` counter of ``array_vectorize.stats()`` is checked to prove it).

Figures (medians, microseconds):

* ``total``: ``vectorize(fresh)`` with the module's file already in ``linecache`` (as for every
  function after the first in a module);
* ``total_cold``: the same after ``linecache.clearcache()`` (includes reading the file);
* the stages of ``api._build`` timed one by one: ``precompiled.lookup`` (a miss), source read
  (``environment.function_source``), environment (``EnvBuilder.env_of``), the Rust compile alone
  (``_core.compile_function``) and emit (``exec`` + wrap, ``emit.materialize``), and within emit
  the docstring (``docstring.vectorized_docstring``);
* ``first_call``: what a fresh function's first call on 10-element float arrays costs more than
  its second: since issue 30 the live entry's text is compiled by CPython at its first call
  (emit.py ``_defer_entry``), not at decoration, so that cost moved here.

``run(quick=False) -> dict`` returns them; ``python benchmarks/bench_compile.py [--quick]`` prints them.

Clock: the CPU time of the whole process (``time.process_time``), not of the calling thread: every
compile runs on a thread of its own with a large stack (``src/host/stack.rs``), whose CPU time
``time.thread_time`` leaves out. Until 2026-12-06 this benchmark read the calling thread's CPU
time, so its "Rust compile" (57 us at dcf8faf, 122 us at e3f1b47) was only the calling thread's
share (converting the arguments and the result, starting and joining the compile thread) and its
``total`` left the compile out too. ``rust_compile_caller`` keeps that figure, for comparison.
"""

from __future__ import annotations

import gc
import inspect
import linecache
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import functions  # noqa: E402
import numpy as np  # noqa: E402

import array_vectorize  # noqa: E402
from array_vectorize import _core, api, emit, precompiled, vectorize  # noqa: E402
from array_vectorize.docstring import vectorized_docstring  # noqa: E402
from array_vectorize.environment import EnvBuilder, function_source  # noqa: E402

TARGET = functions.knock_out_value
OPTIONS = {"protect_domains": False, "fallback": False}


def fresh(fn: types.FunctionType) -> types.FunctionType:
    """A new function object with `fn`'s code, globals, defaults and closure (and so its source)."""
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__qualname__ = fn.__qualname__
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    return new


def source_lines(fn: types.FunctionType) -> int:
    lines, _ = inspect.getsourcelines(fn)
    return len(lines)


#: The clock (run.py sets it from --clock): process CPU time by default (the module's docstring).
CLOCK: Callable[[], float] = time.process_time


def _clock_cost(clock: Callable[[], float]) -> float:
    """Median cost of reading `clock` twice, subtracted from every sample."""
    samples = []
    for _ in range(201):
        t0 = clock()
        t1 = clock()
        samples.append(t1 - t0)
    return statistics.median(samples)


def time_us(
    step: Callable[[], object],
    iterations: int,
    warmup: int,
    setup: Callable[[], object] | None = None,
    clock: Callable[[], float] | None = None,
) -> float:
    """Median time of `step()` in microseconds by `clock` (CLOCK unless given); `setup()` runs
    untimed before each call."""
    clock = clock or CLOCK
    samples = []
    cost = _clock_cost(clock)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for i in range(warmup + iterations):
            arg = setup() if setup is not None else None
            t0 = clock()
            step(arg) if setup is not None else step()
            t1 = clock()
            if i >= warmup:
                samples.append((t1 - t0 - cost) * 1e6)
    finally:
        if gc_was_enabled:
            gc.enable()
            gc.collect()
    return statistics.median(samples)


def measure(fn: types.FunctionType, iterations: int, warmup: int) -> dict:
    before = array_vectorize.stats()["compiled"]
    vectorize(fresh(fn))
    assert array_vectorize.stats()["compiled"] == before + 1, "vectorize(fresh function) did not compile"

    source, path, first_line = function_source(fn)
    env = EnvBuilder().env_of(fn)
    builder = EnvBuilder()
    builder.env_of(fn)
    compiled = _core.compile_function(source, path, first_line, fn.__name__, env, OPTIONS)
    hidden = {n: builder.hidden_values[n] for _, n in compiled["hidden"] if n in builder.hidden_values}
    # As api._build calls them: the core hands back the scalar source for the docstring.
    emit_kw, doc_args = {}, ()
    if "scalar_source" in compiled and "scalar_source" in inspect.signature(emit.materialize).parameters:
        emit_kw = {"scalar_source": compiled["scalar_source"]}
        doc_args = (compiled["scalar_source"],)
    if "defer" in inspect.signature(emit.materialize).parameters:
        emit_kw["defer"] = True  # issue 30: the entry's text is compiled at its first call
    n_args = fn.__code__.co_argcount
    small = [np.linspace(0.5, 2.0, 10) for _ in range(n_args)]

    out = {
        "function": fn.__name__,
        "lines": source_lines(fn),
        "total": time_us(lambda f: vectorize(f), iterations, warmup, setup=lambda: fresh(fn)),
        "total_cold": time_us(
            lambda f: vectorize(f), max(iterations // 3, 5), 2, setup=lambda: (linecache.clearcache(), fresh(fn))[1]
        ),
        "lookup": time_us(lambda f: precompiled.lookup(f, OPTIONS), iterations, warmup, setup=lambda: fresh(fn)),
        "source": time_us(lambda f: function_source(f), iterations, warmup, setup=lambda: fresh(fn)),
        "env": time_us(lambda f: EnvBuilder().env_of(f), iterations, warmup, setup=lambda: fresh(fn)),
        "rust_compile": time_us(
            lambda: _core.compile_function(source, path, first_line, fn.__name__, env, OPTIONS), iterations * 3, warmup
        ),
        # The calling thread's share alone (the figure this benchmark reported until 2026-12-06).
        "rust_compile_caller": time_us(
            lambda: _core.compile_function(source, path, first_line, fn.__name__, env, OPTIONS),
            iterations * 3,
            warmup,
            clock=time.thread_time,
        ),
        "emit": time_us(
            lambda f: emit.materialize(
                f,
                compiled["fast_source"],
                compiled["entry"],
                exact_source=compiled["exact_source"],
                exact_entry=compiled["exact_entry"],
                hidden=hidden,
                **emit_kw,
            ),
            iterations,
            warmup,
            setup=lambda: fresh(fn),
        ),
    }
    # What the first call costs more than the second (compiling the entry, when decoration
    # left it to the first call), on 10-element float arrays.
    out["first_call"] = time_us(lambda v: v(*small), iterations, warmup, setup=lambda: vectorize(fresh(fn)))
    out["first_call"] -= time_us(lambda v: v(*small), iterations, warmup, setup=lambda: _called(vectorize(fresh(fn)), small))
    out["docstring"] = time_us(lambda f: vectorized_docstring(f, *doc_args), iterations, warmup, setup=lambda: fresh(fn))
    out["rest"] = out["total"] - sum(out[k] for k in ("lookup", "source", "env", "rust_compile", "emit"))
    return out


def _called(vec: Callable, args: list) -> Callable:
    vec(*args)
    return vec


def run(quick: bool = False) -> dict:
    iterations, warmup = (60, 10) if quick else (400, 40)
    rows = [measure(TARGET, iterations, warmup)]
    for extra in (functions.soft_threshold, functions.bs_call):
        rows.append(measure(extra, iterations // 2, warmup))
    target = rows[0]
    return {
        "target": TARGET.__name__,
        "iterations": iterations,
        "rows": rows,
        "bars": [
            {
                "what": f"decoration latency, {target['lines']}-line function (vectorize(f), median)",
                "figure": f"{target['total']:.0f} us",
                "bar": "<= 1000 us",
                "met": target["total"] <= 1000.0,
            },
            {
                "what": "Rust compile alone (_core.compile_function, median)",
                "figure": f"{target['rust_compile']:.0f} us",
                "bar": "<= 100 us",
                "met": target["rust_compile"] <= 100.0,
            },
        ],
    }


COLUMNS = [
    ("function", "function", "{}"),
    ("lines", "lines", "{}"),
    ("total", "vectorize(f) us", "{:.0f}"),
    ("total_cold", "cold linecache us", "{:.0f}"),
    ("lookup", "precompiled lookup us", "{:.1f}"),
    ("source", "source read us", "{:.1f}"),
    ("env", "env us", "{:.1f}"),
    ("rust_compile", "Rust compile us", "{:.1f}"),
    ("rust_compile_caller", "(of which calling thread) us", "{:.1f}"),
    ("emit", "exec + wrap us", "{:.1f}"),
    ("docstring", "(of which docstring) us", "{:.1f}"),
    ("rest", "rest us", "{:.1f}"),
    ("first_call", "first call's extra us", "{:.1f}"),
]


def table(result: dict) -> list[str]:
    head = [c[1] for c in COLUMNS]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for row in result["rows"]:
        lines.append("| " + " | ".join(fmt.format(row[key]) for key, _, fmt in COLUMNS) + " |")
    return lines


if __name__ == "__main__":
    res = run(quick="--quick" in sys.argv)
    print("\n".join(table(res)))
    for bar in res["bars"]:
        print(f"{bar['what']}: {bar['figure']} (bar {bar['bar']}): {'met' if bar['met'] else 'NOT met'}")
