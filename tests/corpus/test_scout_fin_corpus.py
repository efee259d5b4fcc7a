"""Scouting corpus of real scientific code, quantitative finance and public finance (DESIGN.md
section 6, the bar "real scientific code"): `kit_scout_fin`, a package written for this
repository in the styles public projects of these domains use (option pricing as pricing
libraries write it, a tax-benefit microsimulation model's rules and parameter tables, pure-Python
statistics fallbacks, calendar arithmetic on year/month/day numbers, series and iterations of
numerical libraries, actuarial tables). Nothing in it is marked: each function is vectorized here
with the decorator and compiled statically as the import hook does (`compile_module(only=...)`,
with the package's other modules and the standard library modules it imports).

Every function that compiles is compared element by element with CPython running the scalar
original, on values of its domain and on edge values (0, -0.0, subnormals, ±inf, NaN, integer
extremes, out-of-range indices), on NumPy and array-api-strict; where CPython raises for an
element, the call raises the same for the first such element (D11). Every function still
rejected is listed in `REJECTED` with the reason its error gives, at its position: a ledger that
fails as soon as one starts compiling, so that the list and the compile rate are kept current
(docs/testing.md, "Scouting corpora")."""

from __future__ import annotations

import ast
import hashlib
import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from array_vectorize import VectorizationError, _core, vectorize
from array_vectorize.imports import program_modules
from oracle import NAN_TO_INT, check_outcomes, first_raise, ints, is_d3, lanes_of, to_backend

KIT = Path(__file__).parent / "kit_scout_fin"
sys.path.insert(0, str(KIT.parent))

INF, NAN = math.inf, math.nan
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, 5e-324, 1e300, INF, -INF, NAN]


def col(values, low=None, high=None, n=7, seed=20, edges=True, dtype=np.float64):
    """A column of arguments: the domain's values, edge values, and `n` random ones."""
    rng = np.random.default_rng(seed)
    out = list(values) + (EDGES if edges and dtype == np.float64 else [])
    if low is not None:
        draw = rng.uniform(low, high, n) if dtype == np.float64 else rng.integers(low, high, n)
        out += draw.tolist()
    return np.array(out, dtype=dtype)


def icol(values, low=None, high=None, n=5, seed=20):
    return col(values, low, high, n, seed, edges=False, dtype=np.int64)


def cycle(*columns):
    """Columns cycled to one length (their lengths differ, so the rows mix them)."""
    n = 3 * max(len(c) for c in columns)
    return [np.resize(c, n) for c in columns]


PRICE = col([100.0, 80.0, 120.0, 1.0, 1e-3, 1e6], 1.0, 200.0)
RATE = col([0.03, 0.0, -0.01, 0.1, 0.5], -0.02, 0.1)
VOL = col([0.2, 0.01, 1.0, 3.0], 0.05, 0.8)
YEARS = col([0.5, 1.0, 1e-6, 2.0, 30.0], 0.0, 5.0)
FLOATS = col([2.5, -3.0, 7.0, 40.0, -40.0, 710.0, -745.0], -50.0, 50.0)
INCOME = col([12_570.0, 12_570.01, 50_270.0, 60_000.0, 60_199.0, 80_000.0, 100_000.0, 125_140.0, 250_000.0, 1e7, -5.0], 0.0, 300_000.0)
PROB = col([0.025, 0.02425, 0.97575, 0.5, 0.999999, 1e-300, 0.9999999999999999], 0.0, 1.0, edges=False)
AGES = icol([60, 61, 65, 70, 71, 59, 55, 0, -11, 100])
TERMS = icol([0, 1, 2, 5, 10, 11, -1])
YEAR = icol([1583, 1600, 1900, 2000, 2004, 2023, 2024, 2100, 2400, 9999, 1, 0, -100, 1582], 1583, 3000)
MONTH = icol([1, 2, 3, 6, 9, 12, 0, 13, -1])
DAY = icol([1, 15, 28, 29, 30, 31, 0, 32])
INT_EDGES = ints(6)


def f(*columns):
    return lambda: cycle(*columns)


