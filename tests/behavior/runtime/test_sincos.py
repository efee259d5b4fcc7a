"""`sin` and `cos` of one array in one native pass (src/codegen/sincos.rs, runtime/trig.py,
src/host/trig.rs; issue 30): a statement that takes both `math.sin(a)` and `math.cos(a)` calls
`_vec_sincos(xp, a)` once, which on large NumPy float64 arrays runs the C library's `sincos`.
Every lane must be CPython's `math.sin` / `math.cos` (the judge here is CPython, element by
element), and the call's bits those of the same call with the native pass off."""

from __future__ import annotations

import ctypes
import math
import platform
import warnings

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime import loops, threads, trig
from behavior.runtime.test_blocked_evaluation import assert_bitwise
from oracle import BACKENDS, check

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


def without_native(vec, *args):
    """`vec(*args)` with every `_vec_sincos` call left to `xp.sin` and `xp.cos`."""
    saved = trig.NATIVE
    trig.NATIVE = None
    try:
        return vec(*args)
    finally:
        trig.NATIVE = saved


@pytest.fixture
def native_calls(monkeypatch):
    """The lane counts of the native passes made from now on."""
    calls = []
    native = trig.NATIVE
    if native is not None and trig._AGREES is None:
        trig._probe()  # the probe's own pass is not one of the calls'

    def counted(x, sin, cos, n):
        calls.append(n)
        return native(x, sin, cos, n)

    monkeypatch.setattr(trig, "NATIVE", counted)
    return calls


# ----------------------------------------------------------------------------- functions


def eccentric_anomaly(mean_anomaly, eccentricity):
    # Kepler's equation by Newton's method to a tolerance: near-parabolic orbits take dozens of
    # steps, circular ones a handful (a packed while loop, D12).
    anomaly = mean_anomaly
    steps = 0
    while steps < 60:
        delta = (anomaly - eccentricity * math.sin(anomaly) - mean_anomaly) / (1.0 - eccentricity * math.cos(anomaly))
        anomaly -= delta
        if abs(delta) < 1e-13:
            return anomaly
        steps += 1
    return anomaly


def rotated_x(x, y, heading_deg):
    # The east coordinate of a survey point after turning the grid by a heading in degrees.
    t = math.radians(heading_deg)
    return x * math.cos(t) - y * math.sin(t)


def pendulum_energy(theta, omega):
    # Energy per unit mass of a rigid pendulum (g = 9.81, l = 1.5) and its height, one statement.
    return 0.5 * (1.5 * omega) ** 2 + 9.81 * 1.5 * (1.0 - math.cos(theta)) + 0.0 * math.sin(theta)


def sun_hour_angle_term(day):
    # The equation of time's leading terms (minutes), from the year's angle.
    b = 2.0 * math.pi * (day - 81.0) / 364.0
    return 9.87 * math.sin(2.0 * b) - 7.53 * math.cos(b) - 1.5 * math.sin(b)


FUNCTIONS = {
    "eccentric_anomaly": (eccentric_anomaly, 2),
    "rotated_x": (rotated_x, 3),
    "pendulum_energy": (pendulum_energy, 2),
    "sun_hour_angle_term": (sun_hour_angle_term, 1),
}


