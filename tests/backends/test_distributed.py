"""Past one machine: vectorized functions on a dask.distributed cluster of two worker processes
(examples/dask_cluster): the whole-array call on chunked Dask arrays and ``map_blocks`` of a
vectorized function, both checked against the scalar originals element by element."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
pytest.importorskip("dask.array")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dask_cluster"


@pytest.fixture(scope="module")
def client():
    with pytest.MonkeyPatch.context() as mp:
        # The workers are processes of their own: they import `kernels` by name.
        mp.setenv("PYTHONPATH", str(EXAMPLE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        mp.syspath_prepend(str(EXAMPLE))
        # The workers' scratch space (dask-scratch-space and its lock files) in a directory
        # removed with the cluster, not left in the temporary directory (docs/testing.md,
        # "Temporary files"; .ci/run fails on files the suite leaves).
        with tempfile.TemporaryDirectory(prefix="dask-workers-") as scratch, dask.config.set(
            {"temporary-directory": scratch}
        ), distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", local_directory=scratch
        ) as cluster, distributed.Client(cluster) as c:
            yield c
    sys.modules.pop("main", None)


def test_whole_array_calls_and_map_blocks_on_worker_processes(client):
    import main

    report = main.run(client, n=8_000, chunks=1_000)
    assert report["workers"] == 2
    assert report["whole-array call: wrong elements"] == 0
    assert report["map_blocks: wrong elements"] == 0


def test_the_check_notices_a_wrong_element(client):
    import kernels
    import main

    arrays, lazy = main.make_inputs(2_000, 500)
    args = [arrays["gross"], arrays["pension"]]
    got = client.compute(kernels.income_tax(lazy["gross"], lazy["pension"])).result()
    assert main.mismatches(kernels.income_tax, args, got) == 0
    got[100] += 0.01
    assert main.mismatches(kernels.income_tax, args, got) == 1
