"""`max`/`min` against a parameter passed as a number (runtime/select.py `_vec_pick`): on NumPy
the float body takes one `maximum`/`minimum` pass when the number is neither NaN nor zero, and
must still give CPython's result in every lane: NaN on either side, ties of 0.0 and -0.0,
infinities, subnormals; in both argument orders, and in a clamp."""

from __future__ import annotations

import importlib.util
import itertools
import math

import numpy as np
import pytest

from array_vectorize import vectorize
from oracle import check, floats

NUMBERS = [math.nan, 0.0, -0.0, 1.5, -2.5, math.inf, -math.inf, 5e-324, -5e-324, 1e300]


def floor_at(x, c):
    return max(x, c)


def cap_at(x, c):
    return min(x, c)


def floor_first(x, c):
    return max(c, x)


def band(x, lo, hi):
    return min(max(x, lo), hi)


def price_floor(price, floor):
    """A price never below the regulated floor, nor above 3x it."""
    floored = max(price, floor)
    return min(floored, 3.0 * floor)


@pytest.mark.parametrize("fn", [floor_at, cap_at, floor_first, price_floor], ids=lambda f: f.__name__)
@pytest.mark.parametrize("c", NUMBERS, ids=repr)
def test_against_a_number(fn, c, backend):
    check(vectorize(fn), floats(30), c, backend=backend)


@pytest.mark.parametrize("lo", NUMBERS[:5], ids=repr)
@pytest.mark.parametrize("hi", NUMBERS[:5], ids=repr)
def test_band_with_numbers(lo, hi, backend):
    check(vectorize(band), floats(30), lo, hi, backend=backend)


def test_against_arrays_of_bounds(backend):
    x = floats(30)
    lo = np.resize(np.array(NUMBERS), x.shape)
    hi = lo[::-1].copy()
    check(vectorize(band), x, lo, hi, backend=backend)
    check(vectorize(floor_at), x, lo, backend=backend)


def test_all_numbers_give_a_0d_array_as_before():
    got = vectorize(floor_at)(1.0, 2.5)
    assert isinstance(got, np.ndarray) and got.shape == () and float(got) == 2.5


# ---- large arrays: the checked pass (runtime/select.py, issue 15 item 4) ------------------------
#
# From CHECKED_PASS_MIN elements on, NumPy arrays take one maximum/minimum/clip pass, kept only
# when its result holds no NaN and no zero. Each case puts one edge value into one operand at a
# lane of the SIMD body and at the last lane (a loop tail), over random values that alone would
# keep the pass; CPython's result is computed lane by lane and compared bit for bit (NaN with NaN).

from array_vectorize.runtime import select as _select  # noqa: E402

N_LARGE = 3 * _select.CHECKED_PASS_MIN + 5
EDGES = [math.nan, -math.nan, 0.0, -0.0, math.inf, -math.inf, 5e-324, -5e-324]


def _operands(rng, n):
    return [rng.normal(0.0, 1.0, n), rng.uniform(-1.5, -0.5, n), rng.uniform(0.5, 1.5, n)]


def _cpython_bits(fn, args):
    lists = [a.tolist() for a in args]
    expected = np.array([fn(*lane) for lane in zip(*lists)], dtype=np.float64)
    return expected


def _assert_bitwise(got, expected):
    got = np.asarray(got)
    assert got.dtype == np.float64 and got.shape == expected.shape
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(got), nan), np.flatnonzero(np.isnan(got) != nan)[:5]
    same_bits = got.view(np.int64) == expected.view(np.int64)
    bad = np.flatnonzero(~same_bits & ~nan)
    assert bad.size == 0, f"lane {bad[0]}: got {got[bad[0]]!r}, CPython {expected[bad[0]]!r}"


def _record_outcomes(monkeypatch, check_name):
    """The outcomes of runtime/select.py's result check `check_name` in a test: [True, False,
    ...] (True: the one pass kept)."""
    outcomes = []
    check = getattr(_select, check_name)

    def recording(r):
        ok = check(r)
        outcomes.append(ok)
        return ok

    monkeypatch.setattr(_select, check_name, recording)
    return outcomes


@pytest.fixture
def kept_passes(monkeypatch):
    """The outcomes of the large arrays' result check (``_no_nan_no_zero``) in a test."""
    return _record_outcomes(monkeypatch, "_no_nan_no_zero")


