"""The D17 helpers (``runtime/special.py``) against CPython's ``math``, lane by lane.

CPython is the oracle. Where it raises, the expected value is the IEEE value D3 prescribes,
written here from C99's definition of the function (never taken from the helper under test).
Each helper is held to ``ULP_BOUNDS[key]`` ulps of CPython's result on edge values and on random
values (log-uniform magnitudes, both signs); the same bounds are the ones ``docs/semantics.md``
states, which ``test_documented_bounds_are_the_tested_ones`` checks.
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction
from pathlib import Path

import array_api_strict
import numpy as np
import pytest

from array_vectorize.runtime.special import SPECIAL_HELPERS, ULP_BOUNDS, ULP_FLOORS

INF, NAN = math.inf, math.nan
MIN_SUB, MIN_NORMAL, DBL_MAX = 5e-324, sys.float_info.min, sys.float_info.max
BACKENDS = {"numpy": np, "strict": array_api_strict}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "semantics.md"

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 0.1, -0.1, 1.5, 2.5, -2.5,
         MIN_SUB, -MIN_SUB, 3 * MIN_SUB, 1e-310, -1e-310, MIN_NORMAL, -MIN_NORMAL, 1e-300, 1e-20,
         1e20, -1e20, 1e300, -1e300, DBL_MAX, -DBL_MAX, 2.0**52 + 0.5, 2.0**53, -(2.0**53),
         INF, -INF, NAN]


def helper(key):
    return SPECIAL_HELPERS[key][1]


def bits(v: float) -> int:
    """The float's bits as an int ordered like the floats (negative floats below positive)."""
    i = int(np.float64(v).view(np.int64))
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def ulps(got: float, expected: float, floor: float = 0.0) -> float:
    """Distance in representable doubles; 0 for equal values (and NaN with NaN); inf when one is
    NaN or the signs of two zeros differ. With ``floor``, the error counts in ulps of
    ``max(|expected|, floor)`` instead (an absolute bound for results below ``floor``)."""
    if math.isnan(expected) or math.isnan(got):
        return 0 if math.isnan(expected) and math.isnan(got) else INF
    if got == expected:
        return 0 if math.copysign(1, got) == math.copysign(1, expected) else INF
    if math.isinf(got) or math.isinf(expected):
        return INF
    if floor and abs(expected) < floor:
        return abs(got - expected) / math.ulp(floor)
    return abs(bits(got) - bits(expected))


def run(key, backend, *args):
    """The helper on ``backend`` as a NumPy float array (or bool array)."""
    xp = BACKENDS[backend]
    out = helper(key)(xp, *[xp.asarray(np.asarray(a, dtype=np.float64)) for a in args])
    return np.asarray(out)


def oracle(fn, on_raise):
    """``fn`` lane by lane; ``on_raise(*args)`` gives the D3 value where CPython raises."""

    def call(*args):
        try:
            return fn(*args)
        except (ValueError, OverflowError):
            return on_raise(*args)

    return call


def check(key, backend, fn, *columns, bound=None):
    """Every lane within ``bound`` (default ``ULP_BOUNDS[key]``) ulps of ``fn``; returns the
    largest distance and the share of lanes equal to CPython's."""
    bound = ULP_BOUNDS[key] if bound is None else bound
    floor = ULP_FLOORS.get(key, 0.0)
    got = run(key, backend, *columns).tolist()
    worst, equal, bad = 0.0, 0, []
    for i, g in enumerate(got):
        args = [c[i] for c in columns]
        d = ulps(g, fn(*args), floor)
        worst = max(worst, d)
        equal += d == 0
        if d > bound and len(bad) < 5:
            bad.append((args, g, fn(*args), d))
    assert not bad, f"{key}: beyond {bound} ulps (args, got, expected, ulps): {bad}"
    return worst, equal / len(got)


def log_uniform(rng, n, low=-323.0, high=308.0):
    """``n`` floats with log-uniform magnitudes in [10**low, 10**high) and random signs."""
    return (rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(low, high, n)).tolist()


# --------------------------------------------------------------------------- one-argument helpers

def around(points):
    """Each point and its two neighbouring doubles: the ends of the polynomial pieces."""
    return [v for p in points for v in (math.nextafter(p, -INF), p, math.nextafter(p, INF))]


