"""Issue 30: whether a large int64 call may run in blocks is the core's `int_lanewise` (codegen's
walk of the int body, src/codegen/assemble.rs), never a reading of the generated text. The flag
is the same, and reaches the exact body's `Dispatch` as its `int_blocks`, on the three ways in:
the decorator (live compile), the import hook (its static compile, through the record its cache
holds, lazily made) and a wheel (its manifest, with the module's code as the installer's .pyc
gives it). A lane-wise int body, one that calls `_vec_binary` and one that calls out-of-line
helpers (D7; the sum of their results is `_vec_binary`'s too) are each checked on every path:
the flag, the values against CPython, and whether the call ran in blocks."""

from __future__ import annotations

import json
import types

import numpy as np
from behavior.runtime.test_blocked_evaluation import blocks  # noqa: F401 - a fixture
from oracle import check
from three_ways import assert_same_source_three_ways, module_on_path

from array_vectorize import _core, api, emit
from array_vectorize.build import config, precompile
from array_vectorize.build.wheelfile import Entry
from array_vectorize.hook.compile import cached
from array_vectorize.runtime import blocked

# Tier helpers that call the next one twice, past the inlining budget: the core compiles them out
# of line (D7), with their int instances in the exact body's text.
TIERS = "".join(f"def tier{i}(units):\n    return tier{i + 1}(units) + tier{i + 1}(units // 2)\n\n" for i in range(20))
TIERS += "def tier20(units):\n    return units * 3 if units > 100 else units\n\n"

MODULE = f"""\
from array_vectorize import vectorize


{TIERS}
@vectorize
def leap_year(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


@vectorize
def instalments(principal, months):
    # The divisor's interval holds 0 and -1: Python's `//` on it is `_vec_binary`'s (D3).
    per = months % 3 - 1
    return principal // per + principal % per


@vectorize
def tiered_levy(units):
    return tier0(units)
"""

#: What codegen says of each function's int body.
LANEWISE = {"leap_year": True, "instalments": False, "tiered_levy": False}


def _int_blocks(vec) -> bool:
    (dispatch,) = [v for v in vec.__globals__.values() if type(v) is blocked.Dispatch]
    return dispatch.int_blocks


def _columns(n_args: int, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(30)
    edges = np.array([0, 1, -1, 100, 101, 400, 1900, 2000, -(2**62), 2**62 - 1], dtype=np.int64)
    cols = []
    for _ in range(n_args):
        col = rng.integers(-(10**6), 10**6, n, dtype=np.int64)
        col[: min(n, edges.size)] = edges[:n]
        cols.append(col)
    return cols


def test_the_int_body_is_lanewise_as_codegen_says_three_ways(tmp_path, monkeypatch, blocks):
    with module_on_path(MODULE, "lanewise", tmp_path, monkeypatch) as (name, root):
        assert_same_source_three_ways(MODULE, name, root, list(LANEWISE))
        static = {e["name"]: e for e in _core.compile_module(MODULE, str(root / f"{name}.py"))}
        entries = {f"{name}/__init__.py": Entry(b""), f"{name}/m.py": Entry(MODULE.encode())}
        artifacts, _ = precompile.precompile(entries, f"{name}-0.1.0.dist-info", config.from_table({}), str(root))
        (manifest,) = [json.loads(e.data) for k, e in artifacts.items() if k.endswith("/m.json")]
        wheel = {f["name"]: f for f in manifest["functions"]}
        mod = __import__(name)
        records = cached(list(static.values()), {}, {})
        for fn_name, want in LANEWISE.items():
            decorated = getattr(mod, fn_name)
            original = decorated._vectorized_original
            live, _ = api.compile_live(original, {"protect_domains": False, "fallback": False, "optimize": False})
            assert live["int_lanewise"] is static[fn_name]["int_lanewise"] is wheel[fn_name]["int_lanewise"] is want, fn_name
            # The int body: the statements under the int prologue, up to the exact body's own.
            exact = static[fn_name]["exact_source"]
            int_body = exact[exact.index("_vec_int_args(") : exact.index("_vec_exact_args(")]
            assert ("_vec_binary(" in int_body) == (fn_name != "leap_year"), int_body
            assert ("_vec_helper_" in int_body) == (fn_name == "tiered_levy"), int_body
            assert bool(static[fn_name]["exact_helpers"]) == (fn_name == "tiered_levy")

            # The hook's record, made lazily from the entry function's code as a warm import does.
            (record,) = [r for r in records if r["qualname"] == fn_name]
            module_code = compile(record["source"][: record["fast_len"]], "<hook>", "exec")
            record["code"] = next(c for c in module_code.co_consts if isinstance(c, types.CodeType) and c.co_name == record["entry"])
            from_hook = emit.from_cache(original, record, None, None)
            # The wheel's: the whole module's code defines the exact body, wrapped by emit.
            source = static[fn_name]["source"]
            code = compile(source, emit.code_filename(fn_name, source), "exec")
            from_wheel = api.from_found(original, ("wheel", {**wheel[fn_name], "fast_source": source, "code": code}), None)

            # The scalar tiered_levy makes 2**21 calls per element: two elements are checked.
            cols = _columns(original.__code__.co_argcount, 2 if fn_name == "tiered_levy" else 64)
            if fn_name == "instalments":
                cols[1][:3] = [1, 2, 4]  # divisors 0, 1 and -1 on the first lanes
            for vec in (decorated, from_hook, from_wheel):
                # Blocking from 20 elements on (the `blocks` fixture): the 64-element calls of
                # the lane-wise body run in blocks, the others whole.
                blocks.clear()
                check(vec, *cols)  # the first call installs a lazy function's globals
                assert _int_blocks(vec) is want, fn_name
                assert bool(blocks) is (want and len(cols[0]) > 20), (fn_name, blocks)
