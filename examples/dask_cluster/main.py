"""Vectorized functions on a dask.distributed cluster: two worker processes on this machine.

    python examples/dask_cluster/main.py

1. The whole-array call on chunked Dask arrays: the generated code builds a lazy graph of array
   operations (NumPy's functions per chunk), which the workers compute.
2. ``map_blocks`` of a vectorized function: each worker unpickles the function by reference (it
   imports ``kernels`` and so runs its decorators) and calls it on its NumPy chunks.

Both results are checked against the scalar originals, element by element. Nothing here is
specific to one machine: a ``Client`` connected to a remote scheduler runs the same code, as
long as the workers can import ``kernels`` (and array_vectorize).
"""

from __future__ import annotations

import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def make_inputs(n: int, chunks: int):
    import dask.array as da
    import numpy as np

    rng = np.random.default_rng(2024)
    gross = rng.lognormal(10.3, 0.7, n)
    gross[:8] = [0.0, -0.0, 12_570.0, 50_270.0, 100_000.0, 125_140.0, 1e9, math.inf]
    pension = rng.uniform(0.0, 0.1, n)
    years = rng.integers(0, 12, n).astype(np.float64)
    deposit = rng.uniform(0.0, 50_000.0, n)
    arrays = {"gross": gross, "pension": pension, "years": years, "deposit": deposit}
    return arrays, {k: da.from_array(v, chunks=chunks) for k, v in arrays.items()}


def mismatches(vec, args, got) -> int:
    """Elements where `got` differs from the scalar original (NaN equals NaN, signs of zero count)."""
    original = vec._vectorized_original
    columns = [a.tolist() if hasattr(a, "tolist") else [a] * len(got) for a in args]
    bad = 0
    for i, value in enumerate(got.tolist()):
        want = original(*(c[i] for c in columns))
        same = value == want and math.copysign(1.0, value) == math.copysign(1.0, want)
        if not (same or (value != value and want != want)):
            bad += 1
    return bad


def run(client, n: int = 20_000, chunks: int = 2_500) -> dict:
    """Both ways on the cluster of `client`; the count of wrong elements and the times."""
    import dask.array as da

    import kernels

    arrays, lazy = make_inputs(n, chunks)
    report = {}
    t0 = time.perf_counter()
    tax = kernels.income_tax(lazy["gross"], lazy["pension"])  # a lazy graph, nothing computed yet
    assert isinstance(tax, da.Array), type(tax)
    tax = client.compute(tax).result()
    report["whole-array call: wrong elements"] = mismatches(kernels.income_tax, [arrays["gross"], arrays["pension"]], tax)
    report["whole-array call: seconds"] = round(time.perf_counter() - t0, 3)

    t0 = time.perf_counter()
    saved = da.map_blocks(kernels.savings_after, lazy["years"], lazy["deposit"], 0.04, dtype=float)
    saved = client.compute(saved).result()
    report["map_blocks: wrong elements"] = mismatches(kernels.savings_after, [arrays["years"], arrays["deposit"], 0.04], saved)
    report["map_blocks: seconds"] = round(time.perf_counter() - t0, 3)
    report["workers"] = len(client.scheduler_info()["workers"])
    return report


def main() -> int:
    from distributed import Client, LocalCluster

    sys.path.insert(0, HERE)
    # Worker processes import `kernels` by name when they unpickle map_blocks' function.
    os.environ["PYTHONPATH"] = HERE + os.pathsep + os.environ.get("PYTHONPATH", "")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            report = run(client)
    for key, value in report.items():
        print(f"{key}: {value}")
    return 0 if report["whole-array call: wrong elements"] == report["map_blocks: wrong elements"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
