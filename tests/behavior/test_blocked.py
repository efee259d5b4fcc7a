"""Cache-blocked evaluation (hook_py/array_vectorize/runtime/blocked.py): a large NumPy call runs
the generated body over blocks written into one preallocated output. Its results must be the
whole-array call's, bit for bit and dtype included (so CPython's, element by element), whatever
the shapes, strides and kinds of the arguments; other namespaces are never blocked.

The fixture shrinks the blocks to a few elements so that every call here is cut into many."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime import blocked
from behavior.test_language import CASES
from oracle import BACKENDS, BOOL_EDGES, check, floats, grid, ints, to_backend, to_numpy, uints

THRESHOLD = 20
BLOCK = 7


@pytest.fixture
def blocks(monkeypatch):
    """Blocking from 20 elements on, in blocks of 7, for every function; returns the list of
    calls that really ran blocked (one entry per call that was not declined)."""
    monkeypatch.setattr(blocked, "THRESHOLD", THRESHOLD)
    monkeypatch.setattr(blocked, "BLOCK", BLOCK)
    monkeypatch.setattr(blocked, "MIN_OPERATIONS", 0)
    ran = []
    run = blocked._run_blocked

    def counting(dispatch, args):
        result = run(dispatch, args)
        if result is not blocked._DECLINED:
            ran.append(dispatch.entry.__name__)
        return result

    monkeypatch.setattr(blocked, "_run_blocked", counting)
    return ran


def whole(vec, *args):
    """`vec(*args)` evaluated without blocks."""
    saved = blocked.THRESHOLD
    blocked.THRESHOLD = 1 << 62
    try:
        return vec(*args)
    finally:
        blocked.THRESHOLD = saved


def assert_bitwise(got, want):
    """Same dtype, shape and bits; NaNs only need to be NaN in the same lanes (docs/semantics.md
    item 18: a NaN's sign is not a result; the runtime's integer `0 / 0` already gives one sign
    or the other depending on whether any lane of the call needs its exact division path)."""
    got, want = np.array(to_numpy(got)), np.array(to_numpy(want))
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if got.dtype.kind == "f":
        nan = np.isnan(got)
        np.testing.assert_array_equal(nan, np.isnan(want))
        got[nan] = want[nan] = 0.0
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


def case_args(kinds):
    columns = {"f": floats(12), "i": ints(8), "u": uints(6), "b": np.array(BOOL_EDGES * 15)}
    if len(kinds) == 3:
        columns = {"f": floats(0)[:14], "i": ints(0), "u": uints(0), "b": np.array(BOOL_EDGES)}
    return grid(*[columns[k] for k in kinds])


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_language_case_gives_the_whole_calls_bits(name, blocks):
    fn, kinds, ulps = CASES[name]
    vec = vectorize(fn)
    args = case_args(kinds)
    got = check(vec, *args, ulps=ulps)
    assert_bitwise(got, whole(vec, *args))
    # With a uint64 argument the grid puts negative lanes in some blocks only: those blocks
    # return int64 and the others uint64 (item 13), so the blocked run is abandoned for the whole
    # call, which the comparison above checked.
    assert blocks or "u" in kinds, "the call was not blocked"


def power(a, b):
    return a ** b


def difference(u, v):
    return u - v


def test_int_powers_decide_their_dtype_over_the_whole_array(blocks):
    # Only the last block has a negative exponent: CPython's floats for every lane (item 12).
    a = np.arange(-30, 30, dtype=np.int64)
    b = np.full(60, 2, dtype=np.int64)
    b[-1] = -1
    vec = vectorize(power)
    got = check(vec, a, b)
    assert got.dtype == np.float64
    assert_bitwise(got, whole(vec, a, b))
    b[-1] = 3  # no negative exponent anywhere: int64, blocked all the way
    got = check(vec, a, b)
    assert got.dtype == np.int64 and blocks
    assert_bitwise(got, whole(vec, a, b))


def test_uint64_results_decide_their_dtype_over_the_whole_array(blocks):
    # uint64 when no lane is negative, else int64 (item 13): one negative lane in a middle block.
    u = np.arange(2**63, 2**63 + 50, dtype=np.uint64)
    v = np.full(50, 5, dtype=np.uint64)
    vec = vectorize(difference)
    got = check(vec, u, v)
    assert got.dtype == np.uint64 and blocks
    assert_bitwise(got, whole(vec, u, v))
    u[23] = 1
    got = check(vec, u, v)
    assert got.dtype == np.int64
    assert_bitwise(got, whole(vec, u, v))


def tax_due(income, allowance, rate):
    taxable = income - allowance
    if taxable <= 0.0:
        return 0.0
    if taxable > 50_000.0:
        return 50_000.0 * rate + (taxable - 50_000.0) * (rate + 0.2)
    return taxable * rate


def _incomes(shape, seed=3):
    return np.random.default_rng(seed).uniform(-10_000.0, 150_000.0, shape)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: (_incomes((40, 6)), np.linspace(0.0, 20_000.0, 6), 0.25), id="rows-broadcast-last-axis"),
        pytest.param(lambda: (_incomes((1, 30)), np.linspace(0.0, 20_000.0, 45)[:, None], 0.3), id="outer-product"),
        pytest.param(lambda: (_incomes(90)[::3], 12_000.0, 0.2), id="strided"),
        pytest.param(lambda: (np.asfortranarray(_incomes((9, 8))), _incomes((9, 8), 4) / 10, 0.2), id="fortran-order"),
        pytest.param(lambda: (_incomes(50), np.asarray(11_000.0), np.float64(0.21)), id="0-d-and-numpy-scalar"),
        pytest.param(lambda: (_incomes((3, 4, 5)), _incomes((3, 4, 5), 5) / 10, _incomes((4, 5), 6) / 1e6), id="3-d"),
        pytest.param(lambda: (_incomes(60).astype(np.float32), 9_000.0, 0.2), id="float32-exact-path"),
    ],
)
def test_shapes_strides_and_kinds(make, blocks):
    args = make()
    vec = vectorize(tax_due)
    got = check(vec, *args)
    assert_bitwise(got, whole(vec, *args))


RATES = np.array([0.1, 0.2, 0.3])


def test_large_inputs_of_other_namespaces_are_never_blocked(blocks):
    args = case_args("ff")
    vec = vectorize(tax_due)
    calls = []
    for backend in sorted(BACKENDS):
        if backend != "numpy":
            calls.append([to_backend(a, backend) for a in args])
    da = pytest.importorskip("dask.array")
    calls.append([da.from_array(a, chunks=100) for a in args])
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)  # Python floats are float64
    calls.append([jax.numpy.asarray(a) for a in args])
    for call in calls:
        got, want = vec(*call, 0.25), whole(vec, *call, 0.25)
        if isinstance(got, da.Array):
            got, want = got.compute(), want.compute()
        assert_bitwise(got, want)
    assert not blocks


def test_functions_with_hidden_arrays_are_not_blocked(blocks):
    def scaled(x):
        return x * RATES

    vec = vectorize(scaled)
    x = _incomes((40, 3))
    np.testing.assert_array_equal(vec(x), x * RATES)
    assert not blocks


def test_threads_block_independently(blocks):
    vec = vectorize(tax_due)
    inputs = [(_incomes(500, seed), 10_000.0 + seed, 0.2) for seed in range(4)]
    expected = [whole(vec, *a) for a in inputs]
    results = [None] * 4

    def work(i):
        for _ in range(20):
            results[i] = vec(*inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected):
        assert_bitwise(got, want)
    assert blocks


def test_light_bodies_are_left_whole(monkeypatch, blocks):
    monkeypatch.setattr(blocked, "MIN_OPERATIONS", 5)

    def floor_at(x, c):
        return max(x, c)

    vec = vectorize(floor_at)
    x = _incomes(100)
    check(vec, x, 20_000.0)
    assert not blocks
    vec = vectorize(tax_due)  # its body makes more than five operations
    check(vec, x, 20_000.0, 0.2)
    assert blocks
