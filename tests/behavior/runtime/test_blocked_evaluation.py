"""Cache-blocked evaluation (hook_py/array_vectorize/runtime/blocked.py): a large NumPy call runs
the generated body over blocks written into one preallocated output. Its results must be the
whole-array call's, bit for bit and dtype included (so CPython's, element by element), whatever
the shapes, strides and kinds of the arguments; other namespaces are never blocked.

The fixture shrinks the blocks to a few elements so that every call here is cut into many."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from array_vectorize import vectorize
from array_vectorize.runtime import blocked, threads
from behavior.language.test_constructs import CASES
from oracle import BACKENDS, BOOL_EDGES, check, floats, grid, ints, to_backend, to_numpy, uints

THRESHOLD = 20
BLOCK = 7


@pytest.fixture(params=["1", "4"], ids=["one-thread", "four-threads"])
def blocks(monkeypatch, request):
    """Blocking from 20 elements on, in blocks of 7, for every function, the blocks after the
    first in the calling thread alone or on four threads (runtime/threads.py); returns the list
    of calls that really ran blocked (one entry per call that was not declined)."""
    monkeypatch.setenv(threads.THREADS_ENV, request.param)
    monkeypatch.setattr(blocked, "MIN_PARALLEL_SECONDS_PER_ELEMENT", 0.0)  # blocks of 7 are light
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
    got, want = got.reshape(-1), want.reshape(-1)  # a 0-d array has no byte view
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
    if got is None:  # item 13's OverflowError (an int beyond the uint64 lattice): whole too
        with pytest.raises(OverflowError, match="item 13"):
            whole(vec, *args)
    else:
        assert_bitwise(got, whole(vec, *args))
    # Calls on float64 arrays and floats are blocked (blocked.send_large: the exact body makes
    # whole-array decisions per block), and calls on int64 arrays whose int body is lane-wise
    # (test_blocked_int_body.py).
    lanewise = set(kinds) == {"i"} and any(
        type(v) is blocked.Dispatch and v.int_blocks for v in vec.__globals__.values()
    )
    assert bool(blocks) == (set(kinds) == {"f"} or lanewise), (kinds, blocks)


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
    b[-1] = 3  # no negative exponent anywhere: int64
    got = check(vec, a, b)
    assert got.dtype == np.int64 and not blocks  # int arguments run whole
    assert_bitwise(got, whole(vec, a, b))


def test_uint64_results_decide_their_dtype_over_the_whole_array(blocks):
    # uint64 when no lane is negative, else int64 (item 13): one negative lane in a middle block.
    u = np.arange(2**63, 2**63 + 50, dtype=np.uint64)
    v = np.full(50, 5, dtype=np.uint64)
    vec = vectorize(difference)
    got = check(vec, u, v)
    assert got.dtype == np.uint64 and not blocks  # uint64 arguments run whole
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


class UnitsNotSet(Exception):
    """A module-level exception class: a hidden object of the generated module (D21)."""


PLANT = {"units": "SI", "fouling": 0.0002}


def film_coefficient(re, pr):
    # Heat transfer: a module-level settings dict (D14, frozen at compile time, D8) and a
    # module-level exception class, read whole by every block; then the laminar or the
    # Dittus-Boelter correlation per element.
    if PLANT["units"] != "SI":
        raise UnitsNotSet(f"units {PLANT['units']!r}")
    if re < 2300.0:
        return 3.66 + PLANT["fouling"] * re
    return 0.023 * re**0.8 * pr**0.4


def test_functions_reading_module_objects_are_blocked(blocks):
    # Hidden objects (settings dicts, strings, exception classes) are the same in every block:
    # such a function is blocked like one that binds nothing (emit.shares_hidden).
    vec = vectorize(film_coefficient)
    re, pr = grid(np.array([0.0, 1.0, 2299.0, 2300.0, 1e4, 1e6, math.inf, math.nan]), np.array([0.7, 5.0, 100.0, 0.0, -0.0]))
    got = check(vec, re, pr)
    assert_bitwise(got, whole(vec, re, pr))
    assert blocks == ["film_coefficient"]


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


# ---- blocks on several threads (runtime/threads.py) ----------------------------------------------


@pytest.fixture
def slow_low_blocks(monkeypatch):
    """Blocks below the fourth take 20 ms longer, so that other threads finish higher blocks
    first; returns the threads (idents) that ran each block's lanes, by first lane."""
    ran_on = {}
    call = blocked._call_block

    def slow(dispatch, args, lo, block, shape):
        ran_on[lo] = threading.get_ident()
        if lo < 4 * BLOCK:
            time.sleep(0.02)
        return call(dispatch, args, lo, block, shape)

    monkeypatch.setattr(blocked, "_call_block", slow)
    return ran_on


