"""The live entry compiled at its first call (issue 30, emit.py `_defer_entry`): `@vectorize`
runs the Rust compile (so a rejection is raised at decoration, as before) but leaves CPython's
`compile()` of the entry's text to the first call; until then the function's code is a stand-in
declaring the same parameters. Whatever the first call is (float arrays, Python ints that take
the exact body, keywords, two threads at once, a forked child), the results are CPython's, the
function object is the same one, and its source, signature and `inspect.getsource` are the
generated ones from the start."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from array_vectorize import VectorizationError, vectorize
from array_vectorize.first_call import resolve
from oracle import check, floats, ints, same


def coupon_accrual(face, rate, days, /, basis=360.0, *, stub=0.0):
    """Accrued interest of a bond coupon: actual days over the day-count basis, plus a stub."""
    if days <= 0:
        return stub
    return face * rate * days / basis + stub


def tax_due(income, allowance):
    """A two-band income tax: 20% above the allowance, 40% above 50,000 (integer pounds)."""
    taxable = max(income - allowance, 0)
    if taxable > 50000:
        return 10000 + (taxable - 50000) * 2 // 5
    return taxable // 5


def _fresh(fn):
    """A new function object of `fn` (vectorize memoizes per function object)."""
    new = type(fn)(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    return new


def _is_stand_in(vec) -> bool:
    return vec.__code__.co_names == ("_vec_first_call",)


def test_decoration_leaves_the_entry_to_its_first_call_with_the_generated_face():
    vec = vectorize(_fresh(coupon_accrual))
    assert _is_stand_in(vec)
    assert inspect.signature(vec) == inspect.signature(coupon_accrual)
    # The stand-in's code carries the module's file name: getsource shows the generated entry.
    assert inspect.getsource(vec) == vec.source.split("\n\n\n")[0] + "\n"
    assert "_vec_exact_coupon_accrual" in vec.source
    code = vec.__code__
    x, rate, days = floats(30), floats(30, seed=1), np.abs(floats(30, seed=2)) * 10.0
    got = vec(x, rate, days, 365.0, stub=0.25)  # the first call, with a keyword argument
    want = [coupon_accrual(*lane, 365.0, stub=0.25) for lane in zip(x.tolist(), rate.tolist(), days.tolist())]
    assert all(same(g, w) for g, w in zip(np.asarray(got).tolist(), want))
    assert vec.__code__ is not code and not _is_stand_in(vec)
    assert vec.__code__.co_filename == code.co_filename
    check(vec, x, 0.05, x * 100.0)


def test_a_first_call_with_ints_takes_the_exact_body(backend):
    vec = vectorize(_fresh(tax_due))
    income = np.concatenate([ints(30), np.array([0, 1, -1, 49999, 50000, 60001, 2**62, -(2**62)])])
    check(vec, income, 12570, backend=backend)


def test_a_first_call_of_python_numbers():
    vec = vectorize(_fresh(tax_due))
    assert vec(70000, 12570) == tax_due(70000, 12570)
    assert vec(-5, 0) == tax_due(-5, 0)
    vec = vectorize(_fresh(coupon_accrual))
    assert vec(1000.0, 0.05, 90, stub=-0.0) == coupon_accrual(1000.0, 0.05, 90, stub=-0.0)


def test_rejection_is_still_raised_at_decoration():
    def reads_a_file(path_length):
        with open("/dev/null") as fh:
            return fh.read(path_length)

    with pytest.raises(VectorizationError):
        vectorize(reads_a_file)


def test_resolve_makes_it_final_without_a_call():
    vec = vectorize(_fresh(coupon_accrual))
    code = vec.__code__
    resolve(vec)
    assert vec.__code__ is not code and not _is_stand_in(vec)
    resolve(vec)  # once made, nothing more
    check(vec, floats(10), 0.03, 30.0)


def test_two_threads_making_the_first_call_at_once():
    for _ in range(5):
        vec = vectorize(_fresh(tax_due))
        income = np.arange(-60001, 200000, 4999)  # no lane leaves int64 (oracle.leaves_the_lattice)
        start, results, errors = threading.Barrier(4), [None] * 4, []

        def call(i, vec=vec, income=income, start=start, results=results):
            start.wait()
            try:
                results[i] = vec(income + i, 12570) if i % 2 else vec(income.astype(float) + i, 12570.0)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert not _is_stand_in(vec)
        for i, got in enumerate(results):
            lanes = (income + i).tolist() if i % 2 else (income.astype(float) + i).tolist()
            want = [tax_due(v, 12570 if i % 2 else 12570.0) for v in lanes]
            assert all(same(g, w) for g, w in zip(np.asarray(got).tolist(), want)), i


def test_a_first_call_that_raises_shows_the_generated_line_after_the_stand_in():
    vec = vectorize(_fresh(coupon_accrual))
    with pytest.raises(ValueError) as info:
        vec(np.ones(3), np.ones(2), np.ones(3))  # shapes that do not broadcast
    frames = [tb for tb in info.traceback if tb.frame.code.raw.co_filename == vec.__code__.co_filename]
    # The stand-in's frame, at the `def` line, then the entry's.
    assert [f.lineno + 1 for f in frames][:1] == [1] and len(frames) == 2, frames


FORKED = """
import os, sys
import numpy as np
from array_vectorize import vectorize
sys.path.insert(0, {here!r})
from test_entry_first_call import tax_due, _is_stand_in
vec = vectorize(tax_due)
income = np.arange(-60001, 200000, 4999)
want = [tax_due(v, 100) for v in income.tolist()]
pid = os.fork()
if pid == 0:  # the child: its first call compiles the entry in the child
    ok = False
    try:
        ok = np.asarray(vec(income, 100)).tolist() == want and not _is_stand_in(vec)
    finally:
        os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
assert os.WEXITSTATUS(status) == 0, status
assert _is_stand_in(vec)  # the parent's is still to be made
assert np.asarray(vec(income, 100)).tolist() == want
print("ok")
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_makes_its_own_first_call():
    # In a fresh interpreter: this one may have started threads (JAX) that fork would copy.
    script = FORKED.format(here=os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
