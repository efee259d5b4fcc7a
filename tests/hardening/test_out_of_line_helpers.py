"""Helpers that call one another twice per level (D7): inlined, `h_i(x) = h_{i+1}(x) + h_{i+1}(x)`
copies the innermost body `2**depth` times. Past the inlining budget each helper becomes a
generated function of its own, called (`src/lower/calls/callee.rs`), so these programs compile in
linear time and memory and give CPython's results; what is still too big is a clear
`VectorizationError`.

Every program runs in a child interpreter under an address-space limit and a time limit, through
the decorator, the import hook (a cold import, then a warm one from the hook's cache) and the
build backend's compile (`_core.compile_module`); the three give byte-identical source. The
oracle is CPython running the scalar original with each helper memoized on the exact bits of its
arguments (a pure function called twice with the same arguments returns the same value; without
the memo, depth 30 is 2**30 calls per element). An int computed with uint64 whose CPython value
leaves [-2**63, 2**64) raises item 13's OverflowError (docs/semantics.md), never a wrapped
value: such a call is then run element by element, and exactly those elements raise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MEMORY_LIMIT = 2 << 30
TIME_LIMIT = 120

HEADER = "from array_vectorize import vectorize\n\n\n"


def _fan_out(depth: int) -> str:
    """Layers of a reinsurance tower: each layer is two copies of the next; the last one halves a
    loss above its deductible."""
    helpers = "".join(
        f"def layer{i}(loss):\n    return layer{i + 1}(loss) + layer{i + 1}(loss)\n\n\n" for i in range(depth)
    )
    helpers += f"def layer{depth}(loss):\n    return loss * 0.5 if loss > 1.0 else loss\n\n\n"
    return HEADER + helpers + "@vectorize\ndef ceded(loss):\n    return layer0(loss)\n"


def _branchy(depth: int) -> str:
    """A price path through a binary tree of two rates: each node branches on the two values and
    returns early, calling the next level with the arguments in either order."""
    helpers = ""
    for i in range(depth):
        nxt = f"node{i + 1}"
        helpers += (
            f"def node{i}(up, down):\n"
            f"    if up > down:\n"
            f"        return {nxt}(up, down) - {nxt}(down, up)\n"
            f"    elif up < -1.0:\n"
            f"        return {nxt}(down, up) * 0.5\n"
            f"    return {nxt}(up, down) + {nxt}(up, down)\n\n\n"
        )
    helpers += (
        f"def node{depth}(up, down):\n"
        f"    if up > 1.0:\n"
        f"        return up * 0.5 - down\n"
        f"    return up + down\n\n\n"
    )
    return HEADER + helpers + "@vectorize\ndef ceded(loss, rate):\n    return node0(loss, rate)\n"


def _int_lattice(depth: int) -> str:
    """Whole-unit tax bands: ints stay ints through every level (uint64 inputs included)."""
    helpers = "".join(
        f"def band{i}(units):\n    return band{i + 1}(units) + band{i + 1}(units)\n\n\n" for i in range(depth)
    )
    helpers += f"def band{depth}(units):\n    if units > 5:\n        return units // 3 - 7\n    return units * 2 - 1\n\n\n"
    return HEADER + helpers + "@vectorize\ndef ceded(units):\n    return band0(units)\n"


def _too_big(depth: int) -> str:
    """Every level calls the next with twice as many different constants: `2**depth` signatures,
    each a function of its own."""
    helpers = "".join(
        f"def split{i}(loss, c):\n    return split{i + 1}(loss, 2 * c) + split{i + 1}(loss, 2 * c + 1)\n\n\n"
        for i in range(depth)
    )
    helpers += f"def split{depth}(loss, c):\n    return loss * c if loss > c else loss - c\n\n\n"
    return HEADER + helpers + "@vectorize\ndef ceded(loss):\n    return split0(loss, 1)\n"


FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0, -3.25, 5e-324, -5e-324, 2.2250738585072014e-308,
          1e308, -1e308, float("inf"), float("-inf"), float("nan")]
INTS = [0, 1, -1, 2, 5, 6, 7, -6, 1000, 2**31, 2**62, 2**63 - 1, -(2**63)]
UINTS = [0, 1, 5, 6, 2**63, 2**64 - 1, 2**32 + 7]
BOOLS = [False, True]

#: The child's prologue: limits; the memoized oracle; a comparison of every element.
PROLOGUE = f"""
import json, math, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))
import numpy as np