#: NumPy 1 keeps errstate per thread, so its blocked calls stay in the calling thread.
needs_context_errstate = pytest.mark.skipif(
    not threads.numpy_errstate_is_a_context_variable(np), reason="NumPy 1: blocks stay in the calling thread"
)


@needs_context_errstate
def test_blocks_run_on_several_threads_with_the_sequential_bits(monkeypatch, blocks, slow_low_blocks):
    monkeypatch.setenv(threads.THREADS_ENV, "4")
    vec = vectorize(tax_due)
    args = (_incomes(200), np.linspace(0.0, 30_000.0, 200), 0.22)
    got = check(vec, *args)
    assert_bitwise(got, whole(vec, *args))
    assert len(set(slow_low_blocks.values())) > 1, "every block ran in the calling thread"


def _no_pool(workers):
    raise AssertionError("the pool was used")


def test_blocks_of_a_light_body_stay_in_the_calling_thread(monkeypatch, blocks):
    # The first block decides: a body faster than MIN_PARALLEL_SECONDS_PER_ELEMENT keeps the
    # others in this thread (on light bodies the threads mostly wait for each other's GIL).
    monkeypatch.setenv(threads.THREADS_ENV, "4")
    monkeypatch.setattr(blocked, "MIN_PARALLEL_SECONDS_PER_ELEMENT", 1.0)

    monkeypatch.setattr(threads, "pool", _no_pool)
    vec = vectorize(tax_due)
    args = (_incomes(200), 12_000.0, 0.2)
    assert_bitwise(check(vec, *args), whole(vec, *args))
    assert blocks


def checked_reading(rh, t):
    if rh > 1.0:
        raise ValueError(f"relative humidity {rh} above saturation")
    if t < -273.15:
        raise OverflowError(f"temperature {t} below absolute zero")
    return rh * 6.112 * math.exp(17.62 * t / (243.12 + t))


def _raised(vec, *args):
    with pytest.raises(Exception) as info:
        vec(*args)
    exc = info.value
    return type(exc), exc.args, getattr(exc, "__notes__", None)


@pytest.mark.parametrize("shape", [(120,), (24, 5)], ids=["1-d", "2-d"])
@pytest.mark.parametrize("first, later", [(10, 100), (100, 10)], ids=["lower-block-first", "higher-block-first"])
def test_the_lowest_raising_block_decides_and_its_note_names_the_whole_calls_element(
    shape, first, later, blocks, slow_low_blocks
):
    # Two lanes raise different exceptions, in blocks 1 and 14; the lower block is slowed down,
    # so on several threads the higher one fails first. CPython's element loop raises at the
    # first in C order; the note names its place in the whole call, not in its block.
    rh = np.full(120, 0.5)
    t = np.linspace(-40.0, 45.0, 120)
    rh[first] = 1.5
    t[later] = -300.0
    vec = vectorize(checked_reading)
    got = _raised(vec, rh.reshape(shape), t.reshape(shape))
    assert got == _raised(whole, vec, rh.reshape(shape), t.reshape(shape))
    wanted = ValueError if first < later else OverflowError
    index = min(first, later)
    assert got[0] is wanted
    element = tuple(int(i) for i in np.unravel_index(index, shape))
    assert got[2] == [f"array-vectorize: raised for element {element} (flat index {index})"]


def test_int_arguments_run_whole_where_a_merge_decides_over_the_whole_array(blocks):
    # A select of an int and a float makes every lane float once any lane takes the float
    # side: the lanes of a block where none does would wrap at 64 bits instead of rounding in
    # float (fuzz campaign 29). Int arguments are therefore never blocked.
    def settle_square(p1, p2):
        w = 0
        while w < 1 and not p2:
            w += 1
            p1 = 1.0
            return 0.5
        return p1 * p1

    vec = vectorize(settle_square)
    p1 = np.full(60, 3, dtype=np.int64)
    p1[19] = -(2**63) + 1
    p2 = np.ones(60)
    p2[0] = 0.0  # only block 0 takes the float side
    assert_bitwise(vec(p1, p2), whole(vec, p1, p2))
    assert not blocks


def test_uint_arguments_with_a_raise_run_whole(blocks, slow_low_blocks):
    def settle(u, v):
        if u == 7:
            raise ValueError(f"account {u} is frozen")
        return u - v

    vec = vectorize(settle)
    u = np.arange(2**63, 2**63 + 120, dtype=np.uint64)
    v = np.full(120, 5, dtype=np.uint64)
    u[9] = 1  # block 1: a negative lane, int64 results (item 13): the blocked run is declined
    u[100] = 7  # block 14 raises
    assert _raised(vec, u, v) == _raised(whole, vec, u, v)
    u[9], u[100] = 7, 1  # the raise below, the negative lane above
    assert _raised(vec, u, v) == _raised(whole, vec, u, v)
    assert not blocks


