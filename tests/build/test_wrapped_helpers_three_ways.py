"""Helpers wrapped by a decorator of the module (issue 27, "Decorated helpers"; D7, D8): a helper
that `functools.wraps` made look like the function it wraps, whose wrapper checks its input range
and forwards `*args, **kwargs`, is resolved by the import hook's and the build backend's static
compile as the decorator resolves it (hook_py/array_vectorize/wrapped.py,
src/static_module/wrapped.rs): the same source three ways, assumptions that hold for the live
functions, CPython's values and raises. A decorator bound otherwise at run time fails the
assumptions (the decorator compiles the live function); a wrapper of another shape is left to the
decorator with the reason."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from array_vectorize import _core
from array_vectorize.precompiled import assumptions_hold
from oracle import check, check_raising
from three_ways import assert_same_source_three_ways, module_on_path

MODULE = '''\
import functools
import math
from functools import wraps

from array_vectorize import vectorize

SATURATION_MAX = 1.0


def unit_interval(fn):
    """Easing curves take the progress of an animation, in [0, 1]."""

    @functools.wraps(fn)
    def wrapper(t, *args, **kwargs):
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"{fn.__name__}() takes t in [0, 1], got {t}")
        return fn(t, *args, **kwargs)

    return wrapper


def relative_humidity(fn):
    @wraps(fn)
    def checked(rh, temp_c, *args, **kwargs):
        if math.isnan(rh) or rh < 0.0 or rh > SATURATION_MAX:
            raise ValueError("relative humidity outside [0, 1]")
        return fn(rh, temp_c, *args, **kwargs)

    return checked


@unit_interval
def ease_in(t, power=2):
    return t**power


@unit_interval
def ease_out_back(progress, overshoot=1.70158):
    u = progress - 1.0
    return 1.0 + u * u * ((overshoot + 1.0) * u + overshoot)


@relative_humidity
def dew_point(humidity, celsius, b=17.62, c=243.12):
    gamma = math.log(humidity) + b * celsius / (c + celsius)
    return c * gamma / (b - gamma)


@vectorize
def ease_in_out(t):
    if t < 0.5:
        return ease_in(2.0 * t) / 2.0
    return 1.0 - ease_in(2.0 - 2.0 * t, 3) / 2.0


@vectorize
def overshoot_curve(t):
    return ease_out_back(t) - ease_out_back(t, 2.5)


@vectorize
def dew_point_margin(rh, temp_c):
    return temp_c - dew_point(rh, temp_c)
'''

NAMES = ("ease_in_out", "overshoot_curve", "dew_point_margin")
UNIT = np.array([0.0, -0.0, 1.0, 0.5, 0.25, 1e-310, 0.9999999999999999, 0.49999999999999994])
OUTSIDE = np.array([0.5, 1.0000000000000002, -1e-310, math.nan, math.inf, -math.inf, 2.0])


@pytest.fixture
def module(tmp_path, monkeypatch):
    with module_on_path(MODULE, "avwh", tmp_path, monkeypatch) as found:
        yield found


def test_decorator_hook_and_backend_give_the_same_source(module):
    name, tmp_path = module
    assert_same_source_three_ways(MODULE, name, tmp_path, NAMES)


def test_the_wrapped_function_is_assumed_through_the_helper(module):
    """The forward's `fn` is the wrapper's closure cell: checked as `<helper>.__wrapped__`, at the
    bare def's line; the helper itself is the wrapper's code, named as the wrapped function."""
    name, tmp_path = module
    static = {e["name"]: e for e in _core.compile_module(MODULE, str(tmp_path / f"{name}.py"))}
    assumed = dict(static["ease_in_out"]["assumptions"])
    assert assumed["ease_in"][:2] == ("function", "ease_in")
    assert assumed["ease_in.__wrapped__"][:2] == ("function", "ease_in")
    assert assumed["ease_in"] != assumed["ease_in.__wrapped__"]  # the wrapper's line, the def's line
    assert "fn" not in assumed


def test_values_and_raises_are_cpythons(module, backend):
    name, _ = module
    mod = importlib.import_module(name)
    for t in (UNIT, np.random.default_rng(5).uniform(0.0, 1.0, 64)):
        check(mod.ease_in_out, t, backend=backend, ulps=2)
        check(mod.overshoot_curve, t, backend=backend, ulps=4)
    got = check_raising(mod.ease_in_out, OUTSIDE, backend=backend)
    assert isinstance(got, ValueError), got
    rh = np.array([0.05, 0.5, 1.0, 0.999, 1e-300, 0.73])
    temp = np.array([-30.0, 0.0, 25.0, -0.0, 40.0, 12.5])
    check(mod.dew_point_margin, rh, temp, backend=backend, ulps=64)
    got = check_raising(mod.dew_point_margin, np.array([0.5, math.nan, 0.2]), np.array([1.0, 2.0, 3.0]), backend=backend)
    assert isinstance(got, ValueError), got


REBOUND = MODULE.replace(
    "@unit_interval\ndef ease_in(",
    "globals()['unit_interval'] = lenient\n\n\n@unit_interval\ndef ease_in(",
).replace(
    "def relative_humidity(fn):",
    '''def lenient(fn):
    @functools.wraps(fn)
    def lenient_wrapper(t, *args, **kwargs):
        if t != t:
            return 0.0
        return fn(t, *args, **kwargs)

    return lenient_wrapper


def relative_humidity(fn):''',
)


def test_a_decorator_bound_otherwise_at_run_time_fails_the_assumption(tmp_path, monkeypatch, backend):
    """The text binds `unit_interval` once, and the module rebinds it through `globals()` before
    decorating `ease_in`: the static reading (the raising wrapper) is not the live one (the
    lenient wrapper, at another line), so its assumptions fail and the decorator compiles the
    live function, which returns 0.0 for NaN and raises for nothing, as CPython does."""
    with module_on_path(REBOUND, "avwhr", tmp_path, monkeypatch) as (name, _):
        static = {e["name"]: e for e in _core.compile_module(REBOUND, str(tmp_path / f"{name}.py"))}
        assert static["ease_in_out"]["status"] == "ok", static["ease_in_out"]
        mod = importlib.import_module(name)
        assert not assumptions_hold(mod.ease_in_out._vectorized_original, static["ease_in_out"]["assumptions"])
        assert mod.ease_in_out.source != static["ease_in_out"]["source"]
        check(mod.ease_in_out, OUTSIDE[~np.isnan(OUTSIDE)], backend=backend)
        check(mod.ease_in_out, UNIT, backend=backend, ulps=2)


@pytest.mark.parametrize(
    ("wrapper", "why"),
    [
        ("        if kwargs:\n            raise TypeError('by position only')\n", "reads `kwargs` before the forward"),
        ("        t = min(t, 1.0)\n", "it assigns `t`"),
    ],
)
def test_a_wrapper_of_another_shape_is_left_to_the_decorator_with_the_reason(wrapper, why):
    text = MODULE.replace("        if not 0.0 <= t <= 1.0:\n", wrapper + "        if not 0.0 <= t <= 1.0:\n")
    static = {e["name"]: e for e in _core.compile_module(text, "m.py")}
    entry = static["ease_in_out"]
    assert entry["status"] == "deferred", entry
    (reason,) = entry["deferred"]
    assert "wrapped by `unit_interval.<locals>.wrapper`" in reason and why in reason, reason
    assert static["dew_point_margin"]["status"] == "ok"