ERF_EDGES = EDGES + around([0.5 + k / 4 for k in range(113)]) + [
    0.25, 0.2499999999999999, 0.4999999999999999, -0.4999999999999999, 0.84375, 1.0000000000000002,
    5.9, 6.0, -6.0, 10.0, 26.5, 26.6, 27.2, 27.3, 27.5, 28.0, 28.5, 30.0, -27.0, 1e-17, -1e-17,
    2.0**-28, 1e-308,
]


def random_one_arg(rng, n, low, high):
    """Log-uniform magnitudes 10**low..10**high (both signs) and uniform values on [-high, high]
    for the transcendental helpers: half of ``n`` each."""
    wide = log_uniform(rng, n // 2, low, math.log10(high))
    return wide + rng.uniform(-high, high, n - n // 2).tolist()


PIECE_ENDS = around([k / 4 for k in range(-4, 50) if k % 4]) + around([0.5, 3.5, 12.5, 13.5])
GAMMA_EDGES = EDGES + PIECE_ENDS + [
    *[float(n) for n in range(1, 30)], *[-float(n) for n in range(1, 6)], -1e15, -(2.0**52), 2.0**52 + 0.5,
    -(2.0**52 + 0.5), 1e-20, -1e-20, 1.1e-20, 5.6e-309, -5.6e-309, 5.5e-309, 1e-308, -1e-308,
    1 - 2.0**-53, 1 + 2.0**-52, 2 - 2.0**-52, 2 + 2.0**-51, -1 + 2.0**-53, -1 - 2.0**-52, -2 + 2.0**-52,
    -2.4570247382208006, -2.7476826467274127, -3.1435808883499797, -3.9552942848585781,
    0.25, 0.75, 11.99999999999, 12.0, 12.000000001, 12.5, 12.49999999999, 3.5, 3.4999999999, 0.4999999999,
    170.5, 171.0, 171.6, 171.7, 172.0, -170.5, -171.5, -175.5, -177.5, -178.5, -180.5, -199.5, -200.5,
    -1000.5, 1000.5, 2.5e305, 2.6e305, -2.5e305, 1e306,
]


def gamma_on_raise(x):
    # C99 tgamma: +-0 -> +-inf (pole), negative integers and -inf -> nan; overflow -> +-inf.
    if x == 0.0:
        return math.copysign(INF, x)
    if x < 0.0 and (math.isinf(x) or x == math.floor(x)):
        return NAN
    return INF if x > 0.0 else -INF


ONE_ARG = {
    # key: (CPython with the D3 value where it raises, edge values, random values' magnitude range)
    "erf": (math.erf, ERF_EDGES, (-320.0, 6.0)),
    "erfc": (math.erfc, ERF_EDGES, (-320.0, 28.0)),
    "gamma": (oracle(math.gamma, gamma_on_raise), GAMMA_EDGES, (-320.0, 180.0)),
    # C99 lgamma: poles and overflow -> +inf.
    "lgamma": (oracle(math.lgamma, lambda x: INF), GAMMA_EDGES, (-320.0, 1e305)),
}


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("key", sorted(ONE_ARG))
def test_one_arg_helpers_on_edge_values(backend, key):
    fn, edges, _ = ONE_ARG[key]
    check(key, backend, fn, edges)


@pytest.mark.parametrize("key", sorted(ONE_ARG))
def test_one_arg_helpers_on_random_values(key):
    fn, _, (low, high) = ONE_ARG[key]
    rng = np.random.default_rng(1234)
    check(key, "numpy", fn, random_one_arg(rng, 100_000, low, high))
    check(key, "strict", fn, random_one_arg(rng, 2_000, low, high))


def test_erfc_keeps_relative_accuracy_in_the_far_tail():
    # 1 - erf(x) would be 0 from x = 6 on; erfc stays within its bound down to the subnormals.
    x = np.linspace(5.0, 27.3, 5_000).tolist()
    check("erfc", "numpy", math.erfc, x)
    assert run("erfc", "numpy", [26.6])[0] > 0.0  # ~1e-309, subnormal
    assert run("erfc", "numpy", [-26.6])[0] == 2.0


def norm_cdf(xp, x):
    """The normal CDF as option-pricing code writes it: ``0.5 * math.erfc(-x / SQRT2)``."""
    return 0.5 * helper("erfc")(xp, -x / math.sqrt(2.0))


def call_price(xp, spot, strike, years, rate, vol):
    """Black-Scholes price of a European call, vectorized with the erfc helper."""
    sd = vol * xp.sqrt(years)
    d1 = (xp.log(spot / strike) + (rate + 0.5 * vol * vol) * years) / sd
    d2 = d1 - sd
    return spot * norm_cdf(xp, d1) - strike * xp.exp(-rate * years) * norm_cdf(xp, d2)


def scalar_call_price(spot, strike, years, rate, vol):
    n = lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))  # noqa: E731
    sd = vol * math.sqrt(years)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * years) / sd
    d2 = d1 - sd
    return spot * n(d1) - strike * math.exp(-rate * years) * n(d2)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_black_scholes_normal_cdf(backend):
    xp = BACKENDS[backend]
    rng = np.random.default_rng(99)
    n = 20_000 if backend == "numpy" else 2_000
    spot = rng.uniform(20.0, 200.0, n)
    strike = spot * np.exp(rng.normal(0.0, 0.4, n))  # deep in and out of the money included
    years = 10.0 ** rng.uniform(-3.0, 1.5, n)  # a day to 30 years
    rate = rng.uniform(-0.01, 0.08, n)
    vol = rng.uniform(0.05, 1.2, n)
    d = (np.log(spot / strike) + (rate + 0.5 * vol * vol) * years) / (vol * np.sqrt(years))
    # N(d) itself, lane by lane, is within the erfc bound (halving is exact).
    got = np.asarray(norm_cdf(xp, xp.asarray(d))).tolist()
    for di, g in zip(d.tolist(), got):
        assert ulps(g, 0.5 * math.erfc(-di / math.sqrt(2.0))) <= ULP_BOUNDS["erfc"], di
    # The price: the same formula in floats, so equal up to the erfc bound carried through.
    args = [xp.asarray(a) for a in (spot, strike, years, rate, vol)]
    price = np.asarray(call_price(xp, *args))
    expected = np.array([scalar_call_price(*row) for row in zip(spot, strike, years, rate, vol)])
    assert np.all(np.abs(price - expected) <= 1e-13 * spot + 8 * np.spacing(expected))
    assert np.all(price >= -1e-12) and np.all(price <= spot)


