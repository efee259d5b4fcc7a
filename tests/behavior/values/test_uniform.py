"""Uniform values (D14): per-call Python objects (dicts of parameters, Enum members, strings,
None, config objects, namespaces) stay Python values, read once per call; branches on them are
Python `if`s. Each case is checked against CPython element by element (oracle.check) on every
backend, for every uniform argument value the branches distinguish."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from types import SimpleNamespace
from typing import Optional

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BACKENDS, check, floats, ints

BACKEND_NAMES = [b for b in ("numpy", "strict") if b in BACKENDS]


class UnitSystem(Enum):
    SI = 1
    IMPERIAL = 2


class Phase(str, Enum):
    LIQUID = "liquid"
    ICE = "ice"


@dataclass(frozen=True)
class Config:
    rate: float
    floor: float
    strict: bool


def rate_from_dict(x, params):
    if x > params["threshold"]:
        return (x - params["threshold"]) * params["rate"]
    return 0.0


def enum_switch(length, unit):
    if unit == UnitSystem.SI:
        return length
    return length * 0.3048


def enum_identity(length, unit):
    if unit is UnitSystem.IMPERIAL:
        return length * 0.3048
    return length


def enum_value(length, unit):
    return length * unit.value


def string_switch(t, phase):
    if phase == "ice":
        return 6.1115 * math.exp(22.452 * t / (272.55 + t))
    return 6.1121 * math.exp(17.502 * t / (240.97 + t))


def str_enum_switch(t, phase):
    if phase == Phase.ICE:
        return t - 0.5
    return t + 0.5


def none_default(x, limit=None):
    if limit is None:
        return x * 2.0
    return min(x * 2.0, limit)


def none_default_not(x, limit=None):
    y = x * 2.0
    if limit is not None and y > limit:
        y = limit
    return y


def annotated_optional(x, floor: Optional[float] = None):
    if floor is not None:
        return max(x, floor)
    return x


def isinstance_switch(x, scale):
    if isinstance(scale, str):
        return -x
    return x


def config_attributes(x, cfg):
    y = x * cfg.rate
    if cfg.strict:
        return max(y, cfg.floor)
    return y


def nested_attribute(x, cfg):
    return x * cfg.inner.rate + cfg.offset


def dict_flag(x, params):
    if not params["enabled"]:
        return x
    return x * params["factor"]


def annotated_dict(x, params: dict):
    return x + len_like(params)


def len_like(p):
    return p["a"] + p["b"]


def key_membership(x, params: dict):
    # A bonus applies only to schemes that define one.
    if "bonus" in params and "cap" not in params:
        return x + params["bonus"]
    if "bonus" in params:
        return min(x + params["bonus"], params["cap"])
    return x


def dict_get_defaults(x, params: dict):
    return x * params.get("rate", 0.2) + params.get("fee", 0)


def float_of_strings(x, strict: bool = False):
    lowest = float("inf")
    if x < lowest:
        lowest = x
    if lowest < float("-Infinity") + 1.0 or x != x:
        return float(" nan ")
    return lowest * float("1_000.5") + float("-0")


SI, IMP = UnitSystem.SI, UnitSystem.IMPERIAL

CASES = [
    (rate_from_dict, [{"threshold": 1.0, "rate": 0.25}, {"threshold": -2, "rate": 3}, {"threshold": 0.0, "rate": True}]),
    (enum_switch, [SI, IMP]),
    (enum_identity, [SI, IMP]),
    (enum_value, [SI, IMP]),
    (string_switch, ["ice", "liquid"]),
    (str_enum_switch, [Phase.ICE, Phase.LIQUID, "ice"]),
    (isinstance_switch, ["minus", 2.0, None]),
    (config_attributes, [Config(0.5, 1.0, True), Config(2.0, -1.0, False), SimpleNamespace(rate=3, floor=0.0, strict=1)]),
    (nested_attribute, [SimpleNamespace(inner=SimpleNamespace(rate=0.5), offset=2.0), SimpleNamespace(inner=SimpleNamespace(rate=-1), offset=0)]),
    (dict_flag, [{"enabled": False, "factor": 3.0}, {"enabled": 1, "factor": 0.5}, {"enabled": "", "factor": 9.0}]),
    (annotated_dict, [{"a": 1.0, "b": 2}, {"a": -0.5, "b": 0.0}]),
    (key_membership, [{"bonus": 2.5}, {"bonus": -1, "cap": 3.0}, {}, {"cap": 1.0}]),
    (dict_get_defaults, [{}, {"rate": 1}, {"rate": -0.5, "fee": 2.5}, {"fee": True}]),
    (float_of_strings, [False, True]),
]


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("fn, values", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_uniform_argument_matches_cpython_for_each_value(fn, values, backend):
    vec = vectorize(fn)
    for value in values:
        check(vec, floats(), value, backend=backend)


@pytest.mark.parametrize("backend", BACKEND_NAMES)
@pytest.mark.parametrize("fn", [none_default, none_default_not, annotated_optional])
def test_a_none_default_takes_the_python_branch_or_is_a_number_per_lane(fn, backend):
    vec = vectorize(fn)
    x = floats()
    check(vec, x, backend=backend)  # the default
    check(vec, x, None, backend=backend)
    check(vec, x, 1.5, backend=backend)  # a Python number
    check(vec, x, -2.0, backend=backend)
    check(vec, x, floats(seed=1)[: len(x)], backend=backend)  # an array: one limit per lane
    check(vec, ints(), None, backend=backend)  # int arrays go through the exact body


def test_an_optional_parameter_keeps_int_results_int_when_none():
    def cap(n, limit=None):
        return n if limit is None else min(n, limit)

    vec = vectorize(cap)
    out = check(vec, ints(), None)
    assert out.dtype == np.int64
    assert check(vec, ints(), 5).dtype == np.int64
    assert check(vec, ints(), ints(seed=1)).dtype == np.int64


def test_the_generated_code_branches_in_python_and_converts_no_uniform_argument():
    vec = vectorize(enum_switch)
    assert "if unit == UnitSystem.SI:" in vec.source
    assert "_vec_float_args(length)" in vec.source
    vec = vectorize(none_default)
    assert "_vec_float_args(x, 0.0 if limit is None else limit)" in vec.source
    assert "if limit is None:" in vec.source


@pytest.mark.parametrize("fn, value", [(rate_from_dict, {"threshold": 1.0, "rate": 0.25}), (enum_switch, SI), (string_switch, "ice")])
def test_an_array_where_a_uniform_value_is_read_is_an_error_naming_the_parameter(fn, value):
    vec = vectorize(fn)
    name = fn.__code__.co_varnames[1]
    with pytest.raises(TypeError, match=f"argument `{name}` is an array"):
        vec(floats(), np.array([1.0, 2.0]))


def scheme_premium(x, params: dict, scheme: str):
    if scheme == "exempt":
        return x
    elif scheme == "flat":
        return x + params["flat_fee"]
    fee = params["rate"] * x
    return max(fee, params["minimum"])


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_reads_after_a_uniform_if_that_returns_run_only_where_cpython_reaches_them(backend):
    """D14: after `if scheme == "exempt": return x`, CPython never reads params["rate"] for
    that scheme, so neither may the generated code (a KeyError for a dict without the key)."""
    vec = vectorize(scheme_premium)
    check(vec, floats(), {}, "exempt", backend=backend)
    check(vec, floats(), {"flat_fee": 2.5}, "flat", backend=backend)
    check(vec, floats(), {"rate": 0.1, "minimum": 1.0}, "banded", backend=backend)
    check(vec, ints(), {"rate": 1, "minimum": -3}, "banded", backend=backend)
    with pytest.raises(KeyError):  # CPython's error where CPython reads the key
        vec(np.array([1.0]), {"flat_fee": 1.0}, "banded")


def checked_premium(x, params: dict, scheme: str):
    if scheme == "exempt":
        return x
    if x < 0:
        raise ValueError(f"negative amount {x} under {scheme}")
    return x * params["rate"]


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_a_raise_after_a_uniform_if_that_returns_runs_only_where_cpython_reaches_it(backend):
    """D11, D14: the check after `if scheme == "exempt": return x` raises for the other schemes
    on CPython's first raising element, and reads `params["rate"]` only for them."""
    vec = vectorize(checked_premium)
    check(vec, floats(), {}, "exempt", backend=backend)
    check(vec, np.abs(floats()), {"rate": 0.25}, "standard", backend=backend)
    x = np.array([3.0, -0.0, -2.5, -7.0])
    with pytest.raises(ValueError) as got:
        vec(x, {"rate": 0.25}, "standard")
    with pytest.raises(ValueError) as expected:
        [checked_premium(v, {"rate": 0.25}, "standard") for v in x.tolist()]
    assert str(got.value) == str(expected.value)