def report(**what):
    print("REPORT:" + json.dumps(what))

def memoized(fn):
    seen = {{}}
    def call(*args):
        key = tuple((type(a), a.hex() if isinstance(a, float) else a) for a in args)
        if key not in seen:
            seen[key] = fn(*args)
        return seen[key]
    return call

def same(got, exp, float_array):
    if isinstance(exp, float):
        if math.isnan(exp):
            return isinstance(got, float) and math.isnan(got)
        return isinstance(got, float) and got == exp and math.copysign(1, got) == math.copysign(1, exp)
    if isinstance(exp, bool):
        return isinstance(got, bool) and got == exp
    if float_array:  # ints on some lanes, floats on others: one float64 array (semantics item 8)
        return isinstance(got, float) and got == float(exp)
    # int64 overflow wraps modulo 2**64 (semantics item 6); an int of the uint64 lattice in
    # [-2**63, 2**64) is its value modulo 2**64 in an int64 result (item 13).
    return isinstance(got, int) and not isinstance(got, bool) and (got - exp) % 2**64 == 0

def beyond_the_lattice(exc):
    return isinstance(exc, OverflowError) and "(docs/semantics.md item 13)" in str(exc)

def check(module, inputs):
    vec = module.ceded
    original = vec._vectorized_original
    for name in dir(module):
        value = getattr(module, name)
        if callable(value) and getattr(value, "__module__", None) == module.__name__ and name != "ceded":
            setattr(module, name, memoized(value))
    bad = []
    count = 0
    for dtype, columns in inputs:
        arrays = [np.array(c, dtype=dtype) for c in columns]
        try:
            whole, got = vec(*arrays), None
        except OverflowError as exc:
            if not beyond_the_lattice(exc):
                raise
            # Item 13: an integer computed with uint64 whose value leaves [-2**63, 2**64) on
            # some element raises for the whole call; element by element, exactly the elements
            # whose CPython value lies beyond that range raise.
            whole, got = None, []
            for lane in zip(*arrays):
                try:
                    got.append(vec(*[np.array(v) for v in lane]))
                except OverflowError as exc:
                    if not beyond_the_lattice(exc):
                        raise
                    got.append(exc)
        for i, lane in enumerate(zip(*[a.tolist() for a in arrays])):
            exp = original(*lane)
            count += 1
            beyond = dtype == "uint64" and isinstance(exp, int) and not -(2**63) <= exp < 2**64
            if got is not None and isinstance(got[i], OverflowError):
                if not beyond:
                    bad.append([dtype, repr(lane), str(got[i]), repr(exp)])
                continue
            out = whole if got is None else got[i]
            g = out[i].item() if out.ndim else out.item()
            if beyond or not same(g, exp, out.dtype == np.float64):
                bad.append([dtype, repr(lane), repr(g), repr(exp)])
    return count, bad[:10], vec.source
"""


def _columns(values: list, params: int) -> list:
    """Every pair of values for two parameters; the values themselves for one."""
    if params == 1:
        return [values]
    pairs = [(a, b) for a in values for b in values]
    return [[p[0] for p in pairs], [p[1] for p in pairs]]


#: Ints whose sums and differences over 14 levels stay below 2**53: where an int lane ends up in
#: a float array, CPython's exact int and the array's float are then equal (an int beyond that
#: is rounded, and an int64 one that overflows wraps first: semantics items 6 and 8).
MODEST_INTS = [0, 1, -1, 2, 5, -6, 1000, 2**31, -(2**30)]
MODEST_UINTS = [0, 1, 5, 2**32 + 7]


def _inputs(params: int, ints: list | None = INTS, uints: list | None = UINTS) -> list:
    out = [("float64", _columns(FLOATS, params)), ("bool", _columns(BOOLS, params))]
    if ints:
        out.append(("int64", _columns(ints, params)))
    if uints:
        out.append(("uint64", _columns(uints, params)))
    return out


RUN = """
inputs = json.loads(sys.argv[1])
{setup}
try:
    import hostile
