"""Element-wise call sites (D23, `fallback="calls"`): a call the compiler cannot vectorize
(another library's function, a method of an object, `math.factorial`, a helper the compiler
rejects) runs element by element where it stands, on the elements that reach it, while the rest
of the function stays vectorized; exact for pure callees; D11's order holds across the call's
raises and the function's own. Each site is reported (`stats()`, the generated source).
`fallback=True` keeps its meaning: a function that cannot be compiled at all becomes one element
loop. CPython's element loop is the oracle, on NumPy and array-api-strict.
"""

from __future__ import annotations

import math
import statistics
from statistics import NormalDist

import numpy as np
import pytest

import array_vectorize
from array_vectorize import VectorizationError, vectorize
from oracle import check, check_raising, floats, grid, to_backend

class Standard(NormalDist):
    """A NormalDist of another class, whose methods may differ: a library method the compiler
    does not compile (a `NormalDist` itself is, issue 27), so a call run element by element."""

    __slots__ = ()


STANDARD = Standard()


def black_scholes_call(spot, strike, vol):
    d1 = (math.log(spot / strike) + 0.5 * vol * vol) / vol
    return spot * STANDARD.cdf(d1) - strike * STANDARD.cdf(d1 - vol)


def tail_probability(x, mu, sigma):
    if sigma <= 0.0:
        return 0.0
    return 1.0 - NormalDist(mu, sigma).cdf(x)


def mean_of_module(x):
    return statistics.NormalDist(0.0, 1.0).pdf(x) * 2.0


def permutations(n, k):
    if k > n or k < 0:
        return 0
    return math.factorial(n) // math.factorial(n - k)


def label_length(v):
    """Rejected by the compiler (strings), called element by element from `padded`."""
    return len(f"{v:.3f}")


def padded(x):
    return x + label_length(x)


def strict_sigma(x, sigma):
    if x > 10.0:
        raise ValueError(f"x={x} above the table")
    return NormalDist(0.0, sigma).cdf(x)


class Counter:
    """A callable object counting the elements it is called for."""

    def __init__(self):
        self.seen = []

    def __call__(self, v):
        self.seen.append(v)
        return v * 2.0


COUNT = Counter()


def guarded_count(x):
    if x > 0.0:
        return COUNT(x)
    return -1.0


def test_a_library_method_runs_per_element_the_rest_vectorized(backend):
    vec = vectorize(black_scholes_call, fallback="calls")
    assert "_vec_call_site(xp, (lambda _vec_a0: (STANDARD.cdf(_vec_a0)))" in vec.source
    assert "xp.log(" in vec.source
    spot, strike, vol = grid(np.array([80.0, 100.0, 120.0]), np.array([100.0, 95.0]), np.array([0.1, 0.25, 0.6]))
    check(vec, spot, strike, vol, backend=backend, ulps=4)


def test_an_object_built_from_the_elements_values(backend):
    x, mu, sigma = grid(floats(8), np.array([0.0, -1.5]), np.array([1.0, 0.0, -2.0, 2.5]))
    check(vectorize(tail_probability, fallback="calls"), x, mu, sigma, backend=backend)


def test_a_module_function_and_math_without_an_array_form(backend):
    check(vectorize(mean_of_module, fallback="calls"), floats(20), backend=backend)
    n, k = grid(np.array([0, 1, 5, 20, 3]), np.array([-1, 0, 2, 5, 7]))
    check(vectorize(permutations, fallback="calls"), n, k, backend=backend)


def test_a_helper_the_compiler_rejects(backend):
    vec = vectorize(padded, fallback="calls")
    assert "label_length(_vec_a0)" in vec.source
    check(vec, floats(20), backend=backend)


def weighted_reading(x, w):
    """A library function of the standard library taking a list and a tuple display of the
    element's values (fmean's own code does not compile: a `nonlocal`, a container)."""
    if w < 0.0:
        return math.nan
    return statistics.fmean([x, 2.0 * x, -x], weights=(w, 1.0, 0.5)) + statistics.median((x,))


def middle_reading(x, y):
    return statistics.median_high([x, y, x * y]) - 1.0


