"""verify=example_args: a differential check of the generated function against the scalar
original at decoration time."""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from ._core import VectorizationError


def _same(got: Any, expected: Any) -> bool:
    """Equal as CPython sees it, with NaN equal to NaN and the sign of zero significant."""
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(got, float) and math.isnan(got)
    if got != expected:
        return False
    if isinstance(expected, float) and expected == 0.0:
        return math.copysign(1.0, got) == math.copysign(1.0, expected)
    return True


def verify_against_original(vec: Any, original: Any, example_args: Any) -> None:
    """Runs `vec` on `example_args` (a tuple of arrays/scalars) and the scalar original on each
    element; raises VectorizationError on the first mismatch."""
    import numpy as np  # verify is opt-in; NumPy is its oracle container

    args = example_args if isinstance(example_args, tuple) else (example_args,)
    arrays = np.broadcast_arrays(*[np.asarray(a) for a in args])
    result = np.asarray(vec(*args))
    result = np.broadcast_to(result, arrays[0].shape)
    for index in np.ndindex(arrays[0].shape):
        scalars = [a[index].item() for a in arrays]
        try:
            expected = original(*scalars)
        except (ArithmeticError, ValueError):
            continue  # D3: the scalar original raises; the vectorized result is an IEEE value
        got = result[index].item()
        if not _same(got, expected):
            raise VectorizationError(
                f"verify: {original.__qualname__}{tuple(scalars)} is {expected!r} in CPython "
                f"but the vectorized function gives {got!r}"
            )