def _cases():
    for operand in range(3):
        for value in EDGES:
            yield operand, value, None
    # Ties: x equal to a bound, zeros of both signs and a number.
    for tie in (0.0, -0.0, 0.75, -0.75):
        for operand in (1, 2):
            for other_zero in (0.0, -0.0):
                yield operand, tie, other_zero if tie == 0.0 else None


@pytest.mark.parametrize("fn", [band, floor_at, cap_at, floor_first], ids=lambda f: f.__name__)
@pytest.mark.parametrize(("operand", "value", "x_value"), list(_cases()), ids=repr)
def test_large_arrays_with_an_edge_value(fn, operand, value, x_value, backend, kept_passes):
    rng = np.random.default_rng(7)
    args = _operands(rng, N_LARGE)
    if fn is cap_at:
        args[1] = args[2]  # min(x, c): c the upper bound
    args = args[: fn.__code__.co_argcount]
    if operand < len(args):
        for lane in (N_LARGE // 2, N_LARGE - 1):
            args[operand][lane] = value
            if x_value is not None:
                args[0][lane] = x_value
    expected = _cpython_bits(fn, args)
    _assert_bitwise(vectorize(fn)(*[np.asarray(a) if backend == "numpy" else _to(backend, a) for a in args]), expected)
    if backend == "numpy":
        assert kept_passes, "the checked pass did not run"
    else:
        assert not kept_passes


def _to(backend, a):
    from oracle import to_backend

    return to_backend(a, backend)


def test_the_pass_is_kept_on_clean_inputs_and_redone_on_edges(kept_passes):
    rng = np.random.default_rng(3)
    x, lo, hi = _operands(rng, N_LARGE)
    _assert_bitwise(vectorize(band)(x, lo, hi), _cpython_bits(band, [x, lo, hi]))
    assert kept_passes == [True]
    x[100] = -0.0
    lo[100] = 0.0
    kept_passes.clear()
    _assert_bitwise(vectorize(band)(x, lo, hi), _cpython_bits(band, [x, lo, hi]))
    assert kept_passes == [False]
    # Below the threshold no pass is tried.
    kept_passes.clear()
    small = [a[: _select.CHECKED_PASS_MIN - 1] for a in (x, lo, hi)]
    _assert_bitwise(vectorize(band)(*small), _cpython_bits(band, small))
    assert kept_passes == []


def test_a_clip_whose_bounds_cross(kept_passes):
    """lo > hi: CPython's min(max(x, lo), hi) is hi; NumPy's clip is documented alike."""
    rng = np.random.default_rng(5)
    x, lo, hi = _operands(rng, N_LARGE)
    _assert_bitwise(vectorize(band)(x, hi, lo), _cpython_bits(band, [x, hi, lo]))
    assert kept_passes == [True]


def test_small_arrays_of_one_shape_every_edge_combination(kept_passes):
    """Below CHECKED_PASS_MIN, NumPy bounds of x's shape whose clip result holds a NaN or a zero
    take the comparisons written into a copy of x (``_vec_clip``'s ``copyto``): every
    combination of edge values and ties, bit for bit, and the inputs are left as they were."""
    values = EDGES + [0.75, -0.75]
    x, lo, hi = (np.ascontiguousarray(row) for row in np.array(list(itertools.product(values, repeat=3))).T)
    before = [a.copy() for a in (x, lo, hi)]
    _assert_bitwise(vectorize(band)(x, lo, hi), _cpython_bits(band, [x, lo, hi]))
    assert kept_passes == []
    for a, b in zip((x, lo, hi), before):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))


# ---- arrays of blocked.THRESHOLD elements on: the checked pass block by block --------------------
#
# C-contiguous float64 arrays of one shape take the checked pass one block (blocked.BLOCK
# elements) at a time (`_checked_blocks`): a block whose result holds a NaN or a zero gets the
# comparisons instead, the others keep the pass. Edge values in two blocks (one of them the
# short last block) and clean blocks around them, bit for bit against CPython.

from array_vectorize.runtime import blocked as _blocked  # noqa: E402

N_BLOCKED = _blocked.THRESHOLD + _blocked.BLOCK // 2 + 3


