"""Local containers (D18), against CPython as the oracle, on every backend.

A list, tuple or dict the function builds from numbers is a sequence of per-element values of a
length known when compiling: displays, `append` in constant loops, comprehensions, `list()`,
`zip`/`enumerate`, item stores, and the reads of tables (D15). Every element is compared with
CPython's, on edge values (0, -0.0, +-1, subnormals, +-inf, NaN, int extremes); where CPython
raises (an index outside the list, a missing key), the call raises the same exception for the
first such element in C order (D11), with its note.
"""

from __future__ import annotations

import bisect
import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import check, check_raising, floats, grid, ints, to_backend

X = floats(30)
K = np.array([-4, -3, -2, -1, 0, 1, 2, 3, 2**40, -(2**40)], dtype=np.int64)
INDEX = np.array([-3, -2, -1, 0, 1, 2], dtype=np.int64)


# ----------------------------------------------------------------- coefficient tables


def gibbs_like(pi, tau):
    # IAPWS-IF97-shaped terms (coefficients made up): lists local to the function, walked by zip.
    I = [0, 0, 0, 1, 1, 2, 3]
    J = [-2, 0, 1, -1, 2, 0, 3]
    n = [0.146, -0.845, -3.75, 3.39e-4, -9.58e-4, 1.2e-3, -4.5e-5]
    g = 0.0
    for i, j, ni in zip(I, J, n):
        g += ni * (7.1 - pi) ** i * (tau - 1.222) ** j
    return g


def horner_local(x):
    coeffs = (0.5, -1.25, 2.0, 0.125)
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc


def indexed_loop(x):
    a = [1.0, -0.5, 0.25, -0.125, 0.0625]
    s = 0.0
    for k in range(len(a)):
        s += a[k] * x**k
    return s


def int_table(n):
    counts = [0, 1, 1, 2, 3, 5, 8]
    total = 0
    for c in counts:
        total += c * n
    return total


def test_coefficient_tables_walked_by_zip(backend):
    vec = vectorize(gibbs_like)
    check(vec, *grid(np.array([0.0, 1.0, 7.1, -0.0, 25.0, np.nan, np.inf]), np.array([1.222, 1.5, 0.0, -1.0, 2.5, np.inf])), backend=backend, ulps=4)


@pytest.mark.parametrize("fn", [horner_local, indexed_loop])
def test_local_coefficients(fn, backend):
    check(vectorize(fn), X, backend=backend, ulps=4)


def test_int_table_keeps_ints(backend):
    check(vectorize(int_table), ints(10), backend=backend)


def test_a_zip_loop_over_local_constants_is_straight_line():
    # D18: unrolled, repeated powers computed once; no loop and no gather in the float body.
    src = vectorize(gibbs_like).source
    fast = src.split("def _vec_exact")[0]
    assert "for " not in fast and "_vec_take" not in fast, fast
    assert fast.count("** 0") == 2, fast


# ----------------------------------------------------------------- lists of per-element values


def pick(x, k):
    v = [x, 2.0 * x, x * x]
    return v[k]


def pick_tuple(x, k):
    return (x - 1.0, x + 1.0, -x)[k]


def pick_int(n, k):
    v = [n, n + 1, -n]
    return v[k]


def store(x, k):
    a = [0.0, 1.0, 2.0]
    a[k] = x
    a[0] += 1.0
    return a[0] + 10.0 * a[1] + 100.0 * a[2]


def test_a_per_element_index_selects_with_negative_indices(backend):
    check(vectorize(pick), *grid(X[:12], INDEX), backend=backend)
    check(vectorize(pick_tuple), *grid(X[:12], INDEX), backend=backend)
    check(vectorize(pick_int), *grid(ints(5), INDEX), backend=backend)


def test_an_index_outside_the_list_raises_indexerror_for_the_first_element(backend):
    # D11: the first element in C order that reaches it; the others are evaluated too.
    exc = check_raising(vectorize(pick), *grid(X[:6], K), backend=backend)
    assert isinstance(exc, IndexError) and str(exc) == "list index out of range"
    exc = check_raising(vectorize(pick_tuple), *grid(X[:6], K), backend=backend)
    assert str(exc) == "tuple index out of range"


def test_a_float_index_is_cpythons_typeerror():
    with pytest.raises(TypeError, match="indices must be integers"):
        vectorize(pick)(np.array([1.0, 2.0]), np.array([0.0, 1.0]))


def test_an_item_assigned_per_element(backend):
    check(vectorize(store), *grid(X[:12], INDEX), backend=backend)
    exc = check_raising(vectorize(store), *grid(X[:4], K), backend=backend)
    assert str(exc) == "list assignment index out of range"


def guarded_pick(x, k):
    v = [x, -x]
    if 0 <= k < 2:
        return v[k]
    return 0.0


RATES = (0.5, 1.5, 2.5)


def short_circuit(x, k):
    v = [x, -x, 2.0 * x]
    return 0 <= k < 3 and v[k] > 0.0 or k < 0 and RATES[k] > 1.0


