"""A marked function returning a namedtuple (issue 27 part 2 item 4, D13): the decorator, the
import hook's static compile and the build backend give the same source, the class is a global
of the generated module that the static compile assumes by name and fields, and the caller gets
an instance of the class with an array per field, CPython's element by element (also when a
large call runs in blocks)."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from array_vectorize.runtime import blocked
from oracle import check
from three_ways import assert_same_source_three_ways, module_on_path

MODULE = '''\
import math
from collections import namedtuple
from typing import NamedTuple

from array_vectorize import vectorize

Polar = namedtuple("Polar", "r theta")


class LatLon(NamedTuple):
    lat: float
    lon: float


@vectorize
def to_polar(x, y):
    return Polar(math.hypot(x, y), math.atan2(y, x))


@vectorize
def web_mercator_to_latlon(x, y):
    lon = math.degrees(x / 6378137.0)
    if y == 0.0:
        return LatLon(0.0, lon)
    lat = math.degrees(2.0 * math.atan(math.exp(y / 6378137.0)) - math.pi / 2.0)
    return LatLon(lat=lat, lon=lon)
'''

NAMES = ("to_polar", "web_mercator_to_latlon")
X = np.array([0.0, -0.0, 1.0, -3.5, 2e6, -2e7, 1e-310, math.inf, -math.inf, math.nan])


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avntr", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)


def test_the_caller_gets_the_class_with_cpythons_values(module, monkeypatch):
    name, _ = module
    mod = importlib.import_module(name)
    x, y = X[:, None], X[None, :]
    check(mod.to_polar, x, y, ulps=4)
    assert type(mod.to_polar(x, y)) is mod.Polar
    check(mod.web_mercator_to_latlon, x, y, ulps=4)
    assert type(mod.web_mercator_to_latlon(x, y)) is mod.LatLon
    # A large call runs in blocks (runtime/blocked.py): the class is kept.
    monkeypatch.setattr(blocked, "THRESHOLD", 20)
    monkeypatch.setattr(blocked, "BLOCK", 7)
    monkeypatch.setattr(blocked, "MIN_OPERATIONS", 0)
    big = np.random.default_rng(4).uniform(-1e7, 1e7, 200)
    got = mod.to_polar(big, big[::-1])
    assert type(got) is mod.Polar
    for field, want in zip(got, zip(*[mod.to_polar._vectorized_original(a, b) for a, b in zip(big.tolist(), big[::-1].tolist())])):
        np.testing.assert_allclose(field, want, rtol=4e-16, atol=0.0)
