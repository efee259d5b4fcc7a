"""Tax and benefit rules as a policy analyst writes them: one parameter dict per tax year, rules
that read it, thresholds and tapers, a check of the parameters that raises."""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from . import case

PARAMS_2024 = {
    "personal_allowance": 12570.0,
    "taper_threshold": 100000.0,
    "basic_band": 37700.0,
    "higher_limit": 125140.0,
    "basic_rate": 0.20,
    "higher_rate": 0.40,
    "additional_rate": 0.45,
    "ni_primary_threshold": 242.0,
    "ni_upper_limit": 967.0,
    "ni_main_rate": 0.08,
    "ni_upper_rate": 0.02,
    "cb_eldest": 1331.2,
    "cb_additional": 881.4,
    "hicbc_start": 60000.0,
    "hicbc_end": 80000.0,
    "uc_standard": 4717.92,
    "uc_work_allowance": 8076.0,
    "uc_taper": 0.55,
    "cgt_exempt": 3000.0,
    "cgt_basic": 0.10,
    "cgt_higher": 0.20,
}


def _incomes(rng, n):
    return rng.lognormal(10.3, 0.7, n)


# ----------------------------------------------------------------------------- income tax


def income_tax_hand(income, params):
    pa = params["personal_allowance"]
    taper = params["taper_threshold"]
    allowance = np.where(income > taper, np.maximum(0.0, pa - (income - taper) / 2.0), pa)
    taxable = np.maximum(0.0, income - allowance)
    band, limit = params["basic_band"], params["higher_limit"]
    basic, higher, additional = params["basic_rate"], params["higher_rate"], params["additional_rate"]
    return np.where(
        taxable <= band,
        taxable * basic,
        np.where(
            taxable <= limit,
            band * basic + (taxable - band) * higher,
            band * basic + (limit - band) * higher + (taxable - limit) * additional,
        ),
    )


@case("tax", lambda rng, n: (_incomes(rng, n), PARAMS_2024), income_tax_hand)
def income_tax(income, params):
    allowance = params["personal_allowance"]
    if income > params["taper_threshold"]:
        allowance = max(0.0, allowance - (income - params["taper_threshold"]) / 2.0)
    taxable = max(0.0, income - allowance)
    band = params["basic_band"]
    limit = params["higher_limit"]
    if taxable <= band:
        return taxable * params["basic_rate"]
    tax = band * params["basic_rate"]
    if taxable <= limit:
        return tax + (taxable - band) * params["higher_rate"]
    tax += (limit - band) * params["higher_rate"]
    return tax + (taxable - limit) * params["additional_rate"]


# ----------------------------------------------------------------------------- national insurance


def national_insurance_hand(weekly_pay, params):
    pt, uel = params["ni_primary_threshold"], params["ni_upper_limit"]
    main = (np.minimum(weekly_pay, uel) - pt) * params["ni_main_rate"]
    upper = (weekly_pay - uel) * params["ni_upper_rate"]
    return np.where(weekly_pay <= pt, 0.0, np.where(weekly_pay <= uel, main, main + upper))


@case("tax", lambda rng, n: (_incomes(rng, n) / 52.0, PARAMS_2024), national_insurance_hand)
def national_insurance(weekly_pay, params):
    threshold = params["ni_primary_threshold"]
    limit = params["ni_upper_limit"]
    if weekly_pay <= threshold:
        return 0.0
    main = (min(weekly_pay, limit) - threshold) * params["ni_main_rate"]
    if weekly_pay <= limit:
        return main
    return main + (weekly_pay - limit) * params["ni_upper_rate"]


# ----------------------------------------------------------------------------- child benefit charge


def child_benefit_charge_hand(income, children, params):
    benefit = params["cb_eldest"] + (children - 1) * params["cb_additional"]
    start, end = params["hicbc_start"], params["hicbc_end"]
    fraction = np.minimum((income - start) / (end - start), 1.0)
    return np.where((children <= 0) | (income <= start), 0.0, benefit * fraction)


