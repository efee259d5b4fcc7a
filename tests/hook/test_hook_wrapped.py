"""Helpers wrapped by a decorator of the module (issue 27, "Decorated helpers") through the import
hook in a fresh interpreter: the corpus module tests/corpus/kit_objects/easing.py (easing curves
whose helpers `unit_interval` checks through `functools.wraps`) is compiled by the hook itself
(nothing left to the decorator), to the decorator's source, and runs as CPython on NumPy and
array-api-strict, raises included; read from the hook's cache under ARRAY_VECTORIZE_NO_COMPILE=1,
it still runs. A module that rebinds the decorator at run time fails the hook's assumptions: the
decorator compiles it (and under ARRAY_VECTORIZE_NO_COMPILE=1 it refuses to run, never running
the static reading)."""

from __future__ import annotations

from pathlib import Path

from hookproj import Project

KIT = Path(__file__).resolve().parents[1] / "corpus" / "kit_objects"

# Each marked function of the module (every argument the same column), on NumPy and
# array-api-strict, against CPython's element loop over the scalar original: equal values (NaN
# for NaN, the sign of zero; 4 ulps for a power) or the same exception class and args.
PROBE = """
import importlib, math
import numpy as np
import array_api_strict as xp

def scalar(original, values):
    out = []
    n = original.__code__.co_argcount
    for v in values:
        try:
            out.append(original(*[v] * n))
        except Exception as e:
            return ("raise", type(e).__name__, repr(e.args))
    return ("values", out)

def same(a, b):
    # `t**power` for an int power is NumPy's power, within 4 ulps of CPython's (the corpus's
    # tolerance, tests/corpus/test_rules_corpus.py ULPS).
    if a != a or b != b or a == b:
        return (a != a and b != b) or (a == b and math.copysign(1.0, a) == math.copysign(1.0, b))
    return abs(a - b) <= 4 * math.ulp(b)

def vector(fn, values, backend):
    arr = np.asarray(values) if backend == "numpy" else xp.asarray(values)
    try:
        got = fn(*[arr] * fn._vectorized_original.__code__.co_argcount)
    except Exception as e:
        return ("raise", type(e).__name__, repr(e.args))
    return ("values", [float(g) for g in np.asarray(got).tolist()])

INSIDE = [0.0, -0.0, 1.0, 0.5, 0.25, 0.75, 1e-310, 0.9999999999999999, 0.49999999999999994, 0.3]
OUTSIDE = [0.5, 1.0000000000000002, -1e-310, math.nan, 0.1]
mod = importlib.import_module(MODULE)
out = {}
for name, fn in sorted(vars(mod).items()):
    if not hasattr(fn, "_vectorized_original") or fn.__module__ != mod.__name__:
        continue
    for label, values in (("inside", INSIDE), ("outside", OUTSIDE)):
        want = scalar(fn._vectorized_original, values)
        for backend in ("numpy", "strict"):
            got = vector(fn, values, backend)
            ok = got == want if want[0] == "raise" or got[0] == "raise" else all(map(same, got[1], want[1]))
            out[f"{name}/{label}/{backend}"] = {"ok": ok, "got": repr(got), "want": repr(want), "source": fn.source}
"""


def _write_kit(project: Project) -> None:
    for path in sorted(KIT.glob("*.py")):
        project.write(f"kit_objects/{path.name}", path.read_text())


def _assert_cpythons(res, functions: int) -> None:
    assert len(res.out) == functions * 4, sorted(res.out)
    for key, got in res.out.items():
        assert got["ok"], (key, got["got"], got["want"])


def test_easing_compiles_in_the_hook_as_in_the_decorator_and_runs_as_cpython(project: Project):
    _write_kit(project)
    probe = "MODULE = 'kit_objects.easing'\n" + PROBE
    plain = project.run(probe, hook=False)
    cold = project.run(probe)
    functions = len(plain.out) // 4
    assert functions == 7
    # The hook compiled every function itself (nothing left to the decorator).
    assert cold.stats["hook_hits"] == functions, cold.stats
    assert plain.stats["hook_hits"] == 0
    _assert_cpythons(cold, functions)
    for key, got in plain.out.items():
        assert cold.out[key] == got, key
    # From the hook's cache, compiling forbidden: every function is the hook's.
    locked = project.run(probe, env={"ARRAY_VECTORIZE_NO_COMPILE": "1"})
    assert locked.stats["compiled"] == 0, locked.stats
    _assert_cpythons(locked, functions)


REBOUND = '''\
import functools

from array_vectorize import vectorize


def unit_interval(fn):
    @functools.wraps(fn)
    def wrapper(t, *args, **kwargs):
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"{fn.__name__}() takes t in [0, 1], got {t}")
        return fn(t, *args, **kwargs)

    return wrapper


def lenient(fn):
    @functools.wraps(fn)
    def lenient_wrapper(t, *args, **kwargs):
        if t != t:
            return 0.0
        return fn(t, *args, **kwargs)

    return lenient_wrapper


globals()["unit_interval"] = lenient


@unit_interval
def quad_in(t):
    return t * t


@vectorize
def ease_in_quad(t):
    return quad_in(t)
'''


def test_a_decorator_rebound_at_run_time_is_compiled_by_the_decorator(project: Project):
    project.write("rebound.py", REBOUND)
    probe = "MODULE = 'rebound'\n" + PROBE
    res = project.run(probe, env={"ARRAY_VECTORIZE_DEBUG": "hook"})
    assert res.stats["hook_hits"] == 0, res.stats
    _assert_cpythons(res, 1)
    # The lenient wrapper ran: no raise outside [0, 1], 0.0 for NaN.
    assert not any("raise" in got["got"] for got in res.out.values()), res.out
    locked = project.run(probe, env={"ARRAY_VECTORIZE_NO_COMPILE": "1"}, ok=False)
    assert locked.returncode != 0 and "CompileDisabledError" in locked.stderr, locked.stderr


# The decorator calls such a helper element by element under fallback="calls" (D23).
NOT_THE_PATTERN = (
    REBOUND.replace('globals()["unit_interval"] = lenient\n', "")
    .replace("        if not 0.0 <= t <= 1.0:\n", "        if kwargs:\n            raise TypeError('by position')\n        if not 0.0 <= t <= 1.0:\n")
    .replace("@vectorize\n", '@vectorize(fallback="calls")\n')
)


def test_a_wrapper_of_another_shape_is_left_to_the_decorator_with_the_reason(project: Project):
    project.write("other_shape.py", NOT_THE_PATTERN)
    probe = "MODULE = 'other_shape'\n" + PROBE
    res = project.run(probe, env={"ARRAY_VECTORIZE_DEBUG": "hook"})
    assert res.stats["hook_hits"] == 0, res.stats
    assert "left to the decorator" in res.stderr and "wrapped by `unit_interval.<locals>.wrapper`" in res.stderr, res.stderr
    assert "it reads `kwargs` before the forward" in res.stderr, res.stderr
    _assert_cpythons(res, 1)