def test_membership_and_get_with_a_key_per_element_are_refused_with_a_position():
    def by_key(x, params: dict):
        return x in params

    def get_per_lane(x, params: dict):
        return params.get("rate", x)

    for fn in (by_key, get_per_lane):
        with pytest.raises(VectorizationError) as info:
            vectorize(fn)
        (d,) = info.value.diagnostics
        assert "same on every element" in d["message"] and d["line"] > 0 and d["col"] > 0, d


def test_float_of_a_string_that_is_no_number_is_refused_with_a_position():
    def parse(x):
        return x + float("1.5kg")

    with pytest.raises(VectorizationError) as info:
        vectorize(parse)
    (d,) = info.value.diagnostics
    assert "1.5kg" in d["message"] and d["line"] > 0, d


def test_a_missing_key_raises_keyerror_as_cpython_does():
    vec = vectorize(rate_from_dict)
    with pytest.raises(KeyError, match="threshold"):
        vec(floats(), {"rate": 1.0})


def scaled_levy(x, schedule):
    # A levy whose scale is computed in Python from the parameters (D14): an int, a bool or a
    # float only the call knows, made an array of its own kind where it meets `x`.
    scale = schedule["units"] * schedule["per_unit"]
    return x % 7 + scale // schedule["bands"]


@pytest.mark.parametrize(
    "schedule",
    [
        {"units": 3, "per_unit": 2, "bands": 4},
        {"units": 2**62, "per_unit": 3, "bands": 1},  # in [2**63, 2**64): uint64 (item 13)
        {"units": True, "per_unit": True, "bands": True},  # True * True is the int 1
        {"units": 1.5, "per_unit": -2, "bands": -0.5},
    ],
    ids=["int", "uint64", "bools", "float"],
)
def test_a_number_computed_from_uniform_values_takes_its_own_kind(schedule, backend):
    check(vectorize(scaled_levy), ints(), schedule, backend=backend)