except Exception as exc:
    report(kind=type(exc).__name__, message=str(exc))
else:
    count, bad, source = check(hostile, inputs)
    from array_vectorize import stats
    report(kind="ok", count=count, bad=bad, source=source, stats=stats())
"""

BACKEND = """
from array_vectorize import _core
text = open("hostile.py", encoding="utf-8").read()
(entry,) = _core.compile_module(text, "hostile.py")
report(kind=entry["status"], message=entry.get("error") or "", source=entry.get("source"))
"""


def _child(tmp_path: Path, script: str, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ARRAY_VECTORIZE_"))}
    env["PYTHONPATH"] = str(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", PROLOGUE + script, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
    )
    ended = f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, ended
    reports = [line for line in proc.stdout.splitlines() if line.startswith("REPORT:")]
    assert reports, ended
    return json.loads(reports[-1][len("REPORT:") :])


PROGRAMS = {
    "fan-out-20": (_fan_out(20), _inputs(1)),
    "fan-out-23": (_fan_out(23), _inputs(1)),
    "fan-out-30": (_fan_out(30), _inputs(1)),
    "branchy-14": (_branchy(14), _inputs(2, MODEST_INTS, MODEST_UINTS)),
    "int-lattice-24": (_int_lattice(24), _inputs(1)),
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_a_program_past_the_inlining_budget_compiles_and_gives_cpythons_results(tmp_path, program):
    source, inputs = PROGRAMS[program]
    (tmp_path / "hostile.py").write_text(source, encoding="utf-8")
    arg = json.dumps(inputs)
    decorator = _child(tmp_path, RUN.format(setup=""), arg)
    hook_cold = _child(tmp_path, RUN.format(setup="import array_vectorize.auto"), arg)
    hook_warm = _child(tmp_path, RUN.format(setup="import array_vectorize.auto"), arg)
    backend = _child(tmp_path, BACKEND)
    for way, outcome in [("decorator", decorator), ("hook", hook_cold), ("warm hook", hook_warm)]:
        assert outcome["kind"] == "ok", (way, outcome)
        assert outcome["count"] >= len(FLOATS), (way, outcome["count"])
        assert outcome["bad"] == [], (way, outcome["bad"])
    # The warm import compiled nothing: its functions came from the hook's cache.
    assert hook_warm["stats"]["compiled"] == 0 and hook_warm["stats"]["disk_cache_hits"] == 1, hook_warm["stats"]
    assert backend["kind"] == "ok", backend
    assert decorator["source"] == hook_cold["source"] == hook_warm["source"] == backend["source"]
    # Each helper level is a function of its own, defined once: linear, not exponential.
    text = decorator["source"]
    assert "def _vec_helper_" in text
    assert len(text) < 200_000, len(text)


def test_a_program_still_too_big_is_a_clear_error_on_every_way_in(tmp_path):
    (tmp_path / "hostile.py").write_text(_too_big(20), encoding="utf-8")
    arg = json.dumps(_inputs(1, None, None))
    for setup in ("", "import array_vectorize.auto"):
        outcome = _child(tmp_path, RUN.format(setup=setup), arg)
        assert outcome["kind"] == "VectorizationError", outcome
        message = outcome["message"]
        assert "too big to vectorize" in message or "helper compiled as a function of its own" in message, message
        assert "hostile.py:" in message and len(message) < 5000, message
    backend = _child(tmp_path, BACKEND)
    assert backend["kind"] == "error", backend
    assert "hostile.py:" in backend["message"], backend


def _shapes(depth: int) -> str:
    """A rebate that ignores the rate on some paths: a helper's result need not carry every
    argument's shape, and the vectorized result still has the arguments' broadcast shape."""
    helpers = "".join(
        f"def rebate{i}(loss, rate):\n    return rebate{i + 1}(loss, rate) + rebate{i + 1}(loss, rate)\n\n\n"
        for i in range(depth)
    )
    helpers += (
        f"def rebate{depth}(loss, rate):\n"
        f"    if loss > 1.0:\n"
        f"        return 2.0\n"
        f"    return loss * 0.5\n\n\n"
    )
    return HEADER + helpers + "@vectorize\ndef ceded(loss, rate):\n    return rebate0(loss, rate) + rebate0(0.5, rate)\n"


SHAPES = """
import hostile
loss = np.array([[0.5], [2.0], [-0.0]])
rate = np.array([1.0, 2.0, 3.0, 4.0])
got = hostile.ceded(loss, rate)
for name in dir(hostile):
    value = getattr(hostile, name)
    if callable(value) and getattr(value, "__module__", None) == "hostile" and name != "ceded":
        setattr(hostile, name, memoized(value))
