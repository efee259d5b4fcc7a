"""`statistics.NormalDist` objects bound at module level (issue 27 part 2 item 3, D8, D17):
`N.cdf(x)`, `N.pdf(x)`, `N.inv_cdf(p)`, `N.mean`, `N.stdev`, `N.variance` compile from CPython's
own method text, with `mu` and `sigma` frozen; `inv_cdf` at 0, 1 or outside raises CPython's
StatisticsError for the first such element, as `sigma == 0` does for `cdf` and `pdf`. CPython's
`statistics` module running the scalar original is the oracle, on random and edge values, within
the accuracy docs/semantics.md item 47 states (the D17 helper `erf`, the array library's `exp`,
`log`, `sqrt`: item 9)."""

from __future__ import annotations

import math
import statistics
from statistics import NormalDist

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, check_raising, floats

IQ = NormalDist(100.0, 15.0)
STANDARD = NormalDist()
FLAT = NormalDist(1.0, 0.0)


def iq_percentile(score):
    return IQ.cdf(score)


def standard_density(z):
    return STANDARD.pdf(z)


def iq_quantile(p):
    return IQ.inv_cdf(p)


def z_score(p):
    return (IQ.inv_cdf(p) - IQ.mean) / IQ.stdev


def spread(x):
    return IQ.variance * x


def flat_cdf(x):
    return FLAT.cdf(x)


def flat_pdf(x):
    return FLAT.pdf(x)


def scores() -> np.ndarray:
    rng = np.random.default_rng(47)
    edges = [0.0, -0.0, 100.0, 85.0, 115.0, 1e-310, -1e-310, 1e300, -1e300, math.inf, -math.inf, math.nan, 30.0, -20.0, 250.0]
    return np.concatenate([np.array(edges), rng.normal(100.0, 40.0, 400)])


def probabilities() -> np.ndarray:
    """Every branch of Wichura's AS241 (|p - 0.5| <= 0.425; r <= 5; r > 5) and their edges."""
    rng = np.random.default_rng(48)
    edges = [0.5, 0.075, 0.925, 0.07499999999999999, 0.9250000000000002, math.exp(-25.0), 1.0 - 1e-12, 1e-300, 5e-324, 1e-12, 0.999999999999999, math.nan]
    return np.concatenate([np.array(edges), rng.uniform(0.0, 1.0, 300), 10.0 ** rng.uniform(-300, -1, 100)])


def test_cdf_matches_statistics(backend):
    # D17: erf's helper is within 2 ulps of glibc's; 0.5 * (1 + erf(z)) is then within 2 ulps of
    # 1.0 absolute, which is what the tolerance allows (docs/semantics.md item 47).
    check(vectorize(iq_percentile), scores(), backend=backend, tolerance=2.3e-16)


def test_pdf_matches_statistics(backend):
    check(vectorize(standard_density), floats(), backend=backend, ulps=4)
    check(vectorize(standard_density), scores() / 30.0, backend=backend, ulps=4)


def test_inv_cdf_matches_statistics(backend):
    check(vectorize(iq_quantile), probabilities(), backend=backend, ulps=4)
    check(vectorize(z_score), probabilities(), backend=backend, ulps=16)


def test_mean_stdev_and_variance_are_the_properties(backend):
    check(vectorize(spread), floats(), backend=backend)


@pytest.mark.parametrize("p", [[0.5, 0.0, 0.3], [0.2, 1.0], [0.7, -0.5, 1.0], [2.0], [0.1, math.inf]])
def test_inv_cdf_outside_the_open_interval_raises_statistics_error(p, backend):
    got = check_raising(vectorize(iq_quantile), np.array(p), backend=backend)
    assert isinstance(got, statistics.StatisticsError), got


def test_sigma_zero_raises_statistics_error_as_cpython():
    for fn in (flat_cdf, flat_pdf):
        got = check_raising(vectorize(fn), np.array([1.0, 2.0]))
        assert isinstance(got, statistics.StatisticsError), got


def other_method(x):
    return IQ.zscore(x)


def test_other_methods_are_refused_with_their_position():
    with pytest.raises(VectorizationError, match=r":\d+:\d+: .*NormalDist.zscore"):
        vectorize(other_method)
