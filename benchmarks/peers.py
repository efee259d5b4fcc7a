"""What the generated code is compared with besides the hand-written NumPy: numba compiling the
scalar original, jax.jit of the generated function, and peak memory. Shared by ``run.py`` and
``bench_realcode.py``.

numba is given every chance, as a user would: the module's own functions the original calls are
compiled with ``numba.njit`` first; ``numba.vectorize`` (a lazily typed ufunc) when every argument
is an array or a number, else, or when the ufunc cannot be typed, an ``njit`` loop over the
elements with the other arguments (parameter dicts as ``numba.typed.Dict``) passed whole.
"""

from __future__ import annotations

import tracemalloc
import types
from typing import Any, Callable

import numpy as np


def peak_bytes(fn: Callable[..., Any], args: tuple) -> int:
    """Bytes allocated at the peak of one call of `fn(*args)` above what was allocated before it
    (tracemalloc, which sees NumPy's data buffers): the temporaries and the result."""
    fn(*args)
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        out = fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del out
    return peak - before


def jax():
    """jax with 64-bit floats and ints, or None when it is not installed."""
    try:
        import jax as _jax
    except ImportError:
        return None
    _jax.config.update("jax_enable_x64", True)
    return _jax


def numba_module():
    try:
        import numba
    except ImportError:
        return None
    return numba


def with_jitted_callees(fn: types.FunctionType, numba: Any) -> types.FunctionType:
    """`fn` over a copy of its globals in which every function of its own module that it calls is
    ``numba.njit`` of itself (recursively)."""
    glob = dict(fn.__globals__)
    for name in fn.__code__.co_names:
        callee = glob.get(name)
        if isinstance(callee, types.FunctionType) and callee.__module__ == fn.__module__:
            glob[name] = numba.njit(with_jitted_callees(callee, numba))
    return types.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, fn.__closure__)


def _numba_value(numba: Any, v: Any) -> Any:
    """A whole (per-call) argument as numba takes it: a dict of floats as a typed dict."""
    if isinstance(v, dict):
        d = numba.typed.Dict.empty(numba.types.unicode_type, numba.types.float64)
        for k, x in v.items():
            d[k] = float(x)
        return d
    return v


def _result_dtypes(scalar: Callable[..., Any], args: tuple) -> list[Any]:
    """The dtype of each result of `scalar` on the first element of `args`."""
    lane = [a.flat[0].item() if isinstance(a, np.ndarray) else a for a in args]
    out = scalar(*lane)
    values = out if isinstance(out, tuple) else (out,)
    return [np.dtype(bool) if type(v) is bool else np.dtype(np.int64) if type(v) is int else np.dtype(np.float64) for v in values]


def numba_loop(scalar: types.FunctionType, args: tuple, numba: Any) -> Callable[..., Any]:
    """An ``njit`` loop calling the jitted original per element: the arrays indexed, the rest
    passed whole; called with `args` it returns the result array(s)."""
    inner = numba.njit(with_jitted_callees(scalar, numba))
    dtypes = _result_dtypes(scalar, args)
    params = [f"a{i}" for i in range(len(args))]
    lane = ", ".join(f"a{i}[i]" if isinstance(a, np.ndarray) else f"a{i}" for i, a in enumerate(args))
    outs = [f"out{k}" for k in range(len(dtypes))]
    body = [f"def loop({', '.join(params + outs)}):", f"    for i in range({outs[0]}.shape[0]):"]
    if len(outs) == 1:
        body.append(f"        out0[i] = inner({lane})")
    else:
        body.append(f"        r = inner({lane})")
        body += [f"        out{k}[i] = r[{k}]" for k in range(len(outs))]
    env: dict = {"inner": inner}
    exec("\n".join(body), env)  # noqa: S102 - text built from the fixed pieces above
    loop = numba.njit(env["loop"])
    shape = np.broadcast_shapes(*(a.shape for a in args if isinstance(a, np.ndarray)))
    converted = {i: _numba_value(numba, a) for i, a in enumerate(args) if not isinstance(a, np.ndarray)}

    def call(*call_args: Any) -> Any:
        whole = [converted.get(i, a) for i, a in enumerate(call_args)]
        out = [np.empty(shape, dtype=d) for d in dtypes]
        loop(*whole, *out)
        return out[0] if len(out) == 1 else tuple(out)

    return call


def numba_compiled(scalar: types.FunctionType, args: tuple) -> tuple[Callable[..., Any], str]:
    """The scalar original compiled by numba for `args` and how (``vectorize`` or ``njit loop``);
    raises what numba raises when neither compiles. Call it once (compilation) before timing."""
    numba = numba_module()
    if numba is None:
        raise ImportError("numba is not installed")
    if all(isinstance(a, (np.ndarray, int, float)) for a in args) and len(_result_dtypes(scalar, args)) == 1:
        try:
            ufunc = numba.vectorize(with_jitted_callees(scalar, numba))
            ufunc(*args)
            return ufunc, "vectorize"
        except Exception:  # noqa: BLE001 - numba could not type it: the loop is the next chance
            pass
    loop = numba_loop(scalar, args, numba)
    loop(*args)
    return loop, "njit loop"


def error_text(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:100] if text else ''}"
