"""isinstance and type of elements (D22) in a module as real validation code writes them: the
`numbers` module and a class imported from it, builtin types, `type(x) is` and `type(c) in
(list, tuple)`. They compile the same on the three ways in (the decorator's live compile, the
static compile of the import hook and the build backend, byte for byte), the static compile's
assumptions (the `numbers` module, `numbers.Integral`, the builtin `type`) hold for the live
functions and fail for a rebound name, and the results are CPython's on NumPy and
array-api-strict for every dtype."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from array_vectorize import _core
from array_vectorize.precompiled import assumptions_hold
from oracle import BACKENDS, check
from three_ways import assert_same_source_three_ways, module_on_path

MODULE = '''\
import math
import numbers
from numbers import Integral

from array_vectorize import vectorize


@vectorize
def sample_variance_correction(n):
    """Bessel's correction of a sample count: an integral count stays exact."""
    if not isinstance(n, numbers.Real):
        raise TypeError("n must be a real number")
    if isinstance(n, Integral):
        return n - 1
    return n - 1.0


@vectorize
def spectral_index(order, flux):
    if not isinstance(order, (int, float)) or order < 0:
        raise ValueError(f"order must be a non-negative number, got {order}")
    if type(order) is float:
        return flux * math.exp(-order)
    return flux / (order + 1)


@vectorize
def as_fraction(mask):
    if isinstance(mask, bool):
        return 1.0 if mask else 0.0
    return mask / 100.0


@vectorize
def linear_or_pair(c, x):
    if type(c) in (list, tuple):
        a, b = c
        return a * x + b
    return c * x
'''

NAMES = ("sample_variance_correction", "spectral_index", "as_fraction", "linear_or_pair")
BACKEND_NAMES = [b for b in ("numpy", "strict") if b in BACKENDS]
VALUES = {
    "float64": np.array([0.0, -0.0, 1.0, 2.5, 7.0, 1e300, math.inf, math.nan]),
    "int64": np.array([0, 1, 2, 7, 100, 2**40], dtype=np.int64),
    "uint64": np.array([0, 1, 3, 2**63], dtype=np.uint64),
    "bool": np.array([False, True]),
}


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avetypes", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)


def test_the_assumptions_name_the_numbers_classes_and_fail_when_rebound(module, tmp_path):
    name, _ = module
    static = {e["name"]: e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py"))}
    assumed = static["sample_variance_correction"]["assumptions"]
    assert ("numbers", ("numbers_module",)) in [(a[0], tuple(a[1])) for a in assumed]
    assert ("Integral", ("numbers_class", "Integral")) in [(a[0], tuple(a[1])) for a in assumed]
    mod = importlib.import_module(name)
    original = mod.sample_variance_correction._vectorized_original
    assert assumptions_hold(original, assumed)
    mod.Integral = __import__("numbers").Real
    assert not assumptions_hold(original, assumed)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("dtype", list(VALUES))
def test_results_are_cpythons(module, backend, dtype):
    mod = importlib.import_module(module[0])
    v = VALUES[dtype]
    check(mod.sample_variance_correction, v, backend=backend)
    check(mod.as_fraction, v, backend=backend)
    check(mod.linear_or_pair, v, v[::-1], backend=backend)
    if dtype != "float64":
        check(mod.spectral_index, v, np.full(v.shape, 3.0), backend=backend)
    else:
        check(mod.spectral_index, v[:5], np.array([3.0, 1.0, -2.0, 0.5, 1e300]), backend=backend, ulps=4)


def test_python_scalars(module):
    """Issue 28 item 5: every argument a Python scalar (no array) ran into AttributeError:
    'tuple' object has no attribute 'bool_' in the generated code."""
    mod = importlib.import_module(module[0])
    for n in (5, 5.0, True):
        expected = mod.sample_variance_correction._vectorized_original(n)
        got = np.asarray(mod.sample_variance_correction(n)).item()
        assert got == expected and type(got) is type(expected)
