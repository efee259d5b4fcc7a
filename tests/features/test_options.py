"""The public options of `vectorize` (reference: tests/features): protect_domains, namespace,
fallback, verify, the canonical cache."""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, floats
from sourcefile import from_source


def safe_sqrt(x):
    if x < 0.0:
        return 0.0
    return math.sqrt(x)


def safe_log_ratio(x, y):
    if y != 0.0 and x > 0.0:
        return math.log(x) / y
    return -1.0


def safe_power(x):
    return x ** 1.5 if x >= 0.0 else -1.0


def safe_int(x):
    if math.isfinite(x) and abs(x) < 1e15:
        return int(x)
    return 0


PARTIAL = [safe_sqrt, safe_log_ratio, safe_power, safe_int]


@pytest.mark.parametrize("fn", PARTIAL, ids=lambda f: f.__name__)
def test_protect_domains_never_raises_for_a_correct_program(fn):
    vec = vectorize(fn, protect_domains=True)
    # Finite inputs: on live lanes CPython computes inf - inf = nan silently where NumPy would
    # warn; that is not a domain error of a dead lane.
    finite = floats(30)[np.isfinite(floats(30))]
    args = [finite] * fn.__code__.co_argcount
    # Overflow is not a domain error: CPython gives inf silently too.
    with np.errstate(divide="raise", invalid="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        result = vec(*[a[:, None] if i == 0 and len(args) > 1 else a for i, a in enumerate(args)])
    assert result is not None


@pytest.mark.parametrize("fn", PARTIAL, ids=lambda f: f.__name__)
def test_protect_domains_never_changes_results(fn, backend):
    args = [floats(30)] * fn.__code__.co_argcount
    if len(args) == 2:
        args = [args[0][:, None], args[1][None, :]]
    check(vectorize(fn, protect_domains=True), *args, backend=backend)


def units_settled(units):
    # Whole contract units past a threshold: ceil, floor and trunc of an int are that int.
    if units > 3:
        return math.ceil(units) - math.floor(units) + math.trunc(units)
    return 0


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_protect_domains_keeps_floor_ceil_trunc_of_ints_exact(dtype, backend):
    # D1 protects the argument of floor/ceil/trunc on dead lanes; it protected their result,
    # which read an int beyond 2**53 through float64 (fuzz seed 480002 #58), and saturated a
    # uint64 beyond 2**63.
    big = [2**64 - 1, 2**63 + 1, 2**53 + 1] if dtype == "uint64" else [2**63 - 1, 2**53 + 1, -(2**53) - 1]
    units = np.array(big + [5, 4, 3, 0, 1], dtype=dtype)
    check(vectorize(units_settled, protect_domains=True), units, backend=backend)


def test_without_protection_dead_lanes_may_warn():
    vec = vectorize(safe_sqrt)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        vec(np.array([-1.0, 4.0]))


def test_protect_domains_only_guards_partial_operations():
    def plain(x, y):
        if x > y:
            return x * y + 1.0
        return x - y

    assert "where(" in vectorize(plain, protect_domains=True).source
    src = vectorize(plain, protect_domains=True).source
    # No operand of + - * is guarded: only the two branch merges use where.
    float_body = src.split("def _vec_exact_")[0]
    assert float_body.count("xp.where(") == 1


def test_namespace_pins_the_array_namespace():
    import array_api_strict as xps

    vec = vectorize(safe_sqrt, namespace=xps)
    result = vec(xps.asarray([4.0, -1.0]))
    assert isinstance(result, type(xps.asarray(1.0)))
    assert vec.source == vectorize(safe_sqrt).source


def test_fallback_calls_unknown_functions_per_element():
    import statistics

    fn = from_source(
        "def f(x):\n    if x > 0.0:\n        return float(fact_like(int(min(x, 20.0)))) + 1.0\n    return 0.0\n",
        {"fact_like": math.factorial},
    )
    with pytest.raises(VectorizationError):
        vectorize(fn)
    vec = vectorize(fn, fallback=True)
    check(vec, floats(20))
    # D23: at its call site, on the elements that reach it (the others never call it): those
    # taking the `if` (`cond`) whose `int(...)` did not raise. `cond_1` is item 7's raise site,
    # a float beyond int64: that element's call raises OverflowError at `int(...)` and never
    # reaches the callee (which would otherwise run on the saturated INT64_MAX).
    assert "_vec_call_site(xp, (lambda _vec_a0: (fact_like(_vec_a0))), xp.logical_and(cond, xp.logical_not(cond_1))," in vec.source
    assert statistics is not None


def test_fallback_loops_over_a_function_that_cannot_compile():
    fn = from_source("def f(x):\n    total = 0.0\n    while total < x:\n        total += 1.0\n    return total\n")
    vec = vectorize(fn, fallback=True)
    check(vec, np.array([0.5, 2.0, 3.5, -1.0]))


def test_fallback_element_loop_keeps_the_signature():
    fn = from_source(
        "def f(a, b=2.0, /, c=1.0, *, d=0.5):\n    pair = [a, b]\n    pair.sort()\n    return pair[0] * c + d\n"
    )
    vec = vectorize(fn, fallback=True)
    assert "_vec_elementwise(" in vec.source
    assert str(inspect.signature(vec)) == str(inspect.signature(fn)) == "(a, b=2.0, /, c=1.0, *, d=0.5)"
    a = np.array([0.5, 12.0, 30.0, -1.0])
    expected = [fn(float(v), 3.0, c=2.0, d=1.5) for v in a]
    assert vec(a, 3.0, c=2.0, d=1.5).tolist() == expected
    assert vec(a).tolist() == [fn(float(v)) for v in a]


def test_fallback_without_parameters_is_still_rejected():
    fn = from_source("def f():\n    return 1.0\n")
    with pytest.raises(VectorizationError, match="at least one parameter"):
        vectorize(fn, fallback=True)


def test_verify_accepts_a_correct_compilation():
    vec = vectorize(safe_sqrt, verify=(np.array([-1.0, 0.0, 4.0]),))
    assert float(vec(9.0)) == 3.0


def test_verify_accepts_each_documented_form():
    # A tuple, one example per parameter, numbers or arrays; a bare value for one parameter.
    vectorize(safe_log_ratio, verify=(np.array([0.5, 2.0, -1.0, 0.0]), 3.0))
    vectorize(safe_log_ratio, verify=(np.array([[0.5], [2.0]]), np.array([-1.0, 0.0, 4.0])))
    vectorize(safe_sqrt, verify=np.array([-1.0, 0.0, 4.0]))
    vectorize(safe_sqrt, verify=2.0)


@pytest.mark.parametrize(
    "examples, problem",
    [
        (((1.0, 2.0), (-1.0, 0.5)), "the example for `x` is a tuple"),  # one tuple per call
        (([1.0, 2.0], [-1.0, 0.5]), "the example for `x` is a list"),
        ((np.array([1.0]),), "got 1 example argument, the function takes 2"),
        ((1.0, 2.0, 3.0), "got 3 example arguments, the function takes 2"),
    ],
)
def test_verify_rejects_other_forms_showing_the_right_one(examples, problem):
    with pytest.raises(TypeError) as info:
        vectorize(safe_log_ratio, verify=examples)
    message = str(info.value)
    assert message.startswith(f"verify= for safe_log_ratio(x, y): {problem}. Give one example per positional parameter")
    assert "e.g. verify=(np.array([0.5, -1.0]), 1.0)" in message


def test_verify_reports_a_mismatch(monkeypatch):
    from array_vectorize import verify as verify_module

    def wrong(x):
        return x + 1.0

    vec = vectorize(safe_sqrt, protect_domains=True)
    with pytest.raises(VectorizationError, match="verify"):
        verify_module.verify_against_original(vec, wrong, (np.array([4.0]),))


def test_canonical_compilation_is_cached_and_linked():
    def f(x):
        return x * 3.0

    first = vectorize(f)
    assert vectorize(f) is first
    assert f.__array_vectorized__ is first
    assert first._vectorized_original is f
    assert vectorize(first) is first  # vectorizing the vectorized function is idempotent
    assert vectorize(f, protect_domains=True) is not first


def test_decorator_with_options_syntax():
    @vectorize(protect_domains=True)
    def g(x):
        return math.sqrt(x) if x >= 0.0 else 0.0

    check(g, floats(20))
