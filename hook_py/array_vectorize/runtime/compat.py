"""``array_api_compat``, imported on first use.

Importing it costs ~10 ms in a fresh interpreter (it pulls in ``inspect``, ``ast`` and
``typing``), and a process that imports array-vectorize but never calls a generated function
(an import of precompiled code, a build) should not pay that. The first attribute read here
imports it; the value is then a plain module global, so later reads cost a dict lookup.
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    import array_api_compat

    value = getattr(array_api_compat, name)
    globals()[name] = value
    return value