@case(
    "tax",
    lambda rng, n: (_incomes(rng, n) * 1.5, rng.integers(0, 5, n), PARAMS_2024),
    child_benefit_charge_hand,
)
def child_benefit_charge(income, children, params):
    """The high-income child benefit charge: the benefit, clawed back between two incomes."""
    if children <= 0:
        return 0.0
    benefit = params["cb_eldest"] + (children - 1) * params["cb_additional"]
    if income <= params["hicbc_start"]:
        return 0.0
    fraction = (income - params["hicbc_start"]) / (params["hicbc_end"] - params["hicbc_start"])
    return benefit * min(fraction, 1.0)


# ----------------------------------------------------------------------------- universal credit


def universal_credit_hand(earnings, housing, params):
    taper = params["uc_taper"]
    if taper < 0.0 or taper > 1.0:
        raise ValueError(f"taper rate {taper} outside [0, 1]")
    excess = np.maximum(0.0, earnings - params["uc_work_allowance"])
    award = params["uc_standard"] + housing - taper * excess
    return np.where(award > 0.0, award, 0.0)


@case(
    "tax",
    lambda rng, n: (_incomes(rng, n) * 0.6, rng.uniform(0.0, 9000.0, n), PARAMS_2024),
    universal_credit_hand,
    raises=True,
)
def universal_credit(earnings, housing, params):
    """Annual award: the maximum award less a taper of earnings above the work allowance."""
    taper = params["uc_taper"]
    if taper < 0.0 or taper > 1.0:
        raise ValueError(f"taper rate {taper} outside [0, 1]")
    max_award = params["uc_standard"] + housing
    excess = max(0.0, earnings - params["uc_work_allowance"])
    award = max_award - taper * excess
    return award if award > 0.0 else 0.0


# ----------------------------------------------------------------------------- capital gains


def capital_gains_tax_hand(gain, income, params):
    g = gain - params["cgt_exempt"]
    room = np.maximum(params["basic_band"] + params["personal_allowance"] - income, 0.0)
    in_basic = np.minimum(g, room)
    tax = in_basic * params["cgt_basic"] + (g - in_basic) * params["cgt_higher"]
    return np.where(g <= 0.0, 0.0, tax)


@case(
    "tax",
    lambda rng, n: (rng.lognormal(9.0, 1.2, n), _incomes(rng, n), PARAMS_2024),
    capital_gains_tax_hand,
)
def capital_gains_tax(gain, income, params):
    gain = gain - params["cgt_exempt"]
    if gain <= 0.0:
        return 0.0
    room = params["basic_band"] + params["personal_allowance"] - income
    if room < 0.0:
        room = 0.0
    in_basic = min(gain, room)
    return in_basic * params["cgt_basic"] + (gain - in_basic) * params["cgt_higher"]


# ----------------------------------------------------------------------------- council tax

#: Upper property values of bands A-G (band H above the last).
BAND_LIMITS = (40000.0, 52000.0, 68000.0, 88000.0, 120000.0, 160000.0, 320000.0)
#: Annual charge per band (band D = 1.0 of the base charge 2065.0).
BAND_CHARGES = (1376.67, 1606.11, 1835.56, 2065.0, 2523.89, 2982.78, 3441.67, 4130.0)
_LIMITS = np.array(BAND_LIMITS)
_CHARGES = np.array(BAND_CHARGES)


def council_tax_hand(value, discount):
    band = np.searchsorted(_LIMITS, value, side="right")
    return np.take(_CHARGES, band) * (1.0 - discount)


@case(
    "tax",
    lambda rng, n: (rng.lognormal(11.3, 0.6, n), rng.choice([0.0, 0.25], n)),
    council_tax_hand,
)
def council_tax(value, discount):
    band = bisect_right(BAND_LIMITS, value)
    return BAND_CHARGES[band] * (1.0 - discount)