def test_displays_passed_to_a_call_are_built_as_written(backend):
    vec = vectorize(weighted_reading, fallback="calls")
    assert "statistics.fmean([_vec_a0_0, _vec_a0_1, _vec_a0_2], weights=(_vec_k0_0, _vec_k0_1, _vec_k0_2))" in vec.source
    assert "statistics.median((_vec_a0_0,))" in vec.source
    finite = np.array([0.0, -0.0, 1.0, -1.0, 2.5e-308, 1e300, -7.125])
    check(vec, *grid(finite, np.array([1.0, 0.0, 2.5, -1.0])), backend=backend)
    # fsum's ValueError for an infinite element, the first in C order as CPython's loop.
    check_raising(vec, *grid(np.array([1.0, math.inf, -2.0]), np.array([1.0, 0.5])), backend=backend)
    x, y = grid(np.array([0.0, -2.0, 3.5, 7.25, 1e300]), np.array([1.0, -0.5, 4.0]))
    check(vectorize(middle_reading, fallback="calls"), x, y, backend=backend)


def test_scipy_special_functions(backend):
    special = pytest.importorskip("scipy.special")

    def erfcx_scaled(x):
        if x < -5.0:
            return 0.0
        return float(special.erfcx(x)) * 0.5

    check(vectorize(erfcx_scaled, fallback="calls"), floats(20), backend=backend)


def test_only_the_elements_that_reach_the_call_run_it():
    COUNT.seen.clear()
    vec = vectorize(guarded_count, fallback="calls")
    x = np.array([-1.0, 2.0, 0.0, 3.5, -7.0])
    before = array_vectorize.stats()["call_site_elements"]
    got = vec(x)
    assert COUNT.seen == [2.0, 3.5]
    assert array_vectorize.stats()["call_site_elements"] - before == 2
    assert got.tolist() == [guarded_count(v) for v in x.tolist()]


def test_the_first_raising_element_wins_across_the_call_and_the_function(backend):
    vec = vectorize(strict_sigma, fallback="calls")
    # Element 1 raises in the call (sigma 0: StatisticsError), element 2 in the function.
    for x, sigma in (([0.5, 1.0, 11.0], [1.0, 0.0, 1.0]), ([0.5, 12.0, 1.0], [1.0, 1.0, -1.0]), ([1.0, 2.0], [1.0, 2.0])):
        check_raising(vec, np.array(x), np.array(sigma), backend=backend)


def test_sites_are_counted_and_shown(tmp_path):
    before = array_vectorize.stats()["call_sites"]
    vectorize(black_scholes_call, fallback="calls", protect_domains=True)
    assert array_vectorize.stats()["call_sites"] - before == 2
    path = tmp_path / "model.py"
    path.write_text(
        "import math\nfrom array_vectorize import vectorize\n\n@vectorize(fallback=\"calls\")\n"
        "def choose(n, k):\n    return math.factorial(n) // (math.factorial(k) * math.factorial(n - k))\n"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "array_vectorize", "show", f"{path}:choose"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("runs element by element (D23, _vec_call_site)") == 3
    compile(out.stdout, "shown", "exec")


def test_without_fallback_the_message_names_calls():
    with pytest.raises(VectorizationError, match='fallback="calls"'):
        vectorize(black_scholes_call)


def test_calls_does_not_turn_a_rejected_function_into_an_element_loop():
    def prints(x):
        print(x)
        return x

    with pytest.raises(VectorizationError, match="print"):
        vectorize(prints, fallback="calls")
    vec = vectorize(prints, fallback=True)
    assert "_vec_elementwise(" in vec.source


def test_fallback_takes_false_true_or_calls():
    with pytest.raises(TypeError, match='fallback= takes False, True or "calls"'):
        vectorize(padded, fallback="yes")


def test_python_scalars(backend):
    vec = vectorize(black_scholes_call, fallback="calls")
    got = vec(to_backend(np.array(100.0), backend), 100.0, 0.2)
    assert float(got) == pytest.approx(black_scholes_call(100.0, 100.0, 0.2), rel=1e-15)