TAX_BANDS = (0.0, 0.1, 0.2, 0.4)
BAND_RATES = {1: 0.1, 2: 0.2, 3: 0.4}


def test_table_errors_name_the_whole_calls_element(blocks, slow_low_blocks):
    def band_rate(level):
        return TAX_BANDS[int(level)]

    def keyed_rate(level):
        return BAND_RATES[int(level)]

    levels = np.full(90, 2.5)  # floats: only calls on floats are blocked
    levels[61] = 9.5
    for fn in (band_rate, keyed_rate):
        vec = vectorize(fn)
        got = _raised(vec, levels)
        assert got == _raised(whole, vec, levels)
        assert "element 61 (C order)" in got[2][0], got
    assert 56 in slow_low_blocks, "the call was not blocked"  # the block of element 61 ran


def _overflows_everywhere_but_block_zero():
    x = np.full(120, 2.0)
    x[BLOCK::BLOCK] = 1e200  # one lane in every block but the first
    return x


def squared_energy(x):
    return x * x * 0.5 + 1.0


@needs_context_errstate
def test_numpy_errstate_holds_in_worker_threads(monkeypatch, blocks, slow_low_blocks):
    monkeypatch.setenv(threads.THREADS_ENV, "4")
    vec = vectorize(squared_energy)
    x = _overflows_everywhere_but_block_zero()
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            whole(vec, x)
        with pytest.raises(FloatingPointError):
            vec(x)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a worker warning under its own default errstate fails
        with np.errstate(over="ignore"):
            assert_bitwise(vec(x), whole(vec, x))
    assert len(set(slow_low_blocks.values())) > 1


def test_thread_count_from_the_environment(monkeypatch, blocks):
    vec = vectorize(tax_due)
    args = (_incomes(100), 10_000.0, 0.2)
    want = whole(vec, *args)

    for value in ("1", "0", "-3", "many"):
        monkeypatch.setenv(threads.THREADS_ENV, value)
        with monkeypatch.context() as m:
            m.setattr(threads, "pool", _no_pool)
            if value == "1":
                assert_bitwise(vec(*args), want)
            else:
                threads._warned.discard(value)
                with pytest.warns(RuntimeWarning, match=f"{threads.THREADS_ENV}='{value}' is not a positive integer"):
                    assert_bitwise(vec(*args), want)
    monkeypatch.delenv(threads.THREADS_ENV)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert threads.threads() == max(1, min(cpus, threads.MAX_DEFAULT_THREADS))


#: A child script's settings: the fixture's tiny blocks, on threads whatever the body.
_TINY_BLOCKS = """from array_vectorize.runtime import blocked
blocked.THRESHOLD, blocked.BLOCK, blocked.MIN_OPERATIONS = 20, 7, 0
blocked.MIN_PARALLEL_SECONDS_PER_ELEMENT = 0.0
"""

_FORK_CHILD = """
import os, sys
import numpy as np
from array_vectorize import vectorize
from array_vectorize.runtime import threads
{tiny_blocks}
@vectorize
def premium(age, cover):
    if age < 30.0:
        return cover * 0.01
    return cover * (0.01 + (age - 30.0) * 0.0005)

age = np.linspace(18.0, 80.0, 200)
want = [premium._vectorized_original(a, 1e5) for a in age.tolist()]
assert premium(age, 1e5).tolist() == want
parents = threads._pool
assert parents is not None, "the parent's call did not use the pool"
pid = os.fork()
if pid == 0:
    ok = premium(age, 1e5).tolist() == want and threads._pool is not None and threads._pool is not parents
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@needs_context_errstate
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_makes_its_own_pool(tmp_path):
    # The parent's worker threads do not exist in the child: a child submitting to the
    # parent's pool would wait forever.
    script = tmp_path / "premiums.py"
    script.write_text(_FORK_CHILD.replace("{tiny_blocks}", _TINY_BLOCKS))
    env = {**os.environ, threads.THREADS_ENV: "2"}
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_call_does_its_blocks_itself_when_every_worker_is_busy(monkeypatch, blocks):
    # Workers can be busy for good (the endless blocks of a call interrupted earlier): a call
    # must not wait for tasks that no worker takes; its own thread does the blocks.
    monkeypatch.setenv(threads.THREADS_ENV, "3")
    assert threads.try_acquire()
    try:
        pool = threads.pool(2)
    finally:
        threads.release()
    gate = threading.Event()
    for _ in range(pool.size):
        pool.submit(gate.wait)
    vec = vectorize(tax_due)
    args = (_incomes(120), 12_000.0, 0.2)
    want = whole(vec, *args)
    results = []
    caller = threading.Thread(target=lambda: results.append(vec(*args)))
    try:
        caller.start()
        caller.join(timeout=30)
        finished = not caller.is_alive()
    finally:
        gate.set()
        caller.join()
    assert finished, "the call waited for a busy pool"
    assert_bitwise(results[0], want)


_ENDLESS_CHILD = """
import signal
# As in an interactive interpreter: a process started in the background of a shell without job
# control (a CI runner's) inherits SIGINT ignored, and Python then installs no handler for it.
signal.signal(signal.SIGINT, signal.default_int_handler)
import numpy as np
from array_vectorize import vectorize
{tiny_blocks}
@vectorize
def relax(x):
    while x == x:  # a number never leaves (as in CPython); NaN leaves at once
        x = x * 1.0
    return x

