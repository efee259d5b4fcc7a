"""``import array_vectorize.auto`` installs the import hook.

Every module imported afterwards whose functions are marked with ``vectorize`` (``@vectorize``,
``@vectorize(...)``, ``@array_vectorize.vectorize``, an ``as`` alias) has them compiled by the Rust
core as it loads, and the result is cached in ``__pycache__`` next to CPython's ``.pyc`` files,
keyed by the content of the source, the compiler and the interpreter. The next import of the
unchanged module compiles nothing. The generated code and the results are the same as the plain
decorator's; a function whose environment the static compile cannot vouch for is compiled by its
decorator as usual.

Installing is idempotent; ``uninstall()`` removes the hook (``install()`` puts it back). Switches:
``ARRAY_VECTORIZE_CACHE=0`` (no cache files), ``ARRAY_VECTORIZE_NO_COMPILE=1`` (never compile; only
cached or wheel-precompiled code runs), ``ARRAY_VECTORIZE_DEBUG=hook`` (one line per module that mentions
array_vectorize on stderr; ``hook-all``: every module). ``python -m array_vectorize cache info|clear PATH`` inspects and removes cache files.
"""

from .hook import install, is_installed, uninstall

__all__ = ["install", "is_installed", "uninstall"]

install()