def test_lanes_that_do_not_reach_the_index_do_not_raise(backend):
    check(vectorize(guarded_pick), *grid(X[:6], K), backend=backend)
    # `and`/`or` evaluate their right side only where CPython does: no IndexError for the
    # elements that short-circuit (the list's D11 raise, and the table's gather, D15).
    check(vectorize(short_circuit), *grid(X[:6], np.array([-3, -1, 0, 2, 3, 7], dtype=np.int64)), backend=backend)


# ----------------------------------------------------------------- building lists


def appended(x):
    terms = []
    for k in range(5):
        terms.append((-x) ** k / (k + 1))
    return sum(terms)


def reduced(x, y):
    v = [x, y, x * y, x - y]
    return max(v) - min(v) + len(v)


def truth_of_items(x, y):
    v = [x, y, x + y]
    return any(v) and not all(v)


def comprehension(x):
    powers = [x**k for k in range(4)]
    return powers[0] + powers[-1] - powers[2]


def dict_comprehension(x):
    scaled = {k: x * k for k in (1, 2, 3)}
    return scaled[2] + scaled[3]


def from_calls(x, y):
    a = list((x, y))
    b = tuple(range(3))
    c = list(zip(a, b))
    return c[1][0] * c[1][1] + len(c)


def enumerated(x):
    weights = [0.5, 0.25, 0.125]
    return sum(k * w * x for k, w in enumerate(weights, 1))


def repeated_then_filled(x):
    slots = [0.0] * 4
    for k in range(4):
        slots[k] = x + k
    return slots[-1] * slots[0]


def joined_and_sliced(x):
    a = [x, 2.0 * x] + [3.0, x * x]
    tail = a[1:]
    back = a[::-1]
    return tail[0] + back[0] + len(tail)


def listed_methods(x, y):
    a = [x, y]
    a.insert(0, 1.0)
    a.extend((x + y, 2.0))
    last = a.pop()
    first = a.pop(0)
    a.reverse()
    return last + first * 10.0 + a[0] - a.count(y)


def test_lists_built_by_the_function(backend):
    for fn in (appended, comprehension, dict_comprehension, enumerated, repeated_then_filled, joined_and_sliced):
        check(vectorize(fn), X, backend=backend, ulps=2)


def test_two_argument_containers(backend):
    cols = grid(X[::3], X[1::4])
    for fn in (reduced, truth_of_items, from_calls, listed_methods):
        check(vectorize(fn), *cols, backend=backend)


def found_at(x, y):
    a = [1.0, y, 2.0 * y]
    return a.index(x)


def found_itself(x, y):
    # The list holds `x` itself: CPython finds it by identity, a NaN too.
    a = [y, x]
    return a.index(x) + a.count(x) + (x in a)


def test_list_index_raises_valueerror_per_element(backend):
    exc = check_raising(vectorize(found_at), np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0, 2.0]), backend=backend)
    assert exc is None
    exc = check_raising(vectorize(found_at), np.array([1.0, np.nan]), np.array([0.5, 0.5]), backend=backend)
    assert isinstance(exc, ValueError) and str(exc) == "nan is not in list"
    check(vectorize(found_itself), *grid(X[:10], X[:10]), backend=backend)


# ----------------------------------------------------------------- unpacking, membership, search


def unpacked(x):
    a, b, c = [x, x + 1.0, x * 2.0]
    return a * b - c


def member(x, k):
    allowed = [x, 2.0, k]
    return (k - 1) in allowed


def searched(x):
    bands = [0.0, 10.0, 100.0, 1000.0]
    rates = [0.0, 0.1, 0.2, 0.3, 0.4]
    return x * rates[bisect.bisect_right(bands, x)]


def returned_tuple(x):
    pair = (x + 1.0, x - 1.0)
    return pair


def test_unpacking_membership_and_bisect(backend):
    check(vectorize(unpacked), X, backend=backend)
    check(vectorize(member), *grid(X[:10], np.array([0, 1, 2, 3], dtype=np.int64)), backend=backend)
    check(vectorize(searched), X, backend=backend)


def test_a_local_tuple_is_returned_as_several_results(backend):
    a, b = vectorize(returned_tuple)(to_backend(X, backend))
    assert np.array_equal(np.asarray(a), X + 1.0, equal_nan=True)
    assert np.array_equal(np.asarray(b), X - 1.0, equal_nan=True)


# ----------------------------------------------------------------- dicts


def dict_rates(x, k):
    rates = {1: 0.5, 2: 1.5, 3: 2.5}
    return x * rates[k]


def dict_of_values(x, k):
    table = {0: x, 1: -x, 5: x * x}
    return table[k]


def named_constants(x):
    c = {"a": 1.25, "b": -0.5, "slope": 2.0}
    return c["a"] + c["slope"] * x - c["b"]


def dict_get(x, k):
    d = {1: x, 2: 2.0}
    return d.get(k, -1.0) + d.get(2, 0.0)


