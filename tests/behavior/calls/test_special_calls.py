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
    # Around the end of the `-log|x|` piece (|x| < 1e-20) and where lgamma(x) + log|x| is
    # still more than an ulp.
    tiny = np.array([1e-9, -1e-9, 3e-12, -2.5e-15, 1e-19, 1e-20, 9.9e-21, -1e-20, 4e-7])
    check(log_gamma, tiny, backend=backend, tolerance=ULP_BOUNDS["lgamma"] * 2.0**-52)


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


# Issue 28 item 12: `fsum` at a half-way tie and `isclose` with a difference exactly at its
# tolerance, end to end (the helpers' own unit tests are no layer of the mutation check).


@vectorize
def ledger_total(principal, interest, fee):
    # Postings summed exactly: the ledger's balance is the correctly rounded total.
    return math.fsum((principal, interest, fee))


@vectorize
def ledger_total_5(a, b, c, d, e):
    return math.fsum((a, b, c, d, e))


_E = 2.0**-53  # half an ulp of 1.0
#: Sums whose exact value lies half an ulp from a double, or next to that: the next partial
#: below the half-way rounding error (its sign, or none) decides, as in CPython's fsum.
FSUM_TIES = [
    (1.0, _E, _E * _E),  # just above the tie: rounds up
    (1.0, _E, -_E * _E),  # just below: rounds down
    (1.0, _E, 0.0),  # a tie: to even (1.0)
    (1.0 + 2 * _E, _E, 0.0),  # a tie with an odd last bit: up
    (-1.0, -_E, -_E * _E),
    (-1.0, -_E, _E * _E),
    (1.0, -_E / 2, -(_E**3)),  # below 1.0 the ulp halves
    (1.0, -_E / 2, _E**3),
    (1e16, 1.0, 2.0**-30),  # ulp 2: 1.0 is the half
    (1e16, 1.0, -(2.0**-30)),
    (1e16, 1.0, 0.0),
    (1e16 + 2.0, 1.0, 0.0),
    (2.0**1023, 2.0**970, 2.0**900),  # the tie at the top of the range
    (2.0**1023, 2.0**970, -(2.0**900)),
    (5e-324, 5e-324, -5e-324),
    (1.0, _E, 5e-324),  # the deciding partial a subnormal
    (1.0, _E, -5e-324),
]


def _permutations(rows):
    import itertools

    return [p for row in rows for p in itertools.permutations(row)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_fsum_half_way_ties_end_to_end(backend):
    rows = _permutations(FSUM_TIES)
    columns = [np.array(c) for c in zip(*rows)]
    decided = [math.fsum(r) for r in FSUM_TIES]
    assert decided[0] == 1.0 + 2 * _E and decided[1] == decided[2] == 1.0 and decided[3] == 1.0 + 4 * _E
    check(ledger_total, *columns, backend=backend)
    # The same ties among five postings, two of which cancel.
    fives = [(a, 3.0, b, -3.0, c) for a, b, c in rows]
    check(ledger_total_5, *[np.array(c) for c in zip(*fives)], backend=backend)


@vectorize
def within_tolerance(measured, nominal, tol):
    # A gauge reading passes when it is within `tol` (absolute) of the nominal size.
    return math.isclose(measured, nominal, rel_tol=0.0, abs_tol=tol)


@vectorize
def within_quarter(measured, nominal):
    return math.isclose(measured, nominal, abs_tol=0.25)


@vectorize
def within_ratio(measured, nominal, rel):
    return math.isclose(measured, nominal, rel_tol=rel)


_UP = math.nextafter
ISCLOSE_BOUNDARIES = [
    (1.25, 1.0, 0.25),  # the difference is the tolerance: close
    (1.0, 1.25, 0.25),
    (_UP(1.25, 2.0), 1.0, 0.25),  # one ulp beyond: not
    (1.25, _UP(1.0, 0.0), 0.25),
    (-0.125, 0.125, 0.25),
    (-0.125, 0.125, _UP(0.25, 0.0)),
    (1e300, -1e300, math.inf),  # the difference overflows to inf, which inf admits
    (1e300, -1e300, 1.7976931348623157e308),
    (0.0, -0.0, 0.0),
    (5e-324, 0.0, 5e-324),
    (1e-323, 0.0, 5e-324),
]
RATIO_BOUNDARIES = [
    (1.0, 2.0, 0.5),  # |a - b| == rel * max(|a|, |b|)
    (2.0, 1.0, 0.5),
    (1.0, _UP(2.0, 3.0), 0.5),
    (_UP(1.0, 0.0), 2.0, 0.5),
    (-3.0, -4.0, 0.25),
    (-3.0, _UP(-4.0, -5.0), 0.25),
    (3.0, 4.0, _UP(0.25, 0.0)),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_isclose_at_exactly_its_tolerance_end_to_end(backend):
    outcomes = {math.isclose(a, b, rel_tol=0.0, abs_tol=t) for a, b, t in ISCLOSE_BOUNDARIES}
    assert outcomes == {True, False}
    check(within_tolerance, *[np.array(c) for c in zip(*ISCLOSE_BOUNDARIES)], backend=backend)
    quarter = [(a, b) for a, b, t in ISCLOSE_BOUNDARIES if t == 0.25]
    check(within_quarter, *[np.array(c) for c in zip(*quarter)], backend=backend)
    assert {math.isclose(a, b, rel_tol=r) for a, b, r in RATIO_BOUNDARIES} == {True, False}
    check(within_ratio, *[np.array(c) for c in zip(*RATIO_BOUNDARIES)], backend=backend)
