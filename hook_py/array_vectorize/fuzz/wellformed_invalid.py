"""``Invalid``: what the well-formedness checker raises for a program that is not well-formed
(``wellformed.Invalid``, ``wellformed_expressions.Invalid`` and ``wellformed_ext.Invalid`` are
this class): defined here, below every module of the checker (``wellformed_recursion.py`` too)."""

from __future__ import annotations


class Invalid(Exception):
    """A program outside the forms the generator writes."""
