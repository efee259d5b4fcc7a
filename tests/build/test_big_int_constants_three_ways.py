"""Integer constants beyond 64 bits (issue 28 item 1, docs/semantics.md item 17) compile the same
on the three ways in (decorator, import hook, build backend), and the functions the hook and the
wheel run compute what CPython computes."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from three_ways import assert_same_source_three_ways, module_on_path

MODULE = """\
from array_vectorize import vectorize


@vectorize
def notional_in_yocto(x):
    return x * 2**70


@vectorize
def below_the_cap(x):
    return 1.0 if x < 2**1100 else 0.0


@vectorize
def counts_below(n):
    return n < 2**64
"""

NAMES = ("notional_in_yocto", "below_the_cap", "counts_below")


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avbig", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)
    mod = importlib.import_module(name)
    assert "2 ** 70" in mod.notional_in_yocto.source and "asarray(2" not in mod.notional_in_yocto.source
    x = np.array([0.5, 1e300, math.inf, -math.inf, math.nan])
    assert mod.notional_in_yocto(x)[:2].tolist() == [2.0**69, math.inf]
    assert mod.below_the_cap(x).tolist() == [1.0, 1.0, 0.0, 1.0, 0.0]
    assert mod.counts_below(np.array([-5, 2**62], dtype=np.int64)).tolist() == [True, True]
