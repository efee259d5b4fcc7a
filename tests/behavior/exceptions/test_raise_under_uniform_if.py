"""`raise` and `assert` (D11) inside a Python-level `if` on a uniform value (D14), and before a
Python `if` or a loop that returns: the `if` stays a Python `if`, the lanes that raised inside
it leave it with their raise code (merged from its two sides), and the call raises what CPython's
element loop raises first, built from that element's values, against CPython as the oracle.

PYTEST_DONT_REWRITE: the scalar functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import FLOAT_EDGES, INT_EDGES, check_raising, first_raise


def capped_speed(v, cap: float | None):
    # Physics validation: a speed limit that may be absent.
    if cap is not None:
        if v > cap:
            raise ValueError(f"speed {v} exceeds the cap {cap}")
    return v * 3.6


def discount_factor(rate, t, convention: str):
    # Finance: the convention picks the formula and its own domain check.
    if convention == "simple":
        if rate * t <= -1.0:
            raise ValueError(f"simple discounting undefined at rate={rate}, t={t}")
        return 1.0 / (1.0 + rate * t)
    elif convention == "continuous":
        return math.exp(-rate * t)
    else:
        raise ValueError(f"unknown convention {convention!r}")


def kinetic_energy(m, v, units: str):
    # The check before a Python `if` that returns (its returns collapse into one value).
    if m < 0.0:
        raise ValueError(f"negative mass {m}")
    e = 0.5 * m * v * v
    if units == "kJ":
        return e / 1000.0
    return e


def withholding(income, regime: str):
    # The message reads a value the Python `if`'s side defines.
    if regime == "progressive":
        taxable = income - 10000.0
        if taxable < -10000.0:
            raise ValueError(f"negative income {income}, taxable {taxable}")
        rate = 0.3
    else:
        rate = 0.2
        taxable = income
    return taxable * rate


def strict_band(x, mode: str, level: str):
    # Nested Python `if`s inside an array `if`; lanes that returned first never raise.
    if x > 0:
        if mode == "strict":
            if x > 100:
                return 100.0
            if level == "hi":
                if x > 50:
                    raise OverflowError(f"x={x} above 50 in strict hi")
        return x
    return -x


def checked_mode(x, mode: str):
    assert mode != "off", f"mode {mode} with x={x}"
    return x + 1


def first_crossing(x, level):
    # A loop that returns after a raise.
    if x != x:
        raise ValueError("the path starts at NaN")
    for k in range(4):
        if x * (k + 1) > level:
            return k
    return -1


def guarded_ratio(a, b, policy: str):
    # A `try` inside the Python `if`: what it catches never leaves the `if`.
    if policy == "lenient":
        try:
            r = a / b
        except ZeroDivisionError:
            r = 0.0
    else:
        if b == 0:
            raise ZeroDivisionError(f"ratio {a}/{b} under the strict policy")
        r = a / b
    return r


def int_units(n, unit: str):
    if unit == "bytes":
        if n < 0:
            raise ValueError(f"negative byte count {n}")
        return n
    return n * 1024


FLOATS = np.array(FLOAT_EDGES)
INTS = np.array(INT_EDGES, dtype=np.int64)


def _each(vec, *args, backend):
    """The whole array, then each element alone (which element raises first is CPython's)."""
    check_raising(vec, *args, backend=backend)
    array = args[0]
    for v in array:
        check_raising(vec, np.array([v], dtype=array.dtype), *args[1:], backend=backend)


@pytest.mark.parametrize("cap", [None, 4.0, 0.0, -0.0, math.inf, -math.inf, math.nan])
def test_raise_inside_an_if_on_an_optional_parameter(cap, backend):
    _each(vectorize(capped_speed), FLOATS, cap, backend=backend)
    check_raising(vectorize(capped_speed), np.array([1.0, 2.0]), cap, backend=backend)


@pytest.mark.parametrize("convention", ["simple", "continuous", "other"])
@pytest.mark.parametrize("t", [2.0, -0.0, math.inf])
def test_raise_in_one_branch_of_an_if_elif_chain(convention, t, backend):
    _each(vectorize(discount_factor), FLOATS, t, convention, backend=backend)


@pytest.mark.parametrize("units", ["J", "kJ"])
def test_raise_before_an_if_that_returns(units, backend):
    _each(vectorize(kinetic_energy), FLOATS, 3.0, units, backend=backend)
    check_raising(vectorize(kinetic_energy), np.abs(FLOATS), -0.0, units, backend=backend)


@pytest.mark.parametrize("regime", ["progressive", "flat"])
def test_message_from_a_value_defined_inside_the_if(regime, backend):
    _each(vectorize(withholding), FLOATS, regime, backend=backend)
    got = check_raising(vectorize(withholding), np.array([5000.0, -1e6, -2e6]), regime, backend=backend)
    assert (got is None) == (regime == "flat")


@pytest.mark.parametrize("mode", ["strict", "lax"])
@pytest.mark.parametrize("level", ["hi", "lo"])
def test_nested_uniform_ifs_inside_an_array_if(mode, level, backend):
    _each(vectorize(strict_band), FLOATS, mode, level, backend=backend)
    check_raising(vectorize(strict_band), np.array([60.0, 120.0, 70.0]), mode, level, backend=backend)


@pytest.mark.parametrize("mode", ["on", "off"])
def test_assert_on_a_uniform_test(mode, backend):
    _each(vectorize(checked_mode), FLOATS, mode, backend=backend)


@pytest.mark.parametrize("level", [3.0, -0.0, math.inf, math.nan])
def test_raise_before_a_loop_that_returns(level, backend):
    _each(vectorize(first_crossing), FLOATS, level, backend=backend)


@pytest.mark.parametrize("policy", ["lenient", "strict"])
def test_try_inside_a_uniform_if(policy, backend):
    b = np.array([0.0, -0.0, 1.0, math.inf, math.nan, 2.0])
    _each(vectorize(guarded_ratio), b * 0.0 + 3.0, b, policy, backend=backend)
    check_raising(vectorize(guarded_ratio), np.array([1.0, 2.0]), np.array([2.0, 0.0]), policy, backend=backend)


@pytest.mark.parametrize("unit", ["bytes", "kib"])
def test_int_edges(unit, backend):
    _each(vectorize(int_units), INTS, unit, backend=backend)


def _raise_in_uniform_if_in_try(x, mode: str):
    try:
        if mode == "strict":
            if x < 0:
                raise ValueError(f"negative {x}")
        y = x
    except ValueError:
        y = 0.0
    return y


def test_raise_inside_a_uniform_if_inside_a_try_is_rejected_with_its_position():
    with pytest.raises(VectorizationError) as info:
        vectorize(_raise_in_uniform_if_in_try)
    assert "or an `if` on a uniform value (D14" in str(info.value)
    assert "within a `try` body, is not supported yet" in str(info.value)
    assert "or move the `if` out of the `try`" in str(info.value)
    diag = info.value.diagnostics[0]
    assert diag["line"] == _raise_in_uniform_if_in_try.__code__.co_firstlineno + 4, diag


def rejected_rewrite(x, mode: str):
    # The rewrite the message suggests: the `if` on the uniform value outside the `try`.
    if mode == "strict":
        try:
            if x < 0:
                raise ValueError(f"negative {x}")
            y = x
        except ValueError:
            y = 0.0
    else:
        y = x
    return y


@pytest.mark.parametrize("mode", ["strict", "lax"])
def test_the_suggested_rewrite_matches_cpython(mode, backend):
    _each(vectorize(rejected_rewrite), FLOATS, mode, backend=backend)


# ----------------------------------------------------------------------------- a raise on uniform values only


def housing_award(earnings, rent, params):
    # Tax-benefit rules: the parameters are checked once per call, not per element.
    taper = params["taper"]
    if taper < 0.0 or taper > 1.0:
        raise ValueError(f"taper rate {taper} outside [0, 1]")
    award = rent - taper * max(0.0, earnings - params["allowance"])
    return award if award > 0.0 else 0.0


UNITS = {"system": "SI"}


def pipe_loss(v, length, diameter, settings: dict):
    if settings["system"] != "SI" and settings["system"] != "US":
        raise ValueError(f"unit system {settings['system']!r} not set up, v={v}")
    return 0.02 * length / diameter * v * v / 2.0


@pytest.mark.parametrize("taper", [0.55, 1.5, -0.1])
def test_a_raise_on_uniform_values_is_checked_once(taper, backend):
    vec = vectorize(housing_award)
    # No array is made for the check: a Python `if` on the code (codegen/stmts.rs).
    assert "_vec_raise_uniform" in vec.source and "_vec_raises(" not in vec.source, vec.source
    params = {"taper": taper, "allowance": 8000.0}
    earnings = np.array([[5000.0, 12000.0, 30000.0], [0.0, 9000.0, 1e6]])
    check_raising(vec, earnings, np.array([400.0, 900.0, 1200.0]), params, backend=backend)
    # No element, no raise (CPython's loop over nothing).
    empty = np.zeros((0,))
    assert vec(empty, empty, params).shape == (0,)


@pytest.mark.parametrize("taper", [0.55, 1.5])
def test_nan_on_raise_of_a_raise_on_uniform_values(taper, backend):
    # The code is a Python int: every element NaN, or none (fuzz seed 515151 #18 on strict).
    vec = vectorize(housing_award, nan_on_raise=True)
    from oracle import to_backend, to_numpy

    earnings = np.array([5000.0, 12000.0, 30000.0])
    got = to_numpy(vec(to_backend(earnings, backend), 900.0, {"taper": taper, "allowance": 8000.0}))
    if taper > 1.0:
        assert np.isnan(got).all() and got.shape == (3,)
    else:
        np.testing.assert_array_equal(got, vec(earnings, 900.0, {"taper": taper, "allowance": 8000.0}))


def test_a_raise_on_uniform_values_under_jax_jit():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    vec = vectorize(housing_award)
    earnings, rent = jax.numpy.asarray([5000.0, 30000.0]), jax.numpy.asarray([900.0, 1200.0])
    good = jax.jit(lambda e, r: vec(e, r, {"taper": 0.55, "allowance": 8000.0}))(earnings, rent)
    np.testing.assert_array_equal(np.asarray(good), vec(np.asarray(earnings), np.asarray(rent), {"taper": 0.55, "allowance": 8000.0}))
    # The check fails for every element: CPython's exception, raised while tracing.
    with pytest.raises(ValueError, match=r"taper rate 1.5 outside \[0, 1\]") as info:
        jax.jit(lambda e, r: vec(e, r, {"taper": 1.5, "allowance": 8000.0}))(earnings, rent)
    assert "array-vectorize: raised for element (0,) (flat index 0)" in info.value.__notes__
    # A message built from an element's value cannot be built from a trace: the clear error.
    loss = vectorize(pipe_loss)
    v = jax.numpy.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="nan_on_raise=True"):
        jax.jit(lambda v: loss(v, 10.0, 0.1, {"system": "imperial"}))(v)
    np.testing.assert_allclose(np.asarray(jax.jit(lambda v: loss(v, 10.0, 0.1, UNITS))(v)), loss(np.asarray(v), 10.0, 0.1, UNITS))
    # nan_on_raise: every element raised.
    nan = vectorize(housing_award, nan_on_raise=True)
    got = jax.jit(lambda e, r: nan(e, r, {"taper": 1.5, "allowance": 8000.0}))(earnings, rent)
    assert np.isnan(np.asarray(got)).all()


