"""Mutation check: do the end-to-end differential layers catch small breaks of the runtime helpers
and of codegen's choices?

Each mutation is one textual edit of a file of the installed package. The package is copied to a
temporary directory, the edit is made in the copy, and the layers run in child processes with the
copy first on ``PYTHONPATH``: the installed package and the worktree are never modified. Layers,
in order, until one fails (catches the mutation):

* ``behaviour``: tests/behavior (the language cases, compared with CPython by tests/oracle.py);
* ``golden``: tests/golden (each case run against CPython, besides its text);
* ``hypothesis``: tests/differential/test_hypothesis.py;
* ``fuzz``: ``python -m array_vectorize.fuzz`` on two fixed seeds.

Cost: each mutation declares the test files that concern its helper or choice (``files``);
they run first, alone, in one pytest process stopped at the first failure, so a mutation they
catch costs that process's start-up and those files' tests (seconds), not the collection of the
whole layer. The whole layers run, as above, only for a mutation its files do not catch (and then
once first on the unmutated package). Its files' catch is their layer's own: the layer runs them
too; at the end the catching tests run once more, on the unmutated package, where they must pass.
One process per mutation run keeps the patched package isolated; two mutations
run at once (``--jobs``), each in a copy of the package of its own.

A layer catches a mutation only by a wrong value: its pytest layers run with ``values_only.py``,
which sets aside a failure of a comparison of generated text, and codegen mutations patch the
core's output (``_core_patch``), so every path (decorator, hook, wheel) runs the same mutated code
and the fuzzer's comparison of the static compile's text with the decorator's cannot fire.

``tests/unit/test_runtime.py`` is deliberately not a layer: the point is whether the differential
layers see a wrong result. Prints a table (mutation, verdict, the layer and test that caught it)
and exits 1 when fewer than ``REQUIRED`` of the mutations are caught, when a mutation no longer
applies (its text moved: update it here), or when the unmutated package fails a layer.

The work directory (the copies of the package, and the ``TMPDIR`` of every layer process) is
removed however the run ends: at its end, on Ctrl-C, on SIGTERM (the layer processes, each the
leader of a process group of its own, are killed first). A run killed outright (SIGKILL) leaves
it; the next run removes it. The run prints whether it is gone, and exits 2 when it is not.

Usage: ``python tests/mutation/run.py [--only NAME] [--jobs N]`` (``make mutation``).
"""

from __future__ import annotations

import argparse
import glob
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: At least this share of the mutations must be caught end to end.
REQUIRED = 0.8


@dataclass
class Mutation:
    name: str
    path: str  # relative to the package directory
    old: str
    new: str
    what: str
    #: The test files (paths below tests/, each of a pytest layer) that concern the mutated helper
    #: or choice: run first, alone, stopping at the first failure, so that catching the mutation
    #: takes seconds. Only when they do not catch it do the whole layers run (see ``check``).
    files: Tuple[str, ...] = ()


def _core_patch(old: str, new: str) -> Tuple[str, str]:
    """A codegen mutation as a real codegen bug would be, without rebuilding the core: appended to
    the package's ``__init__.py``, wrappers of ``_core.compile_function`` and
    ``_core.compile_module`` rewrite the generated text they return, so the decorator, the import
    hook's static compile and the build backend all run the same mutated code (``old`` empty:
    append). A comparison of the paths' texts cannot see it; only a wrong value can."""
    return "", (
        "\n\nfrom . import _core as _mutated_core\n\n\n"
        "def _mutate_generated(entry):\n"
        "    for key in ('fast_source', 'exact_source', 'source'):\n"
        "        if isinstance(entry.get(key), str):\n"
        f"            entry[key] = entry[key].replace({old!r}, {new!r})\n"
        "    return entry\n\n\n"
        "def _mutated(compile, many):\n"
        "    def mutated(*args, **kwargs):\n"
        "        result = compile(*args, **kwargs)\n"
        "        return [_mutate_generated(e) for e in result] if many else _mutate_generated(result)\n"
        "\n"
        "    return mutated\n\n\n"
        "_mutated_core.compile_function = _mutated(_mutated_core.compile_function, False)\n"
        "_mutated_core.compile_module = _mutated(_mutated_core.compile_module, True)\n"
    )


