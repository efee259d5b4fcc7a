"""Horner polynomials (src/codegen/horner.rs, runtime/horner.py, src/host/kernels.rs; issue 30):
in the float body, a polynomial in one float array with float constants is one `_vec_horner`
call, which on a C-contiguous float64 NumPy array computes every lane in one pass of the core's
kernel. Results must be CPython's in every lane, on every backend and on both paths (the kernel
on NumPy, small and blocked; the array operations elsewhere: 0-d and strided arrays, the other
namespaces), and NumPy's floating-point warnings must fire as the array operations fire them (a
lane that overflows; NumPy's `under` setting)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime import horner, registry  # noqa: F401 - registry binds the kernel
from oracle import check, floats


def water_density(t):
    """Pure water at one atmosphere (a 5th-degree polynomial in T, every step `c + t * ...`)."""
    return 999.842594 + t * (6.793952e-2 + t * (-9.095290e-3 + t * (1.001685e-4 + t * (-1.120083e-6 + t * 6.536332e-9))))


def salinity_terms(t):
    """Subtractions both ways (`c - t * ...` and `... - c`), written as an engineer might."""
    b = -5.72466e-3 + t * (1.0227e-4 - 1.6546e-6 * t)
    c = t * (0.25 - t * (1.5e-2 + t * 3.0e-4)) - 4.0e-1
    return b, c


def option_cubic(k):
    """A cubic that ends in a product (`k * (...)`, no constant term), its variable a local."""
    m = k - 100.0
    return m * (0.5 + m * (-2.5e-3 + m * 1.0e-5))


def steam_enthalpy(t):
    """Two polynomials in one variable joined by a product."""
    h = 2501.0 + t * (1.82 + t * (-2.5e-4 + t * 1.2e-7))
    cp = 4.217 + t * (-3.3e-3 + t * (5.6e-5 - t * 2.9e-7))
    return h * cp


FUNCTIONS = [water_density, salinity_terms, option_cubic, steam_enthalpy]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_results_are_cpythons_on_every_backend(fn, backend):
    check(vectorize(fn), floats(60), backend=backend)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_zero_d_strided_and_two_d_arguments(fn):
    x = floats(30)
    check(vectorize(fn), np.array(2.5))
    check(vectorize(fn), 0.75)
    check(vectorize(fn), x[::3])  # not contiguous: the array operations
    check(vectorize(fn), x[: 6 * (x.size // 6)].reshape(6, -1))


def seawater_density(s, t):
    """UNESCO 1981 at one atmosphere: three polynomials in T and a square root of S, heavy
    enough to be run in blocks (runtime/blocked.py), each block's polynomials by the kernel."""
    rho_w = 999.842594 + t * (6.793952e-2 + t * (-9.095290e-3 + t * (1.001685e-4 + t * (-1.120083e-6 + t * 6.536332e-9))))
    a = 0.824493 + t * (-4.0899e-3 + t * (7.6438e-5 + t * (-8.2467e-7 + t * 5.3875e-9)))
    b = -5.72466e-3 + t * (1.0227e-4 - 1.6546e-6 * t)
    return rho_w + s * (a + b * math.sqrt(s) + 4.8314e-4 * s)


@pytest.fixture
def kernel_calls(monkeypatch):
    """What the kernel returned on each call (True: a lane not finite, the array operations
    compute the polynomial again)."""
    calls = []
    kernel = horner._kernel

    def counted(*args):
        bad = kernel(*args)
        calls.append(bad)
        return bad

    monkeypatch.setattr(horner, "_kernel", counted)
    return calls


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
def test_the_kernel_on_large_arrays_is_cpythons_bit_for_bit(fn, kernel_calls):
    x = np.random.default_rng(3).uniform(-40.0, 120.0, 1 << 17)
    check(vectorize(fn), x)
    assert kernel_calls and not any(kernel_calls), kernel_calls
    # The edge values (NaN, infinities, subnormals, overflowing lanes) among them: the array
    # operations again, with NumPy's warnings.
    x[: len(floats(0))] = floats(0)
    check(vectorize(fn), x)


def test_blocked_calls_take_the_kernel_in_every_block(kernel_calls):
    rng = np.random.default_rng(4)
    s, t = rng.uniform(0.0, 40.0, 1 << 17), rng.uniform(-2.0, 35.0, 1 << 17)
    s[:5] = [0.0, -0.0, 5e-324, 40.0, math.inf]
    t[5:10] = [-0.0, math.nan, 1e300, -1e300, 5e-324]  # NaN and overflow: the first block again
    check(vectorize(seawater_density), s, t)
    assert len(kernel_calls) >= 3 * 4 and kernel_calls.count(True) <= 3, kernel_calls


def test_the_float_body_prints_one_call_per_polynomial():
    # The text is pinned by the core's tests (src/codegen/horner.rs); here, that the
    # polynomials this file checks are calls, so the tests above reach the kernel.
    # steam_enthalpy's `h` is the first array of the chain `h * cp` (chain.rs), not a value of
    # its own: a chain, `cp` a call.
    pairs = [(water_density, 1), (salinity_terms, 2), (option_cubic, 1), (steam_enthalpy, 1), (seawater_density, 3)]
    for fn, n in pairs:
        source = vectorize(fn).source
        assert source[: source.index("def _vec_exact_")].count("_vec_horner(") == n, source


