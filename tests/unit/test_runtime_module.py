"""The runtime package as a module (split from test_runtime.py at 800 lines): its helper
globals, its imports (a standard-library-only leaf), and its helpers on lazy backends (Dask, JAX's
jit), checked against CPython's values."""

from __future__ import annotations

import ast
import pathlib
import sys
from typing import Any

import array_api_compat
import array_api_strict
import numpy as np
import pytest

from array_vectorize.runtime import RUNTIME_HELPERS, helper_globals
from array_vectorize.runtime.arith import _vec_binary, _vec_result, _vec_unary

NAN = float("nan")


def test_helper_globals() -> None:
    g1, g2 = helper_globals(), helper_globals()
    assert g1 == g2 and g1 is not g2  # fresh copies: exec may add to them
    assert set(g1) == {name for name, _ in RUNTIME_HELPERS.values()}
    p1, p2 = helper_globals(array_api_strict), helper_globals(array_api_strict)
    assert p1 == p2 and p1["_vec_float_args"] is not g1["_vec_float_args"]
    assert p1["_vec_binary"] is g1["_vec_binary"]
    xp, x = p1["_vec_float_args"](2.0)
    assert xp is array_api_strict and x.dtype == array_api_strict.float64


def test_runtime_is_a_stdlib_only_leaf() -> None:
    import array_vectorize.runtime as runtime

    root = pathlib.Path(runtime.__file__).parent
    allowed = set(sys.stdlib_module_names) | {"array_api_compat", "__future__"}
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 2 and node.module is None and [a.name for a in node.names] == ["_core"]:
                    # The compiled core's helper contract (registry.py): no Python dependency.
                    assert path.name == "registry.py", f"{path.name}: reaches outside runtime/"
                    continue
                if node.level:
                    assert node.level == 1, f"{path.name}: reaches outside runtime/"
                    continue
                tops = [(node.module or "").split(".")[0]]
            else:
                continue
            assert set(tops) <= allowed, f"{path.name} imports {tops}"


# --------------------------------------------------------------------------- lazy backends


def test_helpers_keep_dask_lazy_and_exact() -> None:
    """Dask values cannot be inspected without computing: the helpers never do, and take the
    static choices of the lattice (documented) instead."""
    da = pytest.importorskip("dask.array")
    u = da.from_array(np.array([5, 2**64 - 1, 7], dtype=np.uint64), chunks=2)
    v = da.from_array(np.array([3, 2**63, 0], dtype=np.uint64), chunks=2)
    xp = array_api_compat.array_namespace(u)
    diff = _vec_result(xp, _vec_binary(xp, "sub", u, v))  # possibly negative: int64, whatever the values
    assert isinstance(diff, da.Array) and diff.dtype == np.int64
    assert diff.compute().tolist() == [2, 2**63 - 1, 7]
    total = _vec_binary(xp, "add", u, 1)  # never negative: uint64
    assert isinstance(total, da.Array) and total.compute().tolist() == [6, 0, 8]
    p = da.from_array(np.array([2**63 - 1, -(2**62) - 1, 10**18 + 1], dtype=np.int64), chunks=2)
    q = da.from_array(np.array([3, 2**53 + 1, -(10**18)], dtype=np.int64), chunks=2)
    ratio = _vec_binary(xp, "truediv", p, q)
    assert isinstance(ratio, da.Array)
    assert ratio.compute().tolist() == [(2**63 - 1) / 3, (-(2**62) - 1) / (2**53 + 1), (10**18 + 1) / -(10**18)]
    powers = _vec_binary(xp, "pow", 2, da.from_array(np.array([3, 1], dtype=np.int64), chunks=1))
    assert isinstance(powers, da.Array) and powers.dtype == np.float64  # exponent signs unknown
    assert powers.compute().tolist() == [8.0, 2.0]


def test_helpers_work_under_jax_jit() -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    @jax.jit
    def f(p: Any, q: Any, u: Any, x: Any) -> Any:
        xp = array_api_compat.array_namespace(p)
        return (
            _vec_binary(xp, "truediv", p, q),
            _vec_binary(xp, "lt", u, 2**63),
            _vec_binary(xp, "gt", p, x),
            _vec_unary(xp, "int", x),
        )

    p = [2**63 - 1, 2**53 + 1]
    q = [3, -7]
    u = [2**63 - 1, 2**64 - 1]
    x = [9.223372036854775e18, NAN]
    ratio, below, greater, ints = f(jnp.asarray(p), jnp.asarray(q), jnp.asarray(u, dtype=jnp.uint64), jnp.asarray(x))
    assert np.asarray(ratio).tolist() == [p[0] / q[0], p[1] / q[1]]
    assert np.asarray(below).tolist() == [True, False]
    assert np.asarray(greater).tolist() == [True, False]
    assert np.asarray(ints).tolist() == [9223372036854774784, 0]
