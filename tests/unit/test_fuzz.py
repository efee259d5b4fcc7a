"""The grammar fuzzer (``python -m array_vectorize.fuzz``): fixed seeds and one derived from the
commit in CI, and the fuzzer's own machinery (generator, well-formedness checker, oracle, minimizer, rejections, CLI).

The fixed-seed runs set aside the bug classes the fuzzer has found and that are still open
(``KNOWN_BUGS``, ``EXCLUDED_FEATURES``); each is pinned by a strict xfail reproducer in
``tests/differential/test_fuzz_findings*.py``. When a bug is fixed its xfail starts failing:
remove the xfail there and the class here.
"""

from __future__ import annotations

import ast
import io
import math
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest

from array_vectorize.fuzz import check, explain, oracle
from array_vectorize.fuzz.generator import FEATURES, LOWERING_REJECTIONS, Generator
from array_vectorize.fuzz.inputs import Column
from array_vectorize.fuzz.minimize import minimize
from array_vectorize.fuzz.runner import OPEN_BUG_CLASSES, OPEN_BUG_FEATURES, Options, run
from array_vectorize.fuzz.wellformed import patterns, problems

#: Open bug classes and the generator features that reach them (runner.py), each with a
#: reproducer in tests/differential/test_fuzz_findings*.py.
KNOWN_BUGS = OPEN_BUG_CLASSES
EXCLUDED_FEATURES = OPEN_BUG_FEATURES


def _options(**kw) -> Options:
    base = dict(known=KNOWN_BUGS, exclude=EXCLUDED_FEATURES, minimize_budget=10.0)
    base.update(kw)
    return Options(**base)


def rotating_seed() -> int:
    """A seed that changes with every commit (``git rev-parse HEAD``), so CI explores new programs
    besides the fixed seeds; ``ARRAY_VECTORIZE_FUZZ_SEED`` sets it (to replay a failure)."""
    env = os.environ.get("ARRAY_VECTORIZE_FUZZ_SEED")
    if env:
        return int(env)
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=os.path.dirname(__file__), capture_output=True, text=True, timeout=30
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        head = ""
    return int(head[:7], 16) if re.fullmatch(r"[0-9a-f]{40}", head) else 303


ROTATING = rotating_seed()


