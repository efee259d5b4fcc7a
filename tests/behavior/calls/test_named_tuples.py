"""namedtuple results (issue 27 part 2 item 4, D13): a helper returning a `collections.namedtuple`
or a `typing.NamedTuple` is a tuple whose fields are read by attribute, unpacked or indexed
inside the vectorized function; the marked function returning one returns an instance of the
class with an array in each field (item 4), when every return gives that class and the function
names the class itself (its module binds it by that name). The static compile reads the classes from the text and assumes their name
and fields, checked against the live class. CPython is the oracle."""

from __future__ import annotations

import importlib
import sys
import uuid
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

from array_vectorize import VectorizationError, _core, vectorize
from array_vectorize.precompiled import assumptions_hold
from oracle import check, floats, to_backend

Interval = namedtuple("Interval", ["low", "high"])


class Quote(NamedTuple):
    bid: float
    ask: float


def spread_band(mid, width):
    return Interval(mid - width / 2.0, high=mid + width / 2.0)


def quote(mid):
    return Quote(ask=mid * 1.001, bid=mid * 0.999)


def band_width(mid, width):
    band = spread_band(mid, width)
    return band.high - band.low


def unpacked_quote(mid):
    bid, ask = quote(mid)
    return (ask - bid) / 2.0 + quote(mid)[0] * 0.0


def clipped_to_band(x, mid):
    b = spread_band(mid, 1.0)
    return min(max(x, b.low), b.high)


def merged_band_width(mid, width):
    # Both branches make an `Interval`: the merged tuple keeps the class, so `.high` reads it.
    if mid > 0.0:
        band = spread_band(mid, width)
    else:
        band = spread_band(-mid, width * 2.0)
    return band.high - band.low


@pytest.mark.parametrize("fn", [band_width, clipped_to_band, merged_band_width], ids=lambda f: f.__name__)
def test_fields_read_by_attribute_match_cpython(fn, backend):
    x = floats(12)
    check(vectorize(fn), x[:, None], x[None, :], backend=backend)


def test_a_typing_namedtuple_unpacked_and_indexed_matches_cpython(backend):
    check(vectorize(unpacked_quote), floats(), backend=backend)


def returns_the_namedtuple(mid):
    return spread_band(mid, 2.0)


def returns_a_merged_namedtuple(mid):
    # Both sides make an `Interval`: the merge keeps the class (D13).
    if mid > 0.0:
        band = spread_band(mid, 2.0)
    else:
        band = spread_band(-mid, 1.0)
    return band


def remade_here(mid):
    b = spread_band(mid, 2.0)
    return Interval(b.low, b.high)


def merged_here(mid):
    if mid > 0.0:
        band = Interval(mid - 1.0, mid + 1.0)
    else:
        band = Interval(mid, high=-mid)
    return band


def returns_early(mid, width):
    if width < 0.0:
        return Interval(mid, mid)
    return Interval(mid - width, mid + width)


@pytest.mark.parametrize("fn", [remade_here, merged_here, quote], ids=lambda f: f.__name__)
def test_the_marked_function_returns_the_namedtuple_class(fn, backend):
    """Issue 27 item 4: an instance of the class, an array per field, each CPython's."""
    x = floats()
    vec = vectorize(fn)
    check(vec, x, backend=backend)
    got = vec(to_backend(x, backend))
    assert type(got) is type(fn(0.5)), type(got)


def test_an_early_return_of_the_class_too(backend):
    x = floats(12)
    vec = vectorize(returns_early)
    check(vec, x[:, None], x[None, :], backend=backend)
    assert type(vec(x[:, None], x[None, :])) is Interval


def interval_or_tuple(mid):
    if mid > 0.0:
        return Interval(mid, mid)
    return mid, mid


def other_class(mid):
    if mid > 0.0:
        return Interval(mid, mid)
    return Quote(mid, mid)


def reads_a_missing_field(mid):
    return spread_band(mid, 2.0).middle


def too_few_fields(mid):
    return Interval(mid).low


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (returns_the_namedtuple, r"this result is a `Interval` \(a namedtuple\), which the decorated function does not name itself"),
        (returns_a_merged_namedtuple, r"this result is a `Interval` \(a namedtuple\), which the decorated function does not name itself"),
        (interval_or_tuple, r"this returns another result where another return gives a `Interval`: an array result cannot be a namedtuple on some elements only"),
        (other_class, r"this returns a `Quote` where another return gives a `Interval`"),
        (reads_a_missing_field, "`Interval` has no field `middle`"),
        (too_few_fields, "`Interval` needs a value for each of its fields"),
    ],
    ids=lambda v: getattr(v, "__name__", "msg"),
)
def test_what_is_not_compiled_is_rejected_with_its_position(fn, message):
    with pytest.raises(VectorizationError, match=r":\d+:\d+: " + message):
        vectorize(fn)


MODULE = '''\
import collections
import math
from typing import NamedTuple

from array_vectorize import vectorize

Polar = collections.namedtuple("Polar", "r, theta")


class Vec(NamedTuple):
    x: float
    y: float


def to_polar(v):
    return Polar(math.hypot(v.x, v.y), math.atan2(v.y, v.x))


@vectorize
def radius(x, y):
    return to_polar(Vec(x, y)).r
'''


def test_the_static_compile_reads_namedtuple_classes_and_checks_them(tmp_path, monkeypatch):
    name = f"avnt_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        static = {e["name"]: e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py"))}
        assert static["radius"]["status"] == "ok", static["radius"]
        assumed = {a: tuple(b) for a, b in static["radius"]["assumptions"]}
        assert assumed["Polar"] == ("namedtuple", "Polar", ("r", "theta"))
        assert assumed["Vec"] == ("namedtuple", "Vec", ("x", "y"))
        mod = importlib.import_module(name)
        original = mod.radius._vectorized_original
        assert mod.radius.source == static["radius"]["source"]
        assert assumptions_hold(original, static["radius"]["assumptions"])
        x = np.array([0.0, -0.0, 3.0, -1e300, np.inf, np.nan])
        np.testing.assert_array_equal(np.asarray(mod.radius(x, x[::-1])), [original(a, b) for a, b in zip(x.tolist(), x[::-1].tolist())])
        mod.Polar = namedtuple("Polar", "theta r")  # other fields: the static code no longer applies
        assert not assumptions_hold(original, static["radius"]["assumptions"])
    finally:
        sys.modules.pop(name, None)