@pytest.fixture
def redone_blocks(monkeypatch):
    """The sizes of the blocks whose checked pass was redone by the comparisons in a test."""
    sizes = []
    clip_into, pick_into = _select._clip_into, _select._pick_into

    def recording_clip(copyto, r, *parts):
        sizes.append(r.size)
        clip_into(copyto, r, *parts)

    def recording_pick(op):
        into = pick_into(op)

        def recording(copyto, r, *parts):
            sizes.append(r.size)
            into(copyto, r, *parts)

        return recording

    monkeypatch.setattr(_select, "_clip_into", recording_clip)
    monkeypatch.setattr(_select, "_pick_into", recording_pick)
    return sizes


@pytest.mark.parametrize("fn", [band, floor_at, cap_at, floor_first], ids=lambda f: f.__name__)
def test_blocks_keep_clean_blocks_and_redo_those_with_an_edge(fn, redone_blocks):
    rng = np.random.default_rng(23)
    args = _operands(rng, N_BLOCKED)
    if fn is cap_at:
        args[1] = args[2]
    args = args[: fn.__code__.co_argcount]
    _assert_bitwise(vectorize(fn)(*args), _cpython_bits(fn, args))
    assert redone_blocks == []
    # Block 1: ties of zeros of both signs between x and the bound (NumPy's maximum and
    # minimum give their second operand, CPython keeps the first); block 2: NaN in x; the
    # last (short) block: NaN in the bound (CPython keeps x), at its last lane too.
    block = _blocked.BLOCK
    args[0][block + 5], args[1][block + 5] = -0.0, 0.0
    args[0][block + 6], args[1][block + 6] = 0.0, -0.0
    args[0][2 * block + 7] = math.nan
    args[1][N_BLOCKED - 9] = args[1][N_BLOCKED - 1] = math.nan
    _assert_bitwise(vectorize(fn)(*args), _cpython_bits(fn, args))
    assert sorted(redone_blocks) == [block // 2 + 3, block, block]


def test_blocks_cut_c_contiguous_arrays_of_any_shape_and_not_strided_views(redone_blocks, kept_passes):
    """A 2-d C-contiguous call is cut flat into blocks; a strided view is not (the whole pass,
    as before): CPython's result, bit for bit, either way."""
    rng = np.random.default_rng(29)
    x, lo, hi = _operands(rng, 2 * N_BLOCKED)
    x[7], lo[7] = -0.0, 0.0  # a tie of zeros in the strided view's first block
    strided = [a[::2] for a in (x, lo, hi)]
    _assert_bitwise(vectorize(band)(*strided), _cpython_bits(band, strided))
    assert kept_passes == [True] and redone_blocks == []  # lane 7 is not in the view
    square = [a[: 384 * 384].reshape(384, 384) for a in (x, lo, hi)]
    _assert_bitwise(vectorize(band)(*square), _cpython_bits(band, [a.reshape(-1) for a in square]).reshape(384, 384))
    assert kept_passes == [True] and redone_blocks == [_blocked.BLOCK]


# ---- small arrays of one shape: the clip ufunc, checked by count_nonzero and vdot -----------------


@pytest.fixture
def kept_small(monkeypatch):
    """The outcomes of the small arrays' result check (``_small_no_nan_no_zero``) in a test."""
    return _record_outcomes(monkeypatch, "_small_no_nan_no_zero")


@pytest.mark.parametrize("shape", [(10,), (3, 4), (1,)], ids=str)
@pytest.mark.parametrize(("operand", "value", "x_value"), list(_cases()), ids=repr)
def test_small_arrays_with_an_edge_value(operand, value, x_value, shape, kept_small):
    """One edge value (NaN of either sign, a zero, an infinity, a subnormal, a tie of x with a
    bound) in one operand at the last lane of otherwise ordinary values: alone it must send the
    call from the clip ufunc to the comparisons when it would change a lane's bits; the result
    is CPython's, bit for bit, on 1-d and 2-d arrays (``vdot`` flattens)."""
    rng = np.random.default_rng(11)
    n = int(np.prod(shape))
    args = _operands(rng, n)
    args[operand][n - 1] = value
    if x_value is not None:
        args[0][n - 1] = x_value
    expected = _cpython_bits(band, args).reshape(shape)
    _assert_bitwise(vectorize(band)(*[a.reshape(shape) for a in args]), expected)
    assert len(kept_small) == 1, "the small clip pass did not run"


@pytest.mark.parametrize("n", [1, 10, 1000, _select.CHECKED_PASS_MIN - 1])
def test_small_clip_pass_is_kept_on_clean_inputs_and_redone_on_a_tie(n, kept_small, kept_passes):
    rng = np.random.default_rng(n)
    x, lo, hi = _operands(rng, n)
    _assert_bitwise(vectorize(band)(x, lo, hi), _cpython_bits(band, [x, lo, hi]))
    assert kept_small == [True] and kept_passes == []
    x[n // 2] = -0.0
    lo[n // 2] = 0.0
    kept_small.clear()
    _assert_bitwise(vectorize(band)(x, lo, hi), _cpython_bits(band, [x, lo, hi]))
    assert kept_small == [False]


# ---- constant bounds: `_vec_clip` with Python float bounds ------------------------------------
#
# `min(max(x, lo), hi)` with constants lo <= hi is `_vec_clip(xp, x, lo, hi)` in the float body:
# on NumPy arrays NumPy's clip ufunc (exact with no zero bound; with one zero bound the lanes
# where x is a zero get x back, below CHECKED_PASS_MIN), else `xp.clip`.


def saturation(x):
    """A colour channel saturated to [0, 1]."""
    return min(max(x, 0.0), 1.0)


def rail_voltage(v):
    """An op-amp output limited by its +-3.3 V rails."""
    return min(max(v, -3.3), 3.3)


def cooling_demand(q):
    """Heat flow a chiller can remove: never positive, at most 5 kW."""
    return min(max(q, -5e3), -0.0)


def signed_zero_floor(x):
    return max(min(x, 5e-324), -0.0)


def pinned_to_zero(x):
    """Both bounds zero (0.0 <= -0.0 holds): the ufunc is not used."""
    return min(max(x, 0.0), -0.0)


def unbounded(x):
    return min(max(x, -math.inf), math.inf)


CONSTANT_CLAMPS = [saturation, rail_voltage, cooling_demand, signed_zero_floor, pinned_to_zero, unbounded]
CLAMP_VALUES = EDGES + [0.0, -0.0, 1.0, -1.0, 3.3, -3.3, -5e3, 5e-324, 1e300, -1e300, 0.5]


BOUNDS = {
    saturation: (0.0, 1.0),
    rail_voltage: (-3.3, 3.3),
    cooling_demand: (-5e3, -0.0),
    signed_zero_floor: (-0.0, 5e-324),
    pinned_to_zero: (0.0, -0.0),
    unbounded: (-math.inf, math.inf),
}


@pytest.fixture
def clip_ufunc_calls(monkeypatch):
    """How many times `_vec_clip` called NumPy's clip ufunc in a test."""
    calls = []
    ufunc = _select._clip_ufunc or _select._numpy_clip_ufunc()

    def recording(*args):
        calls.append(args)
        return ufunc(*args)

    monkeypatch.setattr(_select, "_clip_ufunc", recording)
    return calls


@pytest.mark.parametrize("shape", [(1,), (10,), (4, 7), (3 * _select.CHECKED_PASS_MIN + 5,)], ids=str)
@pytest.mark.parametrize("fn", CONSTANT_CLAMPS, ids=lambda f: f.__name__)
def test_constant_bounds_on_numpy_bit_for_bit(fn, shape, clip_ufunc_calls):
    """Edge values, ties with both bounds, zeros of both signs and random values, bit for bit
    against CPython; NumPy's clip ufunc is used exactly where the rule above says."""
    vec = vectorize(fn)
    assert "_vec_clip(xp, " in vec.source.split("def _vec_exact")[0], vec.source
    n = int(np.prod(shape))
    rng = np.random.default_rng(n)
    x = rng.normal(0.0, 4.0, n)
    x[: min(n, len(CLAMP_VALUES))] = CLAMP_VALUES[: min(n, len(CLAMP_VALUES))]
    rng.shuffle(x)
    expected = _cpython_bits(fn, [x]).reshape(shape)
    _assert_bitwise(vec(x.reshape(shape)), expected)
    lo, hi = BOUNDS[fn]
    zeros = (lo == 0.0) + (hi == 0.0)
    uses_ufunc = zeros == 0 or (zeros == 1 and n < _select.CHECKED_PASS_MIN)
    assert len(clip_ufunc_calls) == uses_ufunc


@pytest.mark.parametrize("fn", CONSTANT_CLAMPS, ids=lambda f: f.__name__)
def test_constant_bounds_whatever_the_library_does_on_a_tie(fn, monkeypatch):
    """NumPy's clip loops have given the bound on a tie of zeros (NumPy 1: `x > lo ? x : lo`)
    or x (NumPy 2.4): with a ufunc that always takes the bound on a tie, the result is still
    CPython's, bit for bit (the lanes where x is a zero get x back)."""

    def clip_taking_the_bound(x, lo, hi):
        m = np.where(np.isnan(x) | (x > lo), x, lo)
        return np.where(np.isnan(m) | (m < hi), m, hi)

    monkeypatch.setattr(_select, "_clip_ufunc", clip_taking_the_bound)
    x = np.array(CLAMP_VALUES * 2)
    _assert_bitwise(vectorize(fn)(x), _cpython_bits(fn, [x]))


@pytest.mark.parametrize("fn", CONSTANT_CLAMPS, ids=lambda f: f.__name__)
def test_constant_bounds_on_every_backend(fn, backend):
    check(vectorize(fn), floats(30), backend=backend)
    check(vectorize(fn), np.array(CLAMP_VALUES), backend=backend)


def test_constant_bounds_on_numbers_and_0d_arrays():
    """All-scalar calls and 0-d arrays take `xp.clip`, as before: a 0-d array back."""
    for value in (-0.0, 0.5, 7.0, math.nan):
        for arg in (value, np.asarray(value)):
            got = vectorize(saturation)(arg)
            assert isinstance(got, (np.ndarray, np.floating)) and np.shape(got) == ()
            _assert_bitwise(np.asarray(got).reshape(1), _cpython_bits(saturation, [np.array([value])]))


BOUND_POOL = [-math.inf, -1e300, -3.3, -5e-324, -0.0, 0.0, 5e-324, 1.0, 3.3, 1e300, math.inf]


def _literal(v: float) -> str:
    return ("-math.inf" if v < 0 else "math.inf") if math.isinf(v) else repr(v)


def _clamp_module(tmp_path_factory):
    """One module of `min(max(x, lo), hi)` functions, one per pair lo <= hi of BOUND_POOL (and
    `max(min(x, hi), lo)`, the other order that is a clip), written to a file so that
    `vectorize` reads their source."""
    lines = ["import math", ""]
    pairs = [(lo, hi) for lo in BOUND_POOL for hi in BOUND_POOL if lo <= hi]
    for i, (lo, hi) in enumerate(pairs):
        lo, hi = _literal(lo), _literal(hi)
        lines += [f"def clamp_{i}(x):", f"    return min(max(x, {lo}), {hi})", ""]
        lines += [f"def clamp_rev_{i}(x):", f"    return max(min(x, {hi}), {lo})", ""]
    path = tmp_path_factory.mktemp("clamps") / "constant_clamps.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("constant_clamps", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, pairs


def test_every_pair_of_constant_bounds(tmp_path_factory):
    """Every pair lo <= hi of infinities, zeros of both signs, subnormals and numbers as the
    constant bounds of a clamp, in both orders that are a clip, on 10 and on 3 x 8 Ki + 5
    elements holding every value of the pool, NaN of both signs and random values: CPython's
    result, bit for bit."""
    module, pairs = _clamp_module(tmp_path_factory)
    rng = np.random.default_rng(17)
    values = np.array(BOUND_POOL + [math.nan, -math.nan, 0.5, -7.0])
    small = values[rng.permutation(len(values))][:10]
    large = rng.normal(0.0, 4.0, 3 * _select.CHECKED_PASS_MIN + 5)
    large[rng.choice(large.size, 200, replace=False)] = np.resize(values, 200)
    for i in range(len(pairs)):
        for name in (f"clamp_{i}", f"clamp_rev_{i}"):
            fn = getattr(module, name)
            vec = vectorize(fn)
            assert "_vec_clip(xp, " in vec.source.split("def _vec_exact")[0], (pairs[i], vec.source)
            for x in (small, large):
                _assert_bitwise(vec(x), _cpython_bits(fn, [x]))
