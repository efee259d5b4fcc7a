"""Recursion with a scalar residue (D19): a function or helper that calls itself is inlined to a
bounded depth; the elements that recurse deeper are finished by the scalar original, element by
element, and placed into the result. CPython's element loop is the oracle, on edge and random
values, on NumPy and array-api-strict; D11's rule (the first raising element in C order wins)
holds across the vectorized part and the residue.

PYTEST_DONT_REWRITE: the functions' own `assert`s must stay CPython's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import array_vectorize
from array_vectorize import VectorizationError, vectorize
from oracle import INT_EDGES, check, check_raising, floats, grid, same, to_numpy


def normcdf(x):
    """The reflection every hand-written normal CDF uses: one level, no residue."""
    if x < 0.0:
        return 1.0 - normcdf(-x)
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def gamma_shift(x):
    """Gamma by its recurrence down (and up) to [1, 2]: the residue finishes large |x|."""
    if x > 2.0:
        return (x - 1.0) * gamma_shift(x - 1.0)
    if x < 1.0:
        if x == math.floor(x):
            raise ValueError(f"gamma pole at {x}")
        return gamma_shift(x + 1.0) / x
    return math.gamma(x)


def falling_factorial(n, k):
    """Ints: the residue's Python ints wrap into int64 as every int of the function does."""
    if k <= 0:
        return 1
    return n * falling_factorial(n - 1, k - 1)


