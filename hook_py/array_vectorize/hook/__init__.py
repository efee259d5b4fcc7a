"""The import hook behind ``import array_vectorize.auto`` (DESIGN.md section 2, way 2).

- ``finder``: the meta-path finder (delegates every lookup; the cheap bail-out), the loaders that
  hand a marked module to ``prepare`` just before it runs, and ``install``/``uninstall``;
- ``prepare``: per marked module, the cache or the Rust core, then ``precompiled.register``;
- ``cache``: the content-keyed cache files under ``__pycache__``;
- ``unmarked``: per-directory records of sources without marks (a ``stat`` instead of a read);
- ``cli``: ``python -m array_vectorize cache info|clear PATH``.
"""

from .finder import install, is_installed, uninstall

__all__ = ["install", "is_installed", "uninstall"]