# --------------------------------------------------------------------------- fmod, remainder

fmod = oracle(math.fmod, lambda x, y: NAN)  # fmod(inf, y), fmod(x, 0): C99 gives nan
remainder = oracle(math.remainder, lambda x, y: NAN)

HARD_PAIRS = [
    (1e308, 1e-300), (-1e308, 1e-300), (DBL_MAX, MIN_SUB), (DBL_MAX, 3 * MIN_SUB), (1e308, 3e-308),
    (1e-310, 3e-320), (MIN_SUB, MIN_SUB), (3 * MIN_SUB, 2 * MIN_SUB), (MIN_NORMAL, 3 * MIN_SUB),
    (5.0, 2.0), (3.0, 2.0), (-3.0, 2.0), (1.0, 2.0), (-5.0, -2.0), (7.5, 5.0), (2.5, 1.0),
    (6.0, 4.0), (10.0, 4.0), (2.0**53 + 2, 4.0), (2.0**53 + 2, 8.0), (1e22, 0.1), (0.3, 0.1),
    (-4.0, 2.0), (4.0, -2.0), (0.0, 1.0), (-0.0, 1.0), (-0.0, -1.0), (0.0, INF), (-0.0, INF),
    (3.0, INF), (-3.0, -INF), (DBL_MAX, INF), (INF, 1.0), (-INF, 2.0), (INF, INF), (1.0, 0.0),
    (-1.0, -0.0), (0.0, 0.0), (NAN, 1.0), (1.0, NAN), (NAN, INF), (INF, NAN), (DBL_MAX, DBL_MAX / 3),
    (DBL_MAX, 1.5), (DBL_MAX, -DBL_MAX), (1.5 * MIN_NORMAL, MIN_NORMAL), (3 * MIN_NORMAL, 2 * MIN_NORMAL),
]


def pairs_with_edges():
    xs, ys = zip(*HARD_PAIRS)
    grid = [(a, b) for a in EDGES for b in EDGES]
    gx, gy = zip(*grid)
    return list(xs) + list(gx), list(ys) + list(gy)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("key, fn", [("fmod", fmod), ("remainder", remainder)])
def test_fmod_remainder_exact_on_hard_cases(backend, key, fn):
    x, y = pairs_with_edges()
    worst, _ = check(key, backend, fn, x, y)
    assert worst == 0


