"""Scalar scientific functions written for this repository in the styles of public physics,
engineering, astronomy, weather and colour packages (the scout of session 20): constants modules
and class namespaces, a numerics module re-exporting `math` and NumPy names, helpers imported
across modules (`from .numerics import horner`, `from . import constants as C`), type hints,
docstrings, `isinstance` guards, `raise ValueError(f"...")`, string `method=` switches, Newton
iterations with an iteration limit, coefficient tables, early returns. None of it is decorated:
tests/corpus/test_scout_sci_corpus.py decorates each function and compares it with CPython."""
