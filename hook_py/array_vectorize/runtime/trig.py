"""``sin_x, cos_x = _vec_sincos(xp, x)``: ``xp.sin(x)`` and ``xp.cos(x)`` of one array, which
generated code asks for where one statement takes both (src/codegen/sincos.rs; issue 30).

On a NumPy float64 array of ``SINCOS_MIN_LANES`` lanes or more, the two arrays come from one
pass of the C library's ``sincos`` (the core's ``sin_cos_at``, src/host/trig.rs): one argument
reduction and one call per lane instead of two ufunc passes, about 0.75 of their time. glibc's
``sincos`` runs the code of its ``sin`` and ``cos``, so each lane's bits are theirs, which
NumPy's float64 ``sin`` and ``cos`` call one element at a time. Where NumPy computes them
otherwise (a build with its own SIMD loops) the bits could differ; so the native pass runs only
once a probe of special and ordinary values (``_probe_agrees``) found it equal, bit for bit, to
``numpy.sin`` and ``numpy.cos`` in this process (D10: an optimization never changes a lane).
Any other value (smaller or non-contiguous arrays, other dtypes, other namespaces, tracers, Dask) gets
``(xp.sin(x), xp.cos(x))``, as the statement computed before.

Floating-point warnings stay NumPy's: the C library raises a flag (invalid, underflow) only for
an infinity, a NaN or a subnormal, which the native pass reports having seen; then ``numpy.sin``
and ``numpy.cos`` run again on those lanes alone, so the caller's ``numpy.errstate`` warns (or
raises) as the two ufuncs did on the whole array.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: ``_core.sin_cos_at(x, sin, cos, n)``: bound by ``registry`` (the runtime reads the compiled
#: core only through the registry); None leaves every call to ``xp.sin`` and ``xp.cos``.
NATIVE: Any = None

#: Below this many lanes the two ufunc calls cost less than the native pass's set-up (two
#: allocations, three buffer addresses: ~2 us).
SINCOS_MIN_LANES = 256

#: None until the first native call probes; then whether the native pass is used.
_AGREES: Any = None


def _vec_sincos(xp: Any, x: Any) -> tuple:
    """``(xp.sin(x), xp.cos(x))``, from one native pass where that gives the same bits."""
    # Ordered so that a small array (a loop's every iteration on a few lanes) leaves after the
    # first two tests.
    if (
        type(x) is (_NDARRAY or _ndarray())
        and x.size >= SINCOS_MIN_LANES
        and x.dtype.char == "d"
        and NATIVE is not None
        and x.flags.c_contiguous
        and (_AGREES if _AGREES is not None else _probe())
    ):
        return _native(sys.modules["numpy"], x)
    return xp.sin(x), xp.cos(x)


#: ``numpy.ndarray`` once NumPy is loaded (``_ndarray``).
_NDARRAY: Any = None


def _ndarray() -> Any:
    global _NDARRAY
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return _NoArray
    _NDARRAY = numpy.ndarray
    return _NDARRAY


class _NoArray:
    """A type no value has: ``_vec_sincos``'s array type while NumPy is not loaded."""


def _native(numpy: Any, x: Any) -> tuple:
    """``numpy.sin(x)`` and ``numpy.cos(x)`` of the C-contiguous float64 ``x``, from ``NATIVE``
    (``x`` and the two new arrays stay referenced here while it runs)."""
    sin = numpy.empty(x.shape)
    cos = numpy.empty(x.shape)
    if NATIVE(_address(x), _address(sin), _address(cos), x.size):
        # The lanes whose flags NumPy's ufuncs would report, through them (results unused).
        a = numpy.abs(x)
        flagged = x[~((a >= 2.2250738585072014e-308) & (a <= 1.7976931348623157e308)) & (x != 0.0)]
        numpy.sin(flagged)
        numpy.cos(flagged)
    return sin, cos


def _address(a: Any) -> int:
    return a.__array_interface__["data"][0]


def _probe() -> bool:
    """Whether ``NATIVE`` gives ``numpy.sin``'s and ``numpy.cos``'s bits on values of every
    range the C library treats apart (signed zeros, subnormals, below and above 2**-27, the
    0.855469 and 2.426265 cut-offs, multiples of pi/2, huge arguments, infinities, NaN), and on
    random ones; remembered for the process."""
    global _AGREES
    numpy = sys.modules["numpy"]
    special = [0.0, -0.0, 5e-324, -5e-324, 2.2e-308, 1e-300, 7.45e-9, 7.46e-9, 0.855469, 0.855470,
               2.426265, 2.426266, 105414350.0, 105414351.0, 1e22, 1.7976931348623157e308,
               float("inf"), float("-inf"), float("nan")]
    rng = numpy.random.default_rng(20261206)
    x = numpy.concatenate([
        numpy.array(special), -numpy.array(special[2:]),
        numpy.pi / 2 * numpy.arange(-64, 65),
        rng.uniform(-7.0, 7.0, 2048), rng.uniform(-1e6, 1e6, 512), numpy.exp(rng.uniform(-700, 700, 512)),
    ])
    with numpy.errstate(all="ignore"):
        want = numpy.sin(x), numpy.cos(x)
        got = _native(numpy, x)
    _AGREES = all(numpy.array_equal(g.view(numpy.uint64), w.view(numpy.uint64)) for g, w in zip(got, want))
    return _AGREES