@pytest.mark.parametrize("key, fn", [("fmod", fmod), ("remainder", remainder)])
def test_fmod_remainder_exact_on_random_values(key, fn):
    rng = np.random.default_rng(2024)
    x, y = log_uniform(rng, 40_000), log_uniform(rng, 40_000)
    # Quotients near integers and half-integers: the ties and near-ties of remainder.
    near_x = log_uniform(rng, 20_000, -300, 300)
    q = rng.integers(1, 2**20, 20_000) + rng.choice([0.0, 0.5], 20_000)
    near_y = (np.asarray(near_x) / q).tolist()
    check(key, "numpy", fn, x + near_x, y + near_y)


# --------------------------------------------------------------------------- fsum


def fsum_oracle(*values):
    """``math.fsum``; where it raises, D3: nan for ``inf + -inf``, else (overflow) the sum of the
    infinities or the exact sum rounded to float (``+-inf`` beyond the range)."""
    try:
        return math.fsum(values)
    except ValueError:
        return NAN
    except OverflowError:
        infinite = [v for v in values if math.isinf(v)]
        if infinite:
            return sum(infinite)
        exact = sum(Fraction(v) for v in values)
        try:
            return float(exact)
        except OverflowError:
            return INF if exact > 0 else -INF


def adversarial_sums(rng, n_args, n):
    """Columns of ``n_args`` values whose sums cancel, tie and overflow: random magnitudes over
    the whole range, the negated float sum of the others (massive cancellation), half-ulp ties
    with and without a tiny sticky term, and values near the top of the range."""
    rows = []
    for _ in range(n):
        kind = rng.integers(0, 4)
        vals = log_uniform(rng, n_args, -320, 308)
        if kind == 0:
            vals[-1] = -sum(vals[:-1])
        elif kind == 1:
            base = float(rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(-300, 300))
            half = math.ulp(base) / 2 * float(rng.choice([-1.0, 1.0]))
            sticky = float(rng.choice([0.0, 1.0, -1.0])) * math.ulp(half) * float(rng.integers(1, 4))
            vals = ([base, half, sticky] + [0.0] * n_args)[:n_args] if n_args >= 3 else [base, half]
            vals = [float(v) for v in rng.permutation(vals)]
        elif kind == 2:
            vals = [float(v) * 1e307 for v in rng.choice([-17.0, -9.0, 9.0, 17.0], n_args)]
            vals[0] = vals[0] + float(rng.uniform(-1, 1))
        rows.append(vals)
    return [list(col) for col in zip(*rows)]


FSUM_CASES = [
    [1.0, 2.0**-53], [1.0 + 2.0**-52, 2.0**-53], [1.0, 2.0**-53, 2.0**-106], [1.0, 2.0**-53, -(2.0**-106)],
    [1e308, 1e308, -1e308], [DBL_MAX, DBL_MAX], [-DBL_MAX, -DBL_MAX, DBL_MAX],
    [DBL_MAX, math.ulp(DBL_MAX) / 2],
    [INF, 1.0], [INF, -INF], [NAN, 1.0], [INF, 1e308, 1e308], [-0.0, -0.0], [-0.0, 0.0], [0.0, -0.0],
    [1e100, 1.0, -1e100], [0.1, 0.2, -0.3], [MIN_SUB, -MIN_SUB], [MIN_SUB, MIN_SUB], [1e-320, 1e300, -1e300],
    [2.0**53, 1.0, 1.0], [2.0**53, 1.0, -(2.0**-60)], [-(2.0**53), -1.0, 2.0**-60],
]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("n_args", [1, 2, 3, 5])
def test_fsum_is_exactly_rounded(backend, n_args):
    rng = np.random.default_rng(n_args)
    cols = adversarial_sums(rng, n_args, 20_000 if backend == "numpy" else 1_000)
    cases = [(c + [0.0] * n_args)[:n_args] for c in FSUM_CASES if len(c) <= n_args]
    cols = [col + [c[i] for c in cases] for i, col in enumerate(cols)]
    worst, _ = check("fsum", backend, fsum_oracle, *cols)
    assert worst == 0


def test_fsum_takes_python_scalars_and_no_argument():
    got = helper("fsum")(np, np.array([1e100, 1.0]), 1.0, -1e100)
    assert got.tolist() == [1.0, math.fsum([1.0, 1.0, -1e100])]
    assert float(helper("fsum")(np)) == 0.0