def inputs(name, n=3000, seed=3):
    rng = np.random.default_rng(seed)
    edges = np.array([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 1e-300, 2.0**-27, 0.855469, 2.426265, math.pi,
                      -math.pi / 2, 1e6, 1e22, -1e300, 1.7976931348623157e308, math.nan, math.inf, -math.inf])
    wide = np.concatenate([edges, rng.uniform(-10.0, 10.0, n // 2), np.exp(rng.uniform(-700.0, 700.0, n))])[:n]
    wide = wide * rng.choice([1.0, -1.0], n)
    if name == "eccentric_anomaly":
        return [rng.uniform(0.0, 2.0 * math.pi, n), np.where(rng.uniform(size=n) < 0.03, 0.999, rng.uniform(0.0, 0.9, n))]
    if name == "rotated_x":
        return [rng.normal(0.0, 1e3, n), rng.normal(0.0, 1e3, n), np.concatenate([edges, rng.uniform(-720.0, 720.0, n)])[:n]]
    if name == "pendulum_energy":
        return [wide, rng.normal(0.0, 3.0, n)]
    return [np.concatenate([edges, rng.uniform(-400.0, 800.0, n)])[:n]]


# ----------------------------------------------------------------------------- tests


def test_the_native_pass_is_the_c_librarys_sin_and_cos_lane_by_lane():
    # The runtime helper alone against CPython's `math.sin` and `math.cos` per element, on every
    # range glibc treats apart and on random values.
    if not GLIBC:
        pytest.skip("the native pass is probed, not assumed, off glibc")
    x = np.concatenate([inputs("pendulum_energy", n=20000, seed=11)[0], np.arange(-200, 201) * (math.pi / 4)])
    sin, cos = trig._vec_sincos(np, x)
    for a, s, c in zip(x.tolist(), sin.tolist(), cos.tolist()):
        if math.isinf(a):  # math raises ValueError; the array value is NaN (docs/semantics.md item 9)
            assert math.isnan(s) and math.isnan(c)
            continue
        want_s, want_c = math.sin(a), math.cos(a)
        assert (s == want_s or (math.isnan(s) and math.isnan(want_s))) and math.copysign(1.0, s) == math.copysign(1.0, want_s), a
        assert c == want_c or (math.isnan(c) and math.isnan(want_c)), a
    assert trig._AGREES is True


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_statement_with_both_calls_sincos_once_and_keeps_cpythons_values(name, native_calls):
    fn, _ = FUNCTIONS[name]
    vec = vectorize(fn)
    assert "_vec_sincos(xp, " in vec.source
    args = inputs(name)
    got = check(vec, *args)
    assert_bitwise(got, without_native(vec, *args))
    if GLIBC:
        assert native_calls, "the native pass never ran"


def test_a_packed_loop_takes_the_native_pass_on_its_packed_lanes(native_calls, monkeypatch):
    # Kepler over mixed orbits, packed from 512 lanes on: the first steps on every lane, then on
    # the packed slow lanes; the pass runs while they are many and leaves the last few to
    # xp.sin / xp.cos.
    monkeypatch.setattr(loops, "PACK_MIN_LANES", 512)
    vec = vectorize(eccentric_anomaly)
    rng = np.random.default_rng(5)
    m = rng.uniform(0.0, 2.0 * math.pi, 4000)
    e = np.where(rng.uniform(size=4000) < 0.5, 0.99, 0.3)
    got = vec(m, e)
    want = np.array([eccentric_anomaly(a, b) for a, b in zip(m.tolist(), e.tolist())])
    assert_bitwise(got, want)
    monkeypatch.setattr(loops, "PACK_MIN_LANES", 1 << 62)
    assert_bitwise(got, without_native(vec, m, e))  # neither packed nor native
    if GLIBC:
        assert min(native_calls) >= trig.SINCOS_MIN_LANES
        assert any(n < 4000 for n in native_calls)  # some pass on packed lanes


@pytest.mark.parametrize("threads_env", ["1", "4"])
def test_blocks_on_threads_give_the_whole_calls_bits(threads_env, monkeypatch):
    # 1e5 lanes run in blocks (runtime/blocked.py), on one thread or four.
    monkeypatch.setenv(threads.THREADS_ENV, threads_env)
    vec = vectorize(sun_hour_angle_term)
    day = np.random.default_rng(9).uniform(-400.0, 800.0, 100_000)
    got = vec(day)
    assert_bitwise(got, without_native(vec, day))
    want = np.array([sun_hour_angle_term(d) for d in day[::97].tolist()])
    assert np.array_equal(got[::97], want)


@pytest.mark.parametrize("layout", ["0-d", "empty", "small", "transposed", "strided", "float32"])
def test_other_arrays_take_xp_sin_and_xp_cos(layout, native_calls):
    vec = vectorize(pendulum_energy)
    theta, omega = inputs("pendulum_energy", n=3000)
    theta, omega = theta.reshape(50, 60), omega.reshape(50, 60)
    args = {
        "0-d": lambda: [np.asarray(theta.flat[40]), np.asarray(omega.flat[40])],
        "empty": lambda: [theta[:0], omega[:0]],
        "small": lambda: [theta[:2, :10], omega[:2, :10]],
        "transposed": lambda: [theta.T, omega.T],
        "strided": lambda: [theta[:, ::2], omega[:, ::2]],
        "float32": lambda: [theta.astype(np.float32), omega.astype(np.float32)],
    }[layout]()
    got = check(vec, *args)
    assert_bitwise(got, without_native(vec, *args))
    if layout in ("0-d", "empty", "small", "strided"):
        assert native_calls == []


@pytest.mark.parametrize("backend", sorted(set(BACKENDS) - {"numpy"}))
def test_other_namespaces_take_xp_sin_and_xp_cos(backend, native_calls):
    vec = vectorize(rotated_x)
    x, y, heading = inputs("rotated_x", n=400)
    check(vec, x, y, heading, backend=backend)
    assert native_calls == []


def test_a_pass_that_disagrees_with_numpy_is_never_used(monkeypatch):
    # A C library whose sincos differed from NumPy's sin and cos: the probe finds it and every
    # call keeps xp.sin and xp.cos.
    native = trig.NATIVE

    def off_by_one_ulp(x, sin, cos, n):
        flagged = native(x, sin, cos, n)
        s = np.ctypeslib.as_array((ctypes.c_double * n).from_address(sin))
        s.view(np.uint64)[:] += 1
        return flagged

    monkeypatch.setattr(trig, "NATIVE", off_by_one_ulp)
    monkeypatch.setattr(trig, "_AGREES", None)
    vec = vectorize(rotated_x)
    args = inputs("rotated_x")
    check(vec, *args)
    assert trig._AGREES is False


def test_jax_eager_and_dask_take_xp_sin_and_xp_cos(native_calls):
    vec = vectorize(sun_hour_angle_term)
    day = inputs("sun_hour_angle_term", n=300)[0]
    want = without_native(vec, day)
    da = pytest.importorskip("dask.array")
    got = vec(da.from_array(day, chunks=100))
    assert isinstance(got, da.Array)  # nothing computed by the call
    np.testing.assert_array_equal(np.asarray(got.compute()), want)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    got = np.asarray(vec(jax.numpy.asarray(day)))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-12)  # XLA's sin, item 9
    assert native_calls == []


def warnings_of(vec, *args):
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        vec(*args)
    return sorted(str(w.message) for w in caught)


def test_floating_point_warnings_are_numpys(native_calls):
    # An infinite angle: NumPy's sin and cos warn "invalid value" (CPython's math raises
    # ValueError there; docs/semantics.md item 9), and under errstate(invalid="raise") raise.
    vec = vectorize(rotated_x)
    x, y, heading = inputs("rotated_x", n=1000)
    finite = np.where(np.isfinite(heading), heading, 30.0)
    # Subnormal angles underflow in the multiply of math.radians and in sin (glibc flags
    # sin(x) = x for a subnormal x): the same warnings either way.
    assert warnings_of(vec, x, y, finite) == warnings_of(without_native, vec, x, y, finite)
    assert "invalid value encountered in sin" not in warnings_of(vec, x, y, finite)
    assert warnings_of(vec, x, y, heading) == warnings_of(without_native, vec, x, y, heading)
    assert "invalid value encountered in sin" in warnings_of(vec, x, y, heading)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        vec(x, y, heading)
    if GLIBC:
        assert native_calls
