"""Grammar fuzzer: random scalar programs in the supported language, vectorized and checked
against CPython element by element (docs/testing.md).

``python -m array_vectorize.fuzz --seed N --count M`` is the entry point (``__main__.py``).

* ``generator.py`` writes well-formed random programs (module text: constants, helpers, lambdas
  and the entry function ``f``), plus, at a low rate, programs with one unsupported construct
  that must be rejected with a positioned ``VectorizationError``; its statements and its
  expressions are the mixins ``grammar_statements.py`` and ``grammar_expressions.py``, and
  ``grammar_env.py`` the names in scope that all of them read;
* ``grammar_raise.py`` (D11: ``raise``, ``assert``, a validation helper, ``try``),
  ``grammar_calls.py`` (D14 uniform parameters, D16 NumPy calls, D17 functions) and
  ``grammar_containers.py`` (D18 local lists, tuples and dicts, D20 names some elements never
  assign) are the generator's newer parts, each drawn from a random stream of its own;
* ``wellformed.py`` (with ``wellformed_expressions.py`` for the rules of expressions and calls,
  and ``wellformed_ext.py`` and ``wellformed_containers.py`` for those constructs) is the static
  checker of well-formedness (every path returns, no reads of possibly undefined names but the
  D20 ones, conditions of ``if`` statements are booleans), used on every generated program and
  on every candidate of the minimizer;
* ``inputs.py`` makes the input columns (random and edge values of float64, int64, uint64, bool);
* ``oracle.py`` runs CPython on every element (with the IEEE values of D3 where it raises, and
  CPython's exceptions inside ``try`` bodies and from explicit raises) and holds the comparison of
  one element; ``oracle_ieee.py`` holds the IEEE arithmetic and the facts of an element's run
  (below both), ``oracle_calls.py`` gives the D17 functions' IEEE values and ``np`` as NumPy;
* ``model.py`` interprets the IR the core reports, with CPython's semantics and with the
  documented array rules, to tell a documented difference from a bug (docs/testing.md);
* ``minimize.py`` shrinks a failing program while the failure persists;
* ``runner.py`` ties them together and prints the report.

The fuzzer needs NumPy (and array-api-strict for the ``strict`` backend); the rest of the
package does not.
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv=None) -> int:
    from .runner import main as _main

    return _main(argv)