# --------------------------------------------------------------------------- round(x, n)


def round_oracle(n):
    def call(x):
        try:
            return round(x, n)
        except OverflowError:  # D3: a rounded value beyond the float range is +-inf
            return math.copysign(INF, x)

    return call


def round_inputs(rng, n, count):
    """Random magnitudes around the rounding position and adversarial ones: decimal ties
    ``k.5 * 10**-n`` (2.675-like: the nearest double is just above or below the tie) and their
    neighbours, exact binary ties (``0.125`` at ``n = 2``), and integers."""
    low, high = (-n - 3.0, 17.0) if n > 0 else (-5.0, 17.0 - n)
    values = log_uniform(rng, count, low, min(high, 308.0))
    exact_ties = (Fraction(2 * int(k) + 1, 2) / Fraction(10) ** n for k in rng.integers(0, 10**7, count // 2))
    ties = [float(t) for t in exact_ties if t < DBL_MAX]
    values += ties + [math.nextafter(t, INF) for t in ties[: count // 8]]
    values += [math.nextafter(t, -INF) for t in ties[: count // 8]]
    if n >= 0:
        values += [float(Fraction(2 * int(k) + 1, 2 ** (int(j) + 1))) for k, j in
                   zip(rng.integers(0, 10**6, count // 8), rng.integers(n, n + 4, count // 8))]
        # Exact ties at the top, t = x * 10**n = k + 1/2 with 2**52 <= t < 2**53: x = m / 2**(n+1)
        # with m odd, where fl(t) is an integer and only the product's low part shows the tie.
        low_m, high_m = -(-(2**53) // 5**n), 2**54 // 5**n
        if high_m > low_m:
            odd = [int(m) | 1 for m in rng.integers(low_m, high_m, count // 8)]
            values += [float(Fraction(m, 2 ** (n + 1))) for m in odd]
    return values + [2.675, 0.125, 0.375, 2.5, 3.5, -2.5, 1e22, 5e-324, DBL_MAX, -DBL_MAX, 0.5, 1.5]


ROUND_EXACT_DIGITS = [0, 1, 2, 3, 4, 6, 10, 15, 16, 17, 22, -1, -2, -3, -6, -15, -16, -22]
ROUND_FAR_DIGITS = [23, 25, 30, 50, 100, 200, 299, -23, -30, -100, -200, -300, -308]


@pytest.mark.parametrize("n", ROUND_EXACT_DIGITS + ROUND_FAR_DIGITS)
def test_round_digits_is_exact(n):
    rng = np.random.default_rng(1000 + n)
    x = round_inputs(rng, n, 4_000) + EDGES
    xp = BACKENDS["numpy"]
    got = np.asarray(helper("round_digits")(xp, xp.asarray(x), n)).tolist()
    oracle_n = round_oracle(n)
    bad = [(v, g, oracle_n(v)) for v, g in zip(x, got) if ulps(g, oracle_n(v)) != 0]
    assert not bad, bad[:5]


@pytest.mark.parametrize("x, n", [(4.172245e30, -25), (4.95e-99, 100), (1.45e-199, 200), (-4.95e-99, 100),
                                  (1.795e308, -306), (1.7499999999999998e308, -307), (-1.795e308, -306)])
def test_round_digits_far_decimal_ties(x, n):
    # Doubles within ~1e-17 (relative) of a decimal tie, where 10**|n| is not a double; near the
    # top of the range, the candidate above overflows while the result is finite.
    got = float(helper("round_digits")(np, np.asarray([x]), n)[0])
    assert ulps(got, round(x, n)) == 0


@pytest.mark.parametrize("n", [300, 309, 315, 323])
def test_round_digits_near_the_subnormals_is_within_one_ulp(n):
    rng = np.random.default_rng(n)
    x = log_uniform(rng, 4_000, -n - 1.0, 17.0 - n)
    got = np.asarray(helper("round_digits")(np, np.asarray(x), n)).tolist()
    assert max(ulps(g, round(v, n)) for v, g in zip(x, got)) <= ULP_BOUNDS["round_digits_subnormal"]


@pytest.mark.parametrize("n", [2, -3, 40])
def test_round_digits_on_strict(n):
    rng = np.random.default_rng(5)
    x = round_inputs(rng, n, 500) + EDGES
    xs = array_api_strict.asarray(x)
    got = np.asarray(helper("round_digits")(array_api_strict, xs, n)).tolist()
    assert all(ulps(g, round_oracle(n)(v)) == 0 for v, g in zip(x, got))


@pytest.mark.parametrize("n", [324, 400, 10**30, -309, -400, -(10**30)])
def test_round_digits_beyond_cpython_limits(n):
    x = EDGES
    got = np.asarray(helper("round_digits")(np, np.asarray(x), n)).tolist()
    assert all(ulps(g, round(v, n)) == 0 for v, g in zip(x, got))


def test_round_digits_reads_ndigits_as_cpython_does():
    # D14: ndigits one value per call, read with operator.index as CPython reads it.
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        helper("round_digits")(np, np.array([1.5]), 2.0)
    with pytest.raises(TypeError, match="ndigits None gives an int"):
        helper("round_digits")(np, np.array([1.5]), None)
    x = np.array([2.675, 0.125, -1.5, 1234.5678])
    for ndigits in (True, np.int64(2), 1):
        got = helper("round_digits")(np, x, ndigits)
        assert got.tolist() == [round(float(v), ndigits) for v in x]


# --------------------------------------------------------------------------- isclose


def isclose_oracle(a, b, rel_tol=1e-09, abs_tol=0.0):
    return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize(
    "rel_tol, abs_tol", [(1e-09, 0.0), (0.0, 0.0), (1e-3, 1e-12), (0.5, INF), (INF, 0.0)]
)
def test_isclose_matches_cpython(backend, rel_tol, abs_tol):
    rng = np.random.default_rng(7)
    base = EDGES + log_uniform(rng, 300)
    a = [x for x in base for _ in range(4)]
    b = [x * f for x in base for f in (1.0, 1 + 1e-10, 1 + 1e-6, -1.0)]
    a, b = a + EDGES * len(EDGES), b + [y for y in EDGES for _ in EDGES]
    xp = BACKENDS[backend]
    got = np.asarray(helper("isclose")(xp, xp.asarray(a), xp.asarray(b), rel_tol, abs_tol)).tolist()
    expected = [isclose_oracle(x, y, rel_tol, abs_tol) for x, y in zip(a, b)]
    assert got == expected


def test_isclose_tolerance_arrays_and_negative_tolerances():
    a = np.array([1.0, 1.0, 1.0, INF, 2.0, 2.0])
    b = np.array([1.0 + 1e-6, 1.0 + 1e-6, 1.0, INF, 2.0, 2.5])
    rel = np.array([1e-5, 1e-7, -1.0, 0.0, NAN, NAN])
    got = helper("isclose")(np, a, b, rel, 0.0).tolist()
    # The lane with a negative tolerance is False (CPython raises ValueError for that call); a
    # NaN tolerance is accepted, as by CPython.
    expected = [math.isclose(x, y, rel_tol=r) if r >= 0 or r != r else False for x, y, r in zip(a, b, rel)]
    assert got == expected == [True, False, False, True, True, False]
    with pytest.raises(ValueError, match="tolerances must be non-negative"):
        helper("isclose")(np, a, b, -1e-9)
    with pytest.raises(ValueError, match="tolerances must be non-negative"):
        helper("isclose")(np, a, b, 1e-9, -0.5)


# --------------------------------------------------------------------------- registry shape


def test_documented_bounds_are_the_tested_ones():
    text = DOCS.read_text()
    section = text[text.index("## Functions the Array API lacks (D17)"):]
    documented = {}
    for line in section.splitlines():
        row = re.match(r"\| `(\w+)` \| [^|]+ \| (\d+) \|", line)
        if row:
            documented[row.group(1)] = int(row.group(2))
    assert documented == ULP_BOUNDS
    assert set(SPECIAL_HELPERS) <= set(documented)


def test_special_helpers_table():
    for key, (name, fn) in SPECIAL_HELPERS.items():
        assert name == f"_vec_{key}" and fn.__name__ == name
    for key in ULP_BOUNDS:  # a helper's key, or a helper's key and a qualifier
        assert any(key == h or key.startswith(h + "_") for h in SPECIAL_HELPERS), key


# --------------------------------------------------------------------------- jax.jit


def test_helpers_trace_under_jax_jit():
    """No Python branch on array values: every helper compiles under ``jax.jit`` and agrees with
    NumPy on normal-range values (XLA may fuse multiply-adds and flushes subnormals, semantics
    item 14, so a few ulps are allowed for the transcendental helpers)."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    rng = np.random.default_rng(3)
    x = np.concatenate([log_uniform(rng, 500, -100, 2), [0.0, -0.0, 1.0, 2.5, -3.5, INF, -INF, NAN]])
    y = np.concatenate([log_uniform(rng, 500, -100, 2), [1.0, 3.0, -2.0, 0.5, INF, 1.0, 0.0, 2.0]])
    cases = {
        "erf": ((x,), 4), "erfc": ((x,), 4), "gamma": ((x,), 8), "lgamma": ((x,), 8),
        "fmod": ((x, y), 0), "remainder": ((x, y), 0), "fsum": ((x, y, -x), 0), "isclose": ((x, y), 0),
    }
    for key, (args, allowed) in cases.items():
        fn = helper(key)
        traced = jax.jit(lambda *a, fn=fn: fn(jnp, *a))
        got = np.asarray(traced(*[jnp.asarray(a) for a in args])).tolist()
        expected = np.asarray(fn(np, *args)).tolist()
        same = [ulps(g, e) if isinstance(e, float) else (0 if g == e else INF) for g, e in zip(got, expected)]
        worst = max(same)
        assert worst <= allowed, key
    traced = jax.jit(lambda a: helper("round_digits")(jnp, a, 2))
    assert np.asarray(traced(jnp.asarray([2.675, -0.125, 1e300]))).tolist() == [2.67, -0.12, 1e300]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_shapes_scalars_and_int_inputs(backend):
    """Python floats (0-d results), 2-d arrays and int64 arrays (converted as CPython converts an
    int argument) give each lane's ``math`` value."""
    xp = BACKENDS[backend]
    grid = xp.asarray([[0.5, -2.5, 3.0], [1e-300, 7.25, -0.0]])
    ints = xp.asarray([[1, -3, 4], [0, 7, 22]])
    calls = {
        "erf": (math.erf, 1), "erfc": (math.erfc, 1), "gamma": (ONE_ARG["gamma"][0], 1),
        "lgamma": (ONE_ARG["lgamma"][0], 1), "fmod": (fmod, 2), "remainder": (remainder, 2),
        "fsum": (fsum_oracle, 2), "isclose": (isclose_oracle, 2),
    }
    for key, (fn, arity) in calls.items():
        for arr in (grid, ints):
            args = (arr,) * arity if arity == 1 else (arr, xp.asarray(2.0))
            got = np.asarray(helper(key)(xp, *args))
            assert got.shape == (2, 3), key
            values = np.asarray(arr, dtype=np.float64)
            second = [2.0] if arity == 2 else []
            expected = [fn(float(v), *second) for v in values.ravel().tolist()]
            floor = ULP_FLOORS.get(key, 0.0)
            assert all(ulps(float(g), float(e), floor) <= ULP_BOUNDS[key] for g, e in
                       zip(got.ravel().tolist(), expected)), key
        scalar = helper(key)(xp, *([0.75] * arity))
        assert np.asarray(scalar).shape == (), key
    rounded = helper("round_digits")(xp, grid, 1)
    assert np.asarray(rounded).tolist() == [[round(v, 1) for v in row] for row in np.asarray(grid).tolist()]


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_no_floating_point_exception_escapes(backend):
    """D3: the IEEE values are the results, so no helper raises or warns, even under
    ``np.errstate(all="raise")`` on NumPy (array-api-strict: with NumPy's warnings on, which
    pytest turns into errors)."""
    xp = BACKENDS[backend]
    v = EDGES + [28.0, -30.0, 171.7, -171.5, 2.5e305, -1e-310, 1e-20]
    w = [1.0, 0.0, -0.0, INF, NAN, 3.0, 1e-300, 1e308, 2.0, MIN_SUB, -1.0] * 4
    v, w = xp.asarray(v), xp.asarray(w[: len(v)])
    with np.errstate(all="raise" if backend == "numpy" else "warn"):
        for key, (_, fn) in SPECIAL_HELPERS.items():
            if key == "round_digits":
                for n in (2, -3, 40, -40, 310, -330, 400):
                    fn(xp, v, n)
            elif key in ONE_ARG:
                fn(xp, v)
            else:
                fn(xp, v, w)
