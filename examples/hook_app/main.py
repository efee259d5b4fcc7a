"""Way 2, the import hook: run this twice.

    .venv/bin/python examples/hook_app/main.py     # after `make demo`, from the checkout's root

The first run compiles the marked functions of ``kernels`` as it is imported and writes
``__pycache__/kernels.<tag>.array-vectorize-<version>.avc``; the second finds them there and
compiles nothing. ``ARRAY_VECTORIZE_DEBUG=hook`` shows what the hook did with each marked module
(``hook-all``: with every module, the skipped ones too).
"""

import array_vectorize.auto  # noqa: F401 - first: installs the hook for every later import

import sys

import numpy as np

import array_vectorize
import kernels

x = np.linspace(-1.0, 2.0, 7)
results = {
    "smoothstep": (kernels.smoothstep(x, 0.0, 1.0), lambda v: kernels.smoothstep._vectorized_original(v, 0.0, 1.0)),
    "huber": (kernels.huber(x, 1.0), lambda v: kernels.huber._vectorized_original(v, 1.0)),
    "safe_log_ratio": (kernels.safe_log_ratio(x, 0.5), lambda v: kernels.safe_log_ratio._vectorized_original(v, 0.5)),
}
for name, (got, scalar) in results.items():
    expected = np.array([scalar(v) for v in x.tolist()], dtype=np.float64)
    assert np.array_equal(got, expected), f"{name}: vectorized result differs from CPython"
    print(f"{name}{tuple(np.round(got, 4).tolist())}")
print("every result matches the scalar original element by element")
stats = array_vectorize.stats()
print(f"compiled: {stats['compiled']}, read from the hook's cache: {stats['disk_cache_hits']}")
if sys.dont_write_bytecode:
    print("(PYTHONDONTWRITEBYTECODE or -B is set: like CPython's .pyc files, the cache is read, not written)")