MUTATIONS: List[Mutation] = [
    Mutation(
        "int-floordiv-truncates", "runtime/intops.py",
        "    return xp.where(by_zero, info.scalar(\"i\", 0), xp.floor_divide(a, b1))",
        "    return xp.where(by_zero, info.scalar(\"i\", 0), xp.floor_divide(xp.abs(a), xp.abs(b1)) * xp.sign(a) * xp.sign(b1))",
        "int64 `//` rounds toward zero (the floor sign fix removed)",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "uint-floordiv-truncates", "runtime/intops.py",
        "    ceil = xp.add(xp.floor_divide(xp.subtract(ma1, 1), mb1), 1)",
        "    ceil = xp.floor_divide(ma1, mb1)",
        "uint64-lattice `//` of opposite signs rounds toward zero",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "int-vs-nan-compare-flipped", "runtime/compare.py",
        "        return _const(xp, info, x, op == \"ne\")\n    if math.isinf(v):",
        "        return _const(xp, info, x, op != \"ne\")\n    if math.isinf(v):",
        "an int array compared with a NaN float: every comparison but != is true",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "int64-uint64-equal-through-float", "runtime/compare.py",
        "    if op == \"eq\":\n        return equal(xp, info, ia, ib)",
        "    if op == \"eq\":\n        return xp.astype(a, info.float64) == xp.astype(b, info.float64)",
        "int64 == uint64 compares values rounded through float64",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "select-float-scalar-as-int", "runtime/select.py",
        "    if \"f\" in kinds or \"F\" in kinds:\n        x, y = _to_float",
        "    if \"f\" in kinds:\n        x, y = _to_float",
        "a select of an int array and a Python float truncates the float (promotion wrong)",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "checked-pass-keeps-zeros", "runtime/select.py",
        "    return bool(r.all()) and top == top",
        "    return top == top",
        "a maximum/minimum/clip pass is kept with a tie of 0.0 and -0.0 in it (the library's sign)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "checked-pass-keeps-nan", "runtime/select.py",
        "    return bool(r.all()) and top == top",
        "    return bool(r.all())",
        "a maximum/minimum/clip pass is kept with NaN from a bound (CPython keeps x)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "blocked-check-keeps-zeros", "runtime/select.py",
        "        if not (top == top and r.all()):",
        "        if not (top == top):",
        "a block of a large maximum/minimum pass is kept with a tie of 0.0 and -0.0 in it",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "blocked-check-keeps-nan", "runtime/select.py",
        "        if not (top == top and r.all()):",
        "        if not r.all():",
        "a block of a large maximum/minimum pass is kept with NaN from a bound (CPython keeps x)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "blocked-clip-redo-takes-the-bound", "runtime/select.py",
        "    copyto(r, lo, where=lo > x)\n    copyto(r, hi, where=hi < r)",
        "    copyto(r, lo, where=lo >= x)\n    copyto(r, hi, where=hi < r)",
        "a redone block of a large clip replaces x by an equal lower bound (0.0 for -0.0)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "small-clip-tie-takes-the-bound", "runtime/select.py",
        "        copyto(r, lo, where=lo > x)",
        "        copyto(r, lo, where=lo >= x)",
        "a small clip replaces x by an equal lower bound (0.0 for -0.0: CPython's max keeps x)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "small-clip-check-keeps-zeros", "runtime/select.py",
        "    if (_count_nonzero or _numpy_count_nonzero())(r) != r.size:",
        "    if False:",
        "a small clip pass is kept with a tie of 0.0 and -0.0 in it (the library's sign)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "small-clip-check-keeps-nan", "runtime/select.py",
        "    return bool(squares == squares)",
        "    return True",
        "a small clip pass is kept with NaN from a bound (CPython keeps x)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "constant-clip-keeps-the-libraries-tie", "runtime/select.py",
        '                    sys.modules["numpy"].copyto(r, x, where=x == 0.0)',
        "                    pass",
        "a clip to a zero constant keeps the clip loop's pick on a tie of zeros (CPython keeps x)",
        files=("behavior/numbers/test_min_max_clip.py",),
    ),
    Mutation(
        "own-prologue-ignores-types", "runtime/args.py",
        '        guard = " and ".join([*(f"type(a{i}) is t{i}" for i in range(len(types))), "not rest"])',
        '        guard = "not rest"',
        "a function's own float prologue keeps the plan of the first argument types it saw",
        files=("behavior/runtime/test_blocked_evaluation.py",),
    ),
    Mutation(
        "mixed-prologue-takes-float32", "runtime/args.py",
        '                if kind_of(a.dtype) != "f":',
        '                if kind_of(a.dtype) not in ("f", WIDEN_FLOAT):',
        "the mixed body's prologue takes a float32 array where a float is expected, unwidened (issue 30)",
        files=("behavior/numbers/test_mixed_body.py",),
    ),
    Mutation(
        "threaded-blocks-take-the-first-failure-recorded", "runtime/blocked.py",
        "    failure = min(failures, key=lambda f: f[0])[1]",
        "    failure = failures[0][1]",
        "blocks on several threads: the exception of whichever block failed first in time is raised, not the lowest block's",
        files=("behavior/runtime/test_blocked_evaluation.py",),
    ),
    Mutation(
        "threaded-blocks-lose-the-callers-errstate", "runtime/blocked.py",
        "pool.submit(contextvars.copy_context().run, fill)",
        "pool.submit(fill)",
        "blocks on worker threads run under NumPy's default errstate, not the caller's",
        files=("behavior/runtime/test_blocked_evaluation.py",),
    ),
    Mutation(
        "packed-loops-lose-the-lanes-packed-away", "runtime/loops.py",
        "        full[lanes.index] = c",
        "        full[lanes.index[: len(lanes.index) // 2]] = c[: len(lanes.index) // 2] if getattr(c, 'ndim', 0) else c",
        "a packed while loop writes back only the first half of the lanes it still held",
        files=("behavior/runtime/test_packed_loops.py",),
    ),
    Mutation(
        "packed-loops-stop-repacking-the-slow-lanes", "runtime/loops.py",
        "held, least = lanes.index.size, min(PACK_MIN_LANES, REPACK_MIN_LANES)",
        "held, least = lanes.index.size, PACK_MIN_LANES",
        "a packed while loop packs no more once it holds fewer than PACK_MIN_LANES lanes",
        files=("behavior/runtime/test_packed_loops.py",),
    ),
    Mutation(
        "jit-packed-loops-write-the-padding-back", "runtime/loops.py",
        'c.at[index].set(d, mode="drop")',
        'c.at[index].set(d, mode="clip")',
        "under jax.jit a packed loop's padding writes the last lane's values from when it packed back over that lane",
        files=("behavior/loops/test_while_jit_packed.py",),
    ),
    Mutation(
        "sincos-swaps-sin-and-cos-after-the-probe", "runtime/trig.py",
        "        return _native(sys.modules[\"numpy\"], x)\n",
        "        return _native(sys.modules[\"numpy\"], x)[::-1]\n",
        "the native pass's sin and cos of a large array come back swapped (the probe, which "
        "calls the pass directly, still agrees)",
        files=("behavior/runtime/test_sincos.py",),
    ),
    Mutation(
        "blocked-notes-number-lanes-within-the-block", "runtime/blocked.py",
        "    return lanes[0] + index, lanes[2]",
        "    return index, shape",
        "an exception raised for a lane of a block names the element's place in its block",
        files=("behavior/runtime/test_blocked_evaluation.py",),
    ),
    Mutation(
        "int-truediv-through-float", "runtime/arith.py",
        "_TWO_53 = 2.0**53",
        "_TWO_53 = 2.0**64",
        "int / int rounds both operands to float64 first (not correctly rounded above 2**53)",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "int-saturates-wrong-way", "runtime/arith.py",
        "    v = xp.where(t >= TWO_63, info.scalar(\"i\", INT64_MAX), v)",
        "    v = xp.where(t >= TWO_63, info.scalar(\"i\", INT64_MIN), v)",
        "int()/round()/floor() of a float beyond int64 saturates to INT64_MIN",
        files=("behavior/calls/test_numpy_names.py",),
    ),
    Mutation(
        "half-power-patch-removed", "runtime/arith.py",
        "    if half is False:\n        return result",
        "    if True:\n        return result",
        "the helpers' `x ** 0.5` keeps NumPy's sqrt values for -0.0 and -inf",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "float-floor-truncates", "runtime/arith.py",
        "        return float_to_int64(xp, info, getattr(xp, op)(xp.where(xp.isnan(a), 0.0, a)))",
        "        return float_to_int64(xp, info, xp.trunc(xp.where(xp.isnan(a), 0.0, a)))",
        "math.floor/ceil of a float array truncates",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "uint-add-sign-lost", "runtime/intops.py",
        "    neg = _either(xp, _either(xp, neg_a, neg_b), _both(xp, a.neg, b.neg))\n    return overflowed(info, finish(xp, info, bits, neg), site)",
        "    return overflowed(info, finish(xp, info, bits, None), site)",
        "uint64-lattice `+` forgets negative results (uint64 instead of int64)",
        # language/test_constructs.py and the Hypothesis layer miss it; nan_on_raise's conversion
        # of lattice lanes catches it (found by the whole behaviour layer, which can pass its
        # timeout on a loaded machine: a fresh-clone CI of 11ac77f).
        files=("behavior/exceptions/test_raise_per_lane.py",),
    ),
    Mutation(
        "uint-add-wraps-past-the-lattice", "runtime/intops.py",
        '    site = beyond(xp, info, over, "+", a, b)',
        "    site = None",
        "uint64-lattice `+` wraps a sum beyond 2**64 or below -2**63 silently instead of raising (item 13)",
        files=("behavior/numbers/test_uint64_beyond_the_lattice.py",),
    ),
    Mutation(
        "uint-sub-wraps-past-the-lattice", "runtime/intops.py",
        '    site = beyond(xp, info, over, "-", a, b)',
        "    site = None",
        "uint64-lattice `-` wraps a difference below -2**63 silently (the issue's calendar, item 13)",
        files=("behavior/numbers/test_uint64_beyond_the_lattice.py",),
    ),
    Mutation(
        "uint-floordiv-wraps-past-the-lattice", "runtime/intops.py",
        '    site = beyond(xp, info, over, "//", a, b)',
        "    site = None",
        "uint64-lattice `//` by a negative divisor wraps a quotient below -2**63 silently (item 13)",
        files=("behavior/numbers/test_uint64_beyond_the_lattice.py",),
    ),
    Mutation(
        "uint-beyond-the-lattice-kept-on-every-side", "runtime/select.py",
        "    over = xp.where(cond, a.over if type(a) is Overflowed else none, b.over if type(b) is Overflowed else none)",
        "    over = xp.logical_or(a.over if type(a) is Overflowed else none, b.over if type(b) is Overflowed else none)",
        "item 13's marks kept on the lanes a branch does not take: `u - v if u >= v else 0` raises where CPython returns 0",
        files=("behavior/numbers/test_uint64_beyond_the_lattice.py",),
    ),
    Mutation(
        "uint-beyond-the-lattice-dropped-by-the-select", "runtime/select.py",
        "    if known_any(xp, over) is False:\n        return value\n    marked = Overflowed(",
        "    if True:\n        return value\n    marked = Overflowed(",
        "item 13's marks dropped at every merge: a lane beyond the range on the side it takes returns a wrapped value",
        files=("behavior/numbers/test_uint64_beyond_the_lattice.py",),
    ),
    Mutation(
        "uint-beyond-the-lattice-merged-into-a-float", "runtime/select.py",
        '    if type(value) is not LatticeInt and info.kind(value) not in "iu":',
        "    if False:",
        "item 13's marks kept on a float merge: the int body's `0.5 + units` meets an Overflowed (TypeError)",
        files=("behavior/numbers/test_uint64_marks_meet_floats.py",),
    ),
    Mutation(
        "uint-beyond-the-lattice-returned-where-it-raised", "runtime/raises.py",
        "    over = xp.logical_and(value.over, code == 0)",
        "    over = value.over",
        "nan_on_raise: a lane that raised before returning a value beyond the lattice raises item 13's error, not NaN",
        files=("behavior/numbers/test_uint64_marks_meet_floats.py",),
    ),
    Mutation(
        "int-overflow-message-without-the-float", "runtime/raises.py",
        'f"{function}({x!r}) is beyond int64',
        'f"{function}() is beyond int64',
        "item 7's OverflowError of a float beyond int64 does not name the float converted",
        files=("behavior/language/test_divergences.py",),
    ),
    Mutation(
        "codegen-min-tie-order", "__init__.py", *_core_patch('"lt"', '"le"'),
        "codegen: the helpers' `<` emitted as `<=` (min/max keep the last of equal arguments)",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "codegen-fast-le-as-lt", "__init__.py", *_core_patch(" <= ", " < "),
        "codegen: the fast path's `<=` emitted as `<`",
        files=("behavior/language/test_constructs.py",),
    ),
    Mutation(
        "codegen-horner-subtraction-as-addition", "__init__.py", *_core_patch("), '-", "), '+"),
        "codegen: a Horner polynomial's first `c - acc` step emitted as `acc + c` (src/codegen/horner.rs)",
        files=("behavior/runtime/test_horner_polynomials.py",),
    ),
    Mutation(
        "codegen-str-method-dropped", "__init__.py", *_core_patch(".lower()", ""),
        "codegen: a method of a string given per call (D14, `terrain.strip().lower()`) emitted without its call",
        files=("behavior/values/test_str_methods.py",),
    ),
    Mutation(
        "horner-passes-subtract-reversed", "runtime/horner.py",
        "                subtract(c, acc, out=acc)",
        "                subtract(acc, c, out=acc)",
        "`_vec_horner`'s array operations compute `acc - c` for `c - acc` (0-d, strided and non-NumPy arrays, lanes not finite)",
        files=("behavior/runtime/test_horner_polynomials.py",),
    ),
    Mutation(
        "horner-under-setting-read-once", "runtime/horner.py",
        "    if state is not seen:",
        "    if seen is None:",
        "`_vec_horner` keeps the first `under` setting it read: the kernel runs (no underflow "
        "warning or error) under a later errstate(under='raise')",
        files=("behavior/runtime/test_horner_polynomials.py",),
    ),
    Mutation(
        "codegen-int-mod-mask-is-the-divisor", "__init__.py", *_core_patch(" & 3 == 0", " & 4 == 0"),
        "codegen: the int body's `y % 4 == 0` as a mask by the divisor, not the divisor less one",
        files=("behavior/numbers/test_int_body.py",),
    ),
    Mutation(
        "codegen-int-mod-quotient-off-by-one", "__init__.py", *_core_patch(" // 100 * 100", " // 100 * 99"),
        "codegen: the int body's `y % 100` from the quotient multiplied by the wrong constant",
        files=("behavior/numbers/test_int_body.py",),
    ),
    Mutation(
        "codegen-chain-sub-as-add", "__init__.py", *_core_patch(" -= ", " += "),
        "codegen: an in-place chain's (or loop update's) subtraction emitted as an addition",
        files=("behavior/runtime/test_inplace_chains.py",),
    ),
    Mutation(
        "own-prologue-memo-by-equality", "runtime/args.py",
        "_MEMO = \"(p[1] if (p := m{0})[0] is a{0} else remake('m{0}', a{0}))\"",
        "_MEMO = \"(p[1] if (p := m{0})[0] == a{0} else remake('m{0}', a{0}))\"",
        "a function's own prologue gives back the float64 value of the last float equal to the "
        "argument, not only of that very object (0.0 for -0.0)",
        files=("behavior/arguments/test_float_parameters.py",),
    ),
    Mutation(
        "bool0d-lifts-the-negation", "runtime/args.py",
        "        return functools.partial(sys.modules[\"numpy\"].asarray, dtype=info.b1)",
        "        return lambda value: sys.modules[\"numpy\"].asarray(not value, dtype=info.b1)",
        "the float body's bool lift on NumPy (a masked loop's first mask and done flag) makes the other bool",
        files=("behavior/loops/test_while_loops.py",),
    ),
    Mutation(
        "codegen-done-flag-or-merge-takes-every-lane", "__init__.py",
        *_core_patch("xp.logical_or(xp.logical_and(", "xp.logical_or(xp.logical_or("),
        "codegen: a masked loop's done flag (`b or x if c else b`) or-ed with the lanes that did not run",
        files=("behavior/loops/test_while_loops.py",),
    ),
    Mutation(
        "loops-count-one-lane-short", "runtime/loops.py",
        "        if type(count) is type(len):  # the builtin, not a Python wrapper\n            return count",
        "        if type(count) is type(len):  # the builtin, not a Python wrapper\n            return lambda m: count(m) - 1",
        "the masked loops' test counts one true lane fewer: a loop with one active lane left ends",
        files=("behavior/loops/test_while_loops.py",),
    ),
    Mutation(
        "codegen-uniform-raise-unchecked", "__init__.py",
        *_core_patch("    if code != 0:\n        _vec_raise_uniform(", "    if code < 0:\n        _vec_raise_uniform("),
        "a raise whose code is a Python int (uniform checks, also before a branch on the lanes) never raises",
        files=("behavior/exceptions/test_raise_under_uniform_if.py",),
    ),
    Mutation(
        "codegen-loop-table-index-unclamped", "__init__.py",
        *_core_patch(', 0, merged), "tuple")', ', merged, merged), "tuple")'),
        "a table index in a loop gathered without the raise site's clamp: the gather raises at once, "
        "for the first bad lane of the first iteration with one, not CPython's first element (D11, D12)",
        files=("behavior/values/test_table_index_in_loops.py",),
    ),
    Mutation(
        "codegen-floor-as-trunc", "__init__.py", *_core_patch("xp.floor(", "xp.trunc("),
        "codegen: `math.floor` of a float emitted as `xp.trunc`",
        files=("behavior/calls/test_numpy_calls.py",),
    ),
    # The D17 helpers (docs/semantics.md's D17 table), each within its documented bound of
    # CPython's `math` or exact: a break beyond the bound must show as a wrong value.
    Mutation(
        "special-erfc-exponent-not-split", "runtime/special.py",
        "    h = split(a)\n",
        "    h = a\n",
        "erf/erfc: exp(-x*x) without the exact split of x*x (erfc(12.3) 17 ulps off, erfc(25.26) 465)",
        files=("behavior/calls/test_special_calls.py",),
    ),
    Mutation(
        "special-erf-scaled", "runtime/special.py",
        "xp.copysign(1.0 - tail, x)",
        "xp.copysign((1.0 - tail) * 1.01, x)",
        "erf beyond |x| = 0.5 scaled by 1.01",
        files=("behavior/calls/test_special_calls.py",),
    ),
    Mutation(
        "special-erfc-scaled", "runtime/special.py",
        "xp.where(x < 0.0, 2.0 - tail, tail))",
        "xp.where(x < 0.0, 2.0 - tail, tail * 1.01))",
        "erfc of x >= 0.5 scaled by 1.01",
        files=("behavior/calls/test_special_calls.py",),
    ),
    Mutation(
        "special-gamma-power-through-exp-log", "runtime/special.py",
        "    b = xp.pow(a, (a - 0.5) * 0.5)",
        "    b = xp.exp(xp.log(a) * ((a - 0.5) * 0.5))",
        "gamma: Stirling's a ** ((a - 0.5) / 2) as exp(log(a) * ...), whose error grows with a (hundreds of ulps near 171)",
        files=("behavior/calls/test_special_calls.py",),
    ),
    Mutation(
        "special-lgamma-small-piece-too-wide", "runtime/special.py",
        "    result = xp.where(a < 1e-20, -xp.log(safe), result)",
        "    result = xp.where(a < 1e-8, -xp.log(safe), result)",
        "lgamma: -log|x| used up to |x| < 1e-8, where it drops Euler's constant times x",
        files=("behavior/calls/test_special_calls.py",),
    ),
    Mutation(
        "fsum-tie-ignores-the-next-partial", "runtime/special_exact.py",
        "    return xp.where(xp.logical_and(same_sign, up - hi == twice), up, hi)",
        "    return hi",
        "fsum: a half-way rounding error always rounds to even, whatever the partial below says (fsum((1.0, 2**-53, 2**-106)))",
        files=("behavior/calls/test_special_calls.py",),
    ),
    Mutation(
        "isclose-abs-tol-exclusive", "runtime/special_exact.py",
        "        near = xp.logical_or(near, diff <= tol_abs)",
        "        near = xp.logical_or(near, diff < tol_abs)",
        "isclose: a difference exactly equal to abs_tol is not close",
        files=("behavior/calls/test_special_calls.py",),
    ),
    Mutation(
        "isclose-rel-tol-exclusive", "runtime/special_exact.py",
        "        near = xp.logical_or(diff <= xp.abs(rel * b), diff <= xp.abs(rel * a))",
        "        near = xp.logical_or(diff < xp.abs(rel * b), diff < xp.abs(rel * a))",
        "isclose: a difference exactly rel_tol times the larger magnitude is not close",
        files=("behavior/calls/test_special_calls.py",),
    ),
]