@pytest.mark.parametrize("system", ["SI", "imperial"])
def test_a_raise_on_uniform_values_on_dask(system):
    da = pytest.importorskip("dask.array")
    vec = vectorize(pipe_loss)
    v = np.array([0.5, 1.0, 3.0, 4.0])
    lazy = da.from_array(v, chunks=2)
    settings = {"system": system}
    expected = first_raise(pipe_loss, v, 10.0, 0.1, settings)
    if expected is None:
        np.testing.assert_allclose(vec(lazy, 10.0, 0.1, settings).compute(), vec(v, 10.0, 0.1, settings))
    else:
        with pytest.raises(ValueError) as info:
            vec(lazy, 10.0, 0.1, settings)
        assert info.value.args == expected[0].args


# ----------------------------------------------------------------------------- a uniform check, then a lane-wise branch


def darcy_factor(re, roughness, settings: dict):
    # Hydraulics (Haaland's explicit formula): the unit system checked once, then the laminar
    # or the turbulent factor per element. Every lane leaves the branch on `re` with the
    # check's code, so the raise stays a Python `if` (rewrite/broadcast.rs
    # `uniform_raise_code`), no array of codes.
    system = settings["units"]
    if system != "SI":
        if system != "US":
            raise ValueError(f"unit system {system!r} not set up")
    if re >= 2000.0:
        inverse_root = -1.8 * math.log10((roughness / 3.7) ** 1.11 + 6.9 / re)
        return 1.0 / (inverse_root * inverse_root)
    return 64.0 / re


