"""Runtime helpers called by generated code (a stdlib-only leaf: standard library and
``array_api_compat`` only; never NumPy, never other ``array_vectorize`` modules).

Modules:

* ``registry``: ``RUNTIME_HELPERS`` (stable key -> emitted name, callable) and ``helper_globals``;
* ``args``: the argument prologues ``_vec_float_args`` and ``_vec_exact_args``;
* ``blocked``: cache-blocked evaluation of large NumPy inputs (the ``Dispatch`` in a function's
  exact-body slot, and the float prologue that sends large inputs there);
* ``arith``: ``_vec_binary`` and ``_vec_unary`` (CPython arithmetic, lane by lane), on top of
  ``compare`` (exact mixed-kind comparisons), ``intops`` (int64 world and uint64 lattice) and
  ``division`` (correctly rounded integer true division);
* ``select``: ``_vec_select``, ``_vec_minmax``, ``_vec_broadcast``;
* ``elementwise``: ``_vec_elementwise`` (the ``fallback=True`` element loop);
* ``dtype``: kinds and per-namespace dtype tables;
* ``compat``: ``array_api_compat``, imported on first use.

Every divergence from CPython is listed in the docstring of the module that implements it.
"""

from .registry import RUNTIME_HELPERS, helper_globals

__all__ = ["RUNTIME_HELPERS", "helper_globals"]
