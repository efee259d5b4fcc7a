"""How far each array library's transcendental functions are from CPython's ``math`` (docs/semantics.md
item 9): the largest distance in ulps, and the share of values equal, per function and backend, on
random float64 inputs over each function's domain (half log-uniform magnitudes, half uniform on a
range that matters for it). The generated code calls ``xp.<name>`` for ``math.<name>`` (and
``xp.pow`` for ``**``), so these are the differences a vectorized function inherits.

Usage: ``python tools/measure_transcendentals.py [N]`` (N values per function, default 200,000);
prints a markdown table. Backends: NumPy, array-api-strict, and PyTorch and JAX (x64) when they
import (``make test-torch`` installs PyTorch)."""

from __future__ import annotations

import math
import sys

import numpy as np

#: name -> (math function, NumPy-style name, domain low, domain high, arity)
FUNCTIONS = {
    "sin": (math.sin, "sin", -1e3, 1e3, 1),
    "cos": (math.cos, "cos", -1e3, 1e3, 1),
    "tan": (math.tan, "tan", -1e3, 1e3, 1),
    "exp": (math.exp, "exp", -745.0, 709.0, 1),
    "expm1": (math.expm1, "expm1", -40.0, 709.0, 1),
    "log": (math.log, "log", 1e-300, 1e300, 1),
    "log1p": (math.log1p, "log1p", -0.999, 1e300, 1),
    "log2": (math.log2, "log2", 1e-300, 1e300, 1),
    "log10": (math.log10, "log10", 1e-300, 1e300, 1),
    "sqrt": (math.sqrt, "sqrt", 0.0, 1e300, 1),
    "asin": (math.asin, "asin", -1.0, 1.0, 1),
    "acos": (math.acos, "acos", -1.0, 1.0, 1),
    "atan": (math.atan, "atan", -1e10, 1e10, 1),
    "sinh": (math.sinh, "sinh", -710.0, 710.0, 1),
    "cosh": (math.cosh, "cosh", -710.0, 710.0, 1),
    "tanh": (math.tanh, "tanh", -20.0, 20.0, 1),
    "asinh": (math.asinh, "asinh", -1e300, 1e300, 1),
    "acosh": (math.acosh, "acosh", 1.0, 1e300, 1),
    "atanh": (math.atanh, "atanh", -0.999999, 0.999999, 1),
    "atan2": (math.atan2, "atan2", -1e3, 1e3, 2),
    "hypot": (math.hypot, "hypot", -1e300, 1e300, 2),
    "pow": (math.pow, "pow", 0.0, 50.0, 2),
}


def ulps(a: float, b: float) -> int:
    if a == b or (a != a and b != b):
        return 0
    if not (math.isfinite(a) and math.isfinite(b)):
        return 1 << 62
    ia = int(np.float64(a).view(np.int64))
    ib = int(np.float64(b).view(np.int64))
    ia = ia if ia >= 0 else -(ia & 0x7FFFFFFFFFFFFFFF)
    ib = ib if ib >= 0 else -(ib & 0x7FFFFFFFFFFFFFFF)
    return abs(ia - ib)


def inputs(low: float, high: float, n: int, rng: np.random.Generator) -> np.ndarray:
    half = n // 2
    uniform = rng.uniform(low, high, n - half)
    top = max(abs(low), abs(high))
    if top <= 0:
        return uniform
    bottom = 1e-300
    magnitudes = np.exp(rng.uniform(math.log(bottom), math.log(top), half))
    signs = np.where(rng.random(half) < 0.5, -1.0, 1.0) if low < 0 else 1.0
    logs = np.clip(magnitudes * signs, low, high)
    return np.concatenate([uniform, logs])


def backends() -> dict:
    found = {"numpy": (np, lambda a: a, lambda r: np.asarray(r))}
    try:
        import array_api_strict as xp

        found["array-api-strict"] = (xp, xp.asarray, lambda r: np.asarray(r))
    except ImportError:
        pass
    try:
        import torch

        found["torch"] = (torch, lambda a: torch.from_numpy(a.copy()), lambda r: r.numpy())
    except ImportError:
        pass
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        found["jax"] = (jnp, jnp.asarray, lambda r: np.asarray(r))
    except ImportError:
        pass
    return found


def measure(n: int) -> dict:
    rng = np.random.default_rng(2026_12_06)
    found = backends()
    rows = {}
    for name, (fn, xp_name, low, high, arity) in FUNCTIONS.items():
        args = [inputs(low, high, n, rng) for _ in range(arity)]
        want = []
        for values in zip(*args):
            try:
                want.append(fn(*map(float, values)))
            except (ValueError, OverflowError):
                want.append(None)  # D3: CPython raises; the library's IEEE value is documented apart
        row = {}
        for backend, (xp, to, back) in found.items():
            f = getattr(xp, xp_name, None) or getattr(xp, {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "atan2": "arctan2", "pow": "power"}.get(xp_name, xp_name), None)
            if f is None:
                continue
            with np.errstate(all="ignore"):
                got = back(f(*[to(a) for a in args])).tolist()
            counted = [(g, w) for g, w in zip(got, want) if w is not None]
            distances = [ulps(g, w) for g, w in counted]
            row[backend] = (max(distances), sum(d == 0 for d in distances) / len(distances))
        rows[name] = row
    return rows


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    rows = measure(n)
    names = sorted({b for row in rows.values() for b in row}, key=lambda b: ["numpy", "array-api-strict", "torch", "jax"].index(b))
    print(f"| function | {' | '.join(f'{b}: max ulps (equal)' for b in names)} |")
    print(f"|---|{'---|' * len(names)}")
    for name, row in rows.items():
        cells = []
        for b in names:
            if b not in row:
                cells.append("-")
                continue
            worst, equal = row[b]
            cells.append(("inf/nan differs" if worst >= 1 << 62 else f"{worst:,}") + f" ({equal:.1%})")
        print(f"| `{name}` | {' | '.join(cells)} |")
    print(f"\n{n:,} values per function; NumPy {np.__version__}")


if __name__ == "__main__":
    main()