# The compiled functions: their arguments (a callable: arrays, then uniform values), and the ulps
# their transcendental functions may differ by from the C library's (docs/semantics.md item 9).
COMPILED = {
    "actuarial.survival": (f(AGES, TERMS), 0),
    # i = -1 divides by zero (D3: inf), after which CPython's element would not go on to the
    # table: left out, as the oracle leaves D3's elements.
    "actuarial.annuity_due": (f(icol([60, 61, 65, 70, 71, 100]), TERMS, col([0.03, 0.1, -0.5, 0.0, -0.0, INF, NAN], -0.01, 0.1, edges=False)), 8),
    "actuarial.term_insurance": (f(AGES, TERMS, col([0.03, 0.1, -0.5], -0.01, 0.1)), 8),
    "actuarial.level_premium": (f(AGES, TERMS, col([0.03, 0.1, 0.0], -0.01, 0.1)), 8),
    "actuarial.makeham_force": (f(FLOATS), 4),
    "actuarial.makeham_survival": (f(FLOATS, YEARS), 8),
    "actuarial.curtate_expectation": (f(AGES), 0),
    "actuarial.udd_survival": (f(col([0.01, 0.2], 0.0, 0.1), col([0.0, 0.25, 1.0, 1.5, -0.1], 0.0, 1.0, edges=False)), 0),
    "actuarial.continuous_annuity": (lambda: cycle(RATE, col([0.01, -0.03], 0.0, 0.05), icol([0, 1, 10, 40])), 4),
    "calendars.is_leap": (f(YEAR), 0),
    "calendars.day_of_year": (f(YEAR, MONTH, DAY), 0),
    "calendars.days_in_month": (f(YEAR, MONTH), 0),
    "calendars.julian_day_number": (f(YEAR, MONTH, DAY), 0),
    "calendars.civil_from_jdn": (f(icol([2451545, 2299161, 0, 1721426, 2460000, -5], 1_000_000, 3_000_000)), 0),
    "calendars.weekday": (f(YEAR, icol([1, 2, 3, 12, 0]), DAY), 0),
    "calendars.easter": (f(YEAR), 0),
    "calendars.iso_week": (f(YEAR, icol([1, 12, 6]), icol([1, 2, 3, 4, 28, 29, 30, 31])), 0),
    "calendars.days_between": (f(YEAR, MONTH, DAY, YEAR[::-1], MONTH[::-1], DAY[::-1]), 0),
    "calendars.decimal_year": (f(YEAR, icol([1, 2, 3, 12]), DAY), 0),
    "calendars.end_of_month": (f(YEAR, icol([1, 2, 4, 11, 12])), 0),
    "distributions.erfc_cheb": (f(FLOATS), 4),
    "distributions.phi_taylor": (f(col([-8.0, 8.0, -7.9, 1.96, -1.96, 3.5], -9.0, 9.0)), 8),
    "distributions.gamma_p": (f(col([0.5, 1.0, 2.5, 10.0, -1.0, 100.0], 0.1, 20.0), col([0.0, 0.5, 3.0, 11.0, 50.0, -2.0], 0.0, 30.0)), 64),
    "distributions.chi2_sf": (f(col([0.0, 1.0, 3.84, 20.0], 0.0, 30.0), icol([1, 2, 3, 10, 30])), 64),
    "distributions.poisson_cdf": (f(icol([0, 1, 3, 10, 40, -1]), col([0.5, 3.0, 20.0, 0.0], 0.0, 30.0)), 16),
    "distributions.binom_pmf": (f(icol([0, 1, 5, 10, -1, 11]), icol([10, 10, 20, 5]), col([0.0, 1.0, 0.3, 0.5, 0.99], 0.0, 1.0, edges=False)), 64),
    "distributions.student_t_cdf": (f(col([0.0, 1.0, -2.5, 10.0], -5.0, 5.0), icol([1, 2, 3, 4, 5, 10, 29, 30, 0])), 16),
    "distributions.normal_quantile": (f(PROB), 16),
    "distributions.logistic_cdf": (f(FLOATS, col([0.0, 1.0]), col([1.0, 2.0, -1.0])), 4),
    "distributions.log_add_exp": (f(FLOATS, FLOATS[::-1]), 4),
    "distributions.z_test_pvalue": (lambda: [FLOATS, "greater"], 4),
    "fixed_income.payment": (lambda: [*cycle(RATE, icol([360, 12, 1]), col([1e5, 250.0], 0.0, 1e6)), 0.0, "begin"], 4),
    "fixed_income.future_value": (lambda: [*cycle(RATE, icol([360, 12, 1, 0]), col([-500.0, 0.0], -1e3, 0.0)), 1e3, "end"], 4),
    "fixed_income.remaining_balance": (f(col([1e5], 1e3, 1e6), col([0.004, 0.0, 0.01], 0.0, 0.02, edges=False), icol([360, 12]), icol([0, 1, 12, 359, 360, 400])), 8),
    # Years to maturity stay finite and small: CPython's loop over 2e300 coupons never ends.
    "fixed_income.bond_price": (f(col([100.0]), col([0.05, 0.0], 0.0, 0.1), RATE, col([10.0, 0.5, 0.2, 30.0, 0.0, -0.0, INF], 0.0, 30.0, edges=False), icol([2, 1, 4, 12])), 8),
    "fixed_income.macaulay_duration": (f(col([0.05, 0.0], 0.0, 0.1), RATE, icol([1, 2, 20, 60, 0]), icol([2, 1, 4])), 8),
    "fixed_income.yield_to_maturity": (lambda: cycle(col([95.0, 100.0, 105.0, 60.0], 50.0, 150.0, n=3, edges=False), col([100.0], edges=False), col([0.05, 0.03], edges=False), col([5.0, 1.5, 10.0], edges=False), icol([2, 1])), 0),
    "fixed_income.effective_annual_rate": (f(RATE, icol([12, 1, 4, 365, 0])), 4),
    "fixed_income.continuous_to_periodic": (f(RATE, icol([1, 2, 12, 0])), 4),
    "fixed_income.thirty_360": (f(YEAR, MONTH, DAY, YEAR[::-1], MONTH[::-1], icol([31, 30, 28, 1, 31])), 0),
    "fixed_income.year_fraction": (lambda: [col([0.0, 1.0, 365.0, 366.0, -5.0]), "ACT/360"], 0),
    "fixed_income.accrued_interest": (lambda: [*cycle(col([100.0]), col([0.05, 0.0]), col([0.0, 30.0, 90.0, 181.0]), col([181.0, 182.0, 0.0, -1.0])), 2, 2.0], 0),
    "fixed_income.zero_rate_from_discount": (f(col([0.97, 1.0, 0.5, 2.0]), YEARS), 4),
    "options.d1_d2": (f(PRICE, col([100.0], 50.0, 150.0), YEARS, RATE, VOL, col([0.0, 0.02])), 8),
    "options.bsm_price": (lambda: ["p", *cycle(PRICE, col([100.0], 50.0, 150.0), YEARS, RATE, VOL, col([0.0, 0.02]))], 64),
    "options.bsm_delta": (lambda: ["p", *cycle(PRICE, col([100.0], 50.0, 150.0), YEARS, RATE, VOL)], 64),
    "options.bsm_gamma": (f(PRICE, col([100.0], 50.0, 150.0), YEARS, RATE, VOL), 64),
    "options.bsm_theta": (lambda: ["c", *cycle(PRICE, col([100.0], 50.0, 150.0), YEARS, RATE, VOL, col([0.0, 0.02]))], 64),
    "options.bachelier": (f(PRICE, col([100.0], 50.0, 150.0), YEARS, VOL, np.array([True, False, True])), 64),
    "options.cash_or_nothing": (lambda: ["c", *cycle(PRICE, col([100.0], 50.0, 150.0), YEARS, RATE, VOL)], 64),
    "options.down_and_out_call": (f(PRICE, col([100.0]), col([90.0, 100.0, 50.0]), YEARS, RATE, col([0.2, 0.0, -0.1, 0.5])), 4096),
    # Prices well inside the attainable range (or far below it: never converges, raises): the
    # Newton iterates differ from CPython's in their last bits (erfc, exp), so a price at the edge
    # of convergence could converge on one side only.
    "options.implied_vol": (lambda: [*cycle(col([10.45, 12.0, 15.0, 20.0, 1.0], 8.0, 20.0, n=3, edges=False), col([100.0], edges=False), col([100.0], edges=False), col([1.0, 0.5], edges=False)), 0.05], 4096),
    "options.parity_gap": (f(col([10.0, 5.0]), col([5.0, 9.0]), PRICE, col([100.0]), YEARS, RATE), 4),
    "series.log1p_atanh": (f(col([-0.5, 0.25, 3.0, -0.999], -0.9, 2.0)), 8),
    "series.newton_sqrt": (f(col([2.0, 1e-300, 4.0, 1e300, -2.0], 0.0, 1e4)), 0),
    "series.gcd": (f(icol([12, 0, -18, 7, 2**62], -1000, 1000), icol([18, 0, 12, -5, 3], -1000, 1000)), 0),
    "series.clenshaw": (f(FLOATS, col([-1.0, -2.0]), col([1.0, 3.0])), 0),
    "series.simpson_gauss": (f(col([-1.0, 0.0, -3.0], -5.0, 5.0), col([1.0, 2.0, 3.0], -5.0, 5.0), icol([32, 8, 3])), 16),
    "series.kahan_sum": (f(col([1e16, 0.1]), col([1.0, 0.2]), col([-1e16, 0.3]), col([1.0, 1e-300])), 0),
    "series.exact_sum": (f(col([1e16, 0.1]), col([1.0, 0.2]), col([-1e16, 0.3])), 0),
    "series.tan_cf": (f(col([0.5, 1.5, -1.0, 1.5707963267948966], -1.5, 1.5), icol([12, 1, 0, 30])), 0),
    "series.cube_root_bisect": (f(col([27.0, 0.125, -8.0, 2.0, 1e300], -1e3, 1e3)), 0),
    "series.relative_error": (f(FLOATS, FLOATS[::-1]), 0),
    "taxben.income_tax": (f(INCOME), 0),
    "taxben.provincial_tax": (f(INCOME), 0),
    "taxben.national_insurance": (f(col([242.0, 967.0, 500.0, 2_000.0], 0.0, 3_000.0)), 0),
    # floor() of an amount beyond int64 raises here (docs/semantics.md item 7): amounts stay below.
    "taxben.child_benefit_charge": (f(INCOME, col([1_331.2, 0.0, 2_212.0, -0.0, INF, NAN], 0.0, 3_000.0, edges=False)), 0),
    "taxben.universal_credit": (f(col([0.0, 404.0, 1_000.0, 1_120.0], 0.0, 2_000.0), col([0.0, 50.0, 393.45])), 0),
    "taxben.council_tax": (f(col([40_000.0, 40_001.0, 320_000.0, 1e6, 0.0], 0.0, 400_000.0), col([2_171.0, 1_800.0])), 0),
    "taxben.stamp_duty": (f(col([250_000.0, 925_000.0, 1_500_000.0, 2e6, 100.0, 0.0, -0.0, 5e-324, INF, -INF, NAN], 0.0, 3e6, edges=False)), 0),
    "taxben.amt_exemption": (f(col([500_000.0, 700_000.0, 1.3e6, 0.0], 0.0, 2e6), icol([1, 2, 3, 4, 0, -3, 5])), 0),
    "taxben.marginal_rate": (f(INCOME), 0),
    "taxben.pension_tax_relief": (f(col([1_000.0, 0.0, 60_000.0], 0.0, 40_000.0), INCOME), 0),
}

