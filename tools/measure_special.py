"""Measures the D17 helpers against CPython's ``math`` (and, with mpmath, the true values): the
figures of the accuracy table in ``docs/semantics.md``.

Run from the repository root with the test environment: ``.venv/bin/python
tools/measure_special.py [random values per helper, default 300000]``. The oracles (CPython with
the D3 value where it raises) and the input generators are the tests' own
(``tests/unit/test_special.py``), so the table and the tests measure the same thing.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit"))

import test_special as t  # noqa: E402

from array_vectorize.runtime.special import ULP_FLOORS  # noqa: E402

try:
    import mpmath as mp
except ImportError:  # the true-value columns are left empty
    mp = None

TRUE = {
    "erf": lambda v: mp.erf(v),
    "erfc": lambda v: mp.erfc(v),
    "gamma": lambda v: mp.gamma(v),
    "lgamma": lambda v: mp.log(abs(mp.gamma(v))) if v < 1e5 else mp.loggamma(v),
}


def distances(key, fn, columns, backend="numpy", floor=None):
    """Per-lane distance of the helper from ``fn``, in ulps (see ``test_special.ulps``)."""
    floor = ULP_FLOORS.get(key, 0.0) if floor is None else floor
    got = t.run(key, backend, *columns).tolist()
    return [t.ulps(g, fn(*[c[i] for c in columns]), floor) for i, g in enumerate(got)]


def summary(d):
    return max(d), sum(x == 0 for x in d) / len(d)


def true_value(key):
    def call(v):
        with mp.workdps(40):
            try:
                return float(TRUE[key](mp.mpf(v)))
            except (ValueError, ZeroDivisionError, OverflowError):
                return math.nan

    return call


def one_arg_samples(n):
    """(helper, description, values): the tests' random values, then ranges of interest."""
    rng = np.random.default_rng(20261201)
    out = []
    for key in ("erf", "erfc", "gamma", "lgamma"):
        _, _, (low, high) = t.ONE_ARG[key]
        desc = f"half log-uniform 1e{low:g}..{high:g}, half uniform on +-{high:g}"
        out.append((key, desc, t.random_one_arg(rng, n, low, high)))
    ranges = [("erfc", 5.0, 27.3), ("gamma", 0.0, 12.0), ("gamma", -12.0, 0.0), ("gamma", 12.0, 171.6),
              ("gamma", -180.0, -12.0), ("lgamma", 0.0, 15.0), ("lgamma", -5.0, 0.0)]
    for key, low, high in ranges:
        out.append((key, f"uniform ({low:g}, {high:g})", rng.uniform(low, high, n // 4).tolist()))
    return out


def one_arg_rows(n):
    rows = []
    for key in ("erf", "erfc", "gamma", "lgamma"):
        fn, edges, _ = t.ONE_ARG[key]
        edge_max, _ = summary(distances(key, fn, [edges]))
        rows.append((key, f"{len(edges)} edge values", len(edges), edge_max, "", "", "", ""))
    for key, desc, values in one_arg_samples(n):
        fn = t.ONE_ARG[key][0]
        rand_max, rand_eq = summary(distances(key, fn, [values]))
        strict_max, _ = summary(distances(key, fn, [values[:5000]], "strict"))
        true_cols = ("", "")
        if mp is not None:
            sample = [v for v in values[:5000] if math.isfinite(fn(v)) and fn(v) != 0.0]
            truth = true_value(key)
            ours = [d for d in distances(key, truth, [sample]) if d != math.inf]
            floor = ULP_FLOORS.get(key, 0.0)
            theirs = [t.ulps(fn(v), truth(v), floor) for v in sample]
            true_cols = (f"{max(ours):.3g}", f"{max(d for d in theirs if d != math.inf):.3g}")
        rows.append((key, desc, len(values), rand_max, rand_eq, strict_max, *true_cols))
    return rows


def exact_rows(n):
    rng = np.random.default_rng(20261202)
    rows = []
    x_edges, y_edges = t.pairs_with_edges()
    for key, fn in (("fmod", t.fmod), ("remainder", t.remainder)):
        x, y = t.log_uniform(rng, n), t.log_uniform(rng, n)
        rand_max, rand_eq = summary(distances(key, fn, [x, y]))
        edge_max, _ = summary(distances(key, fn, [x_edges, y_edges]))
        strict_max, _ = summary(distances(key, fn, [x[:5000], y[:5000]], "strict"))
        rows.append((key, len(x_edges), edge_max, n, rand_max, rand_eq, strict_max))
    for n_args in (2, 3, 5):
        cols = t.adversarial_sums(rng, n_args, n // 10)
        rand_max, rand_eq = summary(distances("fsum", t.fsum_oracle, cols))
        strict_max, _ = summary(distances("fsum", t.fsum_oracle, [c[:2000] for c in cols], "strict"))
        rows.append((f"fsum ({n_args} args, adversarial)", "", "", n // 10, rand_max, rand_eq, strict_max))
    return rows


def round_rows(n):
    rows = []
    xp = t.BACKENDS["numpy"]
    groups = {"-22..22": range(-22, 23), "23..299": range(23, 300, 7), "-308..-23": range(-308, -22, 7),
              "300..323": range(300, 324)}
    for label, digits in groups.items():
        total = worst = differ = 0
        for nd in digits:
            rng = np.random.default_rng(5000 + nd)
            if nd >= 300:
                x = t.log_uniform(rng, n // 40, -nd - 1.0, 17.0 - nd)
            else:
                x = t.round_inputs(rng, nd, n // 40)
            got = np.asarray(t.helper("round_digits")(xp, xp.asarray(x), nd)).tolist()
            oracle = t.round_oracle(nd)
            d = [t.ulps(g, oracle(v)) for v, g in zip(x, got)]
            total += len(d)
            worst = max(worst, max(d))
            differ += sum(v != 0 for v in d)
        rows.append((label, total, worst, differ))
    return rows


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 300_000
    print("| helper | inputs | values | max ulps vs math | equal to math | max ulps on strict (5k) | "
          "max ulps vs true (5k) | math's max ulps vs true |")
    print("|---|---|--:|--:|--:|--:|--:|--:|")
    for key, desc, count, worst, equal, strict, ours, theirs in one_arg_rows(n):
        eq = f"{equal:.1%}" if equal != "" else ""
        print(f"| {key} | {desc} | {count} | {worst:.3g} | {eq} | {strict} | {ours} | {theirs} |")
    print()
    print("| helper | edge values | max ulps (edges) | random values | max ulps | equal to math | "
          "max ulps on strict |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for key, edges, edge_max, count, worst, equal, strict in exact_rows(n):
        print(f"| {key} | {edges} | {edge_max} | {count} | {worst:g} | {equal:.2%} | {strict:g} |")
    print()
    print("| round(x, n): n | values | max ulps | lanes differing from CPython |")
    print("|---|--:|--:|--:|")
    for label, total, worst, differ in round_rows(n):
        print(f"| {label} | {total} | {worst:g} | {differ} ({differ / total:.2%}) |")


if __name__ == "__main__":
    main(sys.argv)