@pytest.mark.parametrize("backend_name", BACKEND_NAMES)
def test_a_number_computed_from_uniform_values_beyond_64_bits_is_item_17(backend_name):
    # 7 * INT64_MAX meets an array: the OverflowError of docs/semantics.md item 17, not an object
    # array (NumPy) or the library's own error (array-api-strict; seed 200007 #1724).
    from oracle import to_backend

    vec = vectorize(scaled_levy)
    with pytest.raises(OverflowError, match="vectorized integers are 64-bit"):
        vec(to_backend(ints(), backend_name), {"units": 7, "per_unit": 9223372036854775807, "bands": 1})


def test_a_key_read_only_on_a_branch_not_taken_is_not_read():
    def f(x, params):
        if params["mode"] == "flat":
            return x * 0.0 + params["amount"]
        return x * params["rate"]

    vec = vectorize(f)
    check(vec, floats(), {"mode": "flat", "amount": 3.0})
    check(vec, floats(), {"mode": "proportional", "rate": 0.1})


def test_is_on_numbers_is_still_refused():
    def f(x):
        y = x * 2.0
        z = x + 1.0
        return 1.0 if y is z else 0.0

    with pytest.raises(VectorizationError, match="`is` compares identities"):
        vectorize(f)


def test_an_attribute_of_a_number_is_refused():
    def f(x):
        return (x * 2.0).real

    with pytest.raises(VectorizationError, match="uniform values"):
        vectorize(f)


def test_namespace_passed_in_attribute_and_branch():
    # A namespace module passed as an argument is a uniform value: its attributes are read once
    # per call (calls through it are D16's).
    def f(x, xnp):
        if xnp.__name__ == "numpy":
            return x * 2.0
        return x

    vec = vectorize(f)
    check(vec, floats(), np)
    check(vec, floats(), math)


def test_calls_through_a_namespace_passed_in_are_numpys():
    def f(x, xnp):
        return xnp.minimum(xnp.sqrt(xnp.abs(x)), 2.0) + xnp.maximum(x, 0.0)

    vec = vectorize(f)
    assert "xnp." not in vec.source
    out = check(vec, floats(), np)
    if "strict" in BACKENDS:
        strict = BACKENDS["strict"]
        got = vec(strict.asarray(floats()), strict)
        assert np.array_equal(np.asarray(got), out, equal_nan=True)


def _band_tax(income, p, status):
    if status == "joint":
        return max(income - 2.0 * p["allowance"], 0.0) * p["rate"]
    return max(income - p["allowance"], 0.0) * p["rate"]


def tax_through_a_helper(income, params, status):
    return _band_tax(income, params, status) + 0.0 * income


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_a_parameter_passed_on_to_a_helper_is_uniform_as_the_helper_reads_it(backend):
    vec = vectorize(tax_through_a_helper)
    assert "_vec_float_args(income)" in vec.source
    for status in ("single", "joint"):
        check(vec, floats(), {"allowance": 10.0, "rate": 0.25}, status, backend=backend)


def unit_price(quantity):
    # isinstance makes `quantity` a uniform value (D14): the function has no number parameter.
    if isinstance(quantity, int):
        return quantity * 2
    return quantity * 0.5


def surcharge(mode):
    return 1.5 if mode == "express" else 0.0


@pytest.mark.parametrize("fn, args", [(unit_price, (3,)), (unit_price, (2.5,)), (unit_price, (True,)), (surcharge, ("express",)), (surcharge, ("post",))])
def test_a_function_without_a_number_parameter_called_with_python_scalars(fn, args):
    # Issue 28 item 5: with every parameter uniform the argument prologue got no argument and
    # returned a tuple the generated code took for the namespace: AttributeError: 'tuple' object
    # has no attribute 'bool_'.
    got = vectorize(fn)(*args)
    assert np.asarray(got).tolist() == fn(*args)