x = np.full(70, np.nan)
x[7::7] = 1.0  # an endless lane in every block but the first: on every thread
print("calling", flush=True)
relax(x)
"""


@needs_context_errstate
@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_ctrl_c_on_an_endless_call_lets_the_interpreter_exit(tmp_path):
    # Ctrl-C reaches the main thread only: the workers go on with their endless blocks, and
    # must not keep the interpreter from exiting (daemon threads, runtime/threads.py Pool).
    script = tmp_path / "relax.py"
    script.write_text(_ENDLESS_CHILD.replace("{tiny_blocks}", _TINY_BLOCKS))
    env = {**os.environ, threads.THREADS_ENV: "3"}
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "calling"
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()  # a no-op once it has exited
        proc.communicate()
    assert "KeyboardInterrupt" in err, err


def settlement_units(notional, rate, mode, limits):
    # A uniform mode string and parameter dict (D14) beside float arrays: the float prologue
    # does not see them. `units` is an int on one path and a float on the other (item 8).
    if mode != "netted":
        return notional
    try:
        units = notional % rate
        units = 1.0
    except ArithmeticError:
        units = limits["floor"]
    return round(1 // (units + 0.5))  # an int conversion of a finite float (item 7)


def test_uniform_parameters_do_not_send_a_large_call_to_the_exact_body(blocks):
    # Fuzz campaign 47, seed 510009 #732: with a uniform parameter, a large call went to the
    # exact body (the dispatch saw a string among its arguments): int64 where the same function
    # gives float64 on small calls. Now it is blocked like any float call, with the whole
    # call's dtype and bits.
    vec = vectorize(settlement_units)
    rate = np.array([0.0, 1.0, 0.0, 2.0, 0.0, -1.0, 0.5] * 6)
    notional = np.linspace(-3.0, 3.0, rate.size)
    limits = {"floor": 0}
    with np.errstate(all="ignore"):
        small = vec(notional[:5], rate[:5], "netted", limits)
        got = vec(notional, rate, "netted", limits)
        want = whole(vec, notional, rate, "netted", limits)
    assert small.dtype == got.dtype == want.dtype == np.float64
    assert_bitwise(got, want)
    assert blocks == ["settlement_units"]
    with np.errstate(all="ignore"):
        assert_bitwise(vec(notional, rate, "gross", limits), notional)


def clearance(load, margin):
    # An int `margin` sends the call to the exact body, whole (never blocked: runtime/blocked.py).
    if load > margin:
        return load - margin
    return 0.0


@pytest.mark.parametrize("via", ["shared", "own"], ids=["shared-prologue", "own-prologue"])
def test_an_interrupt_after_the_mark_leaves_no_mark_behind(blocks, monkeypatch, via):
    # Issue 28 item 7: a KeyboardInterrupt between the prologue's `send_large` and the dispatch
    # left the mark on the thread, naming the caller's array; the next call with that array and
    # a Python int was then evaluated in blocks. The mark now names the call's own frame.
    vec = vectorize(clearance)
    load = np.linspace(-4.0, 9.0, 43)
    if via == "own":
        vec(load[:3], 1.5)  # the function's own prologue (a first call specializes it)
    send = blocked.send_large

    def interrupted(marker):
        send(marker)
        raise KeyboardInterrupt  # as if Ctrl-C arrived just after the mark was set

    monkeypatch.setattr(blocked, "send_large", interrupted)
    with pytest.raises(KeyboardInterrupt):
        vec(load, 1.5)
    monkeypatch.setattr(blocked, "send_large", send)
    got = vec(load, 3)
    assert blocks == []
    assert got.dtype == np.float64
    assert_bitwise(got, np.array([clearance(float(v), 3) for v in load]))
    # A large float call after it is still blocked.
    assert_bitwise(vec(load, 1.5), np.array([clearance(float(v), 1.5) for v in load]))
    assert blocks == ["clearance"]