@pytest.mark.parametrize(
    "seed, backends, count",
    [(101, "numpy,strict", 150), (202, "numpy,strict", 150), (ROTATING, "numpy,strict", 150), (ROTATING, "dask", 60)],
    ids=["101", "202", f"rotating-{ROTATING}", f"rotating-{ROTATING}-dask"],
)
def test_fixed_seeds(seed, backends, count):
    # The command line in a fresh interpreter: its worker processes survive a crash of the
    # compiler (a segfault is reported, not fatal), and forking it is safe (this process may have
    # imported JAX). The rotating seed is in the test id; replay a failure with
    # ARRAY_VECTORIZE_FUZZ_SEED=<seed>, or `python -m array_vectorize.fuzz --seed <seed>`.
    # Dask (lazy, chunked arrays) on fewer programs: each call builds and computes a graph.
    if backends == "dask":
        pytest.importorskip("dask.array")
    print(f"fuzz seed {seed} on {backends}")
    args = [
        sys.executable, "-m", "array_vectorize.fuzz", "--seed", str(seed), "--count", str(count), "--jobs", "2",
        "--backend", backends, "--skip-open-bugs", "--minimize-budget", "10",
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    last = done.stdout.strip().splitlines()[-1]
    found = re.fullmatch(rf"programs: {count}, lanes: (\d+), mismatches: 0, crashes: 0", last)
    assert found, f"seed {seed}:\n" + done.stdout + done.stderr
    # Most elements are compared, not skipped (about 80 per program and backend).
    assert int(found.group(1)) > count * 30 * len(backends.split(","))
    assert done.returncode == 0


def test_rejection_programs_are_rejected_with_positions():
    out = io.StringIO()
    totals = run(_options(seed=7, count=30, reject_rate=1.0), out=out)
    assert totals["rejections"] == 30
    assert totals["crashes"] == 0, out.getvalue()


def test_a_defect_found_while_lowering_is_the_first_statement_of_f():
    """Lowering skips code after an always-returning `if` (CPython never runs it), so a rejection
    program's defect that only lowering reports must come first (seed 120003, program 35: a
    `raise ... from z8` after an if/elif that always returns was accepted; seed 190002, program
    1537: `z9 = p2 + 'text'`, a string being a uniform value, D14)."""
    seen = 0
    for i in range(400):
        program = Generator(random.Random(i), reject=True).program()
        first, _, construct = program.reject
        if construct not in LOWERING_REJECTIONS:
            continue
        seen += 1
        tree = ast.parse(program.source)
        (f,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f"]
        body = [s for s in f.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        assert body[0].lineno == first, program.source
    assert seen > 20


def test_a_d3_nan_of_an_int_division_takes_the_librarys_sign():
    """Item 18: `p0 /= 0` of a uint64 0 is D3's NaN, whose sign is the array library's;
    `math.copysign(1, p0)` shows it. The model gave only the oracle's sign for an int / int
    division (seed 150007, program 1033, replayed exactly: a mismatch before)."""
    out = io.StringIO()
    totals = run(_options(seed=150007, count=1), [1033], out=out)
    assert totals["mismatches"] == 0 and totals["crashes"] == 0, out.getvalue()


def test_copysign_of_a_nan_of_nans_shows_a_sign_picked_by_whoever_computed_it():
    """Item 18: `b = 0.0 // 0` is D3's NaN and `abs(b) * b` a NaN of NaNs, whose sign NumPy's
    scalar math, its loops and CPython's float each pick their own way (and in an operand order
    the core may change); `math.copysign(1, v3)` shows it. The model varied the signs of D3 NaNs
    in the array reading only (seed 190005, program 72, replayed exactly: a mismatch before)."""
    out = io.StringIO()
    totals = run(_options(seed=190005, count=1), [72], out=out)
    assert totals["mismatches"] == 0 and totals["crashes"] == 0, out.getvalue()


def test_an_int_rounded_beyond_int64_is_wide():
    """Items 6, 7: `round(int(1e300), -1)` is CPython's big int; the vectorized int saturates
    to INT64_MAX, whose rounding to tens wraps, so a test on it may go the other way. The
    oracle did not mark the element WIDE (seed 160002, program 1272, replayed: a mismatch)."""
    out = io.StringIO()
    totals = run(_options(seed=160002, count=1), [1272], out=out)
    assert totals["mismatches"] == 0 and totals["crashes"] == 0, out.getvalue()


def test_a_round_to_ndigits_where_nothing_may_raise_converts_no_float_to_int():
    """Item 7: `int()` of a float is a raise site, which a `finally` clause refuses at decoration
    (D10). The D17 draw `round(int(x), n)` came in a `finally` clause all the same (seed 712002,
    program 1494: `v9 = round(int(v5), 1)`, a supported program rejected); there it is
    `round(float(x), n)`, with the draws of every other place as before."""
    gen = Generator(random.Random("finally"))
    gen.raise_free = True
    drawn = [gen.special_exact_call(None, lambda: "v5") for _ in range(400)]
    assert any(t.startswith("round(float(v5), ") for t in drawn), drawn
    assert not any("int(" in t for t in drawn), drawn
    gen.raise_free = False
    assert any(t.startswith("round(int(v5), ") for t in (gen.special_exact_call(None, lambda: "v5") for _ in range(400)))
    out = io.StringIO()
    totals = run(_options(seed=712002, count=1), [1494], out=out)
    assert totals["mismatches"] == 0 and totals["crashes"] == 0, out.getvalue()


def test_generated_programs_are_well_formed():
    for i in range(300):
        program = Generator(random.Random(i)).program()
        assert problems(ast.parse(program.source)) is None, program.source


def test_excluded_features_are_not_generated():
    for i in range(200):
        program = Generator(random.Random(i), exclude=frozenset({"loop", "tuple_loop", "helpers", "transcendental"})).program()
        tree = ast.parse(program.source)
        assert not any(isinstance(n, ast.For) for n in ast.walk(tree)), program.source
        assert not any(isinstance(n, ast.FunctionDef) and n.name.startswith("h") for n in tree.body)
        assert "loop" not in program.features


def test_a_third_of_the_programs_are_also_checked_with_protect_domains():
    flagged = [Generator(random.Random(i)).program() for i in range(300)]
    share = sum(p.protect_domains for p in flagged) / len(flagged)
    assert 0.2 < share < 0.45 and all(("protect_domains" in p.features) == p.protect_domains for p in flagged)
    excluded = [Generator(random.Random(i), exclude=frozenset({"protect_domains"})).program() for i in range(100)]
    assert not any(p.protect_domains for p in excluded)
    # The flag draws nothing: the programs are the ones their seeds gave without it.
    assert [p.source for p in excluded] == [p.source for p in flagged[:100]]


def test_a_wrong_protect_domains_result_is_a_mismatch(tmp_path):
    # D1: safe operands on the lanes a branch discards change no result; the protected call is
    # judged as the plain one, under its own name.
    src = "import math\n\ndef f(x):\n    if x > 0.0:\n        return math.log(x)\n    return x\n"
    _, prepared = check.prepare(src, str(tmp_path), protect_domains=True)
    assert prepared.protected_vec is not None and prepared.protected_vec is not prepared.vec
    columns = [Column("f", [2.0, -1.0, 0.0, 1e-300])]
    assert not check.compare(prepared, columns, {"numpy": np}).failures
    good = prepared.protected_vec
    prepared.protected_vec = lambda x: np.where(x == -1.0, 0.0, good(x))
    result = check.compare(prepared, columns, {"numpy": np})
    assert [(f.backend, f.lane, f.got) for f in result.failures] == [("numpy protect_domains", 1, 0.0)]


def test_a_call_of_the_mixed_bodys_kinds_is_judged_by_its_ir(tmp_path):
    # Issue 30: the fuzz model had no IR of the mixed body (`_vec_mixed_args`), so a call it
    # takes was judged with the exact body's. Whole weeks of pay and a float hourly rate: the
    # weeks are ints (`//`), the rate a float (met with `0.5`).
    src = "def f(p0, p1):\n    v1 = p0 // 7\n    if p1 < 0.5:\n        return v1 + p1\n    return v1 * p1 * 2.0\n"
    _, prepared = check.prepare(src, str(tmp_path))
    assert getattr(prepared.models[explain.MIXED_BODY][0], "mixed_kinds") == {0: "i", 1: "f"}
    columns = [Column("i", [0, 13, -8, 2**62, -(2**63)]), Column("f", [0.25, 0.5, -0.0, math.nan, 1e300])]
    assert explain.body_of(columns, prepared.models) == explain.MIXED_BODY
    assert not check.compare(prepared, columns, {"numpy": np}).failures
    # A Python int within int64 is taken too; uint64, bool, a float where an int goes are not.
    scalar = [Column("i", [13], scalar=True), columns[1]]
    assert explain.body_of(scalar, prepared.models) == explain.MIXED_BODY
    for other in (Column("u", [0, 13, 8, 2, 3]), Column("b", [True] * 5), Column("f", [0.0] * 5)):
        assert explain.body_of([other, columns[1]], prepared.models) != explain.MIXED_BODY
    assert explain.body_of([columns[0], Column("i", [1] * 5)], prepared.models) == explain.INT_BODY
    # Another value than CPython's is still a mismatch.
    good = prepared.vec
    prepared.vec = lambda p0, p1: np.where(p0 == 13, 0.0, good(p0, p1))
    assert [f.lane for f in check.compare(prepared, columns, {"numpy": np}).failures] == [1]


def test_a_third_of_the_programs_also_run_with_the_runtimes_size_gates_forced():
    # Issue 30: blocks, threads, packed loops and checked passes start far above the fuzzer's
    # 48-160 lanes; a third of the programs (by a hash: no draw) also run on `blocked`.
    flagged = [Generator(random.Random(i)).program() for i in range(300)]
    share = sum(p.forced_blocks for p in flagged) / len(flagged)
    assert 0.2 < share < 0.45 and all(("forced_blocks" in p.features) == p.forced_blocks for p in flagged)
    excluded = [Generator(random.Random(i), exclude=frozenset({"forced_blocks"})).program() for i in range(100)]
    assert not any(p.forced_blocks for p in excluded)
    assert [p.source for p in excluded] == [p.source for p in flagged[:100]]


BLOCKED_CASES = {
    # The float body, blocked (flat blocks of 7) on 4 threads.
    "float": (
        "import math\n\ndef f(x, y):\n    a = x * y + 1.5\n    b = a * a - x\n    c = b / (abs(a) + 1.0)\n"
        "    return c + math.sqrt(abs(b)) - y\n",
        "f",
    ),
    # The int body (issue 30: `%` by constants as a mask and a product), blocked.
    "int": (
        "def f(y, d):\n    return (d + 29) // 30 * 1000 + y % 7 * 100 + y % 16 + y % 400 - y // 100\n",
        "i",
    ),
}


@pytest.mark.parametrize("case", sorted(BLOCKED_CASES))
def test_the_blocked_backend_judges_the_blocked_evaluation(case, tmp_path, monkeypatch):
    from array_vectorize.runtime import blocked

    src, kind = BLOCKED_CASES[case]
    threads = os.environ.get("ARRAY_VECTORIZE_THREADS")
    rng = random.Random(30)
    values = [rng.uniform(-50, 50) for _ in range(60)] if kind == "f" else [rng.randrange(-3000, 3000) for _ in range(60)]
    columns = [Column(kind, values), Column(kind, values[::-1])]
    _, prepared = check.prepare(src, str(tmp_path))
    names = check.backends(["numpy", "blocked"])
    assert not check.compare(prepared, columns, names).failures
    # A broken block (the third on) is seen on `blocked` alone: the plain NumPy call is whole.
    good = blocked._call_block

    def broken(dispatch, args, lo, block, shape):
        out = good(dispatch, args, lo, block, shape)
        return out + 1 if lo >= 14 else out

    monkeypatch.setattr(blocked, "_call_block", broken)
    failures = check.compare(prepared, columns, names).failures
    assert failures and {f.backend for f in failures} == {"blocked"}
    # The gates are the runtime's own again after each call.
    assert (blocked.BLOCK, blocked.THRESHOLD, os.environ.get("ARRAY_VECTORIZE_THREADS")) == (1 << 15, 1 << 17, threads)


def test_every_feature_name_is_known():
    assert EXCLUDED_FEATURES <= set(FEATURES)
    assert KNOWN_BUGS <= set(check.KNOWN)


@pytest.mark.parametrize(
    "source, problem",
    [
        ("def f(x):\n    if x > 0:\n        y = 1\n    return y\n", "may be undefined"),
        ("def f(x):\n    if x > 0:\n        return 1\n", "falls off"),
        ("def f(x):\n    for i in range(0):\n        y = x\n    return y\n", "may be undefined"),
        ("def f(x):\n    y = (z := x) + z\n    return y\n", "walrus"),
        ("T = (1, 2)\ndef f(x):\n    return T[2]\n", "out of range"),
        ("def h(a, b):\n    return a\ndef f(x):\n    return h(x)\n", "arity"),
        ("def f(x):\n    g = lambda t: t + x\n    x = 1\n    return g(x)\n", "closure"),
        # Fuzz seed 690001 #1508: the minimizer dropped `import math` and kept a D17 call, and
        # unpacked one number (CPython's NameError, then TypeError).
        ("def f(x):\n    return math.remainder(x, 2.0)\n", "call of an attribute"),
        ("import math\ndef f(x):\n    a, b = math.remainder(x, 2.0)\n    return a\n", "returns 1 values, used as 2"),
        ("import numpy as np\ndef f(x):\n    a, b = np.sqrt(x)\n    return a\n", "returns 1 values, used as 2"),
        ("def f(x):\n    a, b = round(x, 2)\n    return a\n", "returns 1 values, used as 2"),
    ],
)
def test_checker_finds_ill_formed_programs(source, problem):
    found = problems(ast.parse(source))
    assert found is not None and problem in found


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    for i in range(3):\n        y = x * i\n    return y + i\n",
        "def f(x):\n    b = x > 0\n    if b:\n        return 1\n    return 0\n",
        "def f(x):\n    for i in range(3):\n        if i:\n            x = x + 1\n    return x\n",
        "def f(x):\n    if (y := x * 2) > 1:\n        return y\n    return -y\n",
        "K = 2\ndef f(x):\n    if K:\n        return x\n    return 1.0 if x else 2.0\n",
        "def f(x):\n    if x:\n        return 1\n    elif not x - 1:\n        return 2\n    return 0\n",
    ],
)
def test_checker_accepts_supported_programs(source):
    assert problems(ast.parse(source)) is None


def test_oracle_gives_ieee_values_where_cpython_raises(tmp_path):
    src = "import math\n\ndef f(a, b):\n    return a // b + math.log(a - a) * 0\n"
    path = tmp_path / "p.py"
    path.write_text(src)
    ev = oracle.Evaluator(src, str(path))
    r = ev.run([7, 2])  # log(0) is -inf (item 3), and -inf * 0 is nan
    assert r.ieee and math.isnan(r.value)
    src2 = "def f(a, b):\n    return a // b\n"
    path.write_text(src2)
    ev2 = oracle.Evaluator(src2, str(path))
    assert ev2.run([7, 0]).value == 0 and ev2.run([7, 0]).ieee  # item 2
    assert ev2.run([-7, 2]).value == -4 and not ev2.run([-7, 2]).ieee


def test_comparison_wraps_integers_and_reads_the_result_kind():
    # Items 6, 13: an int result is its exact value modulo 2**64, read in the result's dtype.
    assert oracle.agree(-(2**63), "i", 2**63) and not oracle.agree(2**63 - 1, "i", 2**63)
    assert oracle.agree(2**64 - 1, "u", -1) and oracle.agree(5, "u", 5)
    # An int in a float64 result only where the core says the result is float, by exact value.
    assert not oracle.agree(1.0, "f", 1) and oracle.agree(1.0, "f", 1, float_result=True)
    assert oracle.agree(float(2**53), "f", 2**53 + 1, float_result=True)  # the float it converts to
    assert not oracle.agree(float(2**53) + 2, "f", 2**53 + 1, float_result=True)
    assert not oracle.agree(-0.0, "f", 0, float_result=True)
    # Floats: NaN equals NaN, the sign of a zero matters; bools need a bool or numeric result.
    assert not oracle.agree(-0.0, "f", 0.0) and oracle.agree(float("nan"), "f", float("nan"))
    assert oracle.agree(1, "i", True) and not oracle.agree(1, "i", 1.0) and not oracle.agree(1, "b", 1)


def test_a_wrong_result_is_a_mismatch(tmp_path):
    src = "def f(x):\n    if x > 0.0:\n        return x\n    return -x\n"
    result, prepared = check.prepare(src, str(tmp_path))
    assert prepared is not None
    prepared.vec = lambda x: np.abs(x) + (x == 3.0)  # wrong on one element
    columns = [Column("f", [1.0, -2.0, 3.0, float("nan")])]
    result = check.compare(prepared, columns, {"numpy": np})
    assert [(f.kind, f.lane, f.expected, f.got) for f in result.failures] == [("mismatch", 2, 3.0, 4.0)]


def test_a_wrong_wrapped_int_is_a_mismatch(tmp_path):
    # Items 6, 13: the expected value of an overflowing int64 lane is computed (modulo 2**64),
    # not excused; one lane off by one is reported.
    src = "def f(x):\n    return x * 4\n"
    _, prepared = check.prepare(src, str(tmp_path))
    columns = [Column("i", [3, 2**62, -(2**62) - 1])]
    right = check.compare(prepared, columns, {"numpy": np})
    assert not right.failures
    prepared.vec = lambda x: x * 4 + (x == 2**62)
    result = check.compare(prepared, columns, {"numpy": np})
    assert [(f.lane, f.expected, f.got) for f in result.failures] == [(1, 2**64, 1)]


def test_an_int_held_as_float_needs_a_float_result_from_the_core(tmp_path):
    # Item 8: `1 if x > 0 else 0.5` is one float64 array (the core's result kind is float), so
    # the int 1 is compared as 1.0; a function all of whose paths return ints may not give floats.
    _, merged = check.prepare("def f(x):\n    return 1 if x > 0 else 0.5\n", str(tmp_path))
    assert not check.compare(merged, [Column("f", [1.0, -1.0])], {"numpy": np}).failures
    _, ints = check.prepare("def f(x):\n    return 1 if x > 0 else 2\n", str(tmp_path))
    ints.vec = lambda x: np.where(x > 0, 1.0, 2.0)
    assert [f.lane for f in check.compare(ints, [Column("f", [1.0, -1.0])], {"numpy": np}).failures] == [0, 1]


def test_a_float_of_arithmetic_on_an_int_held_as_float_is_read_per_element(tmp_path):
    # Seed 712006 #1267: `floor` holds the int -2**63 as float64 (item 8), so the call's
    # `floor * c` is -0.0 on c == 0 and `float(floor) // -0.0` is +inf, where CPython's int 0
    # divisor gives D3's -inf. The IR keeps the `float()` (fold), so the plain reading gives
    # CPython's -inf and the arrays reading the call's +inf: explained. Any other value is not.
    src = "def f(c):\n    floor = 0 + min(1.0, -9223372036854775808)\n    return float(floor) // (floor * c)\n"
    _, prepared = check.prepare(src, str(tmp_path))
    columns = [Column("i", [0, 1, -1])]
    assert not check.compare(prepared, columns, {"numpy": np}).failures
    for wrong, lane in (([-0.0, 1.0, -1.0], 0), ([float("nan"), 1.0, -1.0], 0), ([float("inf"), 2.0, -1.0], 1)):
        prepared.vec = lambda c, wrong=wrong: np.array(wrong)
        assert [f.lane for f in check.compare(prepared, columns, {"numpy": np}).failures] == [lane], wrong


def test_a_rejection_is_minimized_keeping_its_problem():
    # Seed 690001 #1508: the minimizer kept any rejection, and reached another problem.
    def rejected(where, problem):
        return check.Failure("rejected", detail=f"cannot vectorize: 1 problem\n/tmp/prog_1.py:{where}: {problem}\n    v = 1\n")

    unpacking = "tuple unpacking needs a tuple of the same length on the right"
    assert rejected("42:13", unpacking).key() == rejected("20:13", unpacking).key()
    assert rejected("20:13", unpacking).key() != rejected("8:20", "name `math` is not defined").key()


def test_a_uint64_parameter_given_a_python_int_within_int64_takes_the_int_body(tmp_path):
    # Fuzz seed 690005 #1216: `p0` of the uint64 kind, given as the Python int 0, and the int64
    # array `p1`: the int prologue takes the call (runtime/args.py), whose merge of `v1` and `1`
    # is float64 (item 8, the int body's IR prints it float). The model read the helpers' body,
    # which keeps the int, and reported item 8's 1.0 as a mismatch.
    src = "def f(p0, p1, cap):\n    v1 = p0\n    if p0 < p1:\n        v1 = 1.0\n    return v1 if cap is None else 1\n"
    _, prepared = check.prepare(src, str(tmp_path))
    columns = [Column("u", [0], scalar=True), Column("i", [0, 5]), Column("o", [3], scalar=True)]
    assert explain.body_of(columns, prepared.models) == explain.INT_BODY
    assert not check.compare(prepared, columns, {"numpy": np}).failures
    # Beyond int64: the helpers' body.
    wide = [Column("u", [2**63], scalar=True)] + columns[1:]
    assert explain.body_of(wide, prepared.models) == explain.EXACT_BODY
    # Another value than CPython's 1 is still a mismatch.
    prepared.vec = lambda p0, p1, cap: np.array([1.5, 1.0])
    assert [f.lane for f in check.compare(prepared, columns, {"numpy": np}).failures] == [0]


def test_model_reads_the_cores_merges(tmp_path):
    # The IR says the merge is float64; plain gives CPython's per-lane types, arrays the rules'.
    src = "def f(x):\n    v = 0 if x > 0 else 1.0\n    return 0 % v\n"
    _, prepared = check.prepare(src, str(tmp_path))
    # An int64 column and a float path: the helpers' body, in the IR with unknown kinds.
    explainer = check.Explainer(prepared.models, [([1, -1], "i")], body=explain.EXACT_BODY)
    plain, (arrays, kind) = explainer.plain(), explainer.arrays()
    assert plain == [0, 0.0] and type(plain[0]) is int  # CPython: 0 % 0 is 0 by D3 (item 2)
    assert math.isnan(arrays[0]) and arrays[1] == 0.0 and kind == "f"  # 0 % 0.0 is nan (items 8, 1)
    assert not check.compare(prepared, [Column("i", [1, -1])], {"numpy": np}).failures
    # A lowering bug (the IR no longer computes what the source computes) is not explained.
    assert not explainer.explains(0, float("nan"), "f", 1)


def test_the_dask_backend_compares_lazy_chunked_calls(tmp_path):
    # The arguments reach the call as Dask arrays in three chunks, and its result must stay
    # lazy: a wrong element in the last chunk is a mismatch, an eager result a crash.
    da = pytest.importorskip("dask.array")
    src = "def f(x):\n    if x > 0.0:\n        return x\n    return -x\n"
    _, prepared = check.prepare(src, str(tmp_path))
    columns = [Column("f", [1.0, -2.0, 3.0, -0.0, 5.0, float("nan")])]
    names = check.backends(["dask"])
    assert not check.compare(prepared, columns, names).failures
    seen = []

    def wrong(x):
        seen.append((type(x), x.numblocks))
        return da.abs(x) + (x == 5.0)

    prepared.vec = wrong
    result = check.compare(prepared, columns, names)
    assert seen == [(da.Array, (3,))]
    assert [(f.kind, f.lane, f.expected, f.got) for f in result.failures] == [("mismatch", 4, 5.0, 6.0)]
    prepared.vec = lambda x: np.abs(np.asarray(x))
    assert [f.kind for f in check.compare(prepared, columns, names).failures] == ["crash"]


def test_the_static_compile_must_generate_the_decorators_source(tmp_path):
    # DESIGN.md section 2: the import hook's and the build backend's static compile and the
    # decorator give the same text, and the static compile's assumptions hold for the live
    # function (else every warm import would compile it again).
    from array_vectorize import vectorize

    src = "import math\n\nRATE = 0.25\n\n\ndef f(x):\n    return math.exp(-RATE * x)\n"
    path = check.write_program(str(tmp_path), src)
    fn = check.load(src, path, "f")
    vec = vectorize(fn)
    assert check.static_compile_problem(src, path, "f", fn, vec) is None

    class Other:
        source = vec.source.replace("0.25", "0.5")

    assert "other code" in check.static_compile_problem(src, path, "f", fn, Other())
    fn.__globals__["RATE"] = 0.5
    assert "assumptions do not hold" in check.static_compile_problem(src, path, "f", fn, vec)
    # No blank line above the function to mark it on: not checked.
    assert check.static_compile_problem(src.replace("\n\n\ndef", "\ndef"), path, "f", fn, Other()) is None


def test_a_crash_is_reported(tmp_path):
    src = "def f(x):\n    return x * 2.0\n"
    _, prepared = check.prepare(src, str(tmp_path))

    def boom(x):
        raise RuntimeError("boom")

    prepared.vec = boom
    result = check.compare(prepared, [Column("f", [1.0])], {"numpy": np})
    assert [f.kind for f in result.failures] == ["crash"]


def test_minimizer_shrinks_program_and_inputs():
    source = (
        "import math\nK0 = 2.5\n\ndef h0(a):\n    return a * K0\n\n"
        "def f(p0, p1):\n    v1 = p0 + 1.0\n    if p1 > 0.0:\n        v2 = h0(v1) % 7.0\n        return v2 - p1\n"
        "    for i in range(3):\n        v1 = v1 * 0.5 + i\n    return v1\n"
    )
    columns = [Column("f", [float(i) for i in range(40)]), Column("f", [1.0 - i % 3 for i in range(40)])]

    def still_fails(src, cols):  # a planted "bug": `%` reached with p0 == 3.0
        return "%" in src and any(v == 3.0 for v in cols[0].values) and len(cols) >= 1

    small, cols = minimize(source, columns, still_fails, lanes=[3], time_budget=20)
    assert "%" in small and problems(ast.parse(small)) is None
    assert len(small.splitlines()) <= 6, small
    assert max(len(c.values) for c in cols) == 1


def test_pattern_detector():
    loop_return = "def f(x):\n    if x > 0:\n        for i in range(2):\n            if x > i:\n                return 1\n    return 0\n"
    scalar_in_array = "def f(x):\n    for i in range(2):\n        if x > 0:\n            if i == 1:\n                return 1\n    return 0\n"
    assert patterns(ast.parse(loop_return)) == {"loop-return-in-if"}
    assert patterns(ast.parse(scalar_in_array)) == {"scalar-if-in-array-if"}
    assert patterns(ast.parse("def f(x):\n    for i in range(2):\n        if i == 1:\n            return x\n    return 0\n")) == set()


def test_command_line():
    args = [
        sys.executable, "-m", "array_vectorize.fuzz", "--seed", "3", "--count", "6", "--backend", "numpy",
        "--jobs", "1", "--skip-open-bugs",
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    last = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"programs: 6, lanes: \d+, mismatches: 0, crashes: 0", last), done.stdout + done.stderr
    assert done.returncode == 0


def test_progress_lines_come_without_verbose_and_the_totals_stay_last():
    args = [
        sys.executable, "-m", "array_vectorize.fuzz", "--seed", "4", "--count", "3", "--backend", "numpy",
        "--jobs", "1", "--skip-open-bugs", "--progress", "0.001",
    ]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    lines = done.stdout.strip().splitlines()
    progress = [line for line in lines if line.startswith("progress: ")]
    assert [p.split(" programs")[0] for p in progress] == ["progress: 1/3", "progress: 2/3", "progress: 3/3"], done.stdout
    assert all(re.fullmatch(r"progress: \d/3 programs, \d+ lanes, 0 mismatches, 0 crashes \(\d+ s\)", p) for p in progress)
    assert re.fullmatch(r"programs: 3, lanes: \d+, mismatches: 0, crashes: 0", lines[-1])
    quiet = subprocess.run(args[:-2] + ["--verbose"], capture_output=True, text=True, timeout=120)
    assert "progress: " not in quiet.stdout  # --verbose says more: a line per program


def test_ctrl_c_sums_up_what_ran_and_exits_130():
    import signal

    # A shell starts a background job (`cmd &` without job control, as CI runners may) with SIGINT
    # ignored, and a child inherits that: the fuzzer would never see the Ctrl-C. A terminal's
    # foreground job has SIGINT at its default, as the fuzzer has here. (Not a preexec_fn: a fork
    # of this process, which may have imported JAX's threads, is what JAX warns against.)
    as_at_a_terminal = (
        "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "runpy.run_module('array_vectorize.fuzz', run_name='__main__', alter_sys=True)"
    )
    args = [
        sys.executable, "-c", as_at_a_terminal, "--seed", "4", "--count", "400", "--backend", "numpy",
        "--jobs", "2", "--progress", "0.001",
    ]
    # A terminal's Ctrl-C signals the whole foreground process group: the workers too.
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        first = proc.stdout.readline()  # the header
        while not first.startswith("progress: "):
            first = proc.stdout.readline()
            assert first, "the run ended before its first progress line"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    lines = out.strip().splitlines()
    assert proc.returncode == 130, out + err
    assert any(re.fullmatch(r"interrupted \(Ctrl-C\) after \d+ of 400 programs", line) for line in lines), out
    assert re.fullmatch(r"programs: \d+, lanes: \d+, mismatches: \d+, crashes: \d+", lines[-1])
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


_FLAKY_RUN = """
import io, os, sys, time
from array_vectorize.fuzz import runner

real = runner._worker

def flaky(job):
    if job[1] == 1:
        os._exit(3)  # e.g. an abort in the compiler
    if job[1] == 2:
        time.sleep(60)  # e.g. an endless loop in native code
    return real(job)

runner._worker = flaky  # inherited by the forked workers
out = io.StringIO()
opts = runner.Options(seed=5, count=5, timeout=15.0, known=runner.OPEN_BUG_CLASSES, exclude=runner.OPEN_BUG_FEATURES)
totals = runner.run(opts, jobs=2, out=out, isolate=True)
print(out.getvalue())
print("TOTALS", totals["programs"], totals["crashes"])
"""


def test_isolated_run_survives_dying_and_hanging_programs():
    # A fresh interpreter: forking this one (which may have imported JAX) is not safe.
    done = subprocess.run([sys.executable, "-c", _FLAKY_RUN], capture_output=True, text=True, timeout=120)
    text = done.stdout
    assert "TOTALS 5 2" in text, text + done.stderr
    assert "worker process died, exit code 3" in text and "no result after 15 s" in text
    assert text.index("program 1 of seed 5") < text.index("program 2 of seed 5")  # reports in program order


def test_numpy_is_reached_by_every_spelling_and_checked(tmp_path):
    """grammar_names.py: programs calling NumPy reach it through another alias, by name and under
    aliases of their own, decided by a hash (no draw: the programs are the ones their seeds gave,
    respelled); the first program of each spelling compiles and matches on NumPy and strict."""
    from array_vectorize.fuzz.runner import make_program, run_one

    spellings = ("numpy_alias", "numpy_by_name", "numpy_as")
    options = _options(seed=27, backends=("numpy", "strict"))
    first: dict = {}
    for index in range(600):
        program, _ = make_program(27, index, options)
        if "numpy_calls" not in program.features or program.reject is not None:
            continue
        spelling = next((s for s in spellings if s in program.features), None)
        if spelling in first:
            continue
        first[spelling] = index
        tree = ast.parse(program.source)
        assert problems(tree) is None, program.source
        if spelling is not None:
            assert not re.search(r"\bnp\.", program.source), program.source
        if spelling in ("numpy_by_name", "numpy_as"):
            assert any(isinstance(n, ast.ImportFrom) and n.module == "numpy" for n in tree.body), program.source
    assert set(first) == {None, *spellings}
    for spelling, index in first.items():
        report = run_one(27, index, options, str(tmp_path))
        assert report.mismatches == report.crashes == 0 and report.lanes > 0, (spelling, report.text)
    for i in range(100):
        assert not set(spellings) & Generator(random.Random(i), exclude=frozenset(spellings)).program().features
