"""NumPy inside scalar code (D16): `np.sqrt`, `np.maximum`, `np.clip`, `np.where`, `np.pi`, ...
compile to `xp` code with NumPy's semantics. The oracle is the scalar function run on NumPy
scalars (float arguments as ``np.float64``), per element, on NumPy and array-api-strict; the
generated code names no NumPy (D9)."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, floats, ints

BACKENDS = ["numpy", "strict"]
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 3.5, -3.5, 1e-300, 5e-324, -5e-324, 1e300,
                  -1e300, math.inf, -math.inf, math.nan, 2.0**53 + 2, 7.25, -0.75])
XS = np.concatenate([EDGES, np.random.default_rng(16).normal(0.0, 4.0, 30)])


def on_numpy_scalars(fn):
    """`fn` called as users call it: floats as ``np.float64`` (ints and bools as Python gives
    them), the NumPy scalar result back as a Python scalar for the comparison."""

    def oracle(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out = fn(*[np.float64(a) if type(a) is float else a for a in args])
        return out.item() if hasattr(out, "item") else out

    return oracle


def check_np(vec, *args, backend="numpy", ulps=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return check(vec, *args, backend=backend, scalar=on_numpy_scalars(vec._vectorized_original), ulps=ulps)


def pairs():
    a, b = np.meshgrid(EDGES, EDGES)
    return a.ravel(), b.ravel()


@vectorize
def hinge_loss(margin, label):
    return np.maximum(1.0 - margin * label, 0.0)


@vectorize
def lower_envelope(a, b):
    return np.minimum(a, b)


@vectorize
def upper_envelope(a, b):
    return np.maximum(a, b)


@vectorize
def saturation(x):
    return np.clip(x / 3.0, -1.0, 1.0)


@vectorize
def floor_at_zero(x):
    return np.clip(x, 0.0, None) + np.clip(x, a_min=None, a_max=2.0)


@vectorize
def signed_root(x):
    return np.sign(x) * np.sqrt(np.abs(x))


@vectorize
def wrapped_angle(theta):
    return np.arctan2(np.sin(theta), np.cos(theta))


@vectorize
def nan_to_zero(x):
    return np.where(np.isnan(x), 0.0, x)


@vectorize
def bounded_growth(rate):
    return np.exp(np.minimum(rate, 700.0)) - np.expm1(rate) + np.log1p(np.abs(rate))


@vectorize
def wind_speed(u, v):
    return np.hypot(u, v) + np.power(np.abs(u), 0.5) + np.square(v)


@vectorize
def roundings(x):
    return np.floor(x) + 2.0 * np.ceil(x) + 4.0 * np.trunc(x) + 8.0 * np.rint(x) + 16.0 * np.round(x)


@vectorize
def int_roundings(n):
    return np.floor(n) + np.ceil(n) * 3 - np.trunc(n) + np.round(n)


@vectorize
def int_rint(n):
    return np.rint(n)


@vectorize
def circle(r):
    return np.pi * np.square(r) + np.e - np.degrees(r) + np.radians(r) + np.euler_gamma


@vectorize
def guarded_log(x):
    return np.where(x > 0.0, np.log(x), -np.inf) + np.isinf(x) + np.isfinite(x)


@vectorize
def as_float(n):
    return np.float64(n) / 2


@vectorize
def inverse_trig(x):
    return np.arcsin(x) + np.arccos(x) + np.arctan(x) + np.arctanh(x) + np.arcsinh(x) + np.arccosh(x)


@vectorize
def truth_where(x, y):
    return np.where(x, y, -y)


CASES = [saturation, floor_at_zero, signed_root, wrapped_angle, nan_to_zero, bounded_growth,
         roundings, circle, guarded_log, inverse_trig]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("vec", CASES, ids=lambda v: v.__name__)
def test_one_argument_functions_match_numpy_scalars(vec, backend):
    check_np(vec, XS, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("vec", [hinge_loss, lower_envelope, upper_envelope, wind_speed, truth_where],
                         ids=lambda v: v.__name__)
def test_two_argument_functions_match_numpy_scalars(vec, backend):
    check_np(vec, *pairs(), backend=backend)


def test_maximum_and_minimum_propagate_nan_and_keep_numpys_zero():
    # Unlike Python's max/min, a NaN on either side wins; of 0.0 and -0.0 the second is kept.
    a = np.array([np.nan, 1.0, -0.0, 0.0])
    b = np.array([1.0, np.nan, 0.0, -0.0])
    got = upper_envelope(a, b)
    assert np.isnan(got[:2]).all()
    assert [math.copysign(1, v) for v in got[2:]] == [1.0, -1.0]
    got = lower_envelope(a, b)
    assert [math.copysign(1, v) for v in got[2:]] == [1.0, -1.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_arguments_keep_numpys_kinds(backend):
    # np.floor/ceil/trunc/round of an int give the int back (NumPy 2); np.rint and np.float64
    # give floats.
    out = check_np(int_roundings, ints(), backend=backend)
    assert out.dtype.kind in "iu"
    assert check_np(int_rint, ints(), backend=backend).dtype == np.float64
    out = check_np(as_float, ints(), backend=backend)
    assert out.dtype == np.float64
    check_np(hinge_loss, ints(), np.array([1]), backend=backend)


def test_float_body_is_plain_xp_calls_and_names_no_numpy():
    for vec in [*CASES, wind_speed, int_roundings, as_float]:
        assert not re.search(r"\bnp\.|\bnumpy\b", vec.source), vec.source
    fast = wrapped_angle.source.split("def _vec_exact")[0]
    # sin and cos of one array come from one `_vec_sincos` (src/codegen/sincos.rs), which is
    # `(xp.sin(theta), xp.cos(theta))` on every namespace but NumPy's large float64 arrays.
    assert "sin, cos = _vec_sincos(xp, theta)" in fast and "xp.atan2(sin, cos)" in fast, fast
    assert "xp.floor(x)" in roundings.source and "xp.round(x)" in roundings.source


def test_floats_of_every_kind_of_edge():
    check_np(signed_root, floats())


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("return np.fmax(x, 0.0)", r"numpy\.fmax.*cannot be vectorized.*D16"),
        ("return np.sqrt(x, out=x)", r"numpy\.sqrt\(\) takes no keyword"),
        ("return np.clip(x, 0.0)", r"numpy\.clip\(\) takes the value and both bounds"),
        ("return np.newaxis", r"numpy\.newaxis.*no meaning"),
        ("return np.maximum(x)", r"numpy\.maximum\(\) takes 2 arguments, got 1"),
    ],
)
def test_unsupported_numpy_uses_are_rejected_with_a_position(body, message, tmp_path):
    src = f"import numpy as np\n\n\ndef f(x):\n    {body}\n"
    path = tmp_path / "np_reject.py"
    path.write_text(src)
    namespace = {"__file__": str(path)}
    exec(compile(src, str(path), "exec"), namespace)
    with pytest.raises(VectorizationError, match=message) as info:
        vectorize(namespace["f"])
    assert "np_reject.py:5:" in str(info.value), str(info.value)


def test_a_local_variable_named_np_is_not_numpy():
    def f(x):
        np = x
        return np.sqrt(x)

    with pytest.raises(VectorizationError):
        vectorize(f)


# np.power (D16): NumPy's scalar power, C's pow except that an exponent of 0.5 is sqrt
# (np.power(-0.0, 0.5) is -0.0, np.power(-inf, 0.5) nan, where CPython's ** gives 0.0 and inf),
# in the float body and in the exact body (an int argument) alike. NumPy's array power (SIMD) and
# its scalar power may differ by an ulp on finite lanes (1e300 ** -1.0), whichever body runs:
# those checks allow one; the special values are exact.
POWER_BASES = np.array([0.0, -0.0, 1.0, -1.0, 4.0, -4.0, 0.25, -8.0, 2.5, 1e-300, 1e300, math.inf, -math.inf,
                        math.nan])
POWER_EXPONENTS = np.array([0.5, -0.5, 1.5, 0.25, 1.0 / 3.0, 2.0, 3.0, -1.0, -2.0, 0.0, 1.0, math.inf, -math.inf,
                            math.nan])


@vectorize
def half_power(x):
    return np.power(x, 0.5)


@vectorize
def half_power_beside_an_int(x, n):
    return np.power(x, 0.5) + n * 0


@vectorize
def power_of(x, y):
    return np.power(x, y)


@vectorize
def fractional_powers(x):
    return np.power(x, 1.5) + np.power(x, -0.5) + np.power(x, 0.25) * np.power(x, 1.0 / 3.0)


@vectorize
def int_powers(x):
    return np.power(x, 2) + np.power(x, 3) - np.power(x, -1)


@vectorize
def power_with_int_exponent(x, k):
    return np.power(x, k)


def power_pairs():
    a, b = np.meshgrid(POWER_BASES, POWER_EXPONENTS)
    return a.ravel(), b.ravel()


@pytest.mark.parametrize("backend", BACKENDS)
def test_np_power_of_a_half_is_numpys_sqrt_in_both_bodies(backend):
    """Fails before: the exact body gave CPython's pow (inf for -inf, 0.0 for -0.0)."""
    out = check_np(half_power, POWER_BASES, backend=backend)
    assert math.copysign(1.0, out[1]) == -1.0 and math.isnan(out[12])
    n = np.arange(POWER_BASES.size)
    out = check_np(half_power_beside_an_int, POWER_BASES, n, backend=backend)
    assert math.isnan(out[12])
    assert "xp.sqrt(" in half_power.source and "np_pow" not in half_power.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_np_power_with_a_run_time_exponent_matches_numpy_scalars(backend):
    """Fails before: an exponent array of 0.5 gave C's pow in the float body (inf for -inf)."""
    x, y = power_pairs()
    out = check_np(power_of, x, y, backend=backend, ulps=1)
    half = (y == 0.5) & (x == -math.inf)
    assert np.isnan(out[half]).all()
    negative_zero = (y == 0.5) & (x == 0.0) & np.signbit(x)
    assert np.signbit(out[negative_zero]).all() and (out[negative_zero] == 0.0).all()
    # The exact body: an int exponent next to float bases, float exponents next to int bases.
    k = np.array([0, 1, 2, 3, -1, -2, 5])
    xs = np.repeat(POWER_BASES, k.size)
    check_np(power_with_int_exponent, xs, np.tile(k, POWER_BASES.size), backend=backend, ulps=1)
    bases = np.array([0, 1, 2, 3, 4, 9, -4, -1])
    check_np(power_of, np.repeat(bases, POWER_EXPONENTS.size), np.tile(POWER_EXPONENTS, bases.size), backend=backend, ulps=1)
    # Two ints: `**` (docs/semantics.md item 19), int64 where NumPy's scalars agree.
    small = np.array([0, 1, 2, 3, -2, -3])
    a, b = np.meshgrid(small, np.array([0, 1, 2, 3, 5]))
    out = check_np(power_of, a.ravel(), b.ravel(), backend=backend)
    assert out.dtype.kind == "i"


@pytest.mark.parametrize("backend", BACKENDS)
def test_np_power_of_constant_exponents_matches_numpy_scalars(backend):
    check_np(fractional_powers, POWER_BASES, backend=backend, ulps=2)
    check_np(int_powers, POWER_BASES, backend=backend, ulps=1)
    ints_in = np.array([1, 2, 3, -1, -2, 7])
    check_np(fractional_powers, ints_in, backend=backend, ulps=2)
    check_np(half_power, ints_in, backend=backend)
