"""Tax rules written with tables as parameters of helpers (D15): bands as rows
`(from, to, rate)` iterated with unpacking, a default table or one passed by the caller (a module
table, frozen), allowances read from a class of constants (issue 27 part 2 items 1-2)."""

from array_vectorize import vectorize

UK_BANDS = ((0.0, 37_700.0, 0.20), (37_700.0, 125_140.0, 0.40), (125_140.0, 1e300, 0.45))
SCOTTISH_BANDS = (
    (0.0, 2_306.0, 0.19),
    (2_306.0, 13_991.0, 0.20),
    (13_991.0, 31_092.0, 0.21),
    (31_092.0, 125_140.0, 0.42),
    (125_140.0, 1e300, 0.47),
)


class Allowance:
    PERSONAL = 12_570.0
    TAPER_FROM = 100_000.0
    # National Insurance thresholds (primary, upper) and rates per band
    NI_LIMITS = [12_570.0, 50_270.0]
    NI_RATES = (0.0, 0.08, 0.02)


def banded_tax(taxable, bands=UK_BANDS):
    tax = 0.0
    for lo, hi, rate in bands:
        if taxable <= lo:
            break
        tax += (min(taxable, hi) - lo) * rate
    return tax


def personal_allowance(income):
    if income <= Allowance.TAPER_FROM:
        return Allowance.PERSONAL
    return max(Allowance.PERSONAL - (income - Allowance.TAPER_FROM) / 2.0, 0.0)


@vectorize
def income_tax(income):
    return banded_tax(max(income - personal_allowance(income), 0.0))


@vectorize
def scottish_income_tax(income):
    return banded_tax(max(income - personal_allowance(income), 0.0), SCOTTISH_BANDS)


@vectorize
def national_insurance(earnings):
    primary, upper = Allowance.NI_LIMITS
    if earnings <= primary:
        return 0.0
    main = (min(earnings, upper) - primary) * Allowance.NI_RATES[1]
    return main + max(earnings - upper, 0.0) * Allowance.NI_RATES[2]


@vectorize
def marginal_band(income):
    band = 0
    for lo, hi, rate in UK_BANDS:
        if income > lo + Allowance.PERSONAL:
            band += 1
    return band


@vectorize
def take_home(income):
    tax = banded_tax(max(income - personal_allowance(income), 0.0))
    return income - tax - national_insurance(income)
