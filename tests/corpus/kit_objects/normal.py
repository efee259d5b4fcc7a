"""Scores and tolerances read through `statistics.NormalDist` objects bound at module level
(issue 27 part 2 item 3): percentiles, densities and quantiles."""

from statistics import NormalDist

from array_vectorize import vectorize

IQ = NormalDist(100.0, 15.0)
STANDARD = NormalDist()
BOLT_LENGTH = NormalDist(mu=50.0, sigma=0.02)


@vectorize
def iq_percentile(score):
    return 100.0 * IQ.cdf(score)


@vectorize
def iq_at_percentile(p):
    return IQ.inv_cdf(p / 100.0)


@vectorize
def standard_density(z):
    return STANDARD.pdf(z)


@vectorize
def within_tolerance(tol):
    return BOLT_LENGTH.cdf(BOLT_LENGTH.mean + tol) - BOLT_LENGTH.cdf(BOLT_LENGTH.mean - tol)


@vectorize
def z_of(p):
    return (IQ.inv_cdf(p) - IQ.mean) / IQ.stdev


@vectorize
def upper_tail(z):
    return 1.0 - STANDARD.cdf(z)