REYNOLDS = np.array([0.0, -0.0, 1.0, 1999.9, 2000.0, 1e5, 1e8, math.inf, math.nan, -5.0])


@pytest.mark.parametrize("units", ["SI", "US", "furlongs"])
def test_a_uniform_check_before_a_lane_wise_branch(units, backend):
    vec = vectorize(darcy_factor)
    for body in (vec.source.split("def _vec_exact")[0], vec.source):
        assert "_vec_raise_uniform(xp, code, " in body and "_vec_raises(" not in body, vec.source
    settings = {"units": units}
    check_raising(vec, REYNOLDS, 1e-4, settings, backend=backend)
    check_raising(vec, REYNOLDS.reshape(2, 5), np.array([[1e-6], [1e-2]]), settings, backend=backend)
    # No element, no raise.
    empty = np.zeros((0,))
    assert vec(empty, empty, settings).shape == (0,)


def test_a_uniform_check_before_a_lane_wise_branch_under_jax_jit():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    vec = vectorize(darcy_factor)
    re = jax.numpy.asarray([800.0, 4e4, 2e6])
    got = jax.jit(lambda r: vec(r, 1e-4, {"units": "SI"}))(re)
    # (XLA's fused log10 and power may differ from NumPy's in the last bit.)
    np.testing.assert_allclose(np.asarray(got), vec(np.asarray(re), 1e-4, {"units": "SI"}), rtol=1e-14)
    with pytest.raises(ValueError, match="unit system 'furlongs' not set up") as info:
        jax.jit(lambda r: vec(r, 1e-4, {"units": "furlongs"}))(re)
    assert "array-vectorize: raised for element (0,) (flat index 0)" in info.value.__notes__
