"""The import hook behind ``import array_vectorize.auto`` (DESIGN.md section 2, way 2).

- ``finder``: the meta-path finder (delegates lookups, cheap bail-out) and the loaders that compile
  a module's marked functions before it executes;
- ``cache``: the content-keyed cache files under ``__pycache__``;
- ``cli``: ``python -m array_vectorize cache info|clear PATH``.
"""

from .finder import install, is_installed, uninstall

__all__ = ["install", "is_installed", "uninstall"]
