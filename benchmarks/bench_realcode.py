"""The real-code benchmark (issue 30): the functions of ``realcode/`` timed side by side in one run.

    python benchmarks/bench_realcode.py [--quick] [--only NAME[,NAME...]]

For every function of the real-code set, on 1e6 elements: the generated code on NumPy (and the
same on one thread, ``ARRAY_VECTORIZE_THREADS=1``), the generated code under ``jax.jit`` (XLA on
one thread, as ``run.py`` sets it), numba compiling the scalar original (``peers.py``: the
helpers jitted, ``numba.vectorize``, or an ``njit`` loop where that fails), the hand-written
NumPy where one is written, and ``np.vectorize``; the peak memory of one call of each of the
first three. For the integer set: the generated code against the hand-written NumPy (the bar),
and numba beside it.

Wall clock (``time.perf_counter``), the garbage collector off while timing, the variants of one
function timed round-robin (the order rotated every repeat) so that load on the machine hits
them alike; each ratio is the median over repeats of the ratio of calls made back to back.
``np.vectorize`` is timed on ``NPVEC_N`` elements and scaled linearly to 1e6, which flatters
it (so the speed-ups over it are conservative). Floating-point warnings are silenced for every
variant (``np.errstate(all="ignore")``): D1 evaluates both sides of a branch, as the
hand-written code does.

``run(quick=False) -> dict`` gives ``{"real": rows, "integer": rows, "bars": [...]}``;
``report(result)`` prints it (``run.py`` calls both).
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import peers  # noqa: E402
import realcode  # noqa: E402

N = 1_000_000
CLOCK = time.perf_counter
THREADS_ENV = "ARRAY_VECTORIZE_THREADS"


class Config:
    def __init__(self, quick: bool) -> None:
        self.quick = quick
        self.repeats = 3 if quick else 9
        self.npvec_n = 10_000 if quick else 100_000


class one_thread:
    """``with one_thread():`` large generated calls run in the calling thread alone."""

    def __enter__(self) -> None:
        self.saved = os.environ.get(THREADS_ENV)
        os.environ[THREADS_ENV] = "1"

    def __exit__(self, *exc: Any) -> None:
        if self.saved is None:
            del os.environ[THREADS_ENV]
        else:
            os.environ[THREADS_ENV] = self.saved


def _finish(value: Any) -> Any:
    """Waits for a JAX result (a tuple's too); anything else as it is."""
    for leaf in value if isinstance(value, tuple) else (value,):
        ready = getattr(leaf, "block_until_ready", None)
        if ready is not None:
            ready()
    return value


def round_robin(variants: dict[str, Callable[[], Any]], repeats: int) -> dict[str, list[float]]:
    """Seconds per call of each variant, `repeats` samples each, the order rotated every repeat."""
    names = list(variants)
    for fn in variants.values():  # warm-up: compiled, caches and pools filled
        fn()
        fn()
    samples: dict[str, list[float]] = {k: [] for k in names}
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(repeats):
            for k in names[r % len(names) :] + names[: r % len(names)]:
                with one_thread() if k.endswith("_1t") else _nothing():
                    t0 = CLOCK()
                    variants[k]()
                    samples[k].append(CLOCK() - t0)
    finally:
        if gc_was_enabled:
            gc.enable()
    return samples


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _ratio(samples: dict[str, list[float]], a: str, b: str) -> float | None:
    if a not in samples or b not in samples:
        return None
    return statistics.median(x / y for x, y in zip(samples[a], samples[b]))


def _jitted(gen: Callable[..., Any], args: tuple) -> Callable[[], Any]:
    """``jax.jit`` of the generated function over the array arguments (as JAX arrays); the other
    arguments (numbers, parameter dicts) bound in a closure, as a caller of a jitted model does."""
    jax = peers.jax()
    if jax is None:
        raise ImportError("jax is not installed")
    import jax.numpy as jnp

    at = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    arrays = [jnp.asarray(args[i]) for i in at]

    def over_arrays(*arrs: Any) -> Any:
        full = list(args)
        for i, a in zip(at, arrs):
            full[i] = a
        return gen(*full)

    jit = jax.jit(over_arrays)
    return lambda: _finish(jit(*arrays))


def _np_vectorized(case: realcode.Case, args: tuple, n: int) -> float:
    """Seconds of ``np.vectorize`` of the original on `n` elements, scaled to ``N``."""
    small = tuple(a[:n] if isinstance(a, np.ndarray) else a for a in args)
    dtypes = peers._result_dtypes(case.scalar, small)
    excluded = {i for i, a in enumerate(small) if not isinstance(a, (np.ndarray, int, float))}
    vec = np.vectorize(case.scalar, otypes=dtypes, excluded=excluded)
    t0 = CLOCK()
    vec(*small)
    return (CLOCK() - t0) * N / n


def _variants(case: realcode.Case, args: tuple, row: dict) -> dict[str, Callable[[], Any]]:
    """The callables to time for `case` (each records why it is missing in `row`)."""
    variants: dict[str, Callable[[], Any]] = {}
    try:
        gen = case.generated()
        gen(*args)
    except Exception as exc:  # noqa: BLE001 - a function the compiler rejects is a finding
        row["gen_error"] = peers.error_text(exc)
        return variants
    variants["gen"] = lambda: gen(*args)
    variants["gen_1t"] = lambda: gen(*args)
    if case.hand is not None:
        variants["hand"] = lambda: case.hand(*args)
    try:
        nb, row["numba_how"] = peers.numba_compiled(case.scalar, args)
        variants["numba"] = lambda: nb(*args)
    except Exception as exc:  # noqa: BLE001 - numba cannot compile every function: a finding
        row["numba_error"] = peers.error_text(exc)
    try:
        jitted = _jitted(gen, args)
        jitted()
        variants["jax"] = jitted
    except Exception as exc:  # noqa: BLE001 - a trace that fails is a finding (item 3)
        row["jax_error"] = peers.error_text(exc)
    return variants


def measure(case: realcode.Case, cfg: Config) -> dict:
    row: dict[str, Any] = {"function": case.name, "domain": case.domain}
    args = case.make_args(np.random.default_rng(20260101), N)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        variants = _variants(case, args, row)
        if not variants:
            return row
        samples = round_robin(variants, cfg.repeats)
        for k, s in samples.items():
            row[f"{k}_ms"] = statistics.median(s) * 1e3
        for a, b in (("gen", "numba"), ("gen_1t", "numba"), ("gen", "hand"), ("gen_1t", "hand"), ("jax", "numba")):
            r = _ratio(samples, a, b)
            if r is not None:
                row[f"{a}_vs_{b}"] = r
        for k in ("gen", "hand", "numba"):
            if k in variants:
                row[f"{k}_mb"] = peers.peak_bytes(lambda f=variants[k]: f(), ()) / 1e6
        npvec = _np_vectorized(case, args, cfg.npvec_n)
        row["npvec_ms"] = npvec * 1e3
        row["speedup"] = npvec / (row["gen_ms"] / 1e3)
    return row


def _median(rows: list[dict], key: str) -> tuple[float, int]:
    values = [r[key] for r in rows if key in r]
    return (statistics.median(values) if values else float("nan")), len(values)


def _worst(rows: list[dict], key: str) -> tuple[float, str]:
    have = [r for r in rows if key in r]
    if not have:
        return float("nan"), "-"
    w = max(have, key=lambda r: r[key])
    return w[key], w["function"]


def bars(real: list[dict], integer: list[dict]) -> list[dict]:
    out = []
    med, n = _median(integer, "gen_vs_hand")
    worst, wname = _worst(integer, "gen_vs_hand")
    out += [
        {"what": f"integer set: generated / hand-written NumPy, median ({n} functions)", "figure": f"{med:.2f}", "bar": "<= 1.0", "met": med <= 1.0},
        {"what": "integer set: generated / hand-written NumPy, worst", "figure": f"{worst:.2f} ({wname})", "bar": "<= 1.3", "met": worst <= 1.3},
    ]
    failed = [r["function"] for r in real if "gen_error" in r]
    med, n = _median(real, "gen_vs_numba")
    worst, wname = _worst(real, "gen_vs_numba")
    numba_n = sum(1 for r in real if "numba_ms" in r)
    out += [
        {
            "what": f"real code: generated (NumPy) / numba, median (the {n} both compile; numba {numba_n}/{len(real)}, array-vectorize {len(real) - len(failed)}/{len(real)})",
            "figure": f"{med:.2f}",
            "bar": "<= 1.5",
            "met": med <= 1.5,
        },
        {"what": "real code: generated (NumPy) / numba, worst", "figure": f"{worst:.2f} ({wname})", "bar": "<= 5", "met": worst <= 5.0},
    ]
    untraced = [r["function"] for r in real if "jax_error" in r and "gen_error" not in r and not realcode.by_name(r["function"]).raises]
    out.append(
        {
            "what": "real code: every function that cannot raise runs under jax.jit",
            "figure": f"{sum(1 for r in real if 'jax_ms' in r)}/{len(real)} run" + (f"; fail: {', '.join(untraced)}" if untraced else ""),
            "bar": "all",
            "met": not untraced,
        }
    )
    med, n = _median(real, "jax_vs_numba")
    out.append({"what": f"real code: jax.jit(generated) / numba, median ({n} functions)", "figure": f"{med:.2f}", "bar": "<= 1.2", "met": med <= 1.2})
    slow = min((r for r in real if "speedup" in r), key=lambda r: r["speedup"], default=None)
    if slow is not None:
        out.append(
            {
                "what": "real code: speed-up over np.vectorize, lowest",
                "figure": f"{slow['speedup']:.1f}x ({slow['function']})",
                "bar": ">= 10x",
                "met": slow["speedup"] >= 10.0,
            }
        )
    over = [r["function"] for r in real if "hand_mb" in r and r["gen_mb"] > r["hand_mb"] + 0.01]
    out.append(
        {
            "what": "real code: peak memory at or below the hand-written NumPy's",
            "figure": f"{sum(1 for r in real if 'hand_mb' in r) - len(over)}/{sum(1 for r in real if 'hand_mb' in r)}" + (f"; above: {', '.join(over)}" if over else ""),
            "bar": "all",
            "met": not over,
        }
    )
    if failed:
        out.append({"what": "real code: functions the compiler rejects", "figure": ", ".join(failed), "bar": "none", "met": False})
    return out


def run(quick: bool = False, only: set[str] | None = None) -> dict:
    cfg = Config(quick)
    real_cases, int_cases = realcode.load()
    result: dict[str, Any] = {"n": N, "repeats": cfg.repeats, "npvec_n": cfg.npvec_n}
    for key, cases in (("real", real_cases), ("integer", int_cases)):
        rows = []
        for case in cases:
            if only and case.name not in only:
                continue
            rows.append(measure(case, cfg))
            print(f"  {key} {case.name}: " + _progress(rows[-1]), file=sys.stderr)
        result[key] = rows
    result["bars"] = bars(result["real"], result["integer"])
    return result


def _progress(row: dict) -> str:
    keys = ("gen_ms", "hand_ms", "numba_ms", "jax_ms", "gen_vs_numba", "gen_vs_hand")
    return "  ".join(f"{k} {row[k]:.2f}" for k in keys if k in row) or str(row)


def _f(row: dict, key: str, fmt: str = "{:.2f}", missing: str = "-") -> str:
    return fmt.format(row[key]) if key in row else missing


def report(result: dict, table: Callable[[list[str], list[list[str]]], str]) -> None:
    """Prints both sets with `table(headers, rows)` (run.py's markdown table)."""
    print(f"\n## Real code: {result['n']:,} elements (median of {result['repeats']} round-robin calls)\n")
    rows = []
    for r in result["real"]:
        rows.append(
            [
                r["function"],
                r["domain"],
                _f(r, "gen_ms"),
                _f(r, "gen_1t_ms"),
                _f(r, "hand_ms"),
                _f(r, "numba_ms") + (" (loop)" if r.get("numba_how") == "njit loop" else ""),
                _f(r, "jax_ms", missing=r.get("jax_error", r.get("gen_error", "-"))[:38]),
                _f(r, "gen_vs_numba"),
                _f(r, "gen_1t_vs_numba"),
                _f(r, "jax_vs_numba"),
                _f(r, "gen_vs_hand"),
                _f(r, "speedup", "{:.0f}x"),
                f"{_f(r, 'gen_mb', '{:.0f}')} / {_f(r, 'hand_mb', '{:.0f}')} / {_f(r, 'numba_mb', '{:.0f}')}",
            ]
        )
    print(
        table(
            [
                "function",
                "domain",
                "generated ms",
                "1 thread ms",
                "hand ms",
                "numba ms",
                "jax.jit ms",
                "gen / numba",
                "1 thread / numba",
                "jax / numba",
                "gen / hand",
                "vs np.vectorize",
                "peak MB gen / hand / numba",
            ],
            rows,
        )
    )
    errors = [(r["function"], r["numba_error"]) for r in result["real"] if "numba_error" in r]
    if errors:
        print("\nnumba cannot compile: " + "; ".join(f"{n} ({e})" for n, e in errors))
    print(f"\n## Integer set: {result['n']:,} int64 elements\n")
    rows = [
        [
            r["function"],
            r["domain"],
            _f(r, "hand_ms"),
            _f(r, "gen_ms"),
            _f(r, "gen_vs_hand", "{:.3f}"),
            _f(r, "numba_ms"),
            _f(r, "gen_vs_numba"),
            _f(r, "speedup", "{:.0f}x"),
            f"{_f(r, 'gen_mb', '{:.0f}')} / {_f(r, 'hand_mb', '{:.0f}')}",
        ]
        for r in result["integer"]
    ]
    print(table(["function", "domain", "hand ms", "generated ms", "gen / hand", "numba ms", "gen / numba", "vs np.vectorize", "peak MB gen / hand"], rows))


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    quick = "--quick" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = set(sys.argv[sys.argv.index("--only") + 1].split(","))
    res = run(quick, only)
    report(res, _table)
    for b in res["bars"]:
        print(f"{b['what']}: {b['figure']} (bar {b['bar']}): {'met' if b['met'] else 'NOT met'}")