def option_value(spot, strike, is_call):
    """A put priced through the call with the arguments swapped: `is_call=True` folds the second
    level's test, so there is no residue."""
    if not is_call:
        return option_value(strike, spot, True)
    return max(spot - strike, 0.0)


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def collatz_steps(n):
    if n <= 1:
        return 0
    if n % 2 == 0:
        return 1 + collatz_steps(n // 2)
    return 1 + collatz_steps(3 * n + 1)


def bounded_depth(x, depth):
    """Raises on the element whose recursion runs out: in the residue for deep elements."""
    if depth > 30:
        raise RecursionError(f"too deep at x={x!r}")
    if x < 1.0:
        return x
    return bounded_depth(x / 2.0, depth + 1)


def countdown(x):
    if x <= 0.0:
        return 0.0
    return 1.0 + countdown(x - 1.0)


def halve_until_small(x):
    return bounded_depth(x, 0)


def sign_check(x):
    if x < -100.0:
        raise ValueError(f"x={x} below the table")
    return halve_until_small(abs(x)) + 1.0


class TestValues:
    def test_reflection_compiles_to_one_level_without_residue(self, backend):
        vec = vectorize(normcdf)
        assert "_vec_residue" not in vec.source
        check(vec, floats(60), backend=backend, ulps=4)

    def test_gamma_recurrence_matches_cpython_on_every_element(self, backend):
        vec = vectorize(gamma_shift)
        assert "_vec_residue(" in vec.source
        x = np.concatenate([floats(40), np.linspace(-9.5, 40.5, 51), [170.5, 171.7, -0.5, 1e-300, -1e-300]])
        # Poles raise (test_a_pole_raises_as_cpython); beyond a few hundred, or at NaN and the
        # infinities, CPython's recursion never ends (test_endless_recursion_raises_as_cpython).
        x = x[((x != np.floor(x)) | (x > 0)) & (np.abs(x) < 300)]
        check(vec, x, backend=backend, ulps=8)

    def test_ints_of_the_residue_wrap_as_every_int(self, backend):
        n = np.array([0, 1, 5, 12, 20, 21, 30, -3, 2**31, -(2**40)])
        k = np.array([0, 1, 3, 9, 15, 25, 40])
        check(vectorize(falling_factorial), *grid(n, k), backend=backend)

    def test_swapped_arguments_fold_the_second_level(self, backend):
        vec = vectorize(option_value)
        assert "_vec_residue" not in vec.source
        spot = np.array([80.0, 100.0, 120.0, -0.0, math.inf, math.nan])
        strike = np.array([100.0, 0.0, 120.0])
        flag = np.array([True, False])
        check(vec, *grid(spot, strike, flag), backend=backend)

    def test_mutual_recursion(self, backend):
        n = np.array([0, 1, 2, 7, 8, 9, 10, 17, 40, 101])
        check(vectorize(is_even), n, backend=backend)

    def test_data_dependent_recursion_on_ints(self, backend):
        n = np.array([1, 2, 3, 6, 7, 27, 97, 871, 0, -5])
        check(vectorize(collatz_steps), n, backend=backend)

    def test_python_scalars_and_0d(self):
        vec = vectorize(gamma_shift)
        assert same(float(vec(25.5)), gamma_shift(25.5), ulps=8)
        assert same(to_numpy(vec(np.float64(0.25))).item(), gamma_shift(0.25), ulps=8)
        assert vectorize(falling_factorial)(20, 20).item() == falling_factorial(20, 20)


class TestRaises:
    def test_a_pole_raises_as_cpython(self, backend):
        x = np.array([3.5, 2.5, -3.0, 5.5, -1.0, 0.0])
        got = check_raising(vectorize(gamma_shift), x, backend=backend)
        assert isinstance(got, ValueError) and "pole at -3.0" in str(got)

    def test_endless_recursion_raises_as_cpython(self, backend):
        got = check_raising(vectorize(gamma_shift), np.array([2.5, math.inf, 5.0]), backend=backend)
        assert isinstance(got, RecursionError)

    def test_the_first_raising_element_wins_across_vectorized_part_and_residue(self, backend):
        # Element 1 raises in the residue (deep recursion), element 3 in the vectorized check;
        # then element 1 alone, and element 3 first.
        deep = 2.0**40
        for x in ([3.0, deep, 4.0, -500.0], [3.0, deep], [-500.0, 2.0, deep]):
            got = check_raising(vectorize(sign_check), np.array(x), backend=backend)
            assert got is not None

    def test_nan_on_raise_covers_the_residue(self):
        vec = vectorize(sign_check, nan_on_raise=True)
        got = vec(np.array([3.0, 2.0**40, -500.0]))
        assert got[0] == sign_check(3.0)
        assert np.isnan(got[1]) and np.isnan(got[2])


class TestDepth:
    def test_the_residue_runs_only_on_the_elements_that_recurse_deeper(self):
        vec = vectorize(countdown)
        x = np.array([0.5, 3.0, 100.0, -2.0, 8.5, 9.5])
        before = array_vectorize.stats()["residue_elements"]
        check(vec, x)
        # Only the elements above 8.0 make a 9th call, past the 8 levels inlined (8.5 makes it,
        # with -0.5, which returns at once).
        assert array_vectorize.stats()["residue_elements"] - before == 3

    def test_residue_sites_are_counted_and_named_in_the_source(self):
        before = array_vectorize.stats()["residue_sites"]
        vec = vectorize(collatz_steps, protect_domains=True)  # compiled afresh
        assert array_vectorize.stats()["residue_sites"] > before
        assert "_vec_residue(xp, _vec_scalar_collatz_steps," in vec.source

    def test_binary_recursion_gets_fewer_levels(self):
        def fib(n):
            if n < 2:
                return n
            return fib(n - 1) + fib(n - 2)

        vec = vectorize(fib)
        assert vec.source.count("_vec_residue(") < 2**8
        check(vec, np.arange(-2, 25))

    def test_a_nested_function_cannot_be_finished_by_a_residue(self):
        def outer(x):
            def down(v):
                if v > 0.0:
                    return down(v - 1.0)
                return v

            return down(x)

        with pytest.raises(VectorizationError, match="`down` calls itself deeper than the 8 levels") as info:
            vectorize(outer)
        assert "not a function of the module" in str(info.value)

    def test_a_nested_function_whose_recursion_provably_ends_compiles(self, backend):
        def outer(x):
            def odd_part(v):
                if v < 0.0:
                    return -odd_part(-v)
                return v * v * v

            return odd_part(x)

        check(vectorize(outer), floats(30), backend=backend)


def decorated_factorial_source():
    """A module-level function decorated with @vectorize calls itself through the name the
    decorator binds: the residue calls the scalar original, whose own recursion stays scalar."""
    return '''
import numpy as np
from array_vectorize import vectorize

@vectorize
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)
'''


def test_a_decorated_function_calling_itself(tmp_path):
    path = tmp_path / "decorated_fact.py"
    path.write_text(decorated_factorial_source())
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    fact = namespace["fact"]
    got = fact(np.array([0, 1, 5, 15, 20]))
    assert got.tolist() == [1, 1, 120, math.factorial(15), math.factorial(20)]
    assert "_vec_residue(" in fact.source


def test_int_edges_through_the_residue():
    check(vectorize(falling_factorial), np.array(INT_EDGES), np.array(3))
