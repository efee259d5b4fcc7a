"""The test of a data-dependent loop (D12): ``while _vec_any(xp, active):``.

On an eager namespace this is ``bool(xp.any(active))``. On a lazy one (Dask) it computes the
mask's graph once per iteration. Under tracing (``jax.jit``) the lanes' values are unknown when
the Python loop runs, so the loop cannot be driven: a ``VectorizationError`` says so instead of
the tracer's own error.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The exception raised under tracing: ``registry`` binds it to the core's ``VectorizationError``
#: (the runtime reads the compiled core only through the registry).
TRACED_LOOP_ERROR: type = RuntimeError


#: ``(numpy.ndarray, numpy.count_nonzero)`` once NumPy is loaded (``_numpy_fast``).
_NUMPY_FAST: Any = None


def _numpy_fast() -> Any:
    global _NUMPY_FAST
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return (_NoArray, None)
    _NUMPY_FAST = (numpy.ndarray, numpy.count_nonzero)
    return _NUMPY_FAST


class _NoArray:
    """A type no value has: the fast path's type while NumPy is not loaded."""


def _vec_any(xp: Any, mask: Any) -> bool:
    """Whether any lane of the bool array ``mask`` is true, as a Python bool.

    A bool ``numpy.ndarray`` (exactly that type) is tested with ``count_nonzero``: ~0.2 us on a
    10-element mask against ~2 us for ``any`` (NumPy's reduction wrapper), which the loop pays
    once per iteration; the count is nonzero exactly when some lane is true."""
    nd, count = _NUMPY_FAST or _numpy_fast()
    if type(mask) is nd and mask.dtype.char == "?":
        return count(mask) != 0
    try:
        return bool(xp.any(mask))
    except Exception as exc:
        if not type(exc).__module__.startswith("jax"):
            raise
        err = TRACED_LOOP_ERROR(
            "a `while` loop (or a loop with `break`) of a vectorized function cannot run under "
            "jax.jit: how many iterations it takes depends on the values of the lanes, which "
            "tracing does not know (D12). Call the function outside jax.jit, or with concrete "
            "arrays."
        )
        err.diagnostics = []
        raise err from exc
