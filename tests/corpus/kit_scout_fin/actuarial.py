"""Life contingencies from a short mortality table and the Gompertz-Makeham law: survival,
life annuities, term insurance, level premiums, curtate expectation of life."""

import math

import numpy as np

# q_x, the probability that a life aged x dies within a year, for ages 60-70
QX = [0.0081, 0.0089, 0.0098, 0.0108, 0.0119, 0.0131, 0.0144, 0.0159, 0.0175, 0.0193, 0.0213]
BASE_AGE = 60
OMEGA = BASE_AGE + len(QX)

MAKEHAM = {"A": 0.00022, "B": 2.7e-6, "c": 1.124}


def survival(age, years):
    """Probability that a life aged `age` survives `years` whole years (0 past the table)."""
    p = 1.0
    for x in range(age, age + years):
        if x >= OMEGA:
            return 0.0
        p *= 1.0 - QX[x - BASE_AGE]
    return p


def annuity_due(age, n, i):
    """Expected present value of 1 a year in advance for at most n years while alive."""
    v = 1.0 / (1.0 + i)
    total = 0.0
    for k in range(n):
        total += v**k * survival(age, k)
    return total


def term_insurance(age, n, i, benefit=1.0):
    """Net single premium of n-year term insurance paying at the end of the year of death."""
    v = 1.0 / (1.0 + i)
    apv = 0.0
    alive = 1.0
    for k in range(n):
        q = QX[age + k - BASE_AGE]
        apv += v ** (k + 1) * alive * q
        alive *= 1.0 - q
    return benefit * apv


def level_premium(age, n, i):
    return term_insurance(age, n, i) / annuity_due(age, n, i)


def makeham_force(x, A=MAKEHAM["A"], B=MAKEHAM["B"], c=MAKEHAM["c"]):
    """Force of mortality mu_x = A + B c**x."""
    return A + B * c**x


def makeham_survival(x, t):
    """t p_x under the Gompertz-Makeham law."""
    A, B, c = MAKEHAM["A"], MAKEHAM["B"], MAKEHAM["c"]
    return math.exp(-A * t - B / math.log(c) * c**x * (c**t - 1.0))


def curtate_expectation(age):
    """Expected whole years lived beyond `age` within the table."""
    e = 0.0
    p = 1.0
    for x in range(age, OMEGA):
        p *= 1.0 - QX[x - BASE_AGE]
        e += p
    return e


def udd_survival(qx, s):
    """s p_x for a fraction s of a year under a uniform distribution of deaths."""
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"fraction of a year must lie in [0, 1], got {s}")
    return 1.0 - s * qx


def continuous_annuity(delta, mu, n):
    """n-year temporary continuous annuity at constant force of interest and mortality."""
    total = delta + mu
    if total == 0.0:
        return float(n)
    return (1.0 - np.exp(-total * n)) / total