def dict_items(x):
    d = dict(a=x, b=2.0)
    d["c"] = x * 3.0
    total = 0.0
    for v in d.values():
        total += v
    return total + len(d)


def test_local_dicts(backend):
    keys = np.array([1, 2, 3, 1, 3], dtype=np.int64)
    check(vectorize(dict_rates), *grid(X[:8], keys), backend=backend)
    check(vectorize(dict_of_values), *grid(X[:8], np.array([0, 1, 5], dtype=np.int64)), backend=backend)
    check(vectorize(named_constants), X, backend=backend)
    check(vectorize(dict_get), *grid(X[:8], np.array([0, 1, 2, 7], dtype=np.int64)), backend=backend)
    check(vectorize(dict_items), X, backend=backend)


def scheme_factors(x, rates, cap=None):
    # D14 values inside a local dict: a parameter dict read with a constant key, a `None` test.
    factors = {0: rates["base"], 1: rates["bonus"], 2: cap is not None}
    total = x * factors[0] + factors[1] * factors[2]
    return total if cap is None else min(total, cap)


def graded_rates(x, rates):
    steps = [rates["low"] * k for k in range(3)]
    return x * steps[2] + sum(steps)


def test_uniform_values_inside_local_containers(backend):
    # Compiling these crashed (`rates` and `cap` read only inside a dict display or a
    # comprehension were taken for numbers; fuzz seeds 561002 #898, 561003 #498, 561004 #900).
    rates = {"base": 0.25, "bonus": 40.0, "low": 1.5}
    check(vectorize(scheme_factors), X, rates, backend=backend)
    check(vectorize(scheme_factors), X, rates, 60.0, backend=backend)
    check(vectorize(graded_rates), X, rates, backend=backend)


def test_a_missing_key_raises_keyerror():
    with pytest.raises(KeyError) as info:
        vectorize(dict_of_values)(np.array([1.0, 2.0, 3.0]), np.array([0, 4, 1]))
    assert info.value.args == (4,)


# ----------------------------------------------------------------- aliases


def alias_append(x):
    a = [x]
    b = a
    b.append(2.0 * x)
    return len(a) + a[-1]


def alias_in_place(x):
    a = [x, 1.0]
    b = a
    b += [x * x]
    b[0] = -1.0
    return a[0] + a[2] + len(a)


def copy_is_separate(x):
    a = [x, 1.0]
    b = a.copy()
    b[0] = 5.0
    c = list(a)
    c.append(3.0)
    return a[0] + len(a) + b[0] + len(c)


def test_a_change_through_one_name_is_seen_through_the_others(backend):
    for fn in (alias_append, alias_in_place, copy_is_separate):
        check(vectorize(fn), X, backend=backend)


def branch_store(x):
    a = [0.0, 0.0]
    if x > 0.0:
        a[0] = x
    else:
        a[1] = x
    return a[0] - a[1]


def test_a_store_under_a_per_element_branch_selects(backend):
    check(vectorize(branch_store), X, backend=backend)


# ----------------------------------------------------------------- rejections (D10)


def grows_under_branch(x):
    kept = []
    if x > 0.0:
        kept.append(x)
    return len(kept)


def grows_in_while(x):
    seen = [x]
    while x > 1.0:
        x = x / 2.0
        seen.append(x)
    return seen[-1]


def _fill(values, x):
    values.append(x)
    return x


def changed_by_a_helper(x):
    values = [0.0]
    _fill(values, x)
    return values[0]


def stored_then_changed(x):
    inner = [x]
    outer = [inner, inner]
    inner.append(1.0)
    return outer[0][0]


def filtered(x):
    pos = [v for v in (x, -x) if v > 0.0]
    return pos[0]


def per_element_key(x, k):
    d = {1: x}
    d[k] = 2.0
    return d[1]


def returns_a_list(x):
    return [x, x]


@pytest.mark.parametrize(
    "fn, words",
    [
        (grows_under_branch, "different length on different elements"),
        (grows_in_while, "its length would depend on the elements"),
        (changed_by_a_helper, "a helper cannot change a list"),
        (stored_then_changed, "stored inside another container"),
        (filtered, "whose `if` depends on the elements"),
        (per_element_key, "a key that differs per element"),
        (returns_a_list, "cannot be an element of the result"),
    ],
)
def test_what_cannot_be_exact_is_rejected_where_it_happens(fn, words):
    with pytest.raises(VectorizationError) as info:
        vectorize(fn)
    assert words in str(info.value)
    assert "D18" in str(info.value) or "D13" in str(info.value)
    # Positioned where the change is: in the function, or in the helper that makes it.
    line = info.value.diagnostics[0]["line"]
    assert line > fn.__code__.co_firstlineno or fn is changed_by_a_helper


def test_math_constant_items_stay_exact(backend):
    def circle(r):
        c = [math.pi, math.tau, 2.0]
        return c[0] * r * r + c[1] * r - c[2]

    check(vectorize(circle), X, backend=backend)
