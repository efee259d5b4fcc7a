"""``_vec_horner``: a polynomial in Horner form over one float array, in one pass on NumPy.

Codegen (src/codegen/horner.rs) prints a polynomial of the float body in one array ``x`` with
float constants, ``c2 + x * (c1 + x * c0)`` as written or any mix of ``+``, ``-`` and operand
orders of the same shape, as ``_vec_horner(xp, x, (c0, c1, c2), "++", False)``:

    acc = x * c0
    acc = acc + c1          # "+" (or c1 - acc: "-")
    acc = acc * x
    acc = acc + c2
    acc = acc * x           # when times_x

On a C-contiguous float64 ``numpy.ndarray`` the core's kernel (src/host/kernels.rs) computes
every lane at once, its accumulator in a register: the same IEEE operations in the same order
as the array passes below, so the same bits (NumPy's two passes per coefficient each stream the
block through the caches: seawater_density's three polynomials are 22 of its 29 operations).
NumPy's floating-point warnings (``np.errstate``) are kept: a lane that overflows or becomes
NaN stays infinite or NaN to the end, so when the kernel reports a lane that is not finite, or
NumPy's ``under`` setting is not ``ignore``, the polynomial is computed again by the passes,
which warn (or raise) as before. Every other array (0-d, strided, another namespace, JAX under
a trace) takes the passes: ``x * c0`` fresh, then in place on NumPy, out of place elsewhere.

Small arrays take the kernel too: it is handed the two arrays themselves (the core reads their
C array interface, ~0.1 us each, where ``__array_interface__`` built a dict of ~1.2 us), and
the ``under`` setting is read again only when NumPy's error state object changed
(``_under_ignored``): a 10-element polynomial of five coefficients costs ~1.8 us, against
~4.3 us for its nine array operations (loaded machine; ~4.8 us before).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from .marks import is_ndarray

#: The core's kernel, ``_core.horner_f64`` (registry.py binds it: the runtime reads the core
#: through the registry alone).
_kernel: Any = None


def _passes(x: Any, coefficients: tuple, ops: str, times_x: bool, subtract: Any = None) -> Any:
    """The polynomial as array operations, in the order of the generated in-place chain: in
    place when `subtract` (NumPy's ufunc) is given and `x` is a NumPy array of a dimension
    or more, out of place otherwise."""
    acc = x * coefficients[0]
    for k, (op, c) in enumerate(zip(ops, coefficients[1:])):
        if subtract is not None:
            if k:
                acc *= x
            if op == "+":
                acc += c
            else:
                subtract(c, acc, out=acc)
        else:
            if k:
                acc = acc * x
            acc = acc + c if op == "+" else c - acc
    if times_x:
        if subtract is not None:
            acc *= x
        else:
            acc = acc * x
    return acc


def _vec_horner(xp: Any, x: Any, coefficients: tuple, ops: str, times_x: bool) -> Any:
    if is_ndarray(x) and x.ndim:
        np = sys.modules["numpy"]  # an argument is a numpy.ndarray: NumPy is loaded
        dtype = x.dtype
        if dtype.char == "d" and dtype.isnative and x.flags.c_contiguous and _under_ignored(np):
            out = np.empty(x.shape)
            if not _kernel(out, x, coefficients, ops, times_x):
                return out
        return _passes(x, coefficients, ops, times_x, np.subtract)
    return _passes(x, coefficients, ops, times_x)


#: NumPy 2's context variable holding its floating-point error state (``numpy.errstate`` and
#: ``numpy.seterr`` set a new state object, never change one), once looked up; False where
#: NumPy has none (NumPy 1).
_ERROR_STATE: Any = None
#: The last error state object seen and whether its ``under`` is ``ignore`` (one tuple, so that
#: threads read a consistent pair; it keeps that object alive, so its identity is not reused).
_UNDER_SEEN: tuple = (None, False)


def _under_ignored(np: Any) -> bool:
    """Whether NumPy's ``under`` setting is ``ignore`` here: ``np.geterr()`` builds a dict
    (~0.8 us), asked again only when the error state object differs from the last one seen."""
    global _ERROR_STATE, _UNDER_SEEN
    var = _ERROR_STATE
    if var is None:
        config = getattr(getattr(np, "_core", None), "_ufunc_config", None)
        var = _ERROR_STATE = getattr(config, "_extobj_contextvar", None) or False
    if var is False:
        return np.geterr()["under"] == "ignore"
    state = var.get()
    seen, ignored = _UNDER_SEEN
    if state is not seen:
        ignored = np.geterr()["under"] == "ignore"
        _UNDER_SEEN = (state, ignored)
    return ignored