# Still rejected, with the reason the error gives and where (`module:line`). A function that
# starts compiling fails its test here: move it to COMPILED.
REJECTED = {
    "calendars.add_months": ("calendars:103", "cannot vectorize this call of `calendar.monthrange`, a function of another library"),
    "calendars.ordinal": ("calendars:109", "only functions of `math`, `numpy`, `bisect`, a module alias or a class used as a namespace can be called as attributes; pass fallback=\"calls\""),
    "options.black76": ("options:78", "`cdf` is a variable, not a function"),
    "series.exp_taylor": ("series:26", "`math.ldexp` has no Array API counterpart"),
    "series.horner": ("series:65", "cannot vectorize a call of `reduce`"),
    "series.mantissa": ("series:129", "`math.frexp` has no Array API counterpart"),
    "series.choose": ("series:134", "`math.comb` has no Array API counterpart"),
    "taxben.standard_deduction": ("taxben:113", "only a constant tuple, list or dict of numbers"),
}

# Compiled, but every call raises: a table of a module dict's dict (`EITC_PARAMS["credit_pct"]`)
# indexed per element is taken for a sequence given per call (open: it should be gathered as a
# constant table, or refused when compiling).
CALL_FAILS = {
    "taxben.eitc": (TypeError, "a parameter indexed per element must be given a tuple or a list of numbers (D14, D15), not dict"),
}

