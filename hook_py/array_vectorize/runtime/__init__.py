"""Runtime helpers called by generated code (a stdlib-only leaf: standard library and
``array_api_compat`` only; never NumPy, never other ``array_vectorize`` modules but the compiled
``_core``, whose helper contract ``registry`` binds).

Modules:

* ``registry``: ``RUNTIME_HELPERS`` (stable key -> emitted name, callable: the core's
  ``_core.RUNTIME_HELPERS`` bound to the functions below) and ``helper_globals``;
* ``args``: the argument prologues ``_vec_float_args`` and ``_vec_exact_args``;
* ``blocked``: cache-blocked evaluation of large NumPy inputs (the ``Dispatch`` in a function's
  exact-body slot, and the float prologue that sends large inputs there), its blocks on the
  worker threads of ``threads``; ``marks`` holds the mark a prologue leaves for the ``Dispatch``
  (below ``blocked`` and ``containers``, which both read or leave it);
* ``arith``: ``_vec_binary`` and ``_vec_unary`` (CPython arithmetic, lane by lane), on top of
  ``compare`` (exact mixed-kind comparisons), ``intops`` (int64 world and uint64 lattice) and
  ``division`` (correctly rounded integer true division);
* ``select``: ``_vec_select``, ``_vec_broadcast``;
* ``elementwise``: ``_vec_elementwise`` (the ``fallback=True`` element loop);
* ``containers``: pandas Series and xarray DataArray arguments (computed on their arrays, the
  results put back in the same kind of container);
* ``special``: the ``math`` functions the Array API lacks (D17), listed in ``SPECIAL_HELPERS``
  (not yet registered), on top of ``special_exact`` (``fmod``, ``remainder``, ``fsum``,
  ``round(x, n)``, ``isclose``), ``_generated/special_tables`` (polynomial tables, written by
  ``tools/special_coefficients.py``) and ``eft`` (error-free float transformations);
* ``trig``: ``_vec_sincos`` (``sin`` and ``cos`` of one array in one native pass where that
  gives NumPy's bits);
* ``dtype``: kinds and per-namespace dtype tables;
* ``compat``: ``array_api_compat``, imported on first use.

Every divergence from CPython is listed in the docstring of the module that implements it.
"""

from .registry import RUNTIME_HELPERS, helper_globals

__all__ = ["RUNTIME_HELPERS", "helper_globals"]