PYTEST = ["-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "values_only"]
LAYERS = [
    ("behaviour", [*PYTEST, "behavior"]),
    ("golden", [*PYTEST, "golden"]),
    ("hypothesis", [*PYTEST, "differential/test_hypothesis.py"]),
    ("fuzz", ["-m", "array_vectorize.fuzz", "--seed", "101", "--count", "150", "--jobs", "2", "--no-minimize", "--max-reports", "1", "--skip-open-bugs"]),
    ("fuzz", ["-m", "array_vectorize.fuzz", "--seed", "202", "--count", "150", "--jobs", "2", "--no-minimize", "--max-reports", "1", "--skip-open-bugs"]),
]


def installed_package() -> str:
    import array_vectorize

    return os.path.dirname(os.path.abspath(array_vectorize.__file__))


def _failed_test(output: str) -> str:
    """The first failing test pytest's summary names (``-ra``), or ""."""
    for line in output.splitlines():
        for outcome in ("FAILED ", "ERROR "):
            if line.startswith(outcome):
                return line[len(outcome) :].split(" - ")[0]
    return ""


@dataclass
class Catch:
    layer: str
    test: str = ""  # pytest's id of the failing test, where a pytest layer names one

    def __str__(self) -> str:
        return f"{self.layer}: {self.test}" if self.test else self.layer


class _Children:
    """The layer processes running now, each the leader of a process group of its own (its
    pytest-xdist or fuzz workers are in it), so that an interrupted run ends them all at once.
    Each runs with ``TMPDIR`` inside the run's work directory: what a killed one leaves there goes
    with the work directory (``main``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: "set[subprocess.Popen]" = set()
        self.stopping = False
        self.tmp = ""  # TMPDIR of the children, set by ``main``

    def run(self, args: List[str], env: dict, timeout: float) -> Tuple[Optional[int], str]:
        """(exit status, stdout) of ``python args`` in tests/; None for a run past ``timeout``."""
        with self.lock:
            if self.stopping:
                raise KeyboardInterrupt("the mutation run is stopping")
            proc = subprocess.Popen(
                [sys.executable, *args], cwd=TESTS, env=dict(env, TMPDIR=self.tmp), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, start_new_session=True,
            )
            self.running.add(proc)
        try:
            out, _ = proc.communicate(timeout=timeout)
            return proc.returncode, out
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            return None, ""
        finally:
            with self.lock:
                self.running.discard(proc)

    def stop(self) -> None:
        """Ends every layer process (and its workers); none starts after."""
        with self.lock:
            self.stopping = True
            running = list(self.running)
        for proc in running:
            _kill_group(proc)


def _kill_group(proc: "subprocess.Popen") -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


CHILDREN = _Children()


def run_layer(site: str, name: str, args: List[str], timeout: float) -> Optional[Catch]:
    """None when the layer passes with the package in ``site``; else what failed."""
    plugin = os.path.join(TESTS, "mutation")  # values_only.py
    path = os.pathsep.join([site, plugin, os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")
    status, out = CHILDREN.run(args, env, timeout)
    if status is None:
        return Catch(f"{name} (timeout)")
    return None if status == 0 else Catch(name, _failed_test(out))


def layer_of(test: str) -> str:
    """The pytest layer a test file or test id belongs to."""
    for name, args in LAYERS:
        if args[: len(PYTEST)] == PYTEST and test.startswith(args[-1]):
            return name
    raise ValueError(f"{test} is in none of the pytest layers")


def run_tests(site: str, tests: List[str], timeout: float) -> Optional[Catch]:
    """Test files or tests of the pytest layers alone (one pytest process, ``-x``): what failed,
    or None."""
    failed = run_layer(site, "pytest", [*PYTEST, *tests], timeout)
    if failed is not None and failed.test:
        failed.layer = layer_of(failed.test)
    elif failed is not None:
        failed.layer = failed.layer.replace("pytest", "/".join(sorted({layer_of(t) for t in tests})))
    return failed


def run_layers(site: str, timeout: float) -> Optional[Catch]:
    """The layers in order until one fails: what failed, or None."""
    for name, args in LAYERS:
        failed = run_layer(site, name, args, timeout)
        if failed is not None:
            return failed
    return None


class Sites:
    """Copies of the installed package, one per worker, each lent to one mutation at a time. The
    whole layers' run on the unmutated package (the baseline a fallback needs) is made at most
    once, by the first mutation its files do not catch."""

    def __init__(self, package: str, work: str, jobs: int, timeout: float):
        self.free: "queue.Queue[str]" = queue.Queue()
        for i in range(jobs):
            site = os.path.join(work, f"site{i}")
            shutil.copytree(package, os.path.join(site, "array_vectorize"), ignore=shutil.ignore_patterns("__pycache__"))
            self.free.put(site)
        self.timeout = timeout
        self._baseline_lock = threading.Lock()
        self._baseline: Optional[Tuple[Optional[Catch]]] = None

    @contextmanager
    def lend(self) -> Iterator[str]:
        site = self.free.get()
        try:
            yield site
        finally:
            self.free.put(site)

    def baseline(self, site: str) -> Optional[Catch]:
        """What the whole layers fail on the unmutated package in ``site`` (None: they pass)."""
        with self._baseline_lock:
            if self._baseline is None:
                self._baseline = (run_layers(site, self.timeout),)
            return self._baseline[0]


def check(m: Mutation, sites: Sites) -> Tuple[Optional[Catch], str]:
    """(what caught it, verdict) of one mutation, in a copy of the package of its own: its
    files first; the whole layers only when they pass (after the layers' baseline on the
    unmutated copy). A catch by its files is a catch of their layer, which runs them too; ``main``
    then runs the catching test on the unmutated package, where it must pass."""
    with sites.lend() as site:
        target = os.path.join(site, "array_vectorize", m.path)
        with open(target, encoding="utf-8") as fh:
            original = fh.read()
        if m.old and original.count(m.old) != 1:
            return None, "STALE (text not found once)"
        mutated = original.replace(m.old, m.new) if m.old else original + m.new

        def write(text: str) -> None:
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)

        try:
            write(mutated)
            caught = run_tests(site, list(m.files), sites.timeout) if m.files else None
            if caught is None:
                write(original)
                broken = sites.baseline(site)
                if broken is not None:
                    return None, f"BASELINE (the unmutated package fails {broken})"
                write(mutated)
                caught = run_layers(site, sites.timeout)
        finally:
            write(original)
        return caught, "caught" if caught else "MISSED"


WORK_PREFIX = "array-vectorize-mutation-"


def _sweep_killed_runs() -> None:
    """Removes the work directories of earlier runs that were killed outright (SIGKILL: their
    ``finally`` never ran), told by the process named in their ``owner`` file being gone."""
    for path in glob.glob(os.path.join(tempfile.gettempdir(), WORK_PREFIX + "*")):
        try:
            with open(os.path.join(path, "owner"), encoding="utf-8") as fh:
                os.kill(int(fh.read()), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except (OSError, ValueError):
            pass  # running (or not ours to judge)


def _interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def _remove(path: str) -> int:
    """Removes the directory ``path``; how many entries are left in it (0: it is gone)."""
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.exists(path):
        return 0
    return sum(len(dirs) + len(files) for _, dirs, files in os.walk(path)) or 1


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="run only this mutation (repeatable)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per layer run")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="mutations checked at once (default: 2, or 1 on one core)")
    args = parser.parse_args(argv)
    package = installed_package()
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    _sweep_killed_runs()
    work = tempfile.mkdtemp(prefix=WORK_PREFIX)
    with open(os.path.join(work, "owner"), "w", encoding="utf-8") as fh:
        fh.write(str(os.getpid()))
    CHILDREN.tmp = os.path.join(work, "tmp")
    os.mkdir(CHILDREN.tmp)
    # SIGTERM (a CI timeout, `kill`) ends the run as Ctrl-C does: through the `finally` below.
    signal.signal(signal.SIGTERM, _interrupted)
    started = time.monotonic()
    try:
        sites = Sites(package, work, max(1, args.jobs), args.timeout)

        def one(m: Mutation) -> Tuple[str, Optional[Catch], str, str]:
            begun = time.monotonic()
            caught, verdict = check(m, sites)
            print(f"  {m.name}: {caught if caught else verdict} ({time.monotonic() - begun:.0f} s)", flush=True)
            return m.name, caught, verdict, m.what

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            try:
                rows = list(pool.map(one, chosen))
            except BaseException:
                # Interrupted: the mutations not started never start, the running ones' layer
                # processes end now, and the pool's threads return at once.
                pool.shutdown(wait=False, cancel_futures=True)
                CHILDREN.stop()
                raise
        # A catch counts only if the catching test passes on the unmutated package (one process
        # for them all; the whole layers' catches had their baseline before).
        witnesses = sorted({c.test for _, c, _, _ in rows if c is not None and c.test})
        with sites.lend() as site:
            broken = run_tests(site, witnesses, args.timeout) if witnesses else None
        if broken is not None:
            print(f"the unmutated package already fails {broken}: fix that first")
            return 2
    finally:
        CHILDREN.stop()
        left = _remove(work)
        print(f"temporary directory {work}: " + (f"NOT removed, {left} left" if left else "removed"), flush=True)
    if left:
        return 2
    width = max(len(r[0]) for r in rows) if rows else 10
    print(f"\n{'mutation':{width}}  verdict  caught by (layer: first failing test)\n{'':{width}}  what")
    for name, caught, verdict, what in rows:
        print(f"{name:{width}}  {verdict:7}  {caught or '-'}\n{'':{width}}  {what}")
    n_caught = sum(1 for r in rows if r[2] == "caught")
    failed = sum(1 for r in rows if r[2].startswith(("STALE", "BASELINE")))
    print(f"\ncaught {n_caught} of {len(rows)} end to end ({time.monotonic() - started:.0f} s)")
    return 0 if not failed and n_caught >= REQUIRED * len(rows) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt as stop:
        print(f"interrupted ({stop or 'Ctrl-C'})", flush=True)
        sys.exit(130)
