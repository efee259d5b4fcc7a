"""Generated-source snapshots (reference: tests/golden), compared by `ast.dump` so formatting
drift does not matter but any change of the code does. `UPDATE_GOLDEN=1` rewrites them: review
the diff, never edit an expected file by hand."""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASES = sorted((HERE / "cases").glob("*.py"))


def vectorized_functions(path: Path):
    spec = importlib.util.spec_from_file_location(f"golden_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: obj for name, obj in vars(module).items() if hasattr(obj, "_vectorized_original")}


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_generated_source_matches_snapshot(case):
    functions = vectorized_functions(case)
    assert functions, f"{case.name} has no vectorized function"
    for name, vec in sorted(functions.items()):
        expected_path = HERE / "expected" / f"{case.stem}__{name}.py"
        if os.environ.get("UPDATE_GOLDEN"):
            expected_path.write_text(vec.source)
            continue
        assert expected_path.exists(), f"no snapshot {expected_path.name}; run with UPDATE_GOLDEN=1 and review"
        expected = expected_path.read_text()
        assert ast.dump(ast.parse(vec.source)) == ast.dump(ast.parse(expected)), (
            f"{case.name}:{name} generated source changed:\n{vec.source}"
        )


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
@pytest.mark.parametrize("kind", ["float64", "int64", "mixed"])
def test_golden_cases_compute_what_cpython_computes(case, kind):
    # The snapshots pin the text; this runs each case against CPython element by element, on
    # float64 edges and random values, int64 edges (beyond 2**53 too) and a mix of both.
    import inspect

    import numpy as np
    from oracle import check, floats, ints

    for name, vec in sorted(vectorized_functions(case).items()):
        n = len(inspect.signature(vec._vectorized_original).parameters)
        columns = []
        for i in range(n):
            use_int = kind == "int64" or (kind == "mixed" and i % 2 == 1)
            base = ints(8, seed=i) if use_int else floats(12, seed=i)
            columns.append(np.resize(np.roll(base, 3 * i), 400))
        check(vec, *columns, ulps=4)
