"""docstring._dedent, the vectorized docstring's shortcut around ``textwrap.dedent``: the same
text as the standard library's dedent (the oracle) for every source, indented or not."""

from __future__ import annotations

import inspect
import random
import textwrap

from array_vectorize import docstring

PIECES = ["", " ", "  ", "\t", "\n", "\r", "\x0c", "x", "def f(a):", "    return a", "  # tax", "\t\tpass"]


def test_dedent_is_textwrap_dedent_on_random_texts():
    rng = random.Random(30)
    for _ in range(5000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randrange(12)))
        assert docstring._dedent(text) == textwrap.dedent(text), repr(text)


def test_dedent_is_textwrap_dedent_on_sources():
    def payroll_tax(wage, rate):
        base = min(wage, 160_200.0)

        return base * rate

    sources = [inspect.getsource(payroll_tax), textwrap.dedent(inspect.getsource(payroll_tax))]
    sources += [s.replace("\n\n", "\n    \n") for s in sources]  # a whitespace-only line
    for source in sources:
        assert docstring._dedent(source) == textwrap.dedent(source)
    assert docstring._dedent(sources[3]) != sources[3]  # the shortcut's case still blanks it
