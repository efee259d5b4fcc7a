"""The math functions the Array API lacks (D17), compiled to the runtime helpers: each against
CPython's ``math`` per lane, on NumPy and array-api-strict, with the ulp bounds of
``runtime/special.py``'s ``ULP_BOUNDS`` (the bounds tests/unit/test_special.py asserts)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime.special import ULP_BOUNDS
from oracle import check

BACKENDS = ["numpy", "strict"]
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 5e-324, -5e-324, 1e-300, 3.5, 171.5, -7.25, 1e300,
         math.inf, -math.inf, math.nan, 2.0, -3.0, 0.1, 30.0]
RNG = np.random.default_rng(20261201)
XS = np.concatenate([np.array(EDGES), RNG.normal(0.0, 6.0, 60)])



@vectorize
def option_tail(d):
    return 0.5 * math.erfc(-d / math.sqrt(2.0))


@vectorize
def error_fn(x):
    return math.erf(x)


@vectorize
def gamma_fn(x):
    return math.gamma(x)


@vectorize
def log_gamma(x):
    return math.lgamma(x)


@vectorize
def phase(x, y):
    return math.fmod(x, y) + math.remainder(x, y)


@vectorize
def exact_total(a, b):
    return math.fsum((a, b, 1e16, -1e16, 1.0))


@vectorize
def near(a, b):
    return math.isclose(a, b, rel_tol=1e-3, abs_tol=0.01)


@vectorize
def near_default(a, b):
    return math.isclose(a, b)


@vectorize
def cents(x):
    return round(float(x), 2)


@vectorize
def hundreds(i):
    return round(int(i), -2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("vec", "key"),
    [(error_fn, "erf"), (gamma_fn, "gamma")],
)
def test_unary_special_within_documented_ulps(vec, key, backend):
    check(vec, XS, backend=backend, ulps=ULP_BOUNDS[key])


@pytest.mark.parametrize("backend", BACKENDS)
def test_lgamma_within_documented_ulps_of_max_result_one(backend):
    # The bound is in ulps of max(|result|, 1): an absolute 8 * 2**-52 near the zeros at 1, 2
    # and between the poles, relative elsewhere (math.isclose with both tolerances).
    check(log_gamma, XS, backend=backend, tolerance=ULP_BOUNDS["lgamma"] * 2.0**-52)


@pytest.mark.parametrize("backend", BACKENDS)
def test_erfc_in_option_pricing(backend):
    # 0.5 * erfc: the scaling by a power of two keeps the bound of erfc.
    check(option_tail, XS, backend=backend, ulps=ULP_BOUNDS["erfc"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_exact_two_argument_functions(backend):
    a, b = np.meshgrid(np.array(EDGES[:14]), np.array(EDGES[:14] + [7.0, -0.75]))
    check(phase, a.ravel(), b.ravel(), backend=backend)
    check(exact_total, a.ravel(), b.ravel(), backend=backend)
    check(near, a.ravel(), b.ravel(), backend=backend)
    check(near_default, a.ravel(), b.ravel() * (1 + 1e-10), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_round_digits(backend):
    xs = np.array([2.675, 1.005, -0.001, 0.125, 0.135, 1e300, -0.0, 123.456, 5e-324, 0.5, -2.5])
    check(cents, xs, backend=backend)
    ints = np.array([150, 250, -250, 149, -151, 0, 50, -50, 9223372036854775000])
    check(hundreds, ints, backend=backend)


def test_round_of_an_int_stays_int_and_exact_body_is_used():
    out = hundreds(np.array([1234, -1250], dtype=np.int64))
    assert out.dtype == np.int64 and list(out) == [1200, -1200]


def test_round_digits_of_a_parameter_of_unknown_kind_is_rejected_with_a_position():
    with pytest.raises(Exception, match=r"round\(float\(x\), ndigits\)"):
        vectorize(lambda x: round(x, 2))


def test_every_special_helper_is_in_the_core_contract_under_its_name():
    from array_vectorize import _core
    from array_vectorize.runtime.special import SPECIAL_HELPERS

    for key, (name, _fn) in SPECIAL_HELPERS.items():
        assert _core.RUNTIME_HELPERS[key]["name"] == name, key


def test_fsum_needs_a_sequence_written_in_the_call():
    def total(a):
        parts = a
        return math.fsum(parts)

    with pytest.raises(Exception, match="tuple or list written in the call"):
        vectorize(total)


INTS = np.array([0, 1, -1, 2, -2, 3, 5, 10, -7, 20, 170, 171, 172, -171, 2**53 + 1, -(2**62), 2**63 - 1])


@vectorize
def mixed_special(x, n):
    return math.erf(x) + math.erfc(n) + math.fmod(x, n) + math.remainder(n, 7)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("vec", "key"), [(error_fn, "erf"), (gamma_fn, "gamma"), (option_tail, "erfc")])
def test_special_functions_of_ints_in_the_exact_body(vec, key, backend):
    # Int arguments take the exact body, where the helpers get the ints converted as CPython's
    # math converts them (to the nearest float64).
    assert "_vec_exact_" in vec.source
    check(vec, INTS, backend=backend, ulps=ULP_BOUNDS[key])
    check(vec, np.array([True, False]), backend=backend, ulps=ULP_BOUNDS[key])


@pytest.mark.parametrize("backend", BACKENDS)
def test_lgamma_and_exact_functions_of_ints(backend):
    check(log_gamma, INTS, backend=backend, tolerance=ULP_BOUNDS["lgamma"] * 2.0**-52)
    a, b = np.meshgrid(INTS, np.array([1, -1, 3, 7, -7, 2**40 + 3]))
    check(phase, a.ravel(), b.ravel(), backend=backend)
    check(exact_total, a.ravel(), b.ravel(), backend=backend)
    check(near, a.ravel(), b.ravel(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_and_int_arguments_mixed(backend):
    # A float and an int parameter: the exact body, with one kind known per argument.
    x, n = np.meshgrid(XS[:30], np.array([1, 2, -3, 7, 100]))
    check(mixed_special, x.ravel(), n.ravel(), backend=backend, ulps=ULP_BOUNDS["erfc"])