original = hostile.ceded._vectorized_original
bad = [
    [i, j, got[i, j].item(), original(l, r)]
    for i, l in enumerate(loss[:, 0].tolist())
    for j, r in enumerate(rate.tolist())
    if not same(got[i, j].item(), original(l, r), True)
]
report(kind="ok", shape=list(got.shape), bad=bad, calls=hostile.ceded.source.count("def _vec_helper_"))
"""


def test_a_called_helper_keeps_the_broadcast_shape_of_the_arguments(tmp_path):
    (tmp_path / "hostile.py").write_text(_shapes(20), encoding="utf-8")
    outcome = _child(tmp_path, SHAPES)
    assert outcome["calls"] > 0, outcome
    assert outcome["shape"] == [3, 4] and outcome["bad"] == [], outcome


def _guarded(depth: int) -> str:
    """Square-root damping behind a branch, with protect_domains: a helper called for some lanes
    only must not raise a floating-point error for the others (D1)."""
    helpers = "".join(
        f"def damp{i}(loss):\n    return damp{i + 1}(loss) + damp{i + 1}(loss)\n\n\n" for i in range(depth)
    )
    helpers += f"def damp{depth}(loss):\n    return math.sqrt(loss - 1.0) + 1.0 / (loss - 1.0)\n\n\n"
    return (
        "import math\n" + HEADER + helpers
        + "@vectorize(protect_domains=True)\ndef ceded(loss):\n    if loss > 1.0:\n        return damp0(loss)\n    return -1.0\n"
    )


GUARDED = """
import hostile
x = np.array([-3.0, 0.0, 0.5, 1.0, 1.5, 2.0, 1e300, float("inf"), float("nan")])
with np.errstate(all="raise"):
    got = hostile.ceded(x)
for name in dir(hostile):
    value = getattr(hostile, name)
    if callable(value) and getattr(value, "__module__", None) == "hostile" and name != "ceded":
        setattr(hostile, name, memoized(value))
original = hostile.ceded._vectorized_original
bad = [[v, g] for v, g in zip(x.tolist(), got.tolist()) if not same(g, original(v), False)]
report(kind="ok", bad=bad, source=hostile.ceded.source)
"""


def test_protect_domains_reaches_a_called_helper(tmp_path):
    (tmp_path / "hostile.py").write_text(_guarded(20), encoding="utf-8")
    outcome = _child(tmp_path, GUARDED)
    assert outcome["bad"] == [], outcome["bad"]
    # The lanes the caller runs the helper for are its last argument.
    assert "def _vec_helper_" in outcome["source"] and ", live)" in outcome["source"], outcome["source"][:3000]
