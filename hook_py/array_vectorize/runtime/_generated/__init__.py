"""Generated data of the runtime, never edited by hand: each file's docstring names the script that
rewrites it (``special_tables``: ``tools/special_coefficients.py``). Like the rest of the
runtime, a stdlib-only leaf (tests/unit/test_layering.py); exempt from the line limit of
hand-written files (tests/unit/test_python_layering.py)."""
