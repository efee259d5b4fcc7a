"""Memory under an address-space limit (``ulimit -v``, ``prlimit --as``, as HPC batch systems
set): decorating a function must not take address space that a later NumPy allocation needs.
The core's global allocator is mimalloc, whose first allocation, with its default options,
reserved a 1 GiB arena that was never released (issue 28 item 6): under 1400 MB, plain NumPy
allocated two arrays of 381 MiB, and after decorating one function the same allocation raised
MemoryError. Its arenas are now disallowed (src/host/allocator.rs): this test pins that."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

LIMIT = 1400 * 1000 * 1000

CHILD = """
import resource
import sys
# The limit first, before anything allocates (as `prlimit --as` would set it; a preexec_fn would
# make subprocess fork, which JAX, loaded by other tests, warns about).
resource.setrlimit(resource.RLIMIT_AS, (BYTES, BYTES))
import numpy as np
if sys.argv[1] == "decorate":
    import math
    from array_vectorize import vectorize

    @vectorize
    def discounted(cash, rate, years):
        return cash * math.exp(-rate * years) if years > 0.0 else cash

    assert discounted(np.array([100.0, 50.0]), 0.05, 2.0).tolist() == [100.0 * math.exp(-0.1), 50.0 * math.exp(-0.1)]
first = np.ones(50_000_000)
second = np.ones(50_000_000)
print("allocated", (first.nbytes + second.nbytes) >> 20, "MiB")
"""


def _run(script, mode: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(script), mode], capture_output=True, text=True, timeout=120,
        env={k: v for k, v in os.environ.items() if not k.startswith("ARRAY_VECTORIZE")},
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux counts it")
def test_decorating_leaves_the_address_space_to_numpy(tmp_path):
    script = tmp_path / "allocate.py"
    script.write_text(CHILD.replace("BYTES", str(LIMIT)))
    plain = _run(script, "plain")
    assert plain.returncode == 0 and "allocated 762 MiB" in plain.stdout, plain.stderr  # the limit leaves room for this
    decorated = _run(script, "decorate")
    assert decorated.returncode == 0, decorated.stderr
    assert "allocated 762 MiB" in decorated.stdout