def test_an_overflowing_lane_warns_and_raises_as_numpy_does():
    vec = vectorize(water_density)
    x = np.full(64, 1e100)
    x[1] = 20.0
    with np.errstate(over="warn"), pytest.warns(RuntimeWarning, match="overflow"):
        r = vec(x)
    assert r[0] == math.inf and r[1] == water_density(20.0)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        vec(x)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        vec(x)


def test_numpys_underflow_setting_is_honoured():
    # A lane whose first product is subnormal: NumPy's default ignores the underflow,
    # `under="raise"` raises it, as the array operations did.
    vec = vectorize(water_density)
    x = np.full(64, 1e-305)
    with np.errstate(under="raise"), pytest.raises(FloatingPointError):
        vec(x)
    check(vec, x)


def test_small_arrays_take_the_kernel_with_cpythons_bits(kernel_calls):
    # Ten lanes (a small call), each edge value in turn among ordinary ones: the kernel runs,
    # and a lane not finite sends the polynomial to the array operations, which warn as NumPy
    # does.
    edges = floats(0)
    ordinary = np.linspace(-3.0, 40.0, 10)
    for fn in FUNCTIONS:
        vec = vectorize(fn)
        check(vec, ordinary)
        for v in edges:
            x = ordinary.copy()
            x[3] = v
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                check(vec, x)
    assert kernel_calls.count(False) >= len(FUNCTIONS), kernel_calls
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        vectorize(water_density)(np.array([1.0, 1e100, 2.0]))


@pytest.mark.parametrize("state_var", ["numpy", "none"])
def test_the_underflow_setting_is_read_whenever_the_error_state_changes(state_var, monkeypatch):
    # `_under_ignored` remembers the last NumPy error state it read: each errstate (and
    # seterr) makes a new one, so alternating settings are each honoured. "none": a NumPy
    # without the state's context variable (NumPy 1), where it asks np.geterr() every time.
    if state_var == "none":
        monkeypatch.setattr(horner, "_ERROR_STATE", False)
    monkeypatch.setattr(horner, "_UNDER_SEEN", (None, False))  # the first read below: the default
    vec = vectorize(water_density)
    x = np.full(10, 1e-305)
    want = np.array([water_density(v) for v in x.tolist()])
    for _ in range(3):
        np.testing.assert_array_equal(vec(x), want)
        with np.errstate(under="raise"), pytest.raises(FloatingPointError):
            vec(x)
        with np.errstate(under="raise"):
            with np.errstate(under="ignore"):
                np.testing.assert_array_equal(vec(x), want)
            with pytest.raises(FloatingPointError):
                vec(x)
    old = np.seterr(under="raise")
    try:
        with pytest.raises(FloatingPointError):
            vec(x)
    finally:
        np.seterr(**old)
    np.testing.assert_array_equal(vec(x), want)


def test_the_kernel_rejects_what_it_cannot_read():
    # The core reads each array's C interface and refuses, with ValueError, an array that is
    # not C-contiguous, aligned, native float64 (the output writeable, of the input's size and
    # sharing no memory with it): never a crash.
    kernel = horner._kernel
    x = np.linspace(0.0, 1.0, 12)
    poly = ((1.0, 2.0, 3.0), "++", False)
    out = np.empty(12)
    assert kernel(out, x, *poly) is False
    np.testing.assert_array_equal(out, horner._passes(x, *poly))
    readonly = np.empty(12)
    readonly.flags.writeable = False
    for bad_out, bad_x in [
        (np.empty(6), x[::2]),  # strided input
        (np.empty(12, dtype=np.float32), x),
        (out, x.astype(np.float32)),
        (out, x.astype(">f8")),  # byte-swapped
        (readonly, x),
        (np.empty(11), x),
        (x, x),  # the same memory
        (np.empty((2, 6)).T, x.reshape(6, 2)),  # Fortran order
    ]:
        with pytest.raises(ValueError):
            kernel(bad_out, bad_x, *poly)
    with pytest.raises(ValueError):
        kernel(out, x, (1.0,), "", False)
    with pytest.raises((TypeError, AttributeError)):
        kernel(out, [0.5] * 12, *poly)


@pytest.mark.parametrize("fn", FUNCTIONS + [seawater_density], ids=lambda f: f.__name__)
def test_jax_and_dask_give_numpys_bits(fn):
    # JAX arrays (eager and under jax.jit) and Dask's take the array operations: Dask gives
    # the lanes of NumPy's kernel bit for bit (NaN equal to NaN); JAX as XLA computes them
    # (docs/semantics.md item 14: subnormals flushed, FMAs under jax.jit), within 1e-14.
    jax = pytest.importorskip("jax")
    da = pytest.importorskip("dask.array")
    jax.config.update("jax_enable_x64", True)
    vec = vectorize(fn)
    x = floats(60)
    args = [np.abs(x), x] if fn is seawater_density else [x]
    want = vec(*args)
    want = want if isinstance(want, tuple) else (want,)

    def same(got, how, exact):
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            g = np.asarray(g)
            if exact:
                assert np.array_equal(np.isnan(g), np.isnan(w)), how
                keep = ~np.isnan(w)
                np.testing.assert_array_equal(g.view(np.int64)[keep], w.view(np.int64)[keep], how)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-290, equal_nan=True, err_msg=how)

    jargs = [jax.numpy.asarray(a) for a in args]
    same(vec(*jargs), "JAX", False)
    same(jax.jit(vec)(*jargs), "jax.jit", False)
    got = vec(*(da.from_array(a, chunks=max(1, a.size // 3)) for a in args))
    same(tuple(g.compute() for g in got) if isinstance(got, tuple) else got.compute(), "Dask", True)
