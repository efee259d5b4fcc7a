"""Several results (D13): `return a, b` gives a tuple of arrays, each position by the rules of a
single result, against CPython as the oracle on NumPy and array-api-strict; the arity errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from oracle import BOOL_EDGES, check, floats, grid, ints
from sourcefile import from_source


def divmod_like(x, m):
    return x // m, x % m


def mixed_kinds_per_position(x):
    if x > 0:
        return 1, x, True
    return 2.5, 3, x < -1


def constant_positions(x):
    return 1.0, 2


def one_tuple(x):
    return (x + 1.0,)


def edges_of_truth(x):
    return not x, bool(x), x or 5.0


def _pair(v):
    return v * 2.0, v - 1.0


def indexes_a_helper_result(x):
    r = _pair(x)
    return r[0] + r[-1]


def unpacks_in_a_loop(x):
    total = 0.0
    for i in range(3):
        a, b = _pair(x + i)
        total = total + a * b
    return total


def helper_tuple_returned(x):
    return _pair(x)


def _index_pair(v, i):
    if i % 2:
        return v * i, 1.0
    return v, 2.0


def tuple_under_index_branch(x):
    total = 0.0
    for i in range(3):
        a, b = _index_pair(x, i)
        total = total + a - b
    return total


def swaps_then_returns(x, y):
    if x < y:
        x, y = y, x
    return x, y


CASES = {
    "divmod_like": (divmod_like, "ff"),
    "divmod_like_ints": (divmod_like, "ii"),
    "mixed_kinds_per_position": (mixed_kinds_per_position, "f"),
    "constant_positions": (constant_positions, "f"),
    "one_tuple": (one_tuple, "f"),
    "edges_of_truth": (edges_of_truth, "f"),
    "indexes_a_helper_result": (indexes_a_helper_result, "f"),
    "unpacks_in_a_loop": (unpacks_in_a_loop, "f"),
    "helper_tuple_returned": (helper_tuple_returned, "f"),
    "swaps_then_returns": (swaps_then_returns, "ff"),
    "tuple_under_index_branch": (tuple_under_index_branch, "f"),
}

COLUMNS = {"f": floats(6, seed=2), "i": ints(6, seed=2), "b": np.array(BOOL_EDGES)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tuple_result_matches_cpython(name, backend):
    fn, kinds = CASES[name]
    args = grid(*[COLUMNS[k] for k in kinds])
    if name == "divmod_like_ints":
        args[1] = np.where(args[1] == 0, 3, args[1])  # integer // 0 is a D3 divergence, pinned elsewhere
    result = check(vectorize(fn), *args, backend=backend)
    assert isinstance(result, tuple) == isinstance(fn(*[1.5] * len(kinds)), tuple)


def test_each_position_has_its_own_kind():
    a, b, c = vectorize(mixed_kinds_per_position)(np.array([1.0, -2.0]))
    assert (a.dtype, b.dtype, c.dtype) == (np.float64, np.float64, np.bool_)
    a, b = vectorize(constant_positions)(np.zeros((2, 3)))
    assert (a.dtype, b.dtype, a.shape, b.shape) == (np.float64, np.int64, (2, 3), (2, 3))


def test_one_tuple_is_a_tuple():
    (a,) = vectorize(one_tuple)(np.array([1.0, 2.0]))
    assert a.tolist() == [2.0, 3.0]


def _error(source: str, glob: dict | None = None) -> VectorizationError:
    with pytest.raises(VectorizationError) as info:
        vectorize(from_source(source, glob))
    return info.value


def test_paths_of_different_arity_name_both_returns():
    err = _error("def f(x):\n    if x > 0:\n        return x, 1.0\n    return x\n")
    (d,) = err.diagnostics
    assert "the `return` at line 3 gives 2 values" in d["message"]
    assert "the `return` at line 4 gives 1 value" in d["message"]
    err = _error("def f(x):\n    if x > 0:\n        return x, 1.0, 2.0\n    return x, x\n")
    assert "line 3 gives 3 values" in str(err) and "line 4 gives 2 values" in str(err)


def test_nested_tuples_are_rejected():
    err = _error("def f(x):\n    return x, (x, 1.0)\n")
    assert "flat tuple" in str(err)


def test_tuple_returned_from_a_loop_is_rejected():
    err = _error("def f(x):\n    for i in range(3):\n        if x > i:\n            return x, i\n    return 0.0, 0\n")
    assert "inside a loop" in str(err)


def test_tuple_used_as_a_number_is_rejected():
    err = _error("def f(x):\n    return pair(x) + 1.0\n", {"pair": _pair})
    assert "supports `+` with another of its kind" in str(err)
    err = _error("def f(x):\n    return -pair(x)\n", {"pair": _pair})
    assert "used as one value" in str(err)


def test_unpacking_errors():
    err = _error("def f(x):\n    a, b, c = pair(x)\n    return a\n", {"pair": _pair})
    assert "cannot unpack 2 values into 3 names" in str(err)
    err = _error("def f(x):\n    r = pair(x)\n    return r[2]\n", {"pair": _pair})
    assert "tuple index out of range" in str(err)


def _digits(x):
    text = str(abs(int(x)))
    return len(text), int(text[0])


def test_fallback_element_loop_returns_a_tuple():
    vec = vectorize(_digits, fallback=True)
    values = np.array([0.0, 7.5, 123.0, -4567.0])
    count, first = vec(values)
    assert count.tolist() == [_digits(v)[0] for v in values.tolist()]
    assert first.tolist() == [_digits(v)[1] for v in values.tolist()]
