"""The benchmark set measures correct code: for every function in benchmarks/functions.py the
generated version equals the hand-written one and the scalar original, element by element, on
random and edge inputs. No timing here (benchmarks report, they never fail on slowness)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def _load_functions():
    name = "array_vectorize_bench_functions"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH_DIR / "functions.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


functions = _load_functions()
NAMES = [b.name for b in functions.BENCHMARKS]


def _inputs(bench):
    """Random arguments, then each array argument in turn replaced by the edge values."""
    rng = np.random.default_rng(1234)
    yield bench.make_args(rng, 200)
    edges = np.array(bench.edges, dtype=np.float64)
    base = bench.make_args(rng, len(edges))
    for i, a in enumerate(base):
        if isinstance(a, np.ndarray):
            yield base[:i] + (edges,) + base[i + 1 :]


def _scalar_results(fn, args):
    """CPython per element; NaN marks a lane where the scalar original raises (math domain
    errors, overflow): D3 makes those IEEE values, which this test does not judge."""
    n = max(a.shape[0] for a in args if isinstance(a, np.ndarray))
    out = np.empty(n)
    raised = np.zeros(n, dtype=bool)
    for i in range(n):
        lane = [float(a[i]) if isinstance(a, np.ndarray) else a for a in args]
        try:
            out[i] = fn(*lane)
        except (ValueError, OverflowError, ZeroDivisionError):
            raised[i] = True
    return out, raised


def _assert_close(actual, expected, what):
    assert actual.dtype == np.float64, what
    assert actual.shape == expected.shape, what
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected), err_msg=what)
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=what)


def test_the_set_is_large_enough():
    assert len(NAMES) >= 6


@pytest.mark.parametrize("name", NAMES)
def test_generated_equals_hand_written_and_scalar(name):
    bench = functions.by_name(name)
    gen = bench.generated()
    checked = 0
    for args in _inputs(bench):
        got = np.asarray(gen(*args))
        hand = np.broadcast_to(np.asarray(bench.hand(*args), dtype=np.float64), got.shape)
        _assert_close(got, hand, f"{name}: generated vs hand-written on {args!r}")
        expected, raised = _scalar_results(bench.scalar, args)
        ok = ~raised
        _assert_close(got[ok], expected[ok], f"{name}: generated vs scalar original on {args!r}")
        checked += int(ok.sum())
    assert checked >= 200


@pytest.mark.parametrize("name", NAMES)
def test_generated_is_the_float_fast_path(name):
    # The benchmark times the float body: every argument is float64 or a Python float.
    bench = functions.by_name(name)
    src = bench.generated().source
    assert f"_vec_exact_{bench.scalar.__name__}(" in src
    float_body = src.split("\ndef _vec_exact_")[0]
    assert "_vec_binary" not in float_body and "_vec_select" not in float_body, float_body


def test_math_is_the_scalar_library():
    # The originals use math (libm), so the scalar comparison is a real oracle.
    assert functions.kepler.__globals__["math"] is math
