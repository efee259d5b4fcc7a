"""Sequences given per call (D14, D15; issue 27 part 2 item 1): parameters with a table default
indexed per element, looped over, measured with `len` and unpacked (`lower, upper = limits`)
compile to byte-identical source through the decorator (live compile), the import hook's static
compile and the build backend's artifact; the static compile's assumptions hold for the live
functions; and the results of the module's functions, with their defaults and with tables passed
per call, are CPython's."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from oracle import check
from three_ways import assert_same_source_three_ways, module_on_path

MODULE = '''\
import math

from array_vectorize import vectorize

BRACKETS = ((0.0, 12_570.0, 0.0), (12_570.0, 50_270.0, 0.2), (50_270.0, 125_140.0, 0.4), (125_140.0, math.inf, 0.45))


@vectorize
def income_tax(income, brackets=BRACKETS):
    tax = 0.0
    for lo, hi, rate in brackets:
        if income > lo:
            tax += (min(income, hi) - lo) * rate
    return tax


@vectorize
def band_charge(amount, band, rates=(0.0, 0.1, 0.2, 0.35)):
    return amount * rates[band]


@vectorize
def clamp(x, limits=(None, 1.0)):
    lower, upper = limits
    if lower is not None and x < lower:
        return lower
    if upper is not None and x > upper:
        return upper
    return x


@vectorize
def mean_weight(x, weights=[0.5, 1.5, 2.0]):
    return x * weights[len(weights) - 1] / len(weights)
'''

NAMES = ("income_tax", "band_charge", "clamp", "mean_weight")


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avtp", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)


def test_the_module_matches_cpython_with_defaults_and_passed_tables(module):
    name, _ = module
    mod = importlib.import_module(name)
    incomes = np.array([0.0, -0.0, 12_570.0, 12_570.5, 50_270.0, 1e6, math.inf, math.nan, -3.0])
    check(mod.income_tax, incomes)
    check(mod.income_tax, incomes, [(0.0, 1e4, 0.1), (1e4, math.inf, 0.5)])
    check(mod.band_charge, np.array([1.0, -2.5, 0.0, 7.0]), np.array([0, 1, -1, 3]))
    check(mod.band_charge, np.array([1.0, -2.5, 0.0, 7.0]), np.array([0, 1, -1, -2]), [2, 3])
    check(mod.clamp, np.array([-2.0, 0.5, 1.0, 3.0, math.nan]))
    check(mod.clamp, np.array([-2.0, 0.5, 1.0, 3.0, math.nan]), (0.0, None))
    check(mod.mean_weight, np.array([0.0, 3.0, -1.0]))
    check(mod.mean_weight, np.array([0.0, 3.0, -1.0]), (1.0, 4.0))
