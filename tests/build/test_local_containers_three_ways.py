"""Local containers (D18) and names unbound on some elements (D20) give byte-identical generated
source on the three ways in: the decorator (live compile), the import hook's static compile and
the build backend's artifact; and the static compile's assumptions hold for the live functions.
The module's functions compute what CPython computes, raises included."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from three_ways import assert_same_source_three_ways, module_on_path

MODULE = '''\
import math

from array_vectorize import vectorize

OFFSET = 1.222


def stage_factor(day):
    if day < 30.0:
        return 0.3
    elif day >= 30.0:
        return 1.0


@vectorize
def gibbs_like(pi, tau):
    I = [0, 0, 1, 1, 2]
    J = [-2, 0, -1, 2, 0]
    n = [0.146, -0.845, -3.76, 3.39e-4, -9.58e-4]
    g = 0.0
    for i, j, ni in zip(I, J, n):
        g += ni * (7.1 - pi) ** i * (tau - OFFSET) ** j
    return g


@vectorize
def appended(x):
    factorials = (1, 1, 2, 6)
    terms = []
    for k in range(4):
        terms.append(x ** k / factorials[k])
    return sum(terms) + max(terms)


@vectorize
def picked(x, k):
    values = {0: x, 1: -x, 2: 2.0 * x}
    v = [x, 1.0, values[2]]
    v[0] += 1.0
    return v[k] + values[k % 3]


@vectorize
def stage(day):
    if day < 90.0:
        s = 1
    elif day >= 90.0:
        s = 2
    return s * stage_factor(day)


@vectorize
def factor_times(day):
    return 2.0 * stage_factor(day)
'''

NAMES = ("gibbs_like", "appended", "picked", "stage", "factor_times")


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avct", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)


def test_the_module_computes_what_cpython_computes(module):
    name, _ = module
    mod = importlib.import_module(name)
    x = np.array([0.0, 0.5, 3.0, 50.0, 120.0, -0.0, np.inf])
    for fn_name in ("gibbs_like", "appended", "stage"):
        vec = getattr(mod, fn_name)
        args = (x, x + 1.0) if fn_name == "gibbs_like" else (x,)
        expected = [vec._vectorized_original(*a) for a in zip(*[a.tolist() for a in args])]
        got = np.asarray(vec(*args)).tolist()
        assert [repr(v) for v in got] == [repr(float(v)) for v in expected], fn_name
    k = np.array([0, 1, 2, -1, -3], dtype=np.int64)
    expected = [mod.picked._vectorized_original(1.5, int(j)) for j in k]
    assert np.asarray(mod.picked(np.full(5, 1.5), k)).tolist() == expected


def test_unbound_elements_raise_through_the_precompiled_code(module):
    name, _ = module
    mod = importlib.import_module(name)
    with pytest.raises(UnboundLocalError):
        mod.stage(np.array([1.0, np.nan]))
    with pytest.raises(TypeError, match="NoneType"):
        mod.factor_times(np.array([1.0, np.nan]))