# Compiled by the decorator, deferred to it by the static compile, with the names only the live
# module can give.
DEFERRED = {
    "options.down_and_out_call": ["PricingError"],
}

# Raised by CPython for elements (D11), as the vectorized call raises them (as_values: what item
# 7 gives a value instead, `int(round(nan))`).
AS_VALUES = {"fixed_income.bond_price": (NAN_TO_INT,), "fixed_income.macaulay_duration": (), "taxben.child_benefit_charge": (NAN_TO_INT,)}


def function(qualified: str):
    module, name = qualified.split(".")
    return getattr(importlib.import_module(f"{KIT.name}.{module}"), name)


def public_functions() -> list[str]:
    out = []
    for path in sorted(KIT.glob("*.py")):
        if path.stem in ("__init__", "common"):
            continue  # the helpers the others share
        tree = ast.parse(path.read_text())
        out += [f"{path.stem}.{n.name}" for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
    return out


def find(name: str):
    """A module of the kit, as the import hook finds it."""
    parts = name.split(".")
    path = KIT / ("__init__.py" if len(parts) == 1 else f"{parts[1]}.py")
    if parts[0] != KIT.name or len(parts) > 2 or not path.exists():
        return None
    text = path.read_text()
    return text, str(path), hashlib.sha256(text.encode()).hexdigest()


def static_entry(qualified: str) -> dict:
    module, name = qualified.split(".")
    path = KIT / f"{module}.py"
    text = path.read_text()
    modules = program_modules(text, f"{KIT.name}.{module}", False, find)
    (entry,) = [e for e in _core.compile_module(text, str(path), only=name, package=KIT.name, modules=modules) if e["qualname"] == name]
    return entry


def test_the_ledger_lists_every_function_once():
    names = public_functions()
    listed = [*COMPILED, *REJECTED, *CALL_FAILS]
    assert sorted(names) == sorted(listed), set(names) ^ set(listed)
    assert len(set(listed)) == len(listed)
    assert len(names) >= 40
    # DESIGN.md section 6: >= 85% of real scientific code compiles (and runs).
    assert len(COMPILED) / len(names) >= 0.85, f"{len(COMPILED)} of {len(names)}"


@pytest.mark.parametrize("qualified", sorted(CALL_FAILS))
def test_functions_that_compile_but_fail_when_called(qualified):
    error, message = CALL_FAILS[qualified]
    vec = vectorize(function(qualified))
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        vec(INCOME, np.resize(icol([0, 1, 2, 3]), len(INCOME)), False)


def outcomes(vec, *args, backend: str, ulps: int = 0, as_values: tuple = ()) -> None:
    """`check_outcomes`, where an element indexing a constant table out of range (or missing a
    key of a constant dict) raises CPython's IndexError (KeyError) with the table's note naming
    the element (`runtime/tables.py`: "first out-of-range lane is element k (C order)", "first
    missing key is element k (C order)") rather than D11's; the other elements, those on
    which CPython raises nothing, are then compared by value."""
    original = vec._vectorized_original
    expected = first_raise(original, *args, as_values=as_values)
    if expected is None or not isinstance(expected[0], (IndexError, KeyError)):
        check_outcomes(vec, *args, backend=backend, ulps=ulps, as_values=as_values)
        return
    error, index = expected
    uniform, _, shape, broadcast = lanes_of(args)
    flat = int(np.ravel_multi_index(index, shape))
    with pytest.raises(type(error)) as caught:
        vec(*[to_backend(a, backend) for a in args])
    assert type(caught.value) is type(error) and caught.value.args == error.args
    notes = getattr(caught.value, "__notes__", [])
    assert any(f"element {flat} (C order)" in n or f"(flat index {flat})" in n for n in notes), notes
    kept = []
    for k, lane in enumerate(np.ndindex(shape)):
        try:
            original(*[b[lane].item() for b in broadcast])
        except Exception as exc:  # noqa: BLE001 - CPython's rejection of the element
            if not (is_d3(exc) or str(exc) in as_values):
                continue
        kept.append(k)
    rest = [a if u else np.broadcast_to(np.asarray(a), shape).reshape(-1)[kept] for a, u in zip(args, uniform)]
    check_outcomes(vec, *rest, backend=backend, ulps=ulps, as_values=as_values)


# A table indexed out of range inside a loop (D12, D15): found by this corpus, the call raised
# CPython's IndexError for the first element out of range in the first iteration where one was,
# not for CPython's first raising element in C order; the index is now a raise site carried
# through the loop (D11, branch tableidx).
LOOP_INDEX_RAISE = {"actuarial.level_premium", "actuarial.term_insurance"}


@pytest.mark.parametrize("qualified", sorted(COMPILED))
def test_compiled_functions_match_cpython(qualified, backend):
    make, ulps = COMPILED[qualified]
    outcomes(vectorize(function(qualified)), *make(), backend=backend, ulps=ulps, as_values=AS_VALUES.get(qualified, ()))


@pytest.mark.parametrize("qualified", sorted(COMPILED))
def test_the_static_compile_gives_the_decorators_code(qualified):
    entry = static_entry(qualified)
    if qualified in DEFERRED:
        assert entry["status"] == "deferred" and entry["deferred"] == DEFERRED[qualified], entry
        return
    assert entry["status"] == "ok", entry.get("error") or entry.get("deferred")
    assert entry["source"] == vectorize(function(qualified)).source


@pytest.mark.parametrize("qualified", sorted(REJECTED))
def test_rejected_functions_name_the_reason_and_the_place(qualified):
    where, reason = REJECTED[qualified]
    module, line = where.split(":")
    with pytest.raises(VectorizationError) as caught:
        vectorize(function(qualified))
    message = str(caught.value)
    assert reason in message, message
    assert f"{KIT / module}.py:{line}:" in message, message
    assert all(d["line"] > 0 and d["col"] > 0 for d in caught.value.diagnostics)
    # The static compile refuses it too (or leaves it to the decorator, which refuses it).
    assert static_entry(qualified)["status"] in ("error", "deferred")


# Uniform arguments (D14) the decorator reads once per call.
def test_uniform_strings_select_the_rule_as_cpython(backend):
    spots = cycle(PRICE, col([100.0]), YEARS, RATE, VOL)
    # Deep out of the money the put's two terms cancel: erfc's and exp's last bits (item 9)
    # grow to a relative 1e-13 there (4.46336366436095e-113 against ...0806e-113).
    for flag in ("c", "p"):
        check_outcomes(vectorize(function("options.bsm_price")), flag, *spots, backend=backend, ulps=2**12)
        check_outcomes(vectorize(function("options.cash_or_nothing")), flag, *spots, backend=backend, ulps=2**12)
    for when in ("end", "begin", "e", "b"):
        check_outcomes(vectorize(function("fixed_income.payment")), RATE, 360, 1e5, 0.0, when, backend=backend, ulps=4)
    for convention in ("ACT/365F", "ACT/360", "ACT/365.25"):
        outcomes(vectorize(function("fixed_income.year_fraction")), col([0.0, 365.0]), convention, backend=backend)
    for alternative in ("two-sided", "greater", "less"):
        check_outcomes(vectorize(function("distributions.z_test_pvalue")), FLOATS, alternative, backend=backend, ulps=4)


def test_a_bad_uniform_string_raises_what_cpython_raises():
    """`flag not in ("c", "p")` runs once per call: CPython's ValueError for the first element;
    an unknown key of a module dict read once per call raises KeyError at the call
    (docs/semantics.md item 32)."""
    with pytest.raises(ValueError, match="flag must be 'c' or 'p', not 'x'"):
        vectorize(function("options.bsm_price"))("x", PRICE, 100.0, 1.0, 0.03, 0.2)
    with pytest.raises(KeyError, match="middle"):
        vectorize(function("fixed_income.payment"))(RATE, 360, 1e5, 0.0, "middle")
    with pytest.raises(ValueError, match="unknown day count convention 'ACT/ACT'"):
        vectorize(function("fixed_income.year_fraction"))(col([1.0]), "ACT/ACT")


def test_int_edges_through_calendar_arithmetic(backend):
    """Integer extremes: the int64 arithmetic of `//` and `%` as CPython's (item 13)."""
    for name in ("calendars.julian_day_number", "calendars.is_leap"):
        fn = vectorize(function(name))
        args = [INT_EDGES] if name.endswith("is_leap") else [INT_EDGES, np.resize(MONTH, len(INT_EDGES)), np.resize(DAY, len(INT_EDGES))]
        outcomes(fn, *args, backend=backend)


@pytest.mark.parametrize("qualified", sorted(LOOP_INDEX_RAISE))
def test_an_index_out_of_range_in_a_loop_raises_for_cpythons_first_element(qualified):
    make, ulps = COMPILED[qualified]
    outcomes(vectorize(function(qualified)), *make(), backend="numpy", ulps=ulps)


def test_a_finished_lane_does_not_index_a_table_in_a_helper():
    """`annuity_due(-11, 1, 0.03)` reads no table (`survival(-11, 0)` loops zero times); with a
    second element running three iterations, the first element's lane is no longer active in the
    second, where `survival(-11, 1)` would read `QX[-71]`."""
    check_outcomes(vectorize(function("actuarial.annuity_due")), np.array([-11, 60]), np.array([1, 3]), 0.03, ulps=8)
